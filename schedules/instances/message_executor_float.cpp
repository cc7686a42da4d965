// SPDX-License-Identifier: BSD-3-Clause
// MessageExecutor's executions of float elements, compiled once, in
// the library (see the end of message_executor.hpp).
#include <adlib/schedules/detail/message_executor.hpp>

namespace adlib::detail {

ADLIB_SHIPPED_ORDERED_COMBINES(ADLIB_MESSAGE_EXECUTOR_DEFINE, float)

}  // namespace adlib::detail
