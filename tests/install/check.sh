#!/usr/bin/env bash
# tests/install/check.sh BUILD_DIR [CUDA_INCLUDE CUDA_LIBDIR] - installs the
# build into a temporary prefix and builds tests/install/consumer.c against it
# twice: through pkg-config (cesync.pc) and through CMake's find_package
# (cesyncConfig.cmake), after compiling the installed header as C++ (c++,
# and clang++ with its reserved-identifier warnings, where present).  Both
# programs must run and print the 4-rank alltoall's size (and link the CUDA
# backend's calls, with CUDA or without).  Then the unit-test example of docs/API.md
# (tests/install/protocol_test.c, the same text as the page's) is built with
# cmocka against the installed library and must pass.  The example program
# of docs/API.md must be the text of tests/cuda/example_api.c; given the
# CUDA toolkit's directories (a build with the CUDA backend), it also
# compiles and links that program by the page's command line, with warnings
# as errors; it does not run it (that needs GPUs: cuda_gpu_example_api).
set -euo pipefail
build=$1
cuda_inc=${2:-}
cuda_lib=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect="ranks 4 ops 76"

cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
test -x "$tmp/prefix/bin/cesync"
test -f "$tmp/prefix/include/cesync.h"
libdir=$(dirname "$(find "$tmp/prefix" -name 'cesync.pc' | head -1)")/..

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# the package's version and the library's file name are the header's, as a
# program compiled against it reads CES_VERSION_MAJOR and _MINOR (a sed of
# one spelling read nothing from a line with a tab, which CMake reads)
cat >"$tmp/version.c" <<'EOF'
#include <cesync.h>
#include <stdio.h>
int main(void)
{
    return printf("%lld %lld\n", (long long)CES_VERSION_MAJOR, (long long)CES_VERSION_MINOR) < 0;
}
EOF
cc -std=c11 -Wall -Werror -I"$tmp/prefix/include" "$tmp/version.c" -o "$tmp/version"
version=$("$tmp/version")
major=${version% *} minor=${version#* }
[ "$(pkg-config --modversion cesync)" = "$major.$minor.0" ] ||
  { echo "cesync.pc says $(pkg-config --modversion cesync), cesync.h $major.$minor"; exit 1; }
test -f "$libdir/libcesync.so.$major.$minor.0" ||
  { echo "no libcesync.so.$major.$minor.0 installed"; exit 1; }
# the soname: the major version, or 0.MINOR before 1.0 (each 0.x its own ABI)
so=libcesync.so.$major
[ "$major" = 0 ] && so=libcesync.so.0.$minor
[ "$(readlink "$libdir/$so")" = "libcesync.so.$major.$minor.0" ] ||
  { echo "$so does not name libcesync.so.$major.$minor.0"; exit 1; }
soname=$(readelf -d "$libdir/libcesync.so.$major.$minor.0" | sed -n 's/.*SONAME.*\[\(.*\)\].*/\1/p')
[ "$soname" = "$so" ] || { echo "the library's soname is '$soname', not $so"; exit 1; }
# the installed header is C++ too: no identifier C++ reserves (a name with
# "__" in it, as CES_OP__COUNT was), which clang++ warns of
cat >"$tmp/header.cpp" <<'EOF'
#include <cesync.h>
int main() { return CES_OP_COUNT + CES_COLL_COUNT + CES_PROTO_COUNT > 0 ? 0 : 1; }
EOF
cxxflags="-std=c++11 -fsyntax-only -Wall -Wextra -Wpedantic -Werror"
for cxx in c++ clang++; do
  command -v "$cxx" >/dev/null || { echo "no $cxx: cesync.h not compiled by it"; continue; }
  extra=""
  [ "$cxx" = clang++ ] && extra="-Wreserved-identifier -Wreserved-macro-identifier"
  # shellcheck disable=SC2086
  "$cxx" $cxxflags $extra -I"$tmp/prefix/include" "$tmp/header.cpp" ||
    { echo "cesync.h does not compile cleanly as C++ with $cxx"; exit 1; }
done
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror "$here/consumer.c" $(pkg-config --cflags --libs cesync) -o "$tmp/pc"
got=$(LD_LIBRARY_PATH="$libdir" "$tmp/pc")
[ "$got" = "$expect" ] || { echo "pkg-config consumer printed '$got', expected '$expect'"; exit 1; }

cmake -S "$here" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cm" >/dev/null
got=$("$tmp/cm/consumer")
[ "$got" = "$expect" ] || { echo "find_package consumer printed '$got', expected '$expect'"; exit 1; }
echo "installed cesync: pkg-config and find_package consumers both print '$got'"
# find_package(cesync V) takes this version, and an older minor version
# only from 1.0 on; only the prefix is searched (a
# cesync installed elsewhere, as /usr/local's 0.1, was taken for the one
# refused)
mkdir "$tmp/want"
printf '%s\n' 'cmake_minimum_required(VERSION 3.25)' 'project(want NONE)' \
  'find_package(cesync ${WANT} REQUIRED NO_DEFAULT_PATH PATHS ${PREFIX})' >"$tmp/want/CMakeLists.txt"
wants() {
  rm -rf "$tmp/want/b"
  cmake -S "$tmp/want" -B "$tmp/want/b" -DWANT="$1" -DPREFIX="$tmp/prefix" >/dev/null 2>&1
}
wants "$major.$minor" || { echo "find_package(cesync $major.$minor) refused cesync $major.$minor"; exit 1; }
if [ "$minor" -gt 0 ]; then
  older=$major.$((minor - 1))
  if [ "$major" = 0 ] && wants "$older"; then
    echo "find_package(cesync $older) took cesync $major.$minor (another 0.x ABI)"; exit 1
  fi
  if [ "$major" != 0 ] && ! wants "$older"; then
    echo "find_package(cesync $older) refused cesync $major.$minor"; exit 1
  fi
fi

# The unit-test example of docs/API.md, as the page shows it: a cmocka test
# built against the installed library, whose three tests must pass.
doc=$(awk '/^## Checking a protocol in a unit test/ { f = 1 } f && /^```c/ { g = 1; next }
           g && /^```/ { exit } g' "$here/../../docs/API.md")
diff <(printf '%s\n' "$doc") <(sed -n '/^#include <cesync.h>/,$p' "$here/protocol_test.c") ||
  { echo "docs/API.md's unit-test example differs from tests/install/protocol_test.c"; exit 1; }
cmocka=$(pkg-config --cflags --libs cmocka 2>/dev/null || echo -lcmocka) # a cmocka without .pc
# shellcheck disable=SC2046,SC2086
cc -std=c11 -Wall -Werror "$here/protocol_test.c" $(pkg-config --cflags --libs cesync) $cmocka \
  -o "$tmp/protocol_test"
LD_LIBRARY_PATH="$libdir" "$tmp/protocol_test" >"$tmp/protocol_test.log" 2>&1 ||
  { cat "$tmp/protocol_test.log"; echo "the unit-test example of docs/API.md failed"; exit 1; }
grep -q "PASSED  \] 3 test(s)" "$tmp/protocol_test.log" ||
  { cat "$tmp/protocol_test.log"; echo "the unit-test example did not pass its 3 tests"; exit 1; }
echo "installed cesync: the unit-test example of docs/API.md passes its 3 tests"

# The example program of docs/API.md, as the page shows it: the text of
# tests/cuda/example_api.c from its first line of code on (the GPU suite
# runs that file: cuda_gpu_example_api).
doc=$(awk '/^## Example/ { f = 1 } f && /^```c/ { g = 1; next } g && /^```/ { exit } g' \
  "$here/../../docs/API.md")
diff <(printf '%s\n' "$doc") <(sed -n '/^#define _POSIX_C_SOURCE/,$p' "$here/../cuda/example_api.c") ||
  { echo "docs/API.md's example program differs from tests/cuda/example_api.c"; exit 1; }
echo "installed cesync: docs/API.md's example program is tests/cuda/example_api.c"

if [ -n "$cuda_inc" ]; then
  # docs/API.md: cc -std=c11 app.c -I$PREFIX/include -I$CUDA/include
  #              -L$PREFIX/lib -L$CUDA/lib64 -lcesync -lcudart
  prefix=$tmp/prefix
  cc -std=c11 -Wall -Werror "$here/../cuda/example_api.c" -I"$prefix/include" -I"$cuda_inc" \
    -L"$libdir" -L"$cuda_lib" -lcesync -lcudart -o "$tmp/example"
  echo "installed cesync: the example program of docs/API.md builds by its command line"
fi
