// allocsim findings diff NIGHT... TONIGHT [--report-json F] [--report-html F] [--fail-on-still-failing]:
// the nightly job's findings sorted into new, still failing, rare and resolved (findings.h).
//
// Exit codes: 0 nothing new; 1 a new finding (and, with --fail-on-still-failing, a finding still failing);
// 2 usage or input error (the file and JSON pointer; nothing is written).
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "sim/campaign/trace_file.h"
#include "sim/support/json_reader.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/findings.h"

namespace allocsim::cli {

namespace {

constexpr const char* kFindingsUsage =
    "allocsim findings diff NIGHT... TONIGHT [--report-json F] [--report-html F] [--fail-on-still-failing]";

}  // namespace

int cmd_findings(int argc, char** argv) {
  std::vector<std::string> args;
  FlagValues v;
  po::options_description d("findings diff options");
  declare_flags(d, v, Cmd::findings_diff);
  po::options_description hidden;
  hidden.add_options()("args", po::value(&args)->composing());
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "args", -1, kFindingsUsage);
  if (vm.count("help")) {
    std::cout << "usage: " << kFindingsUsage << "\n\n"
              << "Compares the findings of nightly runs by signature. Each NIGHT is a sweep report (sweep.json), a\n"
                 "swarm summary (summary.json) or a folder holding them (nightly.sh's output folder, a swarm --out\n"
                 "folder), oldest first; the last is tonight, the one before it last night. Each finding is new\n"
                 "(only tonight), still failing (tonight and every earlier night), rare (in some nights only) or\n"
                 "resolved (last night, not tonight). Exit 1 when a finding is new.\n\n"
              << d;
    return kExitOk;
  }
  note_given(vm, v);
  if (args.empty() || args[0] != "diff") {
    if (args.empty()) throw UsageError(fmt::format("findings: which action? (usage: {})", kFindingsUsage));
    throw UsageError(fmt::format("findings: unknown action \"{}\"{} (usage: {})", args[0],
                                 did_you_mean(args[0], {"diff"}), kFindingsUsage));
  }
  if (args.size() < 3)
    throw UsageError(
        fmt::format("findings diff: expected at least two nights, LAST and TONIGHT (usage: {})", kFindingsUsage));
  check_flag_pairs(v);
  const std::string& report_json = v.value("report-json");
  const std::string& report_html = v.value("report-html");
  const bool fail_on_still_failing = v.is_on("fail-on-still-failing");
  check_output_dir("--report-json", report_json);
  check_output_dir("--report-html", report_html);
  std::vector<Night> nights;
  try {
    for (size_t i = 1; i < args.size(); ++i) nights.push_back(read_night(args[i]));
  } catch (const support::InputError& e) {
    std::cerr << "allocsim: findings diff: " << e.what() << "\n";
    return kExitUsage;
  }
  const FindingsDiff diff = diff_nights(nights);
  // Every output rendered before any is written: nothing is half-written.
  const std::string html =
      report_html.empty() ? "" : diff_html_page(diff, std::filesystem::path(report_html).parent_path().string());
  const std::string json = report_json.empty() ? "" : diff_json(diff, report_html).dump(2) + "\n";
  try {
    if (!report_json.empty()) campaign::write_file_atomically(report_json, json);
    if (!report_html.empty()) campaign::write_file_atomically(report_html, html);
  } catch (const campaign::OutputError& e) {
    std::cerr << "allocsim: " << e.what() << "\n";
    return kExitUsage;
  }
  std::cout << diff_text(diff, report_html);
  const bool fail =
      diff.count(FindingClass::fresh) > 0 || (fail_on_still_failing && diff.count(FindingClass::still_failing) > 0);
  return fail ? kExitFailed : kExitOk;
}

}  // namespace allocsim::cli
