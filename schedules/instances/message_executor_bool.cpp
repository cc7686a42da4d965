// SPDX-License-Identifier: BSD-3-Clause
// MessageExecutor's executions of bool elements, compiled once, in the
// library (see the end of message_executor.hpp).  One file per element
// type, so that a parallel build compiles them side by side.
#include <adlib/schedules/detail/message_executor.hpp>

namespace adlib::detail {

ADLIB_SHIPPED_LOGICAL_COMBINES(ADLIB_MESSAGE_EXECUTOR_DEFINE, bool)

}  // namespace adlib::detail
