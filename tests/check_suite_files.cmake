# SPDX-License-Identifier: BSD-3-Clause
# cmake -DPROGRAM=<test program> -DSUITES=<program>.suites -P check_suite_files.cmake
#
# The test programs hold the suites of many files, and each file's ctest
# entries select that file's suites by name (tests/CMakeLists.txt reads them
# from the TEST and TEST_F lines).  This checks that every suite the program
# holds is selected by exactly one file: a suite defined in a way the reader
# does not see (a macro, a line break after `TEST(`) would otherwise never
# run, and a suite name used in two files would run twice under two entries.
cmake_policy(VERSION 3.25) # a script has no project's policies: IN_LIST needs this
execute_process(COMMAND ${PROGRAM} --gtest_list_tests OUTPUT_VARIABLE listing
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --gtest_list_tests failed (${result})")
endif()
string(REPLACE "\n" ";" lines "${listing}")
set(program_suites "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([A-Za-z0-9_]+)\\.")
    list(APPEND program_suites ${CMAKE_MATCH_1})
  endif()
endforeach()

file(STRINGS ${SUITES} table)
set(problems "")
foreach(suite IN LISTS program_suites)
  set(files "")
  foreach(row IN LISTS table)
    string(REGEX MATCH "^[^ ]+" file "${row}")
    string(REGEX REPLACE "^[^ ]+ " "" filter "${row}")
    string(REPLACE ":" ";" patterns "${filter}")
    if("${suite}.*" IN_LIST patterns)
      list(APPEND files ${file})
    endif()
  endforeach()
  list(LENGTH files count)
  if(NOT count EQUAL 1)
    string(APPEND problems "  suite ${suite} is selected by ${count} files (${files})\n")
  endif()
endforeach()
list(LENGTH program_suites suite_count)
if(NOT problems STREQUAL "")
  message(FATAL_ERROR "${PROGRAM}:\n${problems}")
endif()
message(STATUS "${PROGRAM}: each of its ${suite_count} suites is selected by exactly one file")
