// SPDX-License-Identifier: BSD-3-Clause
// BlockMessSchedule's executions of bool elements, compiled once, in the
// library (see the end of block_mess_schedule.hpp).  One file per element
// type, so that a parallel build compiles them side by side.
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

ADLIB_SHIPPED_LOGICAL_COMBINES(ADLIB_BLOCK_MESS_SCHEDULE_DEFINE, bool)

}  // namespace adlib
