// The step limit as a user meets it: a scenario's `max_steps` key, `--max-steps` overriding it, and the
// report of an execution cut short (each unmet expect.reach barrier printed once).
#include <catch2/catch.hpp>

#include "tests/cli/support.h"

#include <string>

namespace {

using cli_test::allocsim;

/// The line that starts with `prefix` ("replay: "), or "".
std::string line_of(const std::string& text, const std::string& prefix) {
  const size_t at = text.find("\n" + prefix);
  if (at == std::string::npos) return "";
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("run --max-steps 8: every unmet expect.reach barrier is reported exactly once", "[cli][max-steps]") {
  // alloc-021-readiness-stages expects claim.create.after, claim.schedule.after and claim.ready.after; with a
  // single execution cut at 8 steps none of them can fire (the reserve's owner barriers come first).
  const auto r = allocsim("run scenarios/alloc-021-readiness-stages.json --max-steps 8 -n 1 --no-shrink --no-trace");
  CHECK(r.code == 1);
  CHECK(count(r.text, "violated steps-bounded") == 1);
  for (const char* b : {"claim.create.after", "claim.schedule.after", "claim.ready.after"}) {
    INFO(b << "\n" << r.text);
    CHECK(count(r.text, std::string("barrier ") + b + " never fired") == 1);
  }
  // And over many executions, where the misses are summed: still one line each.
  const auto many =
      allocsim("run scenarios/alloc-021-readiness-stages.json --max-steps 8 -n 200 --no-shrink --no-trace");
  // Every execution stops at steps-bounded before the barrier: the verdict says so (backend/system/judge.cpp).
  CHECK(count(many.text,
              "barrier claim.ready.after never fired (expect.reach): every one of the 200 executions "
              "stopped at a violation before it could fire") == 1);
}

TEST_CASE("the scenario key max_steps bounds its executions and --max-steps overrides it", "[cli][max-steps]") {
  const char* file = "scenarios/mutants/release-spins-on-busy-nodes.json";  // max_steps 60
  const auto own = allocsim(std::string("run ") + file + " -n 2000 --no-shrink --no-trace");
  CHECK(own.code == 0);  // it expects steps-bounded
  CHECK_THAT(own.text, Catch::Contains("did not end within 60 steps"));
  // Without the flag, the replay line carries none: replay reads the scenario's limit itself.
  REQUIRE_THAT(line_of(own.text, "replay: "), Catch::Contains("--seed"));
  CHECK_THAT(line_of(own.text, "replay: "), !Catch::Contains("--max-steps"));

  const auto flag = allocsim(std::string("run ") + file + " -n 2000 --max-steps 200 --no-shrink --no-trace");
  CHECK(flag.code == 0);
  CHECK_THAT(flag.text, Catch::Contains("did not end within 200 steps"));
  CHECK_THAT(line_of(flag.text, "replay: "), Catch::EndsWith("--max-steps 200"));  // a given flag is repeated
  CHECK_THAT(line_of(flag.text, "replay by schedule: "), Catch::EndsWith("--max-steps 200"));
}
