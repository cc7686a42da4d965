# SPDX-License-Identifier: BSD-3-Clause
# How adlib runs MPI programs under ctest, shared by tests/ and examples/.
#
# Open MPI refuses to run as root and to oversubscribe unless told; the
# variables go into the test environment, never into the user's shell.
set(ADLIB_TEST_ENVIRONMENT
  "OMPI_ALLOW_RUN_AS_ROOT=1"
  "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  "OMPI_MCA_rmaps_base_oversubscribe=1"
  # Containers often forbid the cross-memory-attach single copy.
  "OMPI_MCA_btl_vader_single_copy_mechanism=none"
  # The ranks of a test share one host and talk through shared memory
  # (vader under ob1), which Open MPI chooses anyway; naming them skips
  # opening and probing the network and RDMA components (tcp, openib, ofi,
  # ucx) at every start: 0.68 -> 0.47 s for a run of one rank, 1.0 -> 0.8 s
  # for four, over about 370 runs.  scripts/netns-mpirun's simulated hosts
  # name tcp on its command line, which takes precedence.
  "OMPI_MCA_pml=ob1"
  "OMPI_MCA_btl=self,vader"
  # Open MPI's hwloc reads the configuration space of every PCI device at
  # every start (16 % of a one-rank start on this project's VMs); the tests
  # need the cores, not the devices: 0.27 -> 0.20 s for a run of one rank,
  # 0.53 -> 0.41 s for four.
  "HWLOC_COMPONENTS=-pci,-linuxio"
  # The built-in thresholds, whatever a scripts/tune run left in the user's
  # configuration folder: the same paths on every machine.
  "ADLIB_TUNING_FILE=none")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _adlib_mpiexec_version
                ERROR_QUIET)
set(ADLIB_MPIEXEC_EXTRA "")
if(_adlib_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(ADLIB_MPIEXEC_EXTRA --oversubscribe)
endif()
set(ADLIB_TEST_RANKS 1 2 3 4 CACHE STRING "Rank counts every MPI test runs at")
set(ADLIB_TEST_TIMEOUT 300 CACHE STRING "Per-test timeout in seconds")
# With a threaded Kokkos (OpenMP), runs of more ranks than this take one
# thread per rank (OMP_NUM_THREADS=1, unless the run sets it): the threads of
# 3 and more ranks on this project's 2-core machines wait for a core at
# every parallel region while the other ranks poll MPI (mpi_gather_scatter
# at 4 ranks of 2 threads: 45 s beside another test, 0.3 s with one thread).
# Races are within a rank: the runs of 1 and 2 ranks keep the caller's
# threads (2 in scripts/test-openmp and scripts/test-sanitizers), and the
# .threads4 runs four.
set(ADLIB_TEST_MAX_THREADED_RANKS 2 CACHE STRING
    "Runs of more MPI ranks than this use one OpenMP thread per rank")

# adlib_add_mpi_runs(name target LABELS labels... [ARGS args...]
#                    [ENVIRONMENT VAR=value...] [RANKS counts...]): registers
# `target` under mpiexec at every count of RANKS (default ADLIB_TEST_RANKS),
# as name.np<N>, labelled mpi, np<N> and the given labels, with a timeout
# and the extra environment.
function(adlib_add_mpi_runs name target)
  cmake_parse_arguments(RUN "" "" "LABELS;ARGS;ENVIRONMENT;RANKS" ${ARGN})
  if(NOT RUN_RANKS)
    set(RUN_RANKS ${ADLIB_TEST_RANKS})
  endif()
  foreach(np IN LISTS RUN_RANKS)
    set(environment ${ADLIB_TEST_ENVIRONMENT} ${RUN_ENVIRONMENT})
    if(np GREATER ADLIB_TEST_MAX_THREADED_RANKS)
      list(PREPEND environment "OMP_NUM_THREADS=1")  # first: the run's own setting wins
    endif()
    add_test(NAME ${name}.np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${ADLIB_MPIEXEC_EXTRA}
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${target}> ${MPIEXEC_POSTFLAGS} ${RUN_ARGS})
    set_tests_properties(${name}.np${np} PROPERTIES
      TIMEOUT ${ADLIB_TEST_TIMEOUT} LABELS "mpi;np${np};${RUN_LABELS}" PROCESSORS ${np}
      ENVIRONMENT "${environment}")
  endforeach()
endfunction()

# adlib_give_tests_own_mpi_sessions(): every test registered so far in the
# calling directory gets an Open MPI session directory of its own
# (orte_tmpdir_base, under the build tree).  By default every mpiexec on the
# host shares /tmp/ompi.<host>.<uid>, which each one creates at start and
# removes at exit when it is empty; under `ctest -j` one run's removal can
# fall between another's mkdir and its check, and that run dies in orte_init
# within 0.02 s ("A call to mkdir was unable to create the desired directory
# ... File exists", Open MPI issue 8510): the *_example.np1 failures that
# came and went (once in eight `ctest -j2 -L examples` runs).  Called at the
# end of each CMakeLists.txt that adds tests: before CMake 3.28 a test's
# properties can only be set from its own directory.  (The variable is Open
# MPI 4's, through ORTE; other MPIs ignore it.)
function(adlib_give_tests_own_mpi_sessions)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    set_property(TEST ${test} APPEND PROPERTY ENVIRONMENT
                 "OMPI_MCA_orte_tmpdir_base=${PROJECT_BINARY_DIR}/mpi-sessions/${test}")
  endforeach()
endfunction()
