// SPDX-License-Identifier: BSD-3-Clause
// MessageExecutor's untyped members for host memory, compiled once, in the
// library; its typed executions are in instances/ (see the end of
// message_executor.hpp).
#include <adlib/schedules/detail/message_executor.hpp>

namespace adlib::detail {

template class MessageExecutor<Kokkos::HostSpace>;

}  // namespace adlib::detail
