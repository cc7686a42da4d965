# SPDX-License-Identifier: BSD-3-Clause
# Checks that documentation shows code that is compiled and tested: every
# fenced block of LANGUAGE in PAGE must appear, as consecutive whole lines,
# in one of the files listed in SOURCE (indentation is ignored, so a page may
# show a dedented excerpt).
#
#   cmake -DPAGE=docs/remap.md -DSOURCE=docs/examples/remap_example.cpp \
#         -DLANGUAGE=cpp -P examples/check_doc_snippets.cmake
cmake_minimum_required(VERSION 3.16)

foreach(variable PAGE SOURCE LANGUAGE)
  if(NOT DEFINED ${variable})
    message(FATAL_ERROR "check_doc_snippets: -D${variable}=... is required")
  endif()
endforeach()

file(READ "${PAGE}" page)
# Line starts are marked with a newline, and indentation dropped, on both sides.
# (Sources are kept in numbered variables, not a list: code contains ';'.)
set(source_count 0)
foreach(source_file IN LISTS SOURCE)
  file(READ "${source_file}" source)
  string(REGEX REPLACE "\n[ \t]+" "\n" source_${source_count} "\n${source}")
  math(EXPR source_count "${source_count} + 1")
endforeach()
math(EXPR last_source "${source_count} - 1")

set(fence_open "```${LANGUAGE}\n")
string(LENGTH "${fence_open}" fence_open_length)
set(blocks 0)
set(failures 0)
while(TRUE)
  string(FIND "${page}" "${fence_open}" start)
  if(start EQUAL -1)
    break()
  endif()
  math(EXPR start "${start} + ${fence_open_length}")
  string(SUBSTRING "${page}" ${start} -1 page)
  string(FIND "${page}" "```" end)
  if(end EQUAL -1)
    message(FATAL_ERROR "${PAGE}: unterminated ```${LANGUAGE} block")
  endif()
  string(SUBSTRING "${page}" 0 ${end} snippet)
  string(SUBSTRING "${page}" ${end} -1 page)
  math(EXPR blocks "${blocks} + 1")
  string(REGEX REPLACE "\n[ \t]+" "\n" normalized "\n${snippet}")
  set(found FALSE)
  foreach(index RANGE ${last_source})
    string(FIND "${source_${index}}" "${normalized}" position)
    if(NOT position EQUAL -1)
      set(found TRUE)
    endif()
  endforeach()
  if(NOT found)
    math(EXPR failures "${failures} + 1")
    message(SEND_ERROR "${PAGE}: ```${LANGUAGE} block ${blocks} is not in ${SOURCE}:\n${snippet}")
  endif()
endwhile()

if(blocks EQUAL 0)
  message(FATAL_ERROR "${PAGE}: no ```${LANGUAGE} block (expected code from ${SOURCE})")
endif()
if(failures EQUAL 0)
  message(STATUS "${PAGE}: ${blocks} ```${LANGUAGE} block(s) match ${SOURCE}")
endif()
