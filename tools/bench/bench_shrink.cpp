// allocsim_bench_shrink: how well and how fast the shrinker works on every mutant scenario.
//
// For each scenarios/mutants/*.json (or the files given): find the first violation with `random`, seed 0,
// up to 2,000 executions (as `allocsim run` does), shrink it with the default budget, and report the raw and
// shrunk sizes (steps, actors, ops, preemptions), the shrunk/raw step ratio, the candidate runs and the
// shrink time (median of 5 repetitions; the result itself is identical every time). Times are wall clock
// and only reported, never asserted.
//
// usage: allocsim_bench_shrink [SOURCE_DIR | FILE.json...]   (default SOURCE_DIR: the current directory)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "backend/system/shrink.h"
#include "backend/system/system.h"
#include "sim/campaign/run.h"

using namespace allocsim::harness;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<std::string> files;
  const fs::path root = argc == 2 && fs::is_directory(argv[1]) ? fs::path(argv[1]) : fs::path(".");
  if (argc >= 2 && !fs::is_directory(argv[1])) {
    for (int i = 1; i < argc; ++i) files.push_back(argv[i]);
  } else {
    for (const auto& e : fs::directory_iterator(root / "scenarios" / "mutants"))
      if (e.path().extension() == ".json") files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
  }
  if (files.empty()) {
    std::cerr << "no mutant scenarios found (run from the source directory or pass it)\n";
    return 2;
  }
  std::cout << fmt::format("{:<34} {:>14} {:>14} {:>7} {:>8} {:>6} {:>10}\n", "scenario", "raw st/ac/op/pr",
                           "min st/ac/op/pr", "ratio", "runs", "min?", "time ms");
  double total_ratio = 0;
  for (const std::string& file : files) {
    try {
      const Scenario sc = load_scenario(file);
      allocsim::campaign::ExploreConfig cfg;
      cfg.executions = 2000;
      cfg.stop_at_first_violation = true;
      const allocsim::campaign::RunReport rep = allocsim::campaign::run(*subject_of(sc), cfg);
      if (!rep.summary.first) {
        std::cout << fmt::format("{:<34} no violation in 2000 executions\n", fs::path(file).filename().string());
        continue;
      }
      const auto& raw = rep.summary.first->result;
      std::vector<double> ms;
      ShrinkResult s;
      for (int rep_i = 0; rep_i < 5; ++rep_i) {
        const auto t0 = std::chrono::steady_clock::now();
        s = shrink(sc, raw.schedule, allocsim::campaign::ShrinkOptions{});
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(ms.begin(), ms.end());
      const double ratio = double(s.result.steps.size()) / double(raw.steps.size());
      total_ratio += ratio;
      std::cout << fmt::format("{:<34} {:>14} {:>14} {:>7.2f} {:>8} {:>6} {:>10.1f}\n",
                               fs::path(file).filename().string(),
                               fmt::format("{}/{}/{}/{}", raw.steps.size(), sc.actors.size(), op_count(sc),
                                           raw.preemptions),
                               fmt::format("{}/{}/{}/{}", s.result.steps.size(), s.scenario.actors.size(),
                                           op_count(s.scenario), s.result.preemptions),
                               ratio, s.runs, s.preemptions_minimal ? "yes" : "no", ms[ms.size() / 2]);
    } catch (const std::exception& e) {
      std::cout << fmt::format("{:<34} error: {}\n", fs::path(file).filename().string(), e.what());
    }
  }
  std::cout << fmt::format("mean shrunk/raw step ratio: {:.2f}\n", total_ratio / double(files.size()));
  return 0;
}
