// allocsim merge REPORT.json... [--report-json F] [--junit F]: combines the reports of `sweep --shard K/N`
// (all N of them) into the report the unsharded sweep gives (plus "shards": {"merged": N}), judges every
// scenario, and exits like sweep: 0 all met, 1 one not, 2 mismatched/missing/malformed reports or a
// scenario file that changed since the sweep (the scenarios are re-read to judge them).
#include <fmt/format.h>

#include <iostream>

#include "backend/system/system.h"
#include "sim/campaign/sweep_report.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/sweep_cli.h"

namespace allocsim::cli {

int cmd_merge(int argc, char** argv) {
  std::vector<std::string> inputs;
  FlagValues v;
  po::options_description d("merge options");
  declare_flags(d, v, Cmd::merge);
  po::options_description hidden;
  hidden.add_options()("input", po::value(&inputs)->composing());
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "input", -1);
  if (vm.count("help")) {
    std::cout << "usage: allocsim merge SHARD-REPORT.json... [options]\n\n" << d;
    return kExitOk;
  }
  note_given(vm, v);
  if (inputs.empty()) throw UsageError("missing REPORT.json (the --report-json files of every shard)");
  check_flag_pairs(v);
  const SweepOutputs out{.report_json = v.value("report-json"), .junit = v.value("junit"), .report_html = {}};
  check_outputs(out);
  std::vector<std::pair<std::string, nlohmann::json>> reports;
  try {
    for (const auto& path : inputs) reports.emplace_back(path, campaign::read_report(path));
  } catch (const campaign::SweepInputError& e) {
    throw UsageError(e.what());
  }
  try {
    const campaign::SweepResults res = campaign::merge_reports(harness::backend_system(), reports);
    const uint64_t n = reports.size();
    return finish_sweep(res, out, nlohmann::json{{"merged", n}});
  } catch (const campaign::SweepInputError& e) {
    std::cerr << "allocsim: merge: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace allocsim::cli
