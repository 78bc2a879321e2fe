// The explanation on the command line (docs/DESIGN.md §7, "Explanations"): `run` prints it above the trace table and
// stores it in the trace file (with the top-level "order"); `trace explain FILE` prints it and `--write` adds it to
// a trace that had none; a trace without one still replays.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

using cli_test::allocsim;
using cli_test::slurp;
using cli_test::TempDir;

TEST_CASE("run prints the explanation above the trace table and stores it in the trace", "[cli][explain]") {
  TempDir dir;
  const std::string trace = dir / "p.trace.json";
  const auto r = allocsim("run scenarios/mutants/partial-inventory-is-idle.json --trace-out " + trace);
  CHECK(r.code == 0);  // the scenario expects the violation
  const std::string& out = r.text;
  const size_t why = out.find("why (race): partial-inventory-never-idle needs one pair of steps ordered as it was");
  const size_t table = out.find("(each step resumes its actor");
  REQUIRE(why != std::string::npos);
  REQUIRE(table != std::string::npos);
  CHECK(why < table);
  CHECK(out.find("racing pairs (run the other way round, the violation goes away):\n"
                 "  step 0 chaos:fail_reads#1  kind=pods\n"
                 "    then step 1 flowA:inventory#1\n"
                 "    on the failing-pods-reads flag; reversed: no violation") != std::string::npos);
  CHECK(out.find("causal slice (3 of 3 steps; the violation depends on these):\n") != std::string::npos);
  CHECK(out.find("  \"order\": [[\"chaos:fail_reads#1\",\"flowA:inventory#1\"]]\n") != std::string::npos);
  const std::string text = slurp(trace);
  CHECK(text.find("\"order\": [\n    [\n      \"chaos:fail_reads#1\",\n      \"flowA:inventory#1\"\n    ]\n  ],\n"
                  "  \"explanation\": {\n    \"kind\": \"race\",") != std::string::npos);
  // Replaying a trace prints the explanation it stores.
  const auto rep = allocsim("replay " + trace);
  CHECK(rep.code == 1);
  CHECK(rep.text.find("why (race): ") != std::string::npos);
}

TEST_CASE("trace explain prints an explanation and --write stores it", "[cli][explain]") {
  TempDir dir;
  const std::string trace = dir / "raw.trace.json";
  REQUIRE(allocsim("run scenarios/mutants/release-keeps-owner.json --no-shrink --trace-out " + trace).code == 0);
  CHECK(slurp(trace).find("\"explanation\"") == std::string::npos);  // only shrunk traces are explained
  const auto r = allocsim("trace explain " + trace);
  CHECK(r.code == 0);
  CHECK(r.text.find("why (sequential): No race: quiescent-clean breaks with no two actors' steps depending on each "
                    "other (one actor), so it breaks in every order.\n") != std::string::npos);
  CHECK(slurp(trace).find("\"explanation\"") == std::string::npos);  // not without --write
  const auto w = allocsim("trace explain " + trace + " --write");
  CHECK(w.code == 0);
  CHECK(w.text.find("explanation written: " + trace) != std::string::npos);
  const std::string text = slurp(trace);
  CHECK(text.find("\"explanation\": {\n    \"kind\": \"sequential\",") != std::string::npos);
  CHECK(allocsim("replay " + trace).code == 1);  // still the same trace
  // Again: the stored explanation is the same, so nothing is written and the output says so.
  const auto again = allocsim("trace explain " + trace + " --write");
  CHECK(again.code == 0);
  CHECK(again.text.find("explanation unchanged: " + trace + " (already stored)\n") != std::string::npos);
  CHECK(again.text.find("explanation written") == std::string::npos);
  CHECK(slurp(trace) == text);
  CHECK(allocsim("trace explain").code == 2);  // no file: a usage error
}

TEST_CASE("a race the scenario's order pins is reported as not reversible, not as breaking in every order",
          "[cli][explain]") {
  // alloc-005-stale-last-out-pinned's order leaves one schedule, so no dependent pair can run the other way round:
  // saying the violation "breaks in every order" would claim what was never tried.
  TempDir dir;
  const std::string trace = dir / "pinned.trace.json";
  REQUIRE(allocsim("run scenarios/alloc-005-stale-last-out-pinned.json --mutant stale-last-out --trace-out " + trace)
              .code == 0);
  const auto r = allocsim("trace explain " + trace);
  CHECK(r.code == 0);
  CHECK(r.text.find("why (sequential): No race found: none of the 32 dependent pairs of different actors' steps "
                    "tried ran the other way round when replayed reversed (an order pinning them, or one step "
                    "enabling the other, prevents it), so no reversal shows what shared-map-never-deleted needs.\n") !=
        std::string::npos);
  CHECK(r.text.find("breaks in every order") == std::string::npos);
}
