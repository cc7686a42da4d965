# SPDX-License-Identifier: BSD-3-Clause
# cmake -DSOURCE_DIR=<project> -DBINARY_DIR=<build> -DGENERATOR=<generator>
#       -DJOBS=<n> "-DCONFIGURE=<arg>|<arg>..." "-DRUN=<program>|<arg>..."
#       -P configure_build_run.cmake
#
# Configures a project from scratch, builds it with JOBS parallel jobs and
# runs RUN in it: what `ctest --build-and-test` does, except that its build
# step is always serial (it passes no job count to the build tool and
# ignores MAKEFLAGS and CMAKE_BUILD_PARALLEL_LEVEL), which for the subproject
# consumer, a build of the whole library, doubled its time on two cores.
# Arguments are separated by `|`, since `;` does not survive add_test.
cmake_policy(VERSION 3.25)
foreach(required SOURCE_DIR BINARY_DIR GENERATOR JOBS RUN)
  if(NOT DEFINED ${required})
    message(FATAL_ERROR "configure_build_run.cmake needs -D${required}=...")
  endif()
endforeach()
string(REPLACE "|" ";" configure_arguments "${CONFIGURE}")
string(REPLACE "|" ";" run_command "${RUN}")

file(REMOVE_RECURSE ${BINARY_DIR})
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${what} failed (${result}): ${ARGN}")
  endif()
endfunction()
run_step(configure ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${BINARY_DIR} -G ${GENERATOR}
         ${configure_arguments})
run_step(build ${CMAKE_COMMAND} --build ${BINARY_DIR} --parallel ${JOBS})
run_step(run ${run_command})
