#!/usr/bin/env bash
# Installs the Debian packages cesync needs when they are missing, then
# configures and builds (warnings are errors) into build/, or into
# build-asan/ with AddressSanitizer and UndefinedBehaviorSanitizer when
# CES_SANITIZE=1, into build-tsan/ with ThreadSanitizer when
# CES_SANITIZE=thread.  scripts/test.sh and scripts/demo.sh source it and use
# the directory it leaves in $dir (CES_BUILD_DIR names another); extra CMake
# options in CES_CMAKE_ARGS.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

need=()
command -v cc >/dev/null || need+=(gcc)
command -v cmake >/dev/null || need+=(cmake)
command -v ninja >/dev/null || need+=(ninja-build)
[ -f /usr/include/cmocka.h ] || need+=(libcmocka-dev)
command -v dot >/dev/null || need+=(graphviz)
command -v spin >/dev/null || need+=(spin)
command -v pkg-config >/dev/null || need+=(pkgconf)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

dir=build
san=OFF
tsan=OFF
case "${CES_SANITIZE:-0}" in
  1) dir=build-asan; san=ON ;;
  thread) dir=build-tsan; tsan=ON ;;
esac
dir=${CES_BUILD_DIR:-$dir}
mkdir -p "$dir"
# shellcheck disable=SC2086
if ! cmake -S . -B "$dir" -G Ninja -DCES_WERROR=ON -DCES_SANITIZE=$san \
    -DCES_SANITIZE_THREAD=$tsan ${CES_CMAKE_ARGS:-} \
    >"$dir/configure.log" 2>&1; then
  cat "$dir/configure.log"
  exit 1
fi
grep -- '-- cesync:' "$dir/configure.log" || true
cmake --build "$dir" -j "$(nproc)"
