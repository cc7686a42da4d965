// SPDX-License-Identifier: BSD-3-Clause
// The hang watchdog in practice: the environment's setting, collectives that
// complete with the watchdog on, and a reduction that rank 0 never calls,
// which the other ranks report (raise mode) instead of waiting for ever.
// The exit code says whether every check passed.  Runs at any number of
// ranks (the missing call needs two).
#include <mpi.h>

#include <cstdio>
#include <string>

#include <adlib/adlib.hpp>

using adlib::Index;

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  bool ok = true;

  // ADLIB_TIMEOUT / ADLIB_TIMEOUT_ACTION, read on first use.
  const adlib::WatchdogSettings from_environment = adlib::watchdog_settings();
  // The same from code, on every rank alike, before the communicators are
  // made (the first one over the whole world publishes the ranks' states).
  adlib::set_watchdog({0.5, adlib::TimeoutAction::raise});

  // A fresh communicator: the reduction below is left waiting on it.
  MPI_Comm world = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &world);
  adlib::Comm comm(world);
  adlib::ProcessGrid line(comm, {comm.size()});
  if (comm.rank() == 0)
    std::printf("watchdog: %s (environment: %s)\n",
                adlib::describe(adlib::watchdog_settings()).c_str(),
                adlib::describe(from_environment).c_str());

  // Collectives that complete are not affected.
  const Index n = 4 * comm.size() + 3;
  adlib::DistArray<double, 1> u(line, {adlib::block(n).ghosts(1).periodic()});
  u.fill([](const auto& g) { return double(g[0]); });
  adlib::WriteHalo halo(u);
  halo.execute(u);
  ok = ok && adlib::sum_over(line, 1.0) == double(comm.size());

  // A reduction that rank 0 skips: the others wait in its agreement, and
  // after 0.5 s each reports (on stderr, and in the adlib::Error) what it
  // waits for and what every rank is doing.
  std::string report;
  if (comm.rank() != 0) {
    try {
      adlib::sum_over(line, 1.0);
    } catch (const adlib::Error& e) {
      report = e.message();
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);  // rank 0 was here all along
  if (comm.rank() != 0) ok = ok && report.find("rank 0: not waiting in adlib") != std::string::npos;
  // `world` now holds a reduction that will never complete: never use it again.

  int all = 0, mine = ok ? 1 : 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (comm.rank() == 0) std::printf("watchdog example: %s\n", all ? "PASSED" : "FAILED");
  return all ? 0 : 1;
}
