// The flag table (flag_table.h): every flag but the exploration flags, one row each, in --help order. Adding a flag:
// a row (or a use in a row) here, and the line of its command that reads it by name.
#include "tools/allocsim/flag_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "sim/campaign/swarm.h"
#include "tools/allocsim/cli.h"

namespace allocsim::cli {

namespace {

constexpr uint64_t kSeconds = 86400;              // a day: the longest interval or budget in seconds
constexpr uint64_t kMaxScenarios = 100'000'000;   // --scenarios, --per-scenario
constexpr uint64_t kMaxRuns = 1'000'000'000'000;  // executions, candidate executions

const std::string kSwarmMaxStepsHelp =
    fmt::format("steps per execution before steps-bounded fires (default {})", campaign::kSwarmMaxSteps);

std::string key_of(const char* name) {
  const std::string s = name;
  return s.substr(0, s.find(','));
}

}  // namespace

const char* cmd_name(Cmd c) {
  switch (c) {
    case Cmd::run:
      return "run";
    case Cmd::replay:
      return "replay";
    case Cmd::sweep:
      return "sweep";
    case Cmd::merge:
      return "merge";
    case Cmd::swarm:
      return "swarm";
    case Cmd::swarm_merge:
      return "swarm merge";
    case Cmd::selfcheck:
      return "selfcheck";
    case Cmd::shrink:
      return "shrink";
    case Cmd::findings_diff:
      return "findings diff";
    case Cmd::corpus:
      return "corpus";
    case Cmd::trace_explain:
      return "trace explain";
    case Cmd::trace_order:
      return "trace order";
  }
  throw std::logic_error("cmd_name: not a command");
}

const std::vector<Cmd>& all_cmds() {
  static const std::vector<Cmd> k = {Cmd::run,           Cmd::replay,      Cmd::sweep,         Cmd::merge,
                                     Cmd::swarm,         Cmd::swarm_merge, Cmd::selfcheck,     Cmd::shrink,
                                     Cmd::findings_diff, Cmd::corpus,      Cmd::trace_explain, Cmd::trace_order};
  return k;
}

const std::vector<FlagRow>& flag_table() {
  using K = FlagKind;
  static const std::vector<FlagRow> rows = {
      // What a campaign generates and explores.
      {"seed",
       K::value,
       0,
       UINT64_MAX,
       {{Cmd::swarm, "the run's seed: scenario i is generated from execution_seed(seed, i)", "1"},
        {Cmd::selfcheck, "the run's seed: scenario i is generated from execution_seed(seed, i), as by swarm", "1"}}},
      {"scenarios",
       K::value,
       1,
       kMaxScenarios,
       {{Cmd::swarm, "generate and explore this many scenarios (default 100)"},
        {Cmd::selfcheck, "scenarios to generate and check", "100"}}},
      {"budget-executions",
       K::value,
       1,
       kMaxRuns,
       {{Cmd::swarm, "instead of --scenarios: go on until this many executions have run (deterministic)"}}},
      {"per-scenario",
       K::value,
       1,
       kMaxScenarios,
       {{Cmd::swarm,
         "executions per scenario: exhaustive DPOR when the estimated tree is that small, else half PCT, half random",
         "200"},
        {Cmd::selfcheck,
         "executions per strategy (random, pct, dfs, dpor) per scenario, each stopping at its first violation", "40"}}},
      {"mutant",
       K::repeatable,
       0,
       0,
       {{Cmd::swarm, "switch this catalogue mutant on in every scenario (repeatable; `allocsim list mutants`)"},
        {Cmd::selfcheck, "with SCENARIO files: switch this catalogue mutant on in each (repeatable)"}}},
      {"no-mutants",
       K::on_off,
       0,
       0,
       {{Cmd::selfcheck,
         "the faithful port only (default: every odd scenario switches one catalogue mutant on, in turn)"}}},
      {"until",
       K::repeatable,
       0,
       0,
       {{Cmd::swarm, "stop after the first scenario whose finding violates this invariant (repeatable)"}}},
      {"max-steps",
       K::value,
       1,
       100'000'000,
       {{Cmd::swarm, kSwarmMaxStepsHelp.c_str()}, {Cmd::selfcheck, kSwarmMaxStepsHelp.c_str()}}},
      // What run and replay write beside the trace.
      {"fingerprints",
       K::value,
       0,
       0,
       {{Cmd::run,
         "write one line per execution to FILE: index, execution seed, fingerprint (hex); the file appears only "
         "when the run completes"}}},
      {"record",
       K::value,
       0,
       0,
       {{Cmd::run,
         "write one JSON line per execution to FILE: the comparable record tools/differential/ checks against the "
         "upstream backend (backend/system/record.h); the file appears only when the run completes"},
        {Cmd::replay,
         "write the replayed execution's comparable record to FILE, one JSON line as run --record writes it "
         "(backend/system/record.h)"}}},
      // Traces and the corpus.
      {"schedule",
       K::value,
       0,
       0,
       {{Cmd::replay,
         "replay this schedule instead of a seed: \"v1:\" then comma-separated runs, e.g. "
         "v1:flowA*6,flowB,flowA*2,#1 (actor*count; @index for an actor by position; #N a fault draw)"}}},
      {"trace-out",
       K::value,
       0,
       0,
       {{Cmd::run, "write the violation's trace here (default: the minimal trace goes into the corpus)"}}},
      {"no-trace",
       K::on_off,
       0,
       0,
       {{Cmd::run, "write no trace file (the corpus is still replayed)"}},
       {},
       {"trace-out"}},
      {"output",
       K::value,
       0,
       0,
       {{Cmd::shrink, "write the minimal trace here (default: the input's name with .min.trace.json)", nullptr, 'o'}}},
      {"corpus",
       K::value,
       0,
       0,
       {{Cmd::run,
         "the regression corpus folder: replayed before exploring, new minimal traces stored in it (default: "
         ".allocsim/corpus beside the scenario file)"},
        {Cmd::sweep,
         "replay the regression corpus in this folder first (default: .allocsim/corpus beside each scenario; "
         "unsharded sweeps only)"}}},
      {"no-corpus",
       K::on_off,
       0,
       0,
       {{Cmd::run, "neither replay nor store corpus entries"}, {Cmd::sweep, "do not replay corpus entries"}},
       {},
       {"corpus"}},
      // Shrinking.
      {"no-shrink",
       K::on_off,
       0,
       0,
       {{Cmd::run, "print and write the violating execution as found"}},
       {},
       {"shrink-runs", "shrink-budget"}},
      {"shrink-budget",
       K::value,
       0,
       kSeconds * 365,
       {{Cmd::run, "shrinking stops early after this many seconds (and says so); 0 = no time limit", "60"},
        {Cmd::shrink, "stop early after this many seconds (and say so); 0 = no time limit", "60"}}},
      {"shrink-runs",
       K::value,
       1,
       kMaxRuns,
       {{Cmd::swarm, "candidate executions per shrink (the deterministic bound)", "5000"},
        {Cmd::selfcheck, "candidate executions per shrink (the deterministic bound)", "2000"},
        {Cmd::run, "shrinking runs at most this many candidate executions: the deterministic bound", "200000"},
        {Cmd::shrink, "at most this many candidate executions: the deterministic bound", "200000"}}},
      // Scale-out and long runs.
      {"jobs,j",
       K::value,
       1,
       256,
       {{Cmd::sweep, "worker threads (results do not depend on it)", "1"},
        {Cmd::swarm, "threads (results do not depend on it)", "1"},
        {Cmd::selfcheck, "threads (the report does not depend on it)", "1"}}},
      {"shard",
       K::value,
       0,
       0,
       {{Cmd::sweep, "run only shard K of N (work units by scenario and schedule prefix); combine with allocsim merge",
         "1/1"},
        {Cmd::swarm, "K/N: run only scenarios i with i % N == K-1 (merge the N folders with `allocsim swarm merge`)"}}},
      {"time-budget",
       K::value,
       1,
       10'000'000,
       {{Cmd::sweep, "seconds: stop after this (unfinished scenarios fail; continue later with --resume)"}}},
      {"checkpoint",
       K::value,
       0,
       0,
       {{Cmd::sweep, "write a checkpoint here after every work unit"},
        {Cmd::swarm, "write a checkpoint here as scenarios finish"},
        {Cmd::selfcheck, "write a checkpoint here after every batch of --jobs"}}},
      {"resume",
       K::value,
       0,
       0,
       {{Cmd::sweep, "continue from this checkpoint (and keep checkpointing to it)"},
        {Cmd::swarm,
         "continue from this checkpoint (and keep checkpointing to it); a larger --scenarios extends the run"},
        {Cmd::selfcheck,
         "continue from this checkpoint (and keep checkpointing to it); a larger --scenarios extends the run"}}},
      // Wall clock decides only when the file is rewritten, never a result.
      {"checkpoint-interval",
       K::value,
       0,
       kSeconds,
       {{Cmd::sweep, "seconds between checkpoints within a long work unit (0: none within a unit, only at its end)",
         "5"},
        {Cmd::swarm, "seconds between checkpoints (0: after every batch of --jobs scenarios)", "2"}},
       {"checkpoint", "resume"}},
      // Reports.
      {"out",
       K::value,
       0,
       0,
       {{Cmd::swarm, "directory for the findings and summary.json (created)"},
        {Cmd::swarm_merge, "directory for the findings and summary.json (created)"},
        {Cmd::selfcheck, "write the files each contradiction's replay line needs into this directory (created)"}}},
      {"report-json",
       K::value,
       0,
       0,
       {{Cmd::run, "write the run's JSON report here (allocsim/run-report/v1: verdict, counts, coverage)"},
        {Cmd::sweep, "write the allocsim/sweep-report/v1 JSON report here"},
        {Cmd::merge, "write the merged JSON report here", nullptr, 'o'},
        {Cmd::swarm, "also write summary.json's document here"},
        {Cmd::swarm_merge, "also write summary.json's document here"},
        {Cmd::selfcheck, "write the report (allocsim/selfcheck-report/v1) here"},
        {Cmd::findings_diff, "write the diff as JSON (allocsim/findings-diff/v1) here"}}},
      {"report-html",
       K::value,
       0,
       0,
       {{Cmd::run,
         "write a self-contained HTML page here: the verdict, coverage, and the violation's trace as swimlanes"},
        {Cmd::sweep, "write a self-contained HTML page here: the table, and each first violation's trace as swimlanes"},
        {Cmd::swarm, "write a self-contained HTML page here: the findings with their traces, and coverage"},
        {Cmd::swarm_merge, "write a self-contained HTML page here: the findings with their traces, and coverage"},
        {Cmd::findings_diff, "write the diff as a self-contained HTML page here (a section per new finding)"}}},
      {"junit",
       K::value,
       0,
       0,
       {{Cmd::sweep, "write a JUnit XML report here"},
        {Cmd::merge, "write a JUnit XML report here"},
        {Cmd::swarm, "write a JUnit XML report here (one testcase per finding)"},
        {Cmd::swarm_merge, "write a JUnit XML report here (one testcase per finding)"}}},
      {"report-junit",
       K::value,
       0,
       0,
       {{Cmd::swarm, "the same as --junit"}, {Cmd::swarm_merge, "the same as --junit"}}},
      {"perfetto",
       K::value,
       0,
       0,
       {{Cmd::run, "also write the printed trace as Chrome trace-event JSON (Perfetto, chrome://tracing)"},
        {Cmd::replay, "also write the printed trace as Chrome trace-event JSON (Perfetto, chrome://tracing)"},
        {Cmd::shrink, "also write the minimal trace as Chrome trace-event JSON"}}},
      // One command's own.
      {"check-invariants",
       K::value,
       0,
       0,
       {{Cmd::shrink, "incremental | full: how invariants are checked after a step (same results either way)",
         "incremental"}}},
      {"generate",
       K::value,
       0,
       UINT64_MAX,
       {{Cmd::swarm,
         "print the scenario generated from this generator seed (as a finding's description names it) and exit"}}},
      {"fail-on-still-failing",
       K::on_off,
       0,
       0,
       {{Cmd::findings_diff, "exit 1 also when a finding is still failing (by default only a new finding fails)"}}},
      {"dry-run", K::on_off, 0, 0, {{Cmd::corpus, "prune: print what would be removed, remove nothing"}}},
      {"write",
       K::on_off,
       0,
       0,
       {{Cmd::trace_explain, "also store the explanation in the trace file (its \"explanation\" and \"order\" keys)"}}},
      {"full",
       K::on_off,
       0,
       0,
       {{Cmd::trace_order, "print the full pin (every switch between actors) unreduced"}},
       {},
       {"budget"}},
      {"budget",
       K::value,
       1,
       100'000'000,
       {{Cmd::trace_order, "executions per DPOR check; a check over it keeps its constraint", "2000"}}},
  };
  return rows;
}

const std::string& FlagValues::value(const std::string& name) const {
  static const std::string none;
  const auto it = text.find(name);
  return it == text.end() ? none : it->second;
}

bool FlagValues::is_on(const std::string& name) const {
  const auto it = on.find(name);
  return it != on.end() && it->second;
}

const std::vector<std::string>& FlagValues::values(const std::string& name) const {
  static const std::vector<std::string> none;
  const auto it = list.find(name);
  return it == list.end() ? none : it->second;
}

uint64_t FlagValues::count(const std::string& name) const {
  for (const FlagRow& row : flag_table()) {
    if (key_of(row.name) != name) continue;
    if (row.hi == 0) throw std::logic_error(fmt::format("--{} is not an integer flag", name));
    return parse_u64("--" + name, value(name), row.lo, row.hi);
  }
  throw std::logic_error(fmt::format("--{} has no row in the flag table", name));
}

std::optional<uint64_t> FlagValues::count_if(const std::string& name) const {
  if (value(name).empty()) return std::nullopt;
  return count(name);
}

void declare_flags(po::options_description& d, FlagValues& v, Cmd cmd) {
  v.cmd = cmd;
  d.add_options()("help,h", "show this help");
  if (cmd == Cmd::run || cmd == Cmd::replay || cmd == Cmd::sweep) explore_options(d, v, cmd);
  for (const FlagRow& row : flag_table())
    for (const FlagUse& u : row.uses) {
      if (u.cmd != cmd) continue;
      const std::string key = key_of(row.name);
      const std::string name = u.short_name ? fmt::format("{},{}", key, u.short_name) : std::string(row.name);
      switch (row.kind) {
        case FlagKind::value:
          if (u.value)
            d.add_options()(name.c_str(), po::value(&v.text[key])->default_value(u.value), u.help);
          else
            d.add_options()(name.c_str(), po::value(&v.text[key]), u.help);
          break;
        case FlagKind::on_off:
          d.add_options()(name.c_str(), po::bool_switch(&v.on[key]), u.help);
          break;
        case FlagKind::repeatable:
          d.add_options()(name.c_str(), po::value(&v.list[key])->composing(), u.help);
          break;
      }
    }
}

void note_given(const po::variables_map& vm, FlagValues& v) {
  for (const auto& [name, value] : vm)
    if (!value.defaulted()) v.given.insert(name);
}

void check_flag_pairs(const FlagValues& v) {
  // A flag that changes nothing without another is refused, never ignored (as --depth without pct).
  for (const FlagRow& row : flag_table()) {
    const std::string key = key_of(row.name);
    if (row.needs.empty() || !v.was_given(key)) continue;
    std::string alternatives;
    for (const char* other : row.needs) {
      if (v.was_given(other)) {
        alternatives.clear();
        break;
      }
      alternatives += fmt::format("{}--{}", alternatives.empty() ? "" : " or ", other);
    }
    if (!alternatives.empty())
      throw UsageError(fmt::format("--{}: only with {} (without one it changes nothing)", key, alternatives));
  }
  for (const FlagRow& row : flag_table())
    for (const char* other : row.conflicts)
      if (v.was_given(key_of(row.name)) && v.was_given(other))
        throw UsageError(fmt::format("--{} and --{} contradict each other: give one", key_of(row.name), other));
  // A repeatable flag given the same value twice (`--mutant m --mutant m`) means it once: refused, so that the
  // run's header, key and reports never list it twice.
  for (const auto& [key, values] : v.list)
    for (size_t i = 1; i < values.size(); ++i)
      if (std::find(values.begin(), values.begin() + ptrdiff_t(i), values[i]) != values.begin() + ptrdiff_t(i))
        throw UsageError(fmt::format("--{} {}: given twice (once is enough)", key, values[i]));
}

}  // namespace allocsim::cli
