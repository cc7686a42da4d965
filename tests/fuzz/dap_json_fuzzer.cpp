// SPDX-License-Identifier: BSD-3-Clause
// libFuzzer target: the DAP's JSON reader and the validator on arbitrary
// text.  Anything may be refused with an adlib::Error, nothing may crash,
// overflow or leak (ASan + UBSan), and a descriptor set that reads must
// write and read back to the same text and the same verdict.  Seed corpus:
// tests/dap_fixtures (every example of the spec).  Run by scripts/fuzz.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <adlib/ranges/dap_json.hpp>
#include <adlib/ranges/dap_validation.hpp>
#include <adlib/runtime/error.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<adlib::dap::Descriptor> per_rank;
  try {
    per_rank = adlib::dap::list_from_json(text);
  } catch (const adlib::Error&) {
    try {
      per_rank = {adlib::dap::from_json(text)};
    } catch (const adlib::Error&) {
      return 0;
    }
  }
  const std::string verdict = adlib::dap::first_violation(per_rank);
  const std::string written = adlib::dap::to_json(per_rank);
  const auto again = adlib::dap::list_from_json(written);
  if (adlib::dap::to_json(again) != written) __builtin_trap();
  if (adlib::dap::first_violation(again) != verdict) __builtin_trap();
  return 0;
}
