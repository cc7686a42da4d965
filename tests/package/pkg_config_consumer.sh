#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# usage: pkg_config_consumer.sh PREFIX WORKDIR CXX MAIN_CPP MPIRUN...
# Builds MAIN_CPP with nothing but `pkg-config --cflags --libs adlib` from the
# installed PREFIX and runs it; then checks that the include spelling of
# adlib before 0.1.0 ("runtime/comm.hpp", folders at the top of the include
# path) does not resolve, so adlib's folder names cannot shadow a project's.
set -euo pipefail
prefix="$1" work="$2" cxx="$3" main="$4"
shift 4
mkdir -p "$work"
export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name adlib.pc -print -quit)")"
flags="$(pkg-config --cflags adlib)"
libs="$(pkg-config --libs adlib)"
echo "pkg-config --cflags adlib: $flags"
echo "pkg-config --libs adlib:   $libs"
case " $flags " in
  *" -I$prefix/include/adlib "*) echo "FAIL: <prefix>/include/adlib is on the include path"; exit 1 ;;
esac

# shellcheck disable=SC2086  # the flags are words
"$cxx" -o "$work/consumer" "$main" $flags $libs
"$@" "$work/consumer"

printf '#include <adlib/runtime/comm.hpp>\nint main() { return 0; }\n' >"$work/new_spelling.cpp"
# shellcheck disable=SC2086
"$cxx" -fsyntax-only $flags "$work/new_spelling.cpp"
printf '#include "runtime/comm.hpp"\nint main() { return 0; }\n' >"$work/old_spelling.cpp"
# shellcheck disable=SC2086
if "$cxx" -fsyntax-only $flags "$work/old_spelling.cpp" 2>"$work/old_spelling.log"; then
  echo "FAIL: #include \"runtime/comm.hpp\" still resolves with the installed include path"
  exit 1
fi
grep -q "runtime/comm.hpp" "$work/old_spelling.log"
echo "ok: <adlib/runtime/comm.hpp> resolves, \"runtime/comm.hpp\" does not"
