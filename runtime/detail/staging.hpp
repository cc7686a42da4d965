// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The one staging decision of every executor (BlockMessSchedule,
/// RedxSchedule, TreeSchedule): do messages over memory of a space travel
/// through host buffers?
///
/// @code
///   staged_ = detail::stages_through_host<MemorySpace>(config);
/// @endcode
#pragma once

#include <Kokkos_Core.hpp>

#include <adlib/runtime/configuration.hpp>

namespace adlib {
namespace detail {

/// Is memory of `MemorySpace` readable by host code (and so by MPI without
/// GPU support)?
template <class MemorySpace>
constexpr bool host_reachable() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, MemorySpace>::accessible;
}

/// May adlib's host loops (the IndexList kernels, the merged walks) run
/// over memory of `MemorySpace`?  Only where a host thread can address it
/// and its execution space runs on the host.  Managed device memory
/// (CudaUVMSpace, HIP's managed space) is host-reachable, but its kernels
/// run on the device: there the device kernels (DeviceIndexList) run, so a
/// device compiler never sees a host loop in a device kernel.
template <class MemorySpace>
constexpr bool host_loops_reach() {
  return host_reachable<MemorySpace>() &&
         Kokkos::SpaceAccessibility<typename MemorySpace::execution_space,
                                    Kokkos::HostSpace>::accessible;
}

/// Are messages over memory of `MemorySpace` staged through host buffers?
/// Yes when forced (Configuration::force_staging, which runs the staging
/// path on host memory for the tests), and when MPI cannot work on that
/// memory: the host cannot reach it and MPI is not GPU-aware
/// (Configuration::gpu_aware_mpi), or MPI would apply an operation of its
/// own making there (`mpi_works_there` false: a user MPI_Op runs on the
/// host whatever MPI's GPU support).
template <class MemorySpace>
bool stages_through_host(const Configuration& config, bool mpi_works_there = true) {
  if (config.force_staging) return true;
  return !(host_reachable<MemorySpace>() || (config.gpu_aware_mpi && mpi_works_there));
}

}  // namespace detail
}  // namespace adlib
