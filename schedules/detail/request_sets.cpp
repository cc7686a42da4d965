// SPDX-License-Identifier: BSD-3-Clause
// The request sets' untyped work: finding, evicting, making and freeing
// persistent requests (see request_sets.hpp).
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/detail/request_sets.hpp>

namespace adlib::detail {

namespace {

constexpr const char* kOperation = "BlockMessSchedule";

}  // namespace

RequestSet& RequestSets::find_or_make(const RequestSetKey& key, const RequestBinding& binding) {
  for (auto it = sets_.begin(); it != sets_.end(); ++it)
    if (it->key == key) {
      it->last_use = ++clock_;
      return *it;
    }
  if (sets_.size() >= kKept) {
    auto oldest = sets_.begin();
    for (auto it = sets_.begin(); it != sets_.end(); ++it)
      if (it->last_use < oldest->last_use) oldest = it;
    free(*oldest);
    sets_.erase(oldest);
  }
  sets_.emplace_back();
  RequestSet& set = sets_.back();
  set.key = key;
  set.last_use = ++clock_;
  try {
    make(set, binding);
  } catch (...) {
    free(set);
    sets_.pop_back();
    throw;
  }
  return set;
}

void RequestSets::make(RequestSet& set, const RequestBinding& binding) {
  const MessageRoute& route = *set.key.route;
  const auto size = static_cast<std::int64_t>(binding.element_size);
  const auto arrays = static_cast<std::int64_t>(route.kind().arrays);
  // The pack buffer, the user's memory as it is (one contiguous block), or
  // a datatype over the message's blocks in it.
  auto target = [&](const RoutedMessage& routed, unsigned char* memory, unsigned char* buffer) {
    const PeerMessage& m = *routed.message;
    if (!routed.in_place)
      return RequestTarget{buffer + routed.buffer_offset * size, static_cast<int>(arrays * m.count),
                           set.key.element};
    if (!routed.datatype)
      return RequestTarget{memory + m.blocks[0].lowest_offset() * size, static_cast<int>(m.count),
                           set.key.element};
    set.types.push_back(blocks_datatype(m.blocks, set.key.element, binding.element_size));
    return RequestTarget{memory, 1, set.types.back().get()};
  };
  for (const RoutedMessage& routed : route.incoming()) {
    const RequestTarget t =
        target(routed, static_cast<unsigned char*>(binding.dst), binding.incoming_buffer);
    MPI_Request r;
    ADLIB_MPI(MPI_Recv_init(t.address, t.count, t.type, routed.message->peer, binding.tag,
                            binding.comm, &r),
              kOperation);
    set.incoming.push_back(r);
    set.expected.push_back(t);
  }
  // MPI only reads a send buffer; its C interface still takes void*.
  auto* source = static_cast<unsigned char*>(const_cast<void*>(binding.src));
  for (const RoutedMessage& routed : route.outgoing()) {
    const RequestTarget t = target(routed, source, binding.outgoing_buffer);
    MPI_Request r;
    ADLIB_MPI(MPI_Send_init(t.address, t.count, t.type, routed.message->peer, binding.tag,
                            binding.comm, &r),
              kOperation);
    set.outgoing.push_back(r);
  }
}

void RequestSets::free(RequestSet& set) {
  int finalized = 0;
  ADLIB_MPI_CLEANUP(MPI_Finalized(&finalized));
  if (finalized) return;
  for (auto* list : {&set.incoming, &set.outgoing})
    for (auto& r : *list)
      if (r != MPI_REQUEST_NULL) ADLIB_MPI_CLEANUP(MPI_Request_free(&r));
}

}  // namespace adlib::detail
