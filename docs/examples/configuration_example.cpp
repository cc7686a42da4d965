// SPDX-License-Identifier: BSD-3-Clause
// Configuration in practice: the environment's settings, a schedule built
// with settings of its own, checked mode catching a rank that passes an
// array of another layout, and the strict parser refusing a value it does
// not know.  The exit code says whether every check passed.  Runs at any
// number of ranks.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <string>

#include <adlib/adlib.hpp>

using adlib::Index;

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  bool ok = true;

  // Read from the ADLIB_* variables on first use, then kept.
  const adlib::Configuration& settings = adlib::Configuration::environment();
  if (comm.rank() == 0) std::printf("configuration: %s\n", settings.describe().c_str());

  const Index n = 4 * comm.size() + 3;
  adlib::DistArray<double, 1> u(line, {adlib::block(n).ghosts(1).periodic()});
  u.fill([](const auto& g) { return double(g[0]); });

  // A schedule with settings of its own: every message packed, and every
  // execution agreeing first on the arrays across ranks.
  adlib::Configuration config = adlib::Configuration::environment();
  config.transfer = adlib::TransferMethod::pack;
  config.checked = true;
  adlib::WriteHalo halo(u, config);
  halo.execute(u);

  // In checked mode an array of another layout on one rank is an
  // adlib::Error on every rank, not a hang.
  adlib::DistArray<double, 1> other(line, {adlib::block(n + 1).ghosts(1).periodic()});
  int threw = 0;
  try {
    halo.execute(comm.rank() == comm.size() - 1 ? other : u);
  } catch (const adlib::Error& e) {
    threw = 1;
  }
  ok &= threw == 1;

  // Values are parsed strictly: ADLIB_CHECKED=maybe is refused, naming the
  // variable, the value and the accepted values.
  try {
    adlib::Configuration::parse([](const char* name) -> const char* {
      return std::string(name) == "ADLIB_CHECKED" ? "maybe" : nullptr;
    });
    ok = false;
  } catch (const adlib::Error& e) {
    if (comm.rank() == 0) std::printf("%s\n", e.message().c_str());
  }

  // The machine's tuning file (written by scripts/tune) gives measured
  // thresholds beneath the environment; tests run without one (none).
  if (comm.rank() == 0)
    std::printf("tuning file: %s\n", adlib::Configuration::tuning_file().describe().c_str());
  // A tuning file read explicitly, as environment() reads its own: the
  // file's values where no variable is set.
  const std::string path = "/tmp/adlib_configuration_example_" + std::to_string(comm.rank());
  std::FILE* written = std::fopen(path.c_str(), "w");
  ok &= written != nullptr;
  if (written) {
    std::fputs("# measured by scripts/tune\nADLIB_DATATYPE_MIN_BYTES=4096\n", written);
    std::fclose(written);
  }
  const adlib::TuningFile tuning = adlib::TuningFile::read(path);
  const adlib::Configuration tuned = adlib::Configuration::parse(
      [&](const char* name) -> const char* { return tuning.value(name); });
  ok &= tuning.error().empty() && tuned.datatype_min_bytes == 4096;
  std::remove(path.c_str());

  // The ghosts hold their global indices (the exchange above worked).
  auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.local_view());
  const Index last = static_cast<Index>(v.extent(0)) - 1;
  if (last >= 2) {
    ok &= v(0) == double((Index(v(1)) - 1 + n) % n);
    ok &= v(last) == double((Index(v(last - 1)) + 1) % n);
  }
  int wrong = ok ? 0 : 1, wrong_anywhere = 0;
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_MAX, comm.get());
  if (comm.rank() == 0) std::printf("%s\n", wrong_anywhere ? "FAILED" : "ok");
  return wrong_anywhere;
}
