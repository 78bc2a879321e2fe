// allocsim selfcheck: the verdict self-check (docs/DESIGN.md §7, "Verdict self-check"; backend/swarm/selfcheck.h,
// sim/campaign/verdict_check.h). Generates scenarios as the swarm does, explores each with every strategy, and
// checks that replay, trace files, the shrinker, explanations, order blocks and both invariant-check modes say
// what each execution said. Budgets are counts; the report does not depend on --jobs.
// Exit 0: no contradiction; 1: contradictions (each printed with its replay line, its files under --out);
// 2: usage or input error.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>

#include "backend/model/mutants.h"
#include "backend/swarm/selfcheck.h"
#include "backend/system/system.h"
#include "sim/campaign/trace_file.h"
#include "sim/support/words.h"
#include "tools/allocsim/cli.h"

namespace allocsim::cli {

namespace {

const char* const kSelfcheckUsage =
    "allocsim selfcheck [--seed S] [--scenarios N] [--per-scenario P] [--jobs K] [--report-json F] [--out DIR]\n"
    "       allocsim selfcheck SCENARIO... [--mutant M]... [options]";

harness::SelfcheckOptions to_selfcheck_options(const FlagValues& v, const std::vector<std::string>& files) {
  harness::SelfcheckOptions o;
  o.seed = v.count("seed");
  o.scenarios = v.count("scenarios");
  if (!files.empty()) {
    for (const char* flag : {"scenarios", "no-mutants"})
      if (v.was_given(flag))
        throw UsageError(fmt::format("--{}: not with SCENARIO files (each file is checked as it is)", flag));
    for (const auto& m : v.values("mutant"))
      if (!backend::mutant_by_name(m))
        throw UsageError(fmt::format("--mutant: unknown mutant \"{}\"{} (see `allocsim list mutants`)", m,
                                     did_you_mean(m, mutant_names())));
    for (const auto& file : files) harness::backend_system().load(file);  // a bad file: exit 2 before any work
    o.files = files;
    o.file_mutants = v.values("mutant");
    o.scenarios = files.size();
  } else if (!v.values("mutant").empty()) {
    throw UsageError("--mutant: only with SCENARIO files (generated scenarios take the catalogue in turn)");
  }
  o.per_scenario = v.count("per-scenario");
  o.shrink_runs = v.count("shrink-runs");
  if (const auto n = v.count_if("max-steps")) o.max_steps = *n;
  o.jobs = static_cast<unsigned>(v.count("jobs"));
  o.mutants = !v.is_on("no-mutants");
  o.out = v.value("out");
  o.tool_version = ALLOCSIM_VERSION;
  return o;
}

/// Usage errors before any work (and before a checkpoint is read): the report's and checkpoint's folders.
void check_selfcheck_outputs(const FlagValues& v) {
  check_output_dir("--report-json", v.value("report-json"));
  check_checkpoint_output(v.value("checkpoint"), "selfcheck");
}

/// Creates --out (if given), once the checkpoint has been read: a refused one leaves no folder behind.
void create_selfcheck_out(const std::string& out) {
  if (out.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw UsageError(fmt::format("--out: cannot create {}: {}", out, ec.message()));
  check_output_dir("--out", (std::filesystem::path(out) / "x.json").string());
}

/// Writes the files of contradictions [from, end) under --out (each name once).
void write_files(const std::string& out, const harness::SelfcheckReport& r, size_t from, std::set<std::string>& done) {
  if (out.empty()) return;
  for (size_t k = from; k < r.contradictions.size(); ++k)
    for (const auto& [name, text] : r.contradictions[k].c.files)
      if (done.insert(name).second) campaign::write_file_atomically((std::filesystem::path(out) / name).string(), text);
}

std::string joined(const std::map<std::string, uint64_t>& m, const std::string& prefix) {
  std::string out;
  for (const auto& [k, n] : m)
    if (k.starts_with(prefix)) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k.substr(prefix.size()), n);
  return out.empty() ? "none" : out;
}

void print_report(const harness::SelfcheckOptions& o, const harness::SelfcheckReport& r) {
  using support::count_of;
  std::cout << fmt::format("allocsim selfcheck --seed {}{}: {} ({} with a mutant, {} with an order block), {}\n",
                           o.seed, o.files.empty() ? "" : fmt::format(" ({})", count_of(o.files.size(), "file")),
                           count_of(r.scenarios, "scenario"), r.with_mutant, r.with_order,
                           count_of(r.executions, "execution"));
  std::cout << fmt::format("  endings: {}\n", joined(r.endings, ""));
  std::cout << fmt::format("  coverage: features: {}\n", joined(r.coverage, "feature:"));
  std::cout << fmt::format("            sharing: {}\n", joined(r.coverage, "sharing:"));
  std::cout << fmt::format("            barrier faults: {}\n", joined(r.coverage, "fault:"));
  std::cout << fmt::format("            ops: {}\n", joined(r.coverage, "op:"));
  std::cout << fmt::format("            conditional keys: {}; order blocks: {}; mutants: {}\n",
                           joined(r.coverage, "op-key:"), r.coverage.count("order") ? r.coverage.at("order") : 0,
                           joined(r.coverage, "mutant:"));
  std::cout << fmt::format("  violations: {} found, {} distinct checked ({})\n", r.violations_found,
                           r.violations_checked, joined(r.checked_by_invariant, ""));
  std::cout << fmt::format("  checks: {}\n", joined(r.checks, ""));
  for (const auto& [why, n] : r.skipped) std::cout << fmt::format("  skipped {}: {}\n", n, why);
  const std::map<std::string, uint64_t> kinds = r.by_kind();
  std::cout << fmt::format("contradictions: {}\n", r.contradiction_count());
  for (const char* k : campaign::kContradictionKinds)
    std::cout << fmt::format("  {:<20} {}\n", k, kinds.count(k) ? kinds.at(k) : 0);
  for (size_t i = 0; i < r.contradictions.size(); ++i) {
    const harness::SelfcheckContradiction& c = r.contradictions[i];
    std::string what = o.files.empty() ? fmt::format("scenario #{} (generator seed {}", c.index, c.generator_seed)
                                       : fmt::format("{} (seed {}", o.files.at(c.index), c.generator_seed);
    if (!c.mutant.empty()) what += ", mutant " + c.mutant;
    if (c.order) what += ", with an order block";
    what += fmt::format("), {}", c.strategy);
    if (!c.invariant.empty()) what += ", " + c.invariant;
    if (c.repeats > 1) what += fmt::format(", {} executions like it", c.repeats);
    std::cout << fmt::format("\n[{}] {}: {}\n    {}\n    replay: {}\n", i + 1, c.c.kind, what, c.c.detail, c.c.replay);
  }
  if (!r.contradictions.empty() && o.out.empty())
    std::cout << "\nfiles not written: rerun with --out DIR to write the files the replay lines name\n";
}

}  // namespace

int cmd_selfcheck(int argc, char** argv) {
  FlagValues v;
  std::vector<std::string> files;
  po::options_description d("selfcheck options");
  declare_flags(d, v, Cmd::selfcheck);
  po::options_description hidden;
  hidden.add_options()("positional", po::value(&files)->composing());
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "positional", -1, kSelfcheckUsage);
  if (vm.count("help")) {
    std::cout << "usage: " << kSelfcheckUsage
              << "\n\nChecks that allocsim's tools agree about every execution and violation of generated scenarios:\n"
                 "replay (seed, schedule, trace file), shrink, trace explain, the explanation's order block, and\n"
                 "--check-invariants full against incremental (README: Verdict self-check).\n\n"
              << d;
    return kExitOk;
  }
  note_given(vm, v);
  check_flag_pairs(v);
  const harness::SelfcheckOptions o = to_selfcheck_options(v, files);
  check_selfcheck_outputs(v);
  harness::SelfcheckReport start;  // read before --out is created: a refused checkpoint leaves nothing behind
  try {
    if (!v.value("resume").empty()) start = harness::load_selfcheck_checkpoint(v.value("resume"), o);
  } catch (const support::InputError& e) {
    throw UsageError(fmt::format("--resume: {}", e.what()));
  }
  create_selfcheck_out(o.out);
  const std::string checkpoint = v.value("checkpoint").empty() ? v.value("resume") : v.value("checkpoint");
  std::set<std::string> written;
  size_t files_done = 0;
  const uint64_t resumed = start.scenarios;
  // Wall clock only for the rate line on stderr; it decides nothing.
  const auto t0 = std::chrono::steady_clock::now();
  harness::SelfcheckReport r;
  try {
    write_files(o.out, start, 0, written);
    files_done = start.contradictions.size();
    r = harness::run_selfcheck(
        o,
        [&](const harness::SelfcheckReport& now) {
          write_files(o.out, now, files_done, written);
          files_done = now.contradictions.size();
          if (!checkpoint.empty()) harness::write_selfcheck_checkpoint(checkpoint, o, now);
        },
        std::move(start));
    if (!v.value("report-json").empty())
      campaign::write_file_atomically(v.value("report-json"), harness::selfcheck_json(o, r).dump(2) + "\n");
  } catch (const campaign::OutputError& e) {
    throw UsageError(e.what());
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "selfcheck: %s, %s in %.1f s\n", support::count_of(r.scenarios - resumed, "scenario").c_str(),
               support::count_of(r.executions, "execution").c_str(), secs);
  print_report(o, r);
  return r.contradiction_count() == 0 ? kExitOk : kExitFailed;
}

}  // namespace allocsim::cli
