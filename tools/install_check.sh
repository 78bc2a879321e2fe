#!/usr/bin/env bash
# The install check (`tools/dev.sh install-check`, CI; README "Installing"): installs a built tree the two ways
# a team would and runs allocsim from the installed files only.
#   tools/install_check.sh BUILD_DIR
# 1. `cmake --install BUILD_DIR --prefix TMP/prefix`: the listed files are there; from another folder the
#    installed binary prints its version and commit, runs an installed scenario (exit 0, nothing written), and
#    runs it with a mutant (the race is found, exit 1) without writing into the installed scenario folder
#    (an installed example keeps no corpus beside it); `--corpus DIR` stores the trace there instead.
# 2. The .deb (cpack, cmake/package.cmake) into a clean dpkg root, `dpkg --root TMP/root -i`: no chroot is
#    needed because the package has no maintainer scripts. The root's status file holds, for each package the
#    .deb's Depends names, this machine's own record of it (dpkg-query -s), so dpkg checks the Depends line
#    (names and versions) against what is really installed here, and the install fails if a dependency is
#    missing or too old. Then the root's binary (which loads this machine's libraries, the ones those records
#    describe) runs an installed scenario from the root.
# Exit 0 when every check passed; the first failing check is named. Uses a temporary folder it removes.
set -euo pipefail

BUILD="$(cd "${1:?usage: tools/install_check.sh BUILD_DIR}" && pwd)"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() {
  echo "install-check: FAILED: $*" >&2
  exit 1
}
SCENARIO=share/allocsim/scenarios/alloc-004-one-plan-two-claimants.json

# -- 1. cmake --install into a fresh prefix ---------------------------------------------------------------
P="$TMP/prefix"
cmake --install "$BUILD" --prefix "$P" >/dev/null
for f in bin/allocsim share/man/man1/allocsim.1.gz share/bash-completion/completions/allocsim \
         share/allocsim/scenarios/schema/scenario.v1.schema.json share/allocsim/scenarios/mutants/stale-last-out.json \
         share/allocsim/scenarios/README.md share/allocsim/scenarios/FINDINGS.md \
         share/allocsim/scenarios/.allocsim-installed share/doc/allocsim/README.md share/doc/allocsim/docs/DESIGN.md \
         "$SCENARIO"; do
  [ -e "$P/$f" ] || fail "cmake --install: $f is missing"
done
[ -e "$P/share/allocsim/scenarios/.allocsim" ] && fail "cmake --install copied a developer's corpus"
zcat "$P/share/man/man1/allocsim.1.gz" | grep -q '^\.SH COMMANDS' || fail "the man page has no COMMANDS section"
mkdir -p "$TMP/elsewhere" && cd "$TMP/elsewhere"
"$P/bin/allocsim" --version | grep -Eq '^allocsim [0-9.]+ \(git [^)]+\)$' || fail "--version: $("$P/bin/allocsim" --version)"
"$P/bin/allocsim" run "$P/$SCENARIO" -n 100 >"$TMP/run.txt" || fail "run of the installed scenario: $(cat "$TMP/run.txt")"
grep -q '^expectation met: no violation' "$TMP/run.txt" || fail "run: no 'expectation met' line"
set +e
"$P/bin/allocsim" run "$P/$SCENARIO" -n 100 --mutant client-side-claim --shrink-runs 2000 >"$TMP/mutant.txt"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "run --mutant client-side-claim exited $rc, expected 1: $(cat "$TMP/mutant.txt")"
grep -q 'minimal trace not written (an installed example scenario keeps no corpus beside it' "$TMP/mutant.txt" ||
  fail "run --mutant: no note that the installed scenario keeps no corpus"
[ -e "$P/share/allocsim/scenarios/.allocsim" ] && fail "run wrote into the installed scenario folder"
set +e
"$P/bin/allocsim" run "$P/$SCENARIO" -n 100 --mutant client-side-claim --shrink-runs 2000 --corpus "$TMP/corpus" \
  >"$TMP/corpus.txt"
set -e
ls "$TMP"/corpus/alloc-004-one-plan-two-claimants+client-side-claim.*.trace.json >/dev/null 2>&1 ||
  fail "run --corpus DIR stored no entry there: $(cat "$TMP/corpus.txt")"
[ -n "$(ls -A "$TMP/elsewhere")" ] && fail "a run wrote into the current folder: $(ls -A "$TMP/elsewhere")"
echo "install-check: cmake --install: ok ($(find "$P" -type f | wc -l) files; an installed scenario runs from another folder)"

# -- 2. the .deb into a clean dpkg root ------------------------------------------------------------------------
rm -rf "$BUILD/package"
(cd "$BUILD" && cpack -G DEB -B "$BUILD/package" >"$TMP/cpack.txt" 2>&1) || fail "cpack: $(cat "$TMP/cpack.txt")"
DEB="$(ls "$BUILD"/package/allocsim_*.deb)"
depends="$(dpkg-deb -f "$DEB" Depends)"
[ -n "$depends" ] || fail "$DEB has no Depends line (dpkg-shlibdeps did not run)"
for lib in libc6 libstdc++6 libboost-context; do
  grep -q "$lib" <<<"$depends" || fail "Depends names no $lib: $depends"
done
R="$TMP/root"
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
: >"$R/var/lib/dpkg/status"
# This machine's record of each package Depends names (its first alternative; ":any" and versions dropped).
for dep in $(tr ',' '\n' <<<"$depends" | sed -E 's/\|.*//; s/\(.*\)//; s/:any//; s/[[:space:]]//g' | sort -u); do
  dpkg-query -s "$dep" >>"$R/var/lib/dpkg/status" 2>/dev/null || fail "Depends names $dep, which is not installed here"
  echo >>"$R/var/lib/dpkg/status"
done
dpkg --root="$R" --force-not-root --log=/dev/null -i "$DEB" >"$TMP/dpkg.txt" 2>&1 || fail "dpkg --root -i: $(cat "$TMP/dpkg.txt")"
dpkg --root="$R" -s allocsim | grep -q '^Status: install ok installed' || fail "dpkg --root: allocsim is not installed"
for f in usr/bin/allocsim usr/share/man/man1/allocsim.1.gz usr/share/bash-completion/completions/allocsim \
         "usr/$SCENARIO"; do
  [ -e "$R/$f" ] || fail "the .deb did not install /$f"
done
"$R/usr/bin/allocsim" run "$R/usr/$SCENARIO" -n 100 >"$TMP/deb-run.txt" ||
  fail "run of the .deb's binary on its scenario: $(cat "$TMP/deb-run.txt")"
grep -q '^expectation met: no violation' "$TMP/deb-run.txt" || fail "the .deb's run: no 'expectation met' line"
echo "install-check: .deb: ok ($(basename "$DEB"); Depends: $depends)"
