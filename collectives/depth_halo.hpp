// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// DepthHalo: LFRic's halo exchange by depth for unstructured meshes.  From
/// each rank's owned ids and halo ids by depth (an UnstructuredLayout), the
/// constructor finds every halo entry's owner (a Directory: no rank needs
/// the global mesh), tells the owners what to send (one sparse exchange per
/// depth) and builds the schedule of every depth range once; execute(d, u)
/// then fills depths 1..d of a field as often as needed.
///
/// @code
///   adlib::UnstructuredLayout layout(comm, owned_ids, {depth1_ids, depth2_ids}, nlayers);
///   adlib::UnstructuredField<double> u(layout), v(layout);
///   adlib::DepthHalo halo(u);              // collective: owners found, schedules built
///   for (int step = 0; step < steps; ++step) {
///     halo.start(2, u);                    // depths 1 and 2 of u, if dirty
///     ...                                  // update the inner cells
///     halo.finish();                       // u clean to depth 2
///     ...                                  // update the cells next to the halo
///     u.set_dirty();                       // owned values changed
///   }
///   halo.execute(1, u, v);                 // two fields, one message per neighbour
///   halo.accumulate(1, u, adlib::op::add); // depth-1 halo values added into their owners
/// @endcode
///
/// Dirty tracking (UnstructuredField): an exchange to depth d brings only the
/// depths a field has dirty, c+1..d for a field clean to depth c, and sends
/// nothing at all when every field passed is clean to d; afterwards the fields
/// are clean to d.  Fields with different states in one call are grouped by
/// state, one message per neighbour per group.  A schedule is built for every
/// range c+1..d (D(D+1)/2 of them for D depths), each with one message per
/// neighbour: a depth's entries from one neighbour sit next to each other in
/// LFRic's order, so they are received in place.
///
/// Columns: each entry's `column` values travel together, as one block per
/// run of consecutive entries (index lists elsewhere, with runs of a column
/// or more as rows).
///
/// Errors on every rank: a halo id that no rank owns, an id owned by two
/// ranks, a negative or repeated id on a rank, layouts whose depths or
/// columns differ between ranks (constructor); a depth beyond the layout's,
/// a field of another layout (execution; agreed across ranks in checked
/// mode, which also checks that every rank sees the same dirty states).
#pragma once

#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/collectives/depth_halo_plan.hpp>
#include <adlib/collectives/detail/planned_schedule.hpp>
#include <adlib/ranges/unstructured_field.hpp>
#include <adlib/ranges/unstructured_layout.hpp>
#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/directory.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_mess_schedule.hpp>
#include <adlib/schedules/data_plan.hpp>

namespace adlib {

/// The halo exchanges by depth of one UnstructuredLayout (see the file
/// overview): construct once (collective), execute many times, on one field
/// or several.
template <class T, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class DepthHalo {
  static_assert(std::is_trivially_copyable<T>::value, "DepthHalo moves values as bytes");

 public:
  /// The fields it exchanges.
  using field_type = UnstructuredField<T, MemorySpace>;
  /// One planned exchange.
  using schedule_type = BlockMessSchedule<MemorySpace>;

  /// Collective over layout.comm(): finds the owner of every halo entry and
  /// builds the exchange of every depth range.  Every rank agrees first on
  /// the layouts' validity, depths and columns, the element type and
  /// `config`.
  explicit DepthHalo(const UnstructuredLayout& layout,
                     const Configuration& config = Configuration::environment());
  /// The same for `field`'s layout.
  explicit DepthHalo(const field_type& field,
                     const Configuration& config = Configuration::environment())
      : DepthHalo(field.layout(), config) {}
  DepthHalo(const DepthHalo&) = delete;
  DepthHalo& operator=(const DepthHalo&) = delete;

  /// Fills halo depths 1..`depth` of every field that has them dirty (0 <=
  /// depth <= layout().depth(); 0 does nothing), then marks them clean.
  template <class... More>
  void execute(int depth, const field_type& first, const More&... more) {
    start(depth, first, more...);
    finish();
  }
  /// execute() in two halves: returns once messages are posted.  Until
  /// finish(), the fields' halo entries up to `depth` must not be read or
  /// written and their owned entries must not be written.
  template <class... More>
  void start(int depth, const field_type& first, const More&... more);
  /// Completes the exchange (or accumulation) that start() began and updates
  /// the fields' dirty state.
  void finish();

  /// The reverse of execute(depth), for shared entries and assembly: every
  /// halo value of depths 1..`depth` is combined with `combine` (op::add by
  /// default) into the owner's entry, the owner's own value first, then
  /// other ranks' contributions in rank order (reproducible bitwise).  Every
  /// depth is exchanged, clean or not, and the field is dirty afterwards
  /// (its owners changed); the halo entries keep their values.
  template <class Combine = op::Add>
  void accumulate(int depth, const field_type& field, Combine combine = {}) {
    start_accumulate(depth, field, combine);
    finish();
  }
  /// accumulate() in two halves: until finish(), the field must not be
  /// touched.
  template <class Combine = op::Add>
  void start_accumulate(int depth, const field_type& field, Combine combine = {});

  /// The layout every field must have.
  const UnstructuredLayout& layout() const { return layout_; }
  /// Depths it exchanges (the layout's).
  int depth() const { return layout_.depth(); }
  /// The configuration it was built with (agreed across ranks).
  const Configuration& configuration() const { return config_; }
  /// The schedule that brings depths clean+1 .. depth up to date (0 <= clean
  /// < depth <= this->depth()): its plan, messages and tag.
  const schedule_type& schedule(int clean, int depth) const {
    return *schedules_.at(schedule_index(clean, depth));
  }
  /// Messages this rank sends in an exchange of depths clean+1 .. depth.
  std::size_t messages(int clean, int depth) const {
    return schedule(clean, depth).plan().send_messages().size();
  }
  /// Between start() and finish()?
  bool in_flight() const { return in_flight_; }

 private:
  static constexpr const char* kOperation = "DepthHalo";

  static std::size_t schedule_index(int clean, int depth) {
    if (clean < 0 || clean >= depth)
      throw Error(
          "no schedule for depths " + std::to_string(clean + 1) + ".." + std::to_string(depth), -1,
          kOperation);
    return static_cast<std::size_t>(depth * (depth - 1) / 2 + clean);
  }

  std::string depth_error(int depth) const {
    if (depth < 0 || depth > layout_.depth())
      return "depth " + std::to_string(depth) + " is beyond the " +
             std::to_string(layout_.depth()) + " halo depths of the layout";
    return {};
  }
  std::string field_error(const field_type& field) const {
    if (field.layout() == layout_) return {};
    return "a field of another UnstructuredLayout (" + field.layout().describe() +
           ") than the schedule's (" + layout_.describe() +
           "): fields must share the schedule's layout object";
  }
  /// Unchecked: a local error throws here.  Checked: every rank agrees on
  /// the verdicts and on what was asked (`arguments()`: the depth, the
  /// fields' states, the combine), so a rank that asks differently throws
  /// with the others, told which argument differs.
  template <class Arguments>
  void agree_to_execute(const std::string& error, const Arguments& arguments,
                        const char* operation) const {
    detail::name_next_execution(operation);  // what the hang watchdog reports
    if (!config_.checked) {
      if (!error.empty()) throw Error(error, layout_.comm().rank(), operation);
      return;
    }
    agree_on_arguments(layout_.comm(), error, arguments(), operation);
  }
  void start_schedule(schedule_type& schedule, const std::vector<const field_type*>& fields,
                      Direction direction);

  UnstructuredLayout layout_;
  Configuration config_;
  std::vector<std::unique_ptr<schedule_type>> schedules_;  ///< by schedule_index

  /// The exchange in flight: its schedules, and the fields and the state
  /// they reach at finish() (clean to `pending_clean_`, or dirty when -1).
  bool in_flight_ = false;
  std::vector<schedule_type*> running_;
  std::vector<field_type> pending_;
  int pending_clean_ = 0;
  /// Scratch lists of start(), kept to reuse their memory.
  std::vector<const field_type*> group_;
  std::vector<T*> destinations_;
  std::vector<const T*> sources_;
};

/// Deduction guide: the value type and memory space come from the field
/// (adlib::DepthHalo halo(u);).
template <class T, class MemorySpace>
DepthHalo(const UnstructuredField<T, MemorySpace>&) -> DepthHalo<T, MemorySpace>;
/// Deduction guide with a Configuration.
template <class T, class MemorySpace>
DepthHalo(const UnstructuredField<T, MemorySpace>&, const Configuration&)
    -> DepthHalo<T, MemorySpace>;

// ---------------------------------------------------------------------------
// Implementation

template <class T, class MemorySpace>
DepthHalo<T, MemorySpace>::DepthHalo(const UnstructuredLayout& layout, const Configuration& config)
    : layout_(layout), config_(config) {
  const Comm& comm = layout.comm();
  std::string error = config.error;
  if (error.empty()) error = layout.error();
  agree_on_arguments(comm, error,
                     {{"layout", layout.fingerprint(), [&] { return layout.describe(); }},
                      agreed_element_type<T>(),
                      agreed_configuration(config)},
                     kOperation);

  // The owned ids are the front of the layout's list: registered in place.
  const auto& ids = layout.ids();
  const auto owned = static_cast<std::size_t>(layout.owned_count());
  const Directory owners(comm, ids.data(), owned, Holding::one_to_one, kOperation);
  const std::vector<IdLocation> located = owners.locate(
      std::vector<std::int64_t>(ids.begin() + static_cast<std::ptrdiff_t>(owned), ids.end()));
  // Agreed inside the first depth's negotiation (no extra reduction).
  std::string unowned = unowned_halo_error(layout, located);

  std::vector<ExchangePlan> levels;
  for (int d = 1; d <= layout.depth(); ++d) {
    const std::vector<ElementRequest> requests =
        unowned.empty() ? depth_requests(layout, located, d) : std::vector<ElementRequest>{};
    DataPlan plan = negotiate_data_plan(comm, StoredRequests(requests), RemoteAccess::read,
                                        kOperation, d == 1 ? unowned : std::string());
    levels.push_back(std::move(plan.exchange));
  }
  for (int depth = 1; depth <= layout.depth(); ++depth)
    for (int clean = 0; clean < depth; ++clean)
      schedules_.push_back(detail::build_schedule<T, MemorySpace>(
          comm, depth_range_plan(levels, clean, depth, layout.column()), config));
}

template <class T, class MemorySpace>
template <class... More>
void DepthHalo<T, MemorySpace>::start(int depth, const field_type& first, const More&... more) {
  static_assert((std::is_same<More, field_type>::value && ...),
                "DepthHalo exchanges fields of the type it was built for "
                "(UnstructuredField<T, MemorySpace>)");
  const std::array<const field_type*, 1 + sizeof...(More)> fields{&first, &more...};
  std::string error = in_flight_ ? "start() while an exchange is in flight" : depth_error(depth);
  for (const field_type* f : fields)
    if (error.empty()) error = field_error(*f);
  agree_to_execute(
      error,
      [&] {
        // How deep each field is clean decides the messages: part of what
        // every rank must ask alike.
        std::uint64_t states = detail::hash_start();
        std::string clean;
        for (const field_type* f : fields) {
          states = detail::hash_mix(states, static_cast<std::uint64_t>(f->clean_depth()));
          clean += (clean.empty() ? "" : ", ") + std::to_string(f->clean_depth());
        }
        return std::vector<AgreedArgument>{
            {"depth", static_cast<std::uint64_t>(depth), [depth] { return std::to_string(depth); }},
            {"fields' clean depths", states, [clean] { return "(" + clean + ")"; }}};
      },
      "DepthHalo::execute");

  // Fields grouped by how deep they are clean: each group needs the depths
  // below `depth` that it has dirty, in one schedule.
  in_flight_ = true;
  pending_clean_ = depth;
  for (int clean = 0; clean < depth; ++clean) {
    group_.clear();
    for (const field_type* f : fields)
      if (f->clean_depth() == clean) group_.push_back(f);
    if (group_.empty()) continue;
    schedule_type& schedule = *schedules_[schedule_index(clean, depth)];
    start_schedule(schedule, group_, Direction::forward);
    for (const field_type* f : group_) pending_.push_back(*f);
  }
}

template <class T, class MemorySpace>
template <class Combine>
void DepthHalo<T, MemorySpace>::start_accumulate(int depth, const field_type& field,
                                                 Combine combine) {
  std::string error =
      in_flight_ ? "start_accumulate() while an exchange is in flight" : depth_error(depth);
  if (error.empty()) error = field_error(field);
  agree_to_execute(
      error,
      [&] {
        return std::vector<AgreedArgument>{
            {"depth", static_cast<std::uint64_t>(depth), [depth] { return std::to_string(depth); }},
            agreed_combine(op::fingerprint(combine))};
      },
      "DepthHalo::accumulate");
  in_flight_ = true;
  pending_clean_ = -1;
  pending_.push_back(field);
  if (depth == 0) return;
  schedule_type& schedule = *schedules_[schedule_index(0, depth)];
  T* data = field.local_view().data();
  const std::size_t span = field.local_view().span();
  schedule.start(data, span, data, span, Direction::backward, combine);
  running_.push_back(&schedule);
}

template <class T, class MemorySpace>
void DepthHalo<T, MemorySpace>::start_schedule(schedule_type& schedule,
                                               const std::vector<const field_type*>& fields,
                                               Direction direction) {
  const std::size_t span = fields.front()->local_view().span();
  if (fields.size() == 1) {
    T* data = fields.front()->local_view().data();
    schedule.start(data, span, data, span, direction);
  } else {
    destinations_.clear();
    sources_.clear();
    for (const field_type* f : fields) {
      destinations_.push_back(f->local_view().data());
      sources_.push_back(f->local_view().data());
    }
    schedule.start_many(destinations_, span, sources_, span, direction);
  }
  running_.push_back(&schedule);
}

template <class T, class MemorySpace>
void DepthHalo<T, MemorySpace>::finish() {
  if (!in_flight_) return;
  // Whatever happens, the exchange is over for this object; the lists keep
  // their capacity, so exchanges allocate nothing after the first.
  in_flight_ = false;
  struct Forget {
    DepthHalo& halo;
    ~Forget() {
      halo.running_.clear();
      halo.pending_.clear();
    }
  } forget{*this};
  for (schedule_type* s : running_) s->finish();
  for (const field_type& f : pending_) {
    if (pending_clean_ < 0)
      f.set_dirty();
    else
      f.set_clean(pending_clean_);
  }
}

}  // namespace adlib
