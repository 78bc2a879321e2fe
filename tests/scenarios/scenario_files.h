// Scenario files the scenario tests iterate over, in sorted (deterministic) order, and one by its path.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace allocsim::testing {

/// `rel` (a path relative to the repository's root) as an absolute path.
inline std::string source_path(const std::string& rel) { return std::string(ALLOCSIM_SOURCE_DIR) + "/" + rel; }

/// Every scenarios/mutants/*.json, as absolute paths, sorted.
inline std::vector<std::string> mutant_files() {
  std::vector<std::string> out;
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(ALLOCSIM_SOURCE_DIR) / "scenarios" / "mutants"))
    if (e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// Every scenario file under scenarios/ (mutants included), as absolute paths, sorted. Skips the JSON Schema
/// documents and the regression corpus a local `run` keeps in scenarios/.allocsim/ (trace files, not scenarios).
inline std::vector<std::string> scenario_files() {
  std::vector<std::string> out;
  const std::filesystem::path root = std::filesystem::path(ALLOCSIM_SOURCE_DIR) / "scenarios";
  for (auto it = std::filesystem::recursive_directory_iterator(root);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name == "schema" || name.starts_with("."))) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".json") out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace allocsim::testing
