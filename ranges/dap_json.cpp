// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/dap_json.hpp>

#include <nlohmann/json.hpp>

#include <adlib/runtime/error.hpp>

namespace adlib::dap {

namespace {

using nlohmann::json;

[[noreturn]] void malformed(const std::string& where, const std::string& why) {
  throw Error(where + ": " + why, -1, "dap::from_json");
}

std::int64_t integer(const json& j, const std::string& where) {
  if (j.is_number_integer()) {
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t(INT64_MAX))
      malformed(where, "integer too large");
    return j.get<std::int64_t>();
  }
  malformed(where, "expected an integer, found " + std::string(j.type_name()));
}

bool boolean(const json& j, const std::string& where) {
  if (!j.is_boolean())
    malformed(where, "expected true or false, found " + std::string(j.type_name()));
  return j.get<bool>();
}

std::vector<std::int64_t> integers(const json& j, const std::string& where) {
  if (!j.is_array()) malformed(where, "expected an array, found " + std::string(j.type_name()));
  std::vector<std::int64_t> out;
  for (size_t i = 0; i < j.size(); ++i)
    out.push_back(integer(j[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

const json& required(const json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end()) malformed(where, std::string("missing key '") + key + "'");
  return *it;
}

DimensionData dimension(const json& j, const std::string& where) {
  if (!j.is_object()) malformed(where, "expected an object, found " + std::string(j.type_name()));
  if (j.empty()) return DimensionData::undistributed();
  DimensionData d;
  const json& type = required(j, "dist_type", where);
  if (!type.is_string() || type.get<std::string>().size() != 1)
    malformed(where + ".dist_type", "expected a one-letter string");
  d.dist_type = type.get<std::string>()[0];
  d.size = integer(required(j, "size", where), where + ".size");
  d.proc_grid_size = integer(required(j, "proc_grid_size", where), where + ".proc_grid_size");
  d.proc_grid_rank = integer(required(j, "proc_grid_rank", where), where + ".proc_grid_rank");
  if (d.dist_type == 'b' || d.dist_type == 'c')
    d.start = integer(required(j, "start", where), where + ".start");
  if (d.dist_type == 'b') {
    d.stop = integer(required(j, "stop", where), where + ".stop");
    if (j.contains("padding")) {
      const auto p = integers(j["padding"], where + ".padding");
      if (p.size() != 2) malformed(where + ".padding", "expected two widths");
      d.padding = std::array<std::int64_t, 2>{p[0], p[1]};
    }
    if (j.contains("periodic")) d.periodic = boolean(j["periodic"], where + ".periodic");
  } else if (d.dist_type == 'c') {
    if (j.contains("block_size")) d.block_size = integer(j["block_size"], where + ".block_size");
  } else if (d.dist_type == 'u') {
    d.indices = integers(required(j, "indices", where), where + ".indices");
    if (j.contains("one_to_one")) d.one_to_one = boolean(j["one_to_one"], where + ".one_to_one");
  }
  return d;
}

Descriptor descriptor(const json& j, const std::string& where) {
  if (!j.is_object()) malformed(where, "expected an object, found " + std::string(j.type_name()));
  Descriptor d;
  const json& version = required(j, "__version__", where);
  if (!version.is_string()) malformed(where + ".__version__", "expected a string");
  d.version = version.get<std::string>();
  const json& buffer = required(j, "buffer", where);
  if (!buffer.is_object()) malformed(where + ".buffer", "expected an object");
  const json& format = required(buffer, "format", where + ".buffer");
  if (!format.is_string()) malformed(where + ".buffer.format", "expected a string");
  d.buffer.format = format.get<std::string>();
  d.buffer.itemsize =
      integer(required(buffer, "itemsize", where + ".buffer"), where + ".buffer.itemsize");
  d.buffer.shape = integers(required(buffer, "shape", where + ".buffer"), where + ".buffer.shape");
  if (buffer.contains("strides")) {
    d.buffer.strides = integers(buffer["strides"], where + ".buffer.strides");
  } else {  // C order
    d.buffer.strides.assign(d.buffer.shape.size(), 0);
    std::int64_t stride = d.buffer.itemsize;
    for (size_t i = d.buffer.shape.size(); i-- > 0;) {
      d.buffer.strides[i] = stride;
      // Saturate: hostile extents must not overflow (the validator reports them).
      const std::int64_t e = std::max<std::int64_t>(d.buffer.shape[i], 1);
      stride = stride > INT64_MAX / e ? INT64_MAX : stride * e;
    }
  }
  const json& dims = required(j, "dim_data", where);
  if (!dims.is_array()) malformed(where + ".dim_data", "expected an array");
  for (size_t i = 0; i < dims.size(); ++i)
    d.dim_data.push_back(dimension(dims[i], where + ".dim_data[" + std::to_string(i) + "]"));
  return d;
}

json parse(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    malformed("text", e.what());
  }
}

json to_object(const Descriptor& d) {
  json buffer = {{"format", d.buffer.format},
                 {"itemsize", d.buffer.itemsize},
                 {"shape", d.buffer.shape},
                 {"strides", d.buffer.strides}};
  json dims = json::array();
  for (const DimensionData& dim : d.dim_data) {
    if (dim.empty) {
      dims.push_back(json::object());
      continue;
    }
    json o = {{"dist_type", std::string(1, dim.dist_type)},
              {"size", dim.size},
              {"proc_grid_size", dim.proc_grid_size},
              {"proc_grid_rank", dim.proc_grid_rank}};
    if (dim.dist_type == 'b' || dim.dist_type == 'c') o["start"] = dim.start;
    if (dim.dist_type == 'b') {
      o["stop"] = dim.stop;
      if (dim.padding) o["padding"] = *dim.padding;
      if (dim.periodic) o["periodic"] = *dim.periodic;
    } else if (dim.dist_type == 'c') {
      if (dim.block_size) o["block_size"] = *dim.block_size;
    } else if (dim.dist_type == 'u') {
      o["indices"] = dim.indices;
      if (dim.one_to_one) o["one_to_one"] = *dim.one_to_one;
    }
    dims.push_back(o);
  }
  return {{"__version__", d.version}, {"buffer", buffer}, {"dim_data", dims}};
}

}  // namespace

std::string to_json(const Descriptor& descriptor) {
  return to_object(descriptor).dump();
}

std::string to_json(const std::vector<Descriptor>& per_rank) {
  json list = json::array();
  for (const Descriptor& d : per_rank) list.push_back(to_object(d));
  return list.dump();
}

Descriptor from_json(const std::string& text) {
  return descriptor(parse(text), "descriptor");
}

std::vector<Descriptor> list_from_json(const std::string& text) {
  const json j = parse(text);
  const json* list = &j;
  if (j.is_object()) list = &required(j, "descriptors", "document");
  if (!list->is_array()) malformed("document", "expected an array of descriptors");
  std::vector<Descriptor> out;
  for (size_t i = 0; i < list->size(); ++i)
    out.push_back(descriptor((*list)[i], "descriptors[" + std::to_string(i) + "]"));
  return out;
}

}  // namespace adlib::dap
