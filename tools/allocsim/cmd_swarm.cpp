// allocsim swarm: generated scenarios (docs/DESIGN.md §7, "Swarm"). Generates scenarios from a seed
// (backend/swarm/swarm_gen.h), explores each under a budget of executions, shrinks and deduplicates the violations, and
// writes each distinct finding to --out as a scenario file with expect.violation and its minimal trace, plus
// summary.json (sim/campaign/swarm.h, swarm_report.h; the generator: backend/swarm/swarm_subjects.h). The budgets
// are counts (scenarios, executions), never seconds: the same flags give the same findings on any machine. Scale-out
// as the sweep's: --shard K/N, then `allocsim swarm merge SHARD-DIR... --out DIR`; --checkpoint/--resume;
// --report-json and --junit.
// Exit 0: no finding (in a mutant run: none the mutant's alone); 1: findings; 2: usage or input error.
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "backend/invariants/invariant_table.h"
#include "backend/model/mutants.h"
#include "backend/scenario/invariant_names.h"
#include "backend/swarm/swarm_gen.h"
#include "backend/swarm/swarm_subjects.h"
#include "sim/campaign/swarm_report.h"
#include "sim/support/json_reader.h"
#include "sim/support/words.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/swarm_html.h"

namespace allocsim::cli {

namespace {

campaign::SwarmOptions to_swarm_options(const FlagValues& v) {
  campaign::SwarmOptions o;
  o.seed = v.count("seed");
  if (v.was_given("scenarios") && v.was_given("budget-executions"))
    throw UsageError("--scenarios and --budget-executions: give one of them");
  if (const auto n = v.count_if("scenarios")) o.scenarios = *n;
  if (const auto n = v.count_if("budget-executions")) o.budget_executions = *n;
  o.per_scenario = v.count("per-scenario");
  o.shrink_runs = v.count("shrink-runs");
  o.jobs = static_cast<unsigned>(v.count("jobs"));
  for (const auto& m : v.values("mutant"))
    if (!backend::mutant_by_name(m))
      throw UsageError(fmt::format("--mutant: unknown mutant \"{}\"{} (see `allocsim list mutants`)", m,
                                   did_you_mean(m, mutant_names())));
  for (const auto& i : v.values("until"))
    if (!harness::is_invariant(i))
      throw UsageError(fmt::format("--until: unknown invariant \"{}\"{} (see `allocsim list invariants`)", i,
                                   did_you_mean(i, invariant_names())));
  o.mutants = v.values("mutant");
  o.until = v.values("until");
  if (const auto n = v.count_if("max-steps")) o.max_steps = *n;
  if (!v.value("shard").empty()) {
    const Shard shard = parse_shard(v.value("shard"));
    o.shard_index = shard.index, o.shard_count = shard.count;
    if (o.shard_count > 1 && (o.budget_executions > 0 || !o.until.empty()))
      throw UsageError("--shard: not with --budget-executions or --until (their stop is global: shards cannot merge)");
  }
  o.tool_version = ALLOCSIM_VERSION;
  return o;
}

/// The files a swarm or a merge writes: --out and the reports.
struct SwarmFiles {
  std::string out, report_json, report_html, junit;
};

/// --report-json, --junit, --checkpoint, --out: usage errors before any work (and before a checkpoint or shards are
/// read, which can take a while). --out is created later, by create_swarm_out.
SwarmFiles check_swarm_outputs(const FlagValues& v) {
  SwarmFiles f{v.value("out"), v.value("report-json"), v.value("report-html"), v.value("junit")};
  if (!v.value("report-junit").empty()) {
    if (!f.junit.empty()) throw UsageError("--junit and --report-junit: give one of them");
    f.junit = v.value("report-junit");
  }
  if (f.out.empty()) throw UsageError("--out: missing (the directory for findings and summary.json)");
  check_not_a_finding_file("--report-json", f.report_json, f.out);
  check_not_a_finding_file(v.was_given("report-junit") ? "--report-junit" : "--junit", f.junit, f.out);
  check_not_a_finding_file("--report-html", f.report_html, f.out);
  check_not_a_finding_file("--checkpoint", v.value("checkpoint"), f.out);
  check_output_dir("--report-json", f.report_json);  // before --out is created: a refused command writes nothing
  check_output_dir("--junit", f.junit);
  check_output_dir("--report-html", f.report_html);
  check_checkpoint_output(v.value("checkpoint"), "swarm");
  if (v.cmd == Cmd::swarm) v.count("checkpoint-interval");  // read again by the run; refused here, before --out
  return f;
}

/// Creates --out, once what the run reads has been read: a refused checkpoint or shard leaves no folder behind.
void create_swarm_out(const SwarmFiles& f) {
  std::error_code ec;
  std::filesystem::create_directories(f.out, ec);
  if (ec) throw UsageError(fmt::format("--out: cannot create {}: {}", f.out, ec.message()));
  check_output_dir("--out", (std::filesystem::path(f.out) / "summary.json").string());
}

/// Writes --out, --report-json, --junit and --report-html.
void write_swarm_outputs(const SwarmFiles& f, const campaign::SwarmOptions& o, const campaign::SwarmReport& r) {
  try {
    const campaign::SwarmGenerator& g = harness::backend_swarm();
    campaign::write_swarm(g, o, r, f.out);
    if (!f.report_json.empty())
      campaign::write_file_atomically(f.report_json, campaign::swarm_summary(g, o, r).dump(2) + "\n");
    if (!f.junit.empty()) campaign::write_file_atomically(f.junit, campaign::swarm_junit(o, r));
    if (!f.report_html.empty()) campaign::write_file_atomically(f.report_html, swarm_html(g, o, r, f.out));
  } catch (const campaign::OutputError& e) {
    throw UsageError(e.what());
  }
}

/// Exit 1 when there is a finding (in a mutant run: one the faithful port does not share).
int exit_code(const campaign::SwarmOptions& o, const campaign::SwarmReport& r) {
  for (const auto& fi : r.findings)
    if (o.mutants.empty() || fi.first_mutant_only) return kExitFailed;
  return kExitOk;
}

void print_swarm_summary(const campaign::SwarmOptions& o, const campaign::SwarmReport& r, const std::string& out) {
  std::string mut;
  for (const auto& m : o.mutants) mut += " +" + m;
  std::cout << fmt::format("allocsim swarm --seed {}{}: {} ({} by DPOR, {} exhausted), {}\n", o.seed, mut,
                           support::count_of(r.scenarios, "scenario"), r.dpor_scenarios, r.dpor_exhausted,
                           support::count_of(r.executions, "execution"));
  if (!o.mutants.empty())
    std::cout << fmt::format("  faithful-port checks of the violating scenarios: {}\n",
                             support::count_of(r.faithful_executions, "execution"));
  // The dedup ratio (raw violations per distinct finding) means nothing without a finding: no "0.0:1".
  std::cout << fmt::format("  {} violated an invariant; {}{}\n", support::count_of(r.violations, "scenario"),
                           support::count_of(r.findings.size(), "distinct finding"),
                           r.findings.empty()
                               ? std::string()
                               : fmt::format(" (dedup {:.1f}:1)", double(r.violations) / double(r.findings.size())));
  if (!r.unjudged_counted)
    std::cout << "  not judged: not counted (this run resumed or merged a summary written before the count)\n";
  else
    for (const auto& [check, n] : r.unjudged)
      std::cout << fmt::format(
          "  not judged: {} in {} of {} (too many op-level executions for its bound, which is at most "
          "--per-scenario, so a larger one judges more; or one ended in an engine finding; docs/DESIGN.md §5)\n",
          check, n, support::count_of(r.scenarios, "scenario"));
  if (r.stopped_by_until) std::cout << "  stopped: --until invariant found\n";
  if (r.interrupted) std::cout << "  interrupted: the findings cover the scenarios that ran\n";
  if (r.findings.empty()) return;
  // Mutant runs: "also faithful?" says in how many of its scenarios the faithful port breaks the same way
  // (yes: all, so it is no evidence of the mutant; no: none; k/n: some).
  const bool mut_run = !o.mutants.empty();
  const auto faithful = [](const campaign::SwarmFinding& f) {
    return f.also_faithful == 0         ? std::string("no")
           : f.also_faithful == f.count ? std::string("yes")
                                        : fmt::format("{}/{}", f.also_faithful, f.count);
  };
  size_t file_width = std::string_view("file").size();  // as wide as the longest file name: nothing overflows
  for (const auto& f : r.findings) file_width = std::max(file_width, f.slug.size() + std::string_view(".json").size());
  std::cout << fmt::format("\n{:>5}  {:>11}  {:>6}  {}{:<{}}  {}\n", "count", "first(#i)", "ops",
                           mut_run ? "also faithful?  " : "", "file", file_width, "signature");
  for (const auto& f : r.findings)
    std::cout << fmt::format("{:>5}  {:>11}  {:>6}  {}{:<{}}  {}\n", f.count, fmt::format("#{}", f.first_index), f.ops,
                             mut_run ? fmt::format("{:<14}  ", faithful(f)) : "", f.slug + ".json", file_width,
                             f.signature);
  std::cout << fmt::format("\nwritten: {}/<file> and its .trace.json, {}/summary.json\n", out, out);
  std::cout << fmt::format("replay one: allocsim replay {}/{}.trace.json\n", out, r.findings.front().slug);
}

}  // namespace

namespace {

/// The report --resume goes on from (empty without it). Read before --out is created: a refused checkpoint leaves
/// nothing behind.
campaign::SwarmReport resumed_report(const FlagValues& v, const campaign::SwarmOptions& o) {
  try {
    return v.value("resume").empty() ? campaign::SwarmReport{}
                                     : campaign::load_swarm_checkpoint(harness::backend_swarm(), v.value("resume"), o);
  } catch (const support::InputError& e) {
    throw UsageError(fmt::format("--resume: {}", e.what()));
  }
}

campaign::SwarmReport run_with_checkpoints(const FlagValues& v, const campaign::SwarmOptions& o,
                                           campaign::SwarmReport start) {
  const std::string checkpoint = v.value("checkpoint").empty() ? v.value("resume") : v.value("checkpoint");
  const double interval = double(v.count("checkpoint-interval"));
  const auto save = [&](const campaign::SwarmReport& r) {
    try {
      campaign::write_swarm_checkpoint(harness::backend_swarm(), checkpoint, o, r);
    } catch (const campaign::OutputError& e) {
      throw UsageError(e.what());  // "--checkpoint: PATH: ..." (sim/campaign/checkpoint.h)
    }
  };
  if (!checkpoint.empty()) save(start);  // a path that cannot be written fails before any work
  // Wall clock only for the rate line on stderr and the checkpoints' spacing; it decides no result.
  const auto t0 = std::chrono::steady_clock::now();
  auto saved = t0;
  const bool tty = isatty(STDERR_FILENO);
  // The rate line counts this process's work: a resumed run's earlier scenarios and executions are not in it.
  const uint64_t resumed = start.scenarios, resumed_executions = start.executions;
  campaign::SwarmReport r = campaign::run_swarm(
      harness::backend_swarm(), o,
      [&](const campaign::SwarmReport& now) {
        const auto t = std::chrono::steady_clock::now();
        if (!checkpoint.empty() && std::chrono::duration<double>(t - saved).count() >= interval) {
          save(now);
          saved = t;
        }
        if (!tty) return;
        const double s = std::chrono::duration<double>(t - t0).count();
        std::fprintf(stderr, "\rswarm: %llu scenarios, %llu executions, %zu findings, %.1f scenarios/s   ",
                     (unsigned long long)now.scenarios, (unsigned long long)now.executions, now.findings.size(),
                     s > 0 ? double(now.scenarios - resumed) / s : 0.0);
      },
      std::move(start));
  if (!checkpoint.empty()) save(r);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t ran = r.executions - resumed_executions;
  std::fprintf(stderr, "%sswarm: %s, %s in %.1f s: %.2f scenarios/s, %.0f executions/s\n", tty ? "\r" : "",
               support::count_of(r.scenarios - resumed, "scenario").c_str(),
               support::count_of(ran, "execution").c_str(), secs, secs > 0 ? double(r.scenarios - resumed) / secs : 0.0,
               secs > 0 ? double(ran) / secs : 0.0);
  return r;
}

/// allocsim swarm merge SHARD-DIR... --out DIR [--report-json F] [--junit F]
int cmd_swarm_merge(int argc, char** argv) {
  FlagValues v;
  std::vector<std::string> dirs;
  po::options_description d("swarm merge options");
  declare_flags(d, v, Cmd::swarm_merge);
  po::options_description hidden;
  hidden.add_options()("dir", po::value(&dirs)->composing());
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "dir", -1);
  if (vm.count("help")) {
    std::cout
        << "usage: allocsim swarm merge SHARD-DIR... --out DIR [--report-json F] [--report-html F] [--junit F]\n\n"
           "Merges the --out folders of `allocsim swarm --shard K/N` (all N) into the folder the unsharded "
           "run writes.\n\n"
        << d;
    return kExitOk;
  }
  note_given(vm, v);
  if (dirs.empty()) throw UsageError("missing SHARD-DIR (the --out folders of every shard)");
  check_flag_pairs(v);
  const SwarmFiles f = check_swarm_outputs(v);
  campaign::SwarmMerge m;  // read before --out is created: refused shards leave nothing behind
  try {
    m = campaign::merge_swarm(harness::backend_swarm(), dirs, ALLOCSIM_VERSION);
  } catch (const support::InputError& e) {
    throw UsageError(fmt::format("merge: {}", e.what()));
  }
  create_swarm_out(f);
  write_swarm_outputs(f, m.options, m.report);
  std::cout << fmt::format("merged {}\n", support::count_of(dirs.size(), "shard folder"));
  print_swarm_summary(m.options, m.report, f.out);
  return exit_code(m.options, m.report);
}

}  // namespace

int cmd_swarm(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "merge") return cmd_swarm_merge(argc - 1, argv + 1);
  FlagValues v;
  po::options_description d("swarm options");
  declare_flags(d, v, Cmd::swarm);
  std::vector<std::string> positional;  // none accepted
  po::options_description hidden;
  hidden.add_options()("positional", po::value(&positional));
  const po::variables_map vm =
      parse_options(argc, argv, d, hidden, "positional", 0, "allocsim swarm [options] --out DIR (see --help)");
  if (vm.count("help")) {
    std::cout << "usage: allocsim swarm [--seed S] [--scenarios N | --budget-executions E] [--mutant M]... "
                 "[--jobs K] [--shard K/N] [--checkpoint F] [--resume F] --out DIR\n"
                 "       allocsim swarm merge SHARD-DIR... --out DIR\n       allocsim swarm --generate SEED\n\n"
              << d;
    return kExitOk;
  }
  note_given(vm, v);
  if (!v.value("generate").empty()) {
    // It prints one scenario and runs nothing: a flag beside it would be ignored, so it is refused (`--generate 5
    // --seed 3` is generator seed 5, not scenario 5 of a run of seed 3).
    for (const auto& [name, value] : vm)
      if (name != "generate" && !value.defaulted())
        throw UsageError(
            fmt::format("--generate prints the scenario of one generator seed and takes no other flag: drop {}",
                        name == "positional" ? std::string("the extra argument") : "--" + name));
    std::cout << harness::generate_scenario(v.count("generate")).dump(2) << "\n";
    return kExitOk;
  }
  check_flag_pairs(v);
  const campaign::SwarmOptions o = to_swarm_options(v);
  const SwarmFiles f = check_swarm_outputs(v);
  campaign::SwarmReport start = resumed_report(v, o);
  create_swarm_out(f);
  const campaign::SwarmReport r = run_with_checkpoints(v, o, std::move(start));
  write_swarm_outputs(f, o, r);
  print_swarm_summary(o, r, f.out);
  return exit_code(o, r);
}

}  // namespace allocsim::cli
