// Flag values that say nothing: an empty value is refused naming the flag, whichever the command, before
// anything runs (a new user's report, session 16).
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "tests/cli/support.h"

using namespace cli_test;

// An unset shell variable gives a flag an empty value (`--trace-out "$OUT"`); taken as not given, the run went on
// and exited 0 with nothing written where the user asked (a new user's report). Refused, whichever the flag.
TEST_CASE("a flag given an empty value is refused, naming the flag, before anything runs", "[cli][errors]") {
  const std::string sc = "scenarios/alloc-023-sequential.json";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run " + sc + " -n 1 --trace-out ''", "--trace-out"},
      {"run " + sc + " -n 1 --perfetto ''", "--perfetto"},
      {"run " + sc + " -n 1 --report-html ''", "--report-html"},
      {"run " + sc + " -n 1 --fingerprints ''", "--fingerprints"},
      {"run " + sc + " -n 1 --record ''", "--record"},
      {"run " + sc + " -n 1 --corpus ''", "--corpus"},
      {"run " + sc + " -n 1 --mutant ''", "--mutant"},
      {"run " + sc + " -n 1 --strategy ''", "--strategy"},
      {"sweep " + sc + " --report-json ''", "--report-json"},
      {"sweep " + sc + " --junit ''", "--junit"},
      {"sweep " + sc + " --checkpoint ''", "--checkpoint"},
  };
  std::vector<std::pair<std::string, std::string>> refused;
  for (const auto& [args, flag] : cases)
    refused.emplace_back(args, "allocsim: " + flag + ": empty value (give one, or leave the flag out)\n");
  check_refused(refused);
  CHECK(allocsim("run ''").text == "allocsim: missing SCENARIO (a scenario file, see scenarios/)\n");  // positional
}
