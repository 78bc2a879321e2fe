// libFuzzer target: the scenario loader on arbitrary bytes (docs/DESIGN.md §8: bad input is never a crash).
//
// Property: parse_scenario() either returns a Scenario or throws ScenarioError; anything else (another
// exception, a crash, a sanitizer report, a leak) is a bug. A scenario it accepts must also compile into
// a world (compile() plus one BackendWorld), since the loader promises that a loaded scenario never fails
// for a reason the file could have told (backend/scenario/scenario.h).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "backend/scenario/scenario.h"
#include "backend/system/backend_world.h"

namespace {

/// Op-level executions explored per accepted input (Scenario::op_level_bound).
constexpr uint64_t kOpLevelBound = 64;

[[noreturn]] void bug(const char* stage, const char* what) {
  std::fprintf(stderr, "fuzz_scenario: %s threw something other than ScenarioError: %s\n", stage, what);
  std::abort();  // libFuzzer records the input as a crash
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  allocsim::harness::Scenario scenario;
  try {
    scenario = allocsim::harness::parse_scenario(text, "fuzz.json");
  } catch (const allocsim::harness::ScenarioError&) {
    return 0;  // rejected with a message: the expected outcome for almost every input
  } catch (const std::exception& e) {
    bug("parse_scenario", e.what());
  } catch (...) {
    bug("parse_scenario", "a non-std exception");
  }
  // Compiling explores the scenario's op-level executions for ops-atomic (backend/system/op_level.h): a small bound
  // keeps each input well inside libFuzzer's -timeout and still runs that path (past it: the unjudged note).
  scenario.op_level_bound = kOpLevelBound;
  try {
    const auto compiled = allocsim::harness::compile(scenario, {});
    allocsim::harness::BackendWorld world(*compiled);
  } catch (const std::exception& e) {
    bug("compile of an accepted scenario", e.what());
  }
  return 0;
}
