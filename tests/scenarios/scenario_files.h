// Scenario files the scenario tests iterate over, in sorted (deterministic) order.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace allocsim::testing {

/// Every scenarios/mutants/*.json, as absolute paths, sorted.
inline std::vector<std::string> mutant_files() {
  std::vector<std::string> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(ALLOCSIM_SOURCE_DIR) / "scenarios" / "mutants"))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace allocsim::testing
