// What `allocsim sweep` and `allocsim merge` share: the printed summary and the report files.
#pragma once

#include <string>
#include <vector>

#include "sim/campaign/sweep.h"

namespace allocsim::cli {

/// Where the reports go ("" = not written).
struct SweepOutputs {
  std::string report_json;
  std::string junit;
  std::string report_html;  // sweep: the HTML page (sim/campaign/report_html.h)
};

/// Fails early (UsageError naming the flag) when an output file's directory does not exist, so a long
/// sweep never ends in an unwritable report.
void check_outputs(const SweepOutputs& out);

/// Prints one line per scenario (verdict, executions, traces, first violation and its replay command,
/// unmet reasons) and the totals to stdout, writes the reports atomically (`shards` is added to the JSON
/// when not null) and returns the exit code (campaign::sweep_exit_code).
int finish_sweep(const campaign::SweepResults& results, const SweepOutputs& out, const nlohmann::json& shards);

}  // namespace allocsim::cli
