// SPDX-License-Identifier: BSD-3-Clause
// BlockMessSchedule's untyped members for host memory, compiled once, in the
// library; its typed executions are in instances/ (see the end of
// block_mess_schedule.hpp).
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

template class BlockMessSchedule<Kokkos::HostSpace>;

}  // namespace adlib
