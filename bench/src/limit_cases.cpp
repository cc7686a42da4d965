// SPDX-License-Identifier: BSD-3-Clause
// Physical limits (bench/README.md, "Physical limits"): what one core can copy,
// and the latency and bandwidth of the MPI transport between ranks 0 and 1.
// Every other figure should be read against these.
#include <cstdio>
#include <cstring>
#include <vector>

#include "common.hpp"

namespace bench {

namespace {

constexpr int kTag = 7100;

void memcpy_case() {
  const std::string name = "LIM-MEMCPY-64MiB";
  const std::size_t count = (64u << 20) / sizeof(double);
  const double bytes = static_cast<double>(count * sizeof(double));
  std::vector<double> src(count), dst(count);
  for (std::size_t k = 0; k < count; ++k) src[k] = static_cast<double>(k);
  auto expected = [](std::size_t k) { return static_cast<double>(k); };
  auto copy = [&] { std::memcpy(dst.data(), src.data(), count * sizeof(double)); };

  struct Variant {
    const char* impl;
    bool all_ranks;
    const char* note;
  };
  for (const Variant& v :
       {Variant{"memcpy", false, "rank 0 copies, the others wait at the barrier"},
        Variant{"memcpy-all-ranks", true, "every rank copies at once"}}) {
    const bool active = v.all_ranks || rank() == 0;
    poison(dst);
    if (active) {
      copy();
      verify(name, v.impl, "first", dst.data(), count, expected);
    }
    poison(dst);
    const Measurement m = time_op(copy, {active, 1.0});
    if (active) verify(name, v.impl, "after timing", dst.data(), count, expected);
    report({name, v.impl, "op", m, active ? bytes : 0.0, 0.0, v.note});
  }
}

// Round trip between ranks 0 and 1 (osu_latency style): rank 0 sends `out`
// and receives the reply in `back`; rank 1 receives into `in` and sends that
// buffer back.  Other ranks idle.
void pingpong(std::vector<double>& out, std::vector<double>& in, std::vector<double>& back) {
  const int n = static_cast<int>(out.size());
  if (rank() == 0) {
    MPI_Send(out.data(), n, MPI_DOUBLE, 1, kTag, comm());
    MPI_Recv(back.data(), n, MPI_DOUBLE, 1, kTag, comm(), MPI_STATUS_IGNORE);
  } else if (rank() == 1) {
    MPI_Recv(in.data(), n, MPI_DOUBLE, 0, kTag, comm(), MPI_STATUS_IGNORE);
    MPI_Send(in.data(), n, MPI_DOUBLE, 0, kTag, comm());
  }
}

void pingpong_line(const std::string& name, std::size_t count) {
  const double bytes = static_cast<double>(count * sizeof(double));
  std::vector<double> out(count), in(count), back(count);
  for (std::size_t k = 0; k < count; ++k) out[k] = static_cast<double>(k);
  auto expected = [](std::size_t k) { return static_cast<double>(k); };
  auto check = [&](const char* phase) {
    if (rank() == 0) verify(name, "pingpong", phase, back.data(), count, expected);
    if (rank() == 1) verify(name, "pingpong", phase, in.data(), count, expected);
  };
  const bool active = rank() < 2;
  poison(in);
  poison(back);
  if (active) pingpong(out, in, back);
  check("first");
  poison(in);
  poison(back);
  // A call is a round trip; the report is one way.
  const Measurement m = time_op([&] { pingpong(out, in, back); }, {active, 0.5});
  check("after timing");
  report({name, "pingpong", "op", m, active ? bytes : 0.0, active ? bytes : 0.0,
          "MPI_Send/MPI_Recv rank 0 <-> 1, round trip / 2"});
}

// osu_bw: rank 0 posts a window of 64 sends of 4 MiB, rank 1 64 receives,
// then a 4-byte acknowledgement.  As in osu_bw, the 64 receives share one
// buffer (and the sends one source): the figure is the transport's, not
// the memory system's.
void bandwidth_window(const std::string& name, std::size_t count) {
  constexpr int kWindow = 64;
  const int n = static_cast<int>(count);
  const double bytes = static_cast<double>(count * sizeof(double));
  std::vector<double> out(count), in(count);
  for (std::size_t k = 0; k < count; ++k) out[k] = static_cast<double>(k);
  std::vector<MPI_Request> requests(kWindow);
  auto window = [&] {
    int ack = 0;
    if (rank() == 0) {
      for (int w = 0; w < kWindow; ++w)
        MPI_Isend(out.data(), n, MPI_DOUBLE, 1, kTag, comm(), &requests[w]);
      MPI_Waitall(kWindow, requests.data(), MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_INT, 1, kTag + 1, comm(), MPI_STATUS_IGNORE);
    } else if (rank() == 1) {
      for (int w = 0; w < kWindow; ++w)
        MPI_Irecv(in.data(), n, MPI_DOUBLE, 0, kTag, comm(), &requests[w]);
      MPI_Waitall(kWindow, requests.data(), MPI_STATUSES_IGNORE);
      MPI_Send(&ack, 1, MPI_INT, 0, kTag + 1, comm());
    }
  };
  auto expected = [](std::size_t k) { return static_cast<double>(k); };
  const bool active = rank() < 2;
  poison(in);
  if (active) window();
  if (rank() == 1) verify(name, "osu-bw-window64", "first", in.data(), count, expected);
  poison(in);
  const Measurement m = time_op(window, {active, 1.0 / kWindow});
  if (rank() == 1) verify(name, "osu-bw-window64", "after timing", in.data(), count, expected);
  report({name, "osu-bw-window64", "op", m, active ? bytes : 0.0, active ? bytes : 0.0,
          "64 MPI_Isend / MPI_Irecv + 4-byte ack, time per message; receives share one buffer "
          "(osu_bw)"});
}

bool two_ranks(const char* name) {
  if (size() >= 2) return true;
  if (rank() == 0) std::fprintf(stderr, "adlib_bench: %s needs 2 ranks, skipped\n", name);
  return false;
}

}  // namespace

void register_limit_cases() {
  add_case("LIM-MEMCPY-64MiB", memcpy_case);
  add_case("LIM-LAT-8B", [] {
    if (two_ranks("LIM-LAT-8B")) pingpong_line("LIM-LAT-8B", 1);
  });
  add_case("LIM-BW-4MiB", [] {
    if (!two_ranks("LIM-BW-4MiB")) return;
    const std::size_t count = (4u << 20) / sizeof(double);
    pingpong_line("LIM-BW-4MiB", count);
    bandwidth_window("LIM-BW-4MiB", count);
  });
}

}  // namespace bench
