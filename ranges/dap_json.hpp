// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// A JSON text form of DAP descriptors, for test fixtures and for handing
/// descriptors between programs (a Python process writes json.dumps of its
/// __distarray__ dictionary, buffer described by format, itemsize, shape and
/// strides; the pointer stays behind, as it means nothing elsewhere).
///
/// @code
///   std::string text = adlib::dap::to_json(adlib::dap::describe(a));
///   adlib::dap::Descriptor d = adlib::dap::from_json(text);   // d.buffer.data == nullptr
///   d.buffer.data = my_memory;
/// @endcode
///
/// The form follows the spec's keys: {"__version__": "0.10.0", "buffer":
/// {"format": "d", "itemsize": 8, "shape": [4, 3], "strides": [24, 8]},
/// "dim_data": [{"dist_type": "b", "size": 10, "proc_grid_size": 2,
/// "proc_grid_rank": 0, "start": 0, "stop": 4, "padding": [0, 1]}, {}]}.
/// "strides" may be left out (C order), optional keys appear only when set,
/// other keys are ignored.  Malformed text, a missing key or a value of the
/// wrong type is an adlib::Error naming the place (not collective: parsing
/// is local; validation is dap::first_violation or the import's).
///
/// Built with nlohmann-json (a build-time dependency of adlib only: this
/// header does not include it).  CMake option ADLIB_DAP_JSON (ON) leaves
/// these functions out when OFF.
#pragma once

#include <string>
#include <vector>

#include <adlib/ranges/dap_descriptor.hpp>

namespace adlib::dap {

/// One descriptor as a JSON object (without the buffer's pointer).
std::string to_json(const Descriptor& descriptor);
/// Several descriptors (one per process) as a JSON array.
std::string to_json(const std::vector<Descriptor>& per_rank);

/// A descriptor from a JSON object; buffer.data is null.
Descriptor from_json(const std::string& text);
/// Descriptors from a JSON array of objects, or from an object whose key
/// "descriptors" holds such an array (a fixture file: other keys, such as
/// an expected verdict, are the caller's).
std::vector<Descriptor> list_from_json(const std::string& text);

}  // namespace adlib::dap
