#!/usr/bin/env bash
# tests/install/pc_dirs.sh SOURCE_DIR CMAKE - cesync.pc names the library and
# include directories where the install puts them when they are given as
# absolute paths (-DCMAKE_INSTALL_LIBDIR=/usr/lib64, as distributions and
# Nix pass them): configured in a temporary directory, the .pc file's libdir
# and includedir must be those paths.  They were written under ${prefix}
# ("${prefix}//usr/lib64"), where -lcesync found no library.  The CMake
# package's target (cesyncTargets.cmake, as the configure writes it for the
# install) must name the include directory as given too, absolute or
# relative to the prefix: it said "${_IMPORT_PREFIX}/include" whatever the
# install did, and find_package(cesync) stopped at a non-existent path.  The
# relative defaults are install/check.sh's (a consumer built against an
# installed tree).
set -euo pipefail
src=$1
cmake=${2:-cmake}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

# configure SUBDIR CMAKE-ARGS...: configure only, no build
configure() {
  local dir=$tmp/$1
  shift
  "$cmake" -S "$src" -B "$dir" -DCES_BUILD_TESTS=OFF -DCES_WITH_CUDA=OFF \
    -DCMAKE_INSTALL_PREFIX="$tmp/prefix" "$@" >"$dir.log" 2>&1 ||
    { cat "$dir.log"; echo "FAIL: configure $*"; exit 1; }
}

# expect SUBDIR VARIABLE VALUE
expect() {
  local got
  got=$(PKG_CONFIG_PATH="$tmp/$1" pkg-config --variable="$2" cesync)
  if [ "$got" != "$3" ]; then
    echo "FAIL: $1: cesync.pc's $2 is '$got', expected '$3'"
    bad=1
  fi
}

# expect_target SUBDIR VALUE: the installed target's include directories
expect_target() {
  local got
  got=$(sed -n 's/^ *INTERFACE_INCLUDE_DIRECTORIES "\(.*\)"$/\1/p' \
    "$tmp/$1"/CMakeFiles/Export/*/cesyncTargets.cmake)
  if [ "$got" != "$2" ]; then
    echo "FAIL: $1: cesyncTargets.cmake's include directories are '$got', expected '$2'"
    bad=1
  fi
}

configure libdir -DCMAKE_INSTALL_LIBDIR="$tmp/abs/lib64"
expect libdir libdir "$tmp/abs/lib64"
configure includedir -DCMAKE_INSTALL_INCLUDEDIR="$tmp/abs/include"
expect includedir includedir "$tmp/abs/include"
expect_target includedir "$tmp/abs/include"
configure relincludedir -DCMAKE_INSTALL_INCLUDEDIR=include/cesync
# shellcheck disable=SC2016
expect_target relincludedir '${_IMPORT_PREFIX}/include/cesync'
[ "$bad" = 0 ] && echo "PASSED: cesync.pc and the CMake package keep the install directories"
exit "$bad"
