// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/version.hpp>

namespace adlib {

Version version() noexcept {
  return {ADLIB_VERSION_MAJOR, ADLIB_VERSION_MINOR, ADLIB_VERSION_PATCH};
}

const char* version_string() noexcept {
  return ADLIB_VERSION_STRING;
}

}  // namespace adlib
