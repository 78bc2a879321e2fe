#!/usr/bin/env bash
# The README's set-up commands for a fresh Debian machine (and CI's entry point).
#   tools/dev.sh demo   install what is missing, build, and run a real scenario (10,000 executions)
#   tools/dev.sh test   install what is missing, build, and run the whole test suite
#   tools/dev.sh build  install what is missing and build
#   tools/dev.sh report build allocsim and render `sweep scenarios/ --report-html` in headless Chromium (CI)
#   tools/dev.sh sanitize  build with clang, ASan + UBSan in build-asan/ and run the whole test suite there
#   tools/dev.sh fuzz   build the libFuzzer targets in the same build-asan/ and run each for a bounded time (side
#                       by side when ALLOCSIM_JOBS >= 2); after `sanitize` nothing is left to compile
#   tools/dev.sh differential  build allocsim and compare it with upstream's Python backend on every scenario
#                       (tools/differential/README.md); needs upstream at ALLOCSIM_UPSTREAM_DIR
#   tools/dev.sh package       build allocsim and its man page, then the Debian package (cpack -G DEB) in
#                       $BUILD/package/ (README "Installing")
#   tools/dev.sh install-check  reuse the build dir: `cmake --install` into a fresh prefix and run an installed
#                       scenario from another folder, then build the .deb, install it into a clean root with
#                       `dpkg --root` and run the binary there on an installed scenario (CI)
#   tools/dev.sh selfcheck     build allocsim and run the bounded verdict self-check (README "Verdict
#                       self-check"): fails on any contradiction; report and files in $BUILD/selfcheck/
#   tools/dev.sh schema        build allocsim-update-schema and write the table-owned parts of
#                       scenarios/schema/scenario.v1.schema.json (ops, outcomes, invariants, mutants, barriers) and
#                       docs/DESIGN.md's op and invariant tables from the tables (backend/scenario/scenario_schema.h,
#                       backend/system/design_tables.h); the suite fails while either file lags them
#   tools/dev.sh format        apply clang-format (.clang-format) in place to the C++ sources
#   tools/dev.sh format-check  fail, listing the files, if any C++ source is not clang-formatted (CI)
# Environment: ALLOCSIM_BUILD_DIR (default ./build), ALLOCSIM_JOBS (default 2),
#              ALLOCSIM_FUZZ_SECONDS (default 60, per fuzz target),
#              ALLOCSIM_UPSTREAM_DIR (differential: upstream's backend; default ../shared/pyref from the root; the
#              former name ALLOCSIM_SEED_DIR is still read),
#              ALLOCSIM_SELFCHECK_SCENARIOS (selfcheck: default 300), ALLOCSIM_SELFCHECK_SEED (default 1),
#              ALLOCSIM_OPT_FLAGS (the build's -O and -g flags; default "-O2 -g"; CI: "-O2 -g1"),
#              ALLOCSIM_SAN_OPT_FLAGS (the same for sanitize and fuzz; default "-O1 -g1"),
#              ALLOCSIM_UNITY (ON|OFF, default OFF; CI: ON): unity builds, each target's .cpp files compiled
#                       in batches of 8 per translation unit (top-level CMakeLists.txt says why and when).
# Builds use ccache when it is on PATH (optional; never installed here).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${ALLOCSIM_BUILD_DIR:-$ROOT/build}"
JOBS="${ALLOCSIM_JOBS:-2}"
PACKAGES=(g++ cmake ninja-build pkg-config libboost-context-dev libboost-program-options-dev
          nlohmann-json3-dev catch2 libfmt-dev libxxhash-dev python3-jsonschema
          python3-yaml chromium help2man dpkg-dev)
# help2man: the man page, generated from --help at build time (cmake/install.cmake; without it the build skips
# the page and says so). dpkg-dev: dpkg-shlibdeps, which computes the .deb's Depends line (cmake/package.cmake).
# python3-yaml: tests/cli/nightly.cpp checks tools/nightly/*.yaml. chromium: tests/html/check_report.py renders
# the HTML report headless (screenshot + DOM); Debian's package, no browser download of its own.
# Only `sanitize` and `fuzz` need these: clang with libFuzzer and the sanitizer runtimes (Debian 12: clang 14).
SANITIZER_PACKAGES=(clang libclang-rt-14-dev)
# Only `format` and `format-check` need this, and nothing else: they build nothing. Debian 12: version 14,
# the version .clang-format was tuned for (another version may format some lines differently).
FORMAT_PACKAGES=(clang-format)

install_missing() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "dev.sh: installing ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The C++ sources clang-format owns: every .h and .cpp under sim/ backend/ tools/ tests/ that git tracks or
# would track (so build trees and other ignored output never count), minus the fuzz seed corpus (inputs,
# kept byte for byte). NUL-separated, sorted, paths relative to the root.
format_sources() {
  git -C "$ROOT" ls-files -z --cached --others --exclude-standard -- \
    'sim/*.h' 'sim/*.cpp' 'backend/*.h' 'backend/*.cpp' 'tools/*.h' 'tools/*.cpp' 'tests/*.h' 'tests/*.cpp' \
    ':!:tests/fuzz/corpus/*' | sort -z -u
}

# ccache, when it is on PATH, makes rebuilds (and CI's two configurations of one tree) cheaper; it is
# never required and never installed. The empty value matters too: it clears a launcher an earlier
# configure cached, so a build dir keeps working after ccache goes away.
# Unity builds (ALLOCSIM_UNITY) compile a cold tree in about 40 % of the time (README), but an edit recompiles its
# whole batch and a batch is a ccache hit only when none of its files changed: on for CI's fresh clone, off otherwise.
CONFIGURE=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DALLOCSIM_UNITY=${ALLOCSIM_UNITY:-OFF}")
# The sanitizer and fuzz builds run the suite and the loaders, not the benchmarks: -O1 with line tables
# compiles in about two thirds of the time of -O2 -g, and ASan's reports keep their file:line.
SAN_OPT=("-DALLOCSIM_OPT_FLAGS=${ALLOCSIM_SAN_OPT_FLAGS:--O1 -g1}")
PLAIN_OPT=("-DALLOCSIM_OPT_FLAGS=${ALLOCSIM_OPT_FLAGS:--O2 -g}")
if command -v ccache >/dev/null 2>&1; then
  CONFIGURE+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
else
  CONFIGURE+=(-DCMAKE_CXX_COMPILER_LAUNCHER=)
fi

# build [TARGET...]: configure and build everything, or only the named targets (`demo` needs only the CLI:
# on 2 cores the whole tree, tests and benchmarks included, takes several times longer).
build() {
  cmake -S "$ROOT" -B "$BUILD" "${CONFIGURE[@]}" "${PLAIN_OPT[@]}" >/dev/null
  if [ $# -eq 0 ]; then
    cmake --build "$BUILD" -j "$JOBS"
  else
    cmake --build "$BUILD" -j "$JOBS" --target "$@"
  fi
}

# sanitized_build [TARGET...]: configure build-asan/ for `sanitize` and `fuzz` alike and build everything, or only
# the named targets. One configuration for both (clang: libFuzzer needs it), so the library compiles once: with
# ASan + UBSan, and with libFuzzer's coverage instrumentation, which the suite runs under too (it costs the suite
# no measurable time; clang compiles the tree in about three quarters of g++'s time).
sanitized_build() {
  # A build-asan/ an older tools/dev.sh configured with g++: CMake would throw its cache away on the compiler
  # change and reconfigure without the -D options below, so the tree goes and is configured afresh.
  if [ -f "$BUILD/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++' "$BUILD/CMakeCache.txt"; then
    rm -rf "$BUILD"
  fi
  CXX=clang++ cmake -S "$ROOT" -B "$BUILD" "${CONFIGURE[@]}" "${SAN_OPT[@]}" -DCMAKE_CXX_COMPILER=clang++ \
    -DALLOCSIM_SANITIZE=ON -DALLOCSIM_FUZZ=ON >/dev/null
  if [ $# -eq 0 ]; then
    cmake --build "$BUILD" -j "$JOBS"
  else
    cmake --build "$BUILD" -j "$JOBS" --target "$@"
  fi
}

# package: the .deb of what `cmake --install` installs (cmake/package.cmake), into $BUILD/package/. CPack's
# preinstall step builds the targets `all` names first: after `tools/dev.sh build` or `test`, none is stale.
package() {
  rm -rf "$BUILD/package"
  (cd "$BUILD" && cpack -G DEB -B "$BUILD/package" >/dev/null)
  ls "$BUILD"/package/*.deb
}

case "${1:-}" in
  demo)
    install_missing "${PACKAGES[@]}"
    build allocsim
    cd "$ROOT"
    "$BUILD/tools/allocsim" run scenarios/alloc-004-one-plan-two-claimants.json --executions 10000
    ;;
  test)
    install_missing "${PACKAGES[@]}"
    build
    # Check mode (docs/DESIGN.md §5, "The porting rules, checked, and check mode") for every allocsim the suite
    # starts, the golden corpus and the Python-driven tests included (the Catch2 binaries turn it on anyway).
    ALLOCSIM_CHECK_MODE=1 ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS"
    ;;
  build)
    install_missing "${PACKAGES[@]}"
    build
    ;;
  sanitize)
    # ASan + UBSan over the whole suite. Boost 1.74 annotates fiber switches for ASan only in its ucontext
    # implementation, so the build defines BOOST_USE_UCONTEXT and BOOST_USE_ASAN everywhere (CMake option
    # ALLOCSIM_SANITIZE). LeakSanitizer stays on: every execution unwinds all its fibers before it returns,
    # so no live heap pointer sits only on a suspended fiber's stack (which LSan would not scan) when the
    # leak check runs at exit. The build is the fuzzers' too (sanitized_build).
    install_missing "${PACKAGES[@]}" "${SANITIZER_PACKAGES[@]}"
    BUILD="$ROOT/build-asan"
    sanitized_build
    # ASan's reports go to files, one per process: it warns once per process that it supports ucontext
    # switching only partly (Boost's annotations are what make it work), and that warning on stderr would
    # change the output the CLI tests compare. Every report other than that warning is printed below and
    # fails the run; a test that hit one has failed already (halt_on_error).
    logs="$BUILD/sanitizer-logs"
    rm -rf "$logs" && mkdir -p "$logs"
    export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=0:log_path=$logs/asan"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    status=0
    ALLOCSIM_CHECK_MODE=1 ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" || status=$?
    reports=0
    for f in "$logs"/asan*; do
      [ -e "$f" ] || continue
      # grep -v succeeds exactly when some line is neither that warning nor blank (no pipe: a SIGPIPE under
      # pipefail would hide a long report).
      if grep -qv -e "doesn't fully support makecontext/swapcontext" -e '^[[:space:]]*$' "$f"; then
        echo "dev.sh: sanitizer report $f:" >&2
        cat "$f" >&2
        reports=$((reports + 1))
      fi
    done
    echo "dev.sh: sanitize: ctest exit $status, $reports sanitizer report(s)" >&2
    [ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
    ;;
  fuzz)
    install_missing "${PACKAGES[@]}" "${SANITIZER_PACKAGES[@]}"
    BUILD="$ROOT/build-asan"
    SECONDS_EACH="${ALLOCSIM_FUZZ_SECONDS:-60}"
    sanitized_build fuzz_scenario fuzz_trace
    export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
    # Each libFuzzer process runs on one core: with ALLOCSIM_JOBS of 2 or more the two targets fuzz side by side,
    # each for the same SECONDS_EACH, so the stage takes one target's time instead of two. Each one's output goes to
    # its log in the build dir and is printed when it is done, whole, so that two never interleave.
    fuzz_one() {  # TARGET: fuzz it; the exit status is libFuzzer's (callers send the output to the target's log)
      local target="$1"
      # New inputs go to a scratch corpus in the build dir; the committed seeds stay as they are.
      local work="$BUILD/corpus/$target" artifacts="$BUILD/artifacts/$target/"
      mkdir -p "$work" "$artifacts"
      # -rss_limit_mb and -timeout turn a runaway input into a reported failure, not a hung CI job.
      "$BUILD/tests/fuzz/fuzz_$target" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts" "$work" "$ROOT/tests/fuzz/corpus/$target"
    }
    targets=(scenario trace)
    declare -A exit_of pid_of
    for target in "${targets[@]}"; do
      echo "dev.sh: fuzzing $target for ${SECONDS_EACH}s (output: $BUILD/fuzz-$target.log)" >&2
    done
    if [ "$JOBS" -ge 2 ]; then
      for target in "${targets[@]}"; do
        fuzz_one "$target" >"$BUILD/fuzz-$target.log" 2>&1 &
        pid_of[$target]=$!
      done
      for target in "${targets[@]}"; do
        exit_of[$target]=0
        wait "${pid_of[$target]}" || exit_of[$target]=$?
      done
    else
      for target in "${targets[@]}"; do
        exit_of[$target]=0
        fuzz_one "$target" >"$BUILD/fuzz-$target.log" 2>&1 || exit_of[$target]=$?
      done
    fi
    failed=0
    for target in "${targets[@]}"; do
      echo "dev.sh: fuzz_$target: exit ${exit_of[$target]}; its output:" >&2
      cat "$BUILD/fuzz-$target.log" >&2
      [ "${exit_of[$target]}" -eq 0 ] || failed=$((failed + 1))
    done
    echo "dev.sh: fuzz: ${#targets[@]} target(s) for ${SECONDS_EACH}s each, $failed failed" >&2
    [ "$failed" -eq 0 ]
    ;;
  report)
    # The HTML report of the whole corpus (`sweep scenarios/ --report-html`) rendered in headless Chromium,
    # its DOM checked against the sweep's JSON report (tests/html/check_report.py; ctest renders a two-mutant
    # page, this renders every violation of scenarios/).
    install_missing "${PACKAGES[@]}"
    cmake -S "$ROOT" -B "$BUILD" "${CONFIGURE[@]}" "${PLAIN_OPT[@]}" >/dev/null
    cmake --build "$BUILD" -j "$JOBS" --target allocsim
    python3 "$ROOT/tests/html/check_report.py" --allocsim "$BUILD/tools/allocsim" --root "$ROOT" --inputs scenarios/
    ;;
  differential)
    # Every scenario (and mutant scenario) on both sides, schedule by schedule; fails on any disagreement.
    # Unlike the ctest self-test, a missing seed fails this stage: CI asked for the comparison.
    install_missing "${PACKAGES[@]}"
    cmake -S "$ROOT" -B "$BUILD" "${CONFIGURE[@]}" "${PLAIN_OPT[@]}" >/dev/null
    cmake --build "$BUILD" -j "$JOBS" --target allocsim
    export ALLOCSIM_UPSTREAM_DIR="${ALLOCSIM_UPSTREAM_DIR:-${ALLOCSIM_SEED_DIR:-$ROOT/../shared/pyref}}"
    if [ ! -f "$ALLOCSIM_UPSTREAM_DIR/memory_backend.py" ]; then
      echo "dev.sh: differential: no upstream backend at ALLOCSIM_UPSTREAM_DIR=$ALLOCSIM_UPSTREAM_DIR" >&2
      exit 1
    fi
    python3 "$ROOT/tools/differential/differential.py" selftest --allocsim "$BUILD/tools/allocsim"
    python3 "$ROOT/tools/differential/differential.py" stage --allocsim "$BUILD/tools/allocsim" --jobs "$JOBS"
    ;;
  package)
    install_missing "${PACKAGES[@]}"
    build allocsim allocsim_man
    package
    ;;
  install-check)
    install_missing "${PACKAGES[@]}"
    build allocsim allocsim_man  # nothing to do after `test`: the stage reuses its build dir
    "$ROOT/tools/install_check.sh" "$BUILD"
    ;;
  selfcheck)
    # The verdict self-check, bounded by counts (so its verdict is the same on every machine): generated
    # scenarios, every strategy, every execution replayed, every violation shrunk, explained, pinned by its
    # order block and re-checked under the other invariant-check mode. Any contradiction fails the stage; its
    # replay line names the files written under $BUILD/selfcheck/files.
    install_missing "${PACKAGES[@]}"
    cmake -S "$ROOT" -B "$BUILD" "${CONFIGURE[@]}" "${PLAIN_OPT[@]}" >/dev/null
    cmake --build "$BUILD" -j "$JOBS" --target allocsim
    out="$BUILD/selfcheck"
    rm -rf "$out"
    mkdir -p "$out"
    "$BUILD/tools/allocsim" selfcheck --seed "${ALLOCSIM_SELFCHECK_SEED:-1}" \
      --scenarios "${ALLOCSIM_SELFCHECK_SCENARIOS:-300}" --jobs "$JOBS" --out "$out/files" \
      --report-json "$out/report.json"
    ;;
  schema)
    install_missing "${PACKAGES[@]}"
    build allocsim-update-schema
    "$BUILD/tools/allocsim-update-schema" "$ROOT/scenarios/schema/scenario.v1.schema.json"
    "$BUILD/tools/allocsim-update-schema" "$ROOT/docs/DESIGN.md"
    ;;
  format)
    install_missing "${FORMAT_PACKAGES[@]}"
    cd "$ROOT"
    format_sources | xargs -0 -r clang-format -i --style=file
    ;;
  format-check)
    # One line per unformatted file, however far off it is (clang-format's own diagnostics quote every
    # changed line); `clang-format --dry-run FILE` shows the changes for one file.
    install_missing "${FORMAT_PACKAGES[@]}"
    cd "$ROOT"
    bad=()
    while IFS= read -r -d '' f; do
      clang-format --dry-run --Werror --style=file "$f" >/dev/null 2>&1 || bad+=("$f")
    done < <(format_sources)
    if [ ${#bad[@]} -ne 0 ]; then
      printf '%s\n' "${bad[@]}" >&2
      echo "dev.sh: format-check: ${#bad[@]} file(s) not clang-formatted; run tools/dev.sh format" >&2
      exit 1
    fi
    echo "dev.sh: format-check: all C++ sources formatted" >&2
    ;;
  *)
    echo "usage: tools/dev.sh demo|test|build|report|sanitize|fuzz|differential|package|install-check|selfcheck|schema|format|format-check" >&2
    exit 2
    ;;
esac
