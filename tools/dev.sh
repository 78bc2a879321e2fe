#!/usr/bin/env bash
# The README's set-up commands for a fresh Debian machine (and CI's entry point).
#   tools/dev.sh demo   install what is missing, build, and run a real scenario (10,000 executions)
#   tools/dev.sh test   install what is missing, build, and run the whole test suite
#   tools/dev.sh build  install what is missing and build
# Environment: ALLOCSIM_BUILD_DIR (default ./build), ALLOCSIM_JOBS (default 2).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${ALLOCSIM_BUILD_DIR:-$ROOT/build}"
JOBS="${ALLOCSIM_JOBS:-2}"
PACKAGES=(g++ cmake ninja-build pkg-config libboost-context-dev libboost-program-options-dev
          nlohmann-json3-dev catch2 libfmt-dev libxxhash-dev)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build() {
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" -j "$JOBS"
}

case "${1:-}" in
  demo)
    install_missing
    build
    cd "$ROOT"
    "$BUILD/tools/allocsim" run scenarios/alloc-004-one-plan-two-claimants.json --executions 10000
    ;;
  test)
    install_missing
    build
    ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS"
    ;;
  build)
    install_missing
    build
    ;;
  *)
    echo "usage: tools/dev.sh demo|test|build" >&2
    exit 2
    ;;
esac
