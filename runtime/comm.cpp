// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/comm.hpp>

#include <mutex>
#include <vector>

#include <adlib/runtime/error.hpp>

namespace adlib {

// Shared between a Comm and the tag leases it handed out, so a lease can
// outlive the Comm object that created it.
struct TagLease::State {
  std::mutex mutex;
  TagAllocator tags;
  explicit State(int upper_bound) : tags(1, upper_bound) {}
};

struct Comm::State {
  MPI_Comm dup = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  std::shared_ptr<TagLease::State> tags;

  ~State() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && dup != MPI_COMM_NULL) MPI_Comm_free(&dup);
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
  MPI_Comm_rank(state_->dup, &state_->rank);
  MPI_Comm_size(state_->dup, &state_->size);
  int* upper = nullptr;
  int has_upper = 0;
  MPI_Comm_get_attr(state_->dup, MPI_TAG_UB, &upper, &has_upper);
  state_->tags = std::make_shared<TagLease::State>(has_upper ? *upper : 32767);
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

void agree_on_errors(const Comm& comm, const std::string& local_error, std::uint64_t fingerprint,
                     const char* operation) {
  // {failed, fingerprint, ~fingerprint} under MAX: the fingerprints agree iff
  // max(f) == f and max(~f) == ~f on this rank, i.e. min(f) == max(f).
  std::uint64_t mine[3] = {local_error.empty() ? 0u : 1u, fingerprint, ~fingerprint};
  std::uint64_t most[3];
  ADLIB_MPI(MPI_Allreduce(mine, most, 3, MPI_UINT64_T, MPI_MAX, comm.get()), operation);
  // A rank whose fingerprint is not the minimum sees max(~f) != ~f and one that
  // is not the maximum sees max(f) != f, so a mismatch is seen by every rank.
  if (most[0] == 0) {
    if (most[1] == fingerprint && most[2] == ~fingerprint) return;
    throw Error(
        "arguments differ between ranks (every rank must pass the same layouts and "
        "parameters to a collective call)",
        comm.rank(), operation);
  }
  // Someone failed: broadcast the message of the lowest failing rank.
  int candidate = local_error.empty() ? comm.size() : comm.rank(), root = 0;
  ADLIB_MPI(MPI_Allreduce(&candidate, &root, 1, MPI_INT, MPI_MIN, comm.get()), operation);
  int length = static_cast<int>(local_error.size());
  ADLIB_MPI(MPI_Bcast(&length, 1, MPI_INT, root, comm.get()), operation);
  std::vector<char> text(local_error.begin(), local_error.end());
  text.resize(length);
  ADLIB_MPI(MPI_Bcast(text.data(), length, MPI_CHAR, root, comm.get()), operation);
  throw Error(std::string(text.begin(), text.end()), root, operation);
}

}  // namespace adlib
