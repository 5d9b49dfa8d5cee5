#!/usr/bin/env bash
# Installs the Debian packages cesync needs when they are missing, then
# configures and builds into build/ (warnings are errors).  Sourced by
# scripts/test.sh and scripts/demo.sh; extra CMake options in CES_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

need=()
command -v cc >/dev/null || need+=(gcc)
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
[ -f /usr/include/cmocka.h ] || need+=(libcmocka-dev)
command -v dot >/dev/null || need+=(graphviz)
command -v spin >/dev/null || need+=(spin)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

# shellcheck disable=SC2086
cmake -S . -B build -G Ninja -DCES_WERROR=ON ${CES_CMAKE_ARGS:-} >/dev/null
cmake --build build -j "$(nproc)"
