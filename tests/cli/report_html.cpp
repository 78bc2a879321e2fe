// `run --report-html` and `sweep --report-html` (sim/campaign/report_html.h) through the binary: the page is
// written, holds one section per violation with the actors' lanes, is the same bytes on every run (and for
// any --jobs), and an unwritable path is a usage error before anything runs.
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

namespace {

using cli_test::allocsim;
using cli_test::slurp;
using cli_test::TempDir;

size_t occurrences(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("run --report-html: the minimal trace as swimlanes, the same bytes twice", "[cli][html]") {
  TempDir tmp;
  const std::string args = "run scenarios/mutants/stale-last-out.json --no-trace --report-html ";
  const auto a = allocsim(args + tmp / "a.html");
  const auto b = allocsim(args + tmp / "b.html");
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  CHECK(occurrences(a.text, "html report written: " + tmp / "a.html" + "\n") == 1);
  const std::string page = slurp(tmp / "a.html");
  CHECK(page == slurp(tmp / "b.html"));
  CHECK(occurrences(page, "<section class=\"violation\"") == 1);
  CHECK(occurrences(page, "data-invariant=\"shared-map-never-deleted\"") == 1);
  CHECK(occurrences(page, "<div class=\"lane\" data-actor=\"flowA\">") == 1);
  CHECK(occurrences(page, "<div class=\"lane\" data-actor=\"flowB\">") == 1);
  // The trace run printed: the expected-shrink.tsv minimum, 20 steps.
  CHECK(occurrences(page, "<div class=\"swimlanes\" data-actors=\"2\" data-steps=\"20\"") == 1);
  CHECK(occurrences(page, "<tr class=\"scenario met\" data-file=\"scenarios/mutants/stale-last-out.json\"") == 1);
}

TEST_CASE("run --report-html: a run without a violation gets the table and no section", "[cli][html]") {
  TempDir tmp;
  const auto r =
      allocsim("run scenarios/alloc-004-one-plan-two-claimants.json --executions 20 --report-html " + tmp / "p.html");
  REQUIRE(r.code == 0);
  const std::string page = slurp(tmp / "p.html");
  CHECK(occurrences(page, "<tr class=\"scenario met\"") == 1);
  CHECK(occurrences(page, "<section class=\"violation\"") == 0);
}

TEST_CASE("sweep --report-html: one section per violating scenario, the same bytes for any --jobs", "[cli][html]") {
  TempDir tmp;
  const std::string args =
      "sweep scenarios/mutants/stale-last-out.json scenarios/mutants/client-side-claim.json --report-html ";
  const auto a = allocsim(args + tmp / "a.html");
  const auto b = allocsim(args + tmp / "b.html --jobs 2");
  REQUIRE(a.code == 0);
  REQUIRE(b.code == 0);
  const std::string page = slurp(tmp / "a.html");
  CHECK(page == slurp(tmp / "b.html"));
  CHECK(occurrences(page, "<section class=\"violation\"") == 2);
  CHECK(occurrences(page,
                    "<section class=\"violation\" id=\"v1\" data-file=\"scenarios/mutants/client-side-claim.json\" "
                    "data-invariant=\"single-ownership\">") == 1);
  CHECK(occurrences(page,
                    "<section class=\"violation\" id=\"v2\" data-file=\"scenarios/mutants/stale-last-out.json\" "
                    "data-invariant=\"shared-map-never-deleted\">") == 1);
  CHECK(occurrences(page, "<tr class=\"scenario met\"") == 2);
  CHECK(occurrences(page, "(shrunk from ") == 2);
}

TEST_CASE("report-html into a missing directory is a usage error before anything runs", "[cli][html]") {
  const auto r = allocsim("run scenarios/mutants/stale-last-out.json --report-html /nonexistent-dir/p.html");
  CHECK(r.code == 2);
  CHECK(occurrences(r.text, "--report-html /nonexistent-dir/p.html: directory /nonexistent-dir does not exist") == 1);
  const auto s = allocsim("sweep scenarios/mutants/stale-last-out.json --report-html /nonexistent-dir/p.html");
  CHECK(s.code == 2);
  CHECK(occurrences(s.text, "--report-html /nonexistent-dir/p.html: directory /nonexistent-dir does not exist") == 1);
}
