// --check-invariants as a user meets it: a value other than incremental or full is a usage error naming the
// flag (exit 2, before any scenario is read), and both modes print the same run report and fingerprints.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <string>

namespace {

using cli_test::allocsim;

}  // namespace

TEST_CASE("check-invariants flag: an unknown mode exits 2 naming the flag, on run, sweep and shrink", "[cli]") {
  for (const char* cmd : {"run scenarios/alloc-005-last-out.json --check-invariants sometimes",
                          "sweep scenarios/alloc-005-last-out.json --check-invariants sometimes",
                          "shrink no-such.trace.json --check-invariants sometimes"}) {
    INFO(cmd);
    const auto r = allocsim(cmd);
    CHECK(r.code == 2);
    CHECK_THAT(r.text, Catch::Contains("--check-invariants: expected incremental or full, got \"sometimes\"\n"));
  }
  const auto typo = allocsim("run scenarios/alloc-005-last-out.json --check-invariants ful");
  CHECK(typo.code == 2);
  CHECK_THAT(typo.text,
             Catch::Contains("--check-invariants: expected incremental or full, got \"ful\" (did you mean full?)"));
}

TEST_CASE("check-invariants flag: full and incremental print the same report for a violating mutant scenario",
          "[cli]") {
  const std::string base = "run scenarios/mutants/release-keeps-owner.json -n 300 --no-shrink --no-trace --no-corpus";
  const auto full = allocsim(base + " --check-invariants full");
  const auto incremental = allocsim(base + " --check-invariants incremental");
  const auto by_default = allocsim(base);
  CHECK(full.code == 0);  // the mutant scenario expects its violation
  CHECK_THAT(full.text, Catch::Contains("300 executions, 3900 steps, 300 violating"));
  CHECK(incremental.code == full.code);
  CHECK(incremental.text == full.text);
  CHECK(by_default.text == full.text);
}
