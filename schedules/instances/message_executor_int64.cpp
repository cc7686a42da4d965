// SPDX-License-Identifier: BSD-3-Clause
// BlockMessSchedule's executions of std::int64_t elements, compiled once, in
// the library (see the end of block_mess_schedule.hpp).
#include <adlib/schedules/block_mess_schedule.hpp>

namespace adlib {

ADLIB_SHIPPED_ORDERED_COMBINES(ADLIB_BLOCK_MESS_SCHEDULE_DEFINE, std::int64_t)

}  // namespace adlib
