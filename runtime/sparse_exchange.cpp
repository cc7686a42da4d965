// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/sparse_exchange.hpp>

#include <mpi.h>

#include <climits>

#include <adlib/runtime/detail/watched_wait.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {
namespace detail {

std::string sparse_exchange_error(const SparseSend* sends, std::size_t count, int comm_size,
                                  std::size_t max_message_bytes) {
  for (std::size_t k = 0; k < count; ++k) {
    const SparseSend& s = sends[k];
    if (s.peer < 0 || s.peer >= comm_size)
      return "message " + std::to_string(k) + " goes to peer " + std::to_string(s.peer) +
             ", not a rank of the communicator (size " + std::to_string(comm_size) + ")";
    if (s.bytes > max_message_bytes)
      return "message " + std::to_string(k) + " to peer " + std::to_string(s.peer) + " has " +
             std::to_string(s.bytes) + " bytes, more than the " +
             std::to_string(max_message_bytes) + " one MPI message carries";
  }
  // Duplicates, found by sorting the peers: O(messages), not a table of P.
  std::vector<int> peers(count);
  for (std::size_t k = 0; k < count; ++k) peers[k] = sends[k].peer;
  std::sort(peers.begin(), peers.end());
  const auto twice = std::adjacent_find(peers.begin(), peers.end());
  if (twice != peers.end())
    return "two messages to peer " + std::to_string(*twice) +
           " (send at most one message per peer: concatenate them)";
  return {};
}

SparseExchangeStatistics exchange_sparse_bytes(const Comm& comm, const SparseSend* sends,
                                               std::size_t count, std::uint64_t fingerprint,
                                               SparseInbox& inbox, const char* operation,
                                               const std::string& caller_error) {
  const MPI_Comm c = comm.get();
  const int me = comm.rank();
  // The agreement is also what keeps consecutive exchanges apart (see
  // sparse_exchange_tag): nothing below is posted before every rank is here.
  agree_on_errors(comm,
                  caller_error.empty() ? sparse_exchange_error(sends, count, comm.size(),
                                                               static_cast<std::size_t>(INT_MAX))
                                       : caller_error,
                  hash_mix(hash_mix(hash_start(), 0x4e4258 /* "NBX" */), fingerprint), operation);

  SparseExchangeStatistics costs;
  costs.messages_sent = count;
  std::vector<MPI_Request> sent;
  sent.reserve(count);
  for (std::size_t k = 0; k < count; ++k) {
    const SparseSend& s = sends[k];
    costs.bytes_sent += s.bytes;
    if (s.peer == me) {
      // To itself: delivered by the inbox, which also keeps self-messages
      // out of the probe loop.
      inbox.take_own(k);
      ++costs.messages_received;
      costs.bytes_received += s.bytes;
      continue;
    }
    sent.emplace_back();
    // MPI's send buffer is const since MPI-3; the cast serves older headers.
    ADLIB_MPI(MPI_Issend(const_cast<void*>(s.data), static_cast<int>(s.bytes), MPI_BYTE, s.peer,
                         sparse_exchange_tag, c, &sent.back()),
              operation);
  }
  costs.requests = sent.size() + 1;

  MPI_Request barrier = MPI_REQUEST_NULL;
  bool in_barrier = false;
  WatchedLoop watch([&] {
    return WaitSubject{operation,
                       "sparse exchange (its messages received, then every rank's)",
                       c,
                       {},
                       sparse_exchange_tag};
  });
  for (;;) {
    watch.check();
    // Receive whatever has arrived.  A matched probe (MPI_Improbe + MPI_Mrecv)
    // receives exactly the message probed, even if another thread probes too.
    int arrived = 0;
    MPI_Message message = MPI_MESSAGE_NULL;
    MPI_Status status;
    ADLIB_MPI(MPI_Improbe(MPI_ANY_SOURCE, sparse_exchange_tag, c, &arrived, &message, &status),
              operation);
    if (arrived) {
      int bytes = 0;
      ADLIB_MPI(MPI_Get_count(&status, MPI_BYTE, &bytes), operation);
      void* into = inbox.receive_into(status.MPI_SOURCE, static_cast<std::size_t>(bytes));
      ADLIB_MPI(MPI_Mrecv(into, bytes, MPI_BYTE, &message, MPI_STATUS_IGNORE), operation);
      ++costs.messages_received;
      costs.bytes_received += static_cast<std::size_t>(bytes);
    }
    int done = 0;
    if (!in_barrier) {
      // Own sends all matched: this rank has nothing more to deliver.
      ADLIB_MPI(MPI_Testall(static_cast<int>(sent.size()), sent.data(), &done, MPI_STATUSES_IGNORE),
                operation);
      if (done) {
        ADLIB_MPI(MPI_Ibarrier(c, &barrier), operation);
        in_barrier = true;
      }
    } else {
      // Every rank's sends matched: nothing is left in flight for this rank.
      ADLIB_MPI(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE), operation);
      if (done) break;
    }
  }
  return costs;
}

}  // namespace detail
}  // namespace adlib
