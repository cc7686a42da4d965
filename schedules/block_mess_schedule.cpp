// SPDX-License-Identifier: BSD-3-Clause
// BlockMessSchedule's untyped members for host memory, compiled once, in the
// library; the typed executions are MessageExecutor's (instances/, see the
// end of message_executor.hpp).
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

template class BlockMessSchedule<Kokkos::HostSpace>;

}  // namespace adlib
