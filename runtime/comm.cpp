// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/comm.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include <adlib/runtime/detail/verdict.hpp>
#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

// Shared between a Comm and the tag leases it handed out, so a lease can
// outlive the Comm object that created it.
struct TagLease::State {
  std::mutex mutex;
  TagAllocator tags;
  // Tag 0 stays out of the pool: it is exchange_sparse's (sparse_exchange_tag).
  explicit State(int upper_bound) : tags(1, upper_bound) {}
};

struct Comm::State {
  MPI_Comm dup = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  std::shared_ptr<TagLease::State> tags;
  // Derived objects, built once: sub-communicators by rank list, and the
  // attachments of attach() by key.
  std::mutex derived_mutex;
  std::map<std::vector<int>, Comm> subsets;
  std::map<std::string, std::shared_ptr<const void>> attachments;

  ~State() {
    int finalized = 0;
    ADLIB_MPI_CLEANUP(MPI_Finalized(&finalized));
    if (!finalized && dup != MPI_COMM_NULL) ADLIB_MPI_CLEANUP(MPI_Comm_free(&dup));
  }
};

namespace {

// The attribute holds a heap-allocated shared_ptr<Comm::State>; deleting the
// attribute (user communicator freed, or MPI finalising) drops that reference.
int delete_cached_state(MPI_Comm, int, void* attribute, void*) {
  delete static_cast<std::shared_ptr<Comm::State>*>(attribute);
  return MPI_SUCCESS;
}

int comm_keyval() {
  static int keyval = MPI_KEYVAL_INVALID;
  if (keyval == MPI_KEYVAL_INVALID)
    ADLIB_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cached_state, &keyval, nullptr),
              "Comm");
  return keyval;
}

}  // namespace

Comm::Comm(MPI_Comm user) {
  if (user == MPI_COMM_NULL) throw Error("MPI_COMM_NULL is not a communicator", -1, "Comm");
  void* attribute = nullptr;
  int found = 0;
  const int keyval = comm_keyval();
  ADLIB_MPI(MPI_Comm_get_attr(user, keyval, &attribute, &found), "Comm");
  if (found) {
    state_ = *static_cast<std::shared_ptr<State>*>(attribute);
    return;
  }
  state_ = std::make_shared<State>();
  ADLIB_MPI(MPI_Comm_dup(user, &state_->dup), "Comm");
  // Errors on the library's messages come back as codes, which ADLIB_MPI
  // turns into adlib::Error (the user communicator keeps its own handler).
  ADLIB_MPI(MPI_Comm_set_errhandler(state_->dup, MPI_ERRORS_RETURN), "Comm");
  ADLIB_MPI(MPI_Comm_rank(state_->dup, &state_->rank), "Comm");
  ADLIB_MPI(MPI_Comm_size(state_->dup, &state_->size), "Comm");
  int* upper = nullptr;
  int has_upper = 0;
  ADLIB_MPI(MPI_Comm_get_attr(state_->dup, MPI_TAG_UB, &upper, &has_upper), "Comm");
  state_->tags = std::make_shared<TagLease::State>(has_upper ? *upper : 32767);
  // The hang watchdog's window of wait records spans MPI_COMM_WORLD: the
  // first communicator over the whole world (collective there) makes it.
  detail::open_watchdog_window_if_needed(state_->dup);
  ADLIB_MPI(MPI_Comm_set_attr(user, keyval, new std::shared_ptr<State>(state_)), "Comm");
}

MPI_Comm Comm::get() const {
  return state_->dup;
}
int Comm::rank() const {
  return state_->rank;
}
int Comm::size() const {
  return state_->size;
}

TagLease Comm::lease_tag() const {
  std::lock_guard<std::mutex> lock(state_->tags->mutex);
  return TagLease(state_->tags, state_->tags->tags.acquire());
}

Comm Comm::subset(const std::vector<int>& ranks) const {
  bool whole = static_cast<int>(ranks.size()) == size();
  for (std::size_t i = 0; whole && i < ranks.size(); ++i) whole = ranks[i] == static_cast<int>(i);
  if (whole) return *this;
  {
    std::lock_guard<std::mutex> lock(state_->derived_mutex);
    auto found = state_->subsets.find(ranks);
    if (found != state_->subsets.end()) return found->second;
  }
  MPI_Group all = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
  ADLIB_MPI(MPI_Comm_group(state_->dup, &all), "Comm::subset");
  ADLIB_MPI(MPI_Group_incl(all, static_cast<int>(ranks.size()), ranks.data(), &members),
            "Comm::subset");
  MPI_Comm created = MPI_COMM_NULL;
  // Collective over the members only, so ranks outside a sub-grid take no
  // part (MPI_Comm_split would need every rank of the communicator).
  ADLIB_MPI(MPI_Comm_create_group(state_->dup, members, 0, &created), "Comm::subset");
  ADLIB_MPI(MPI_Group_free(&members), "Comm::subset");
  ADLIB_MPI(MPI_Group_free(&all), "Comm::subset");
  // The library Comm of `created` is its own duplicate; `created` itself is
  // needed no longer.
  Comm result(created);
  ADLIB_MPI(MPI_Comm_free(&created), "Comm::subset");
  std::lock_guard<std::mutex> lock(state_->derived_mutex);
  state_->subsets.emplace(ranks, result);
  return result;
}

std::shared_ptr<const void> Comm::attachment(const std::string& key) const {
  std::lock_guard<std::mutex> lock(state_->derived_mutex);
  auto found = state_->attachments.find(key);
  return found == state_->attachments.end() ? nullptr : found->second;
}

void Comm::attach(const std::string& key, std::shared_ptr<const void> value) const {
  std::lock_guard<std::mutex> lock(state_->derived_mutex);
  state_->attachments[key] = std::move(value);
}

int Comm::live_tags() const {
  std::lock_guard<std::mutex> lock(state_->tags->mutex);
  return state_->tags->tags.live_count();
}

TagLease::TagLease(TagLease&& other) noexcept : state_(std::move(other.state_)), tag_(other.tag_) {
  other.tag_ = -1;
}

TagLease& TagLease::operator=(TagLease&& other) noexcept {
  if (this != &other) {
    release();
    state_ = std::move(other.state_);
    tag_ = other.tag_;
    other.tag_ = -1;
  }
  return *this;
}

TagLease::~TagLease() {
  release();
}

void TagLease::release() noexcept {
  if (state_ && tag_ >= 0) {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->tags.release(tag_);
  }
  state_.reset();
  tag_ = -1;
}

namespace {

// Tags [first + 64 w, first + 64 w + 63] per mask word; one window is what
// the constructors' agreement carries.
constexpr int kWindowWords = detail::kMostExtraWords;

// Lowest clear bit of the window, or -1.
int lowest_free(const std::uint64_t* words) {
  for (int w = 0; w < kWindowWords; ++w)
    if (~words[w] != 0)
      for (int b = 0; b < 64; ++b)
        if (!(words[w] >> b & 1u)) return 64 * w + b;
  return -1;
}

}  // namespace

TagLease Comm::lease_agreed_tag(const std::string& local_error, std::uint64_t fingerprint,
                                const char* operation) const {
  TagLease::State& tags = *state_->tags;
  int first = 0, upper = 0;
  std::uint64_t used[kWindowWords];
  auto mark_used = [&](long long window) {
    std::lock_guard<std::mutex> lock(tags.mutex);
    tags.tags.usage_mask(static_cast<int>(window), used, kWindowWords);
  };
  {
    std::lock_guard<std::mutex> lock(tags.mutex);
    first = tags.tags.first();
    upper = tags.tags.upper_bound();
  }
  // The first window of tags rides in the agreement on the arguments.
  long long window = first;
  mark_used(window);
  detail::agree(*this, local_error, fingerprint, nullptr, used, kWindowWords, operation);
  int free_bit = lowest_free(used);
  // Further windows, one allreduce each, only while every tag of the last
  // one is held on some rank.
  while (free_bit < 0 && window + 64LL * kWindowWords <= upper) {
    window += 64LL * kWindowWords;
    mark_used(window);
    ADLIB_MPI(MPI_Allreduce(MPI_IN_PLACE, used, kWindowWords, MPI_UINT64_T, MPI_BOR, get()),
              operation);
    free_bit = lowest_free(used);
  }
  const long long tag = free_bit < 0 ? upper + 1LL : window + free_bit;
  if (tag > upper)
    throw Error("all " + std::to_string(upper - first + 1) +
                    " message tags are held by live schedules on some rank",
                rank(), operation);
  std::lock_guard<std::mutex> lock(tags.mutex);
  tags.tags.take(static_cast<int>(tag));
  return TagLease(state_->tags, static_cast<int>(tag));
}

}  // namespace adlib
