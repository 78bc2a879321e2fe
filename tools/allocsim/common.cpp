// The flags run and replay share (Common, parse_common), and the one table of exploration flags (explore_table())
// that run, replay and sweep declare (explore_options) and read into a campaign::ExploreConfig
// (to_explore_config). The option parser itself and the value parsers are in options.cpp.
//
// Adding an exploration flag touches three files: the field in sim/campaign/config.h; to_argv/to_json/read_json
// in sim/campaign/config.cpp where replays, reports or checkpoints must carry it; and one row of
// explore_table() here: name, kind, phase (0 only for what picks the strategy), help and default per command
// ("" help: the command does not take it), and a read step with the range check (parse_u64 names the flag).
// The raw text lives in FlagValues, keyed by name, so cli.h and cmd_sweep.cpp do not change. Flags that are
// not part of ExploreConfig (sweep's --jobs, --shard, ...; run's --fingerprints) are rows of flag_table.cpp.
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <stdexcept>

#include <iostream>
#include <regex>

#include "backend/invariants/invariant_table.h"
#include "backend/model/mutants.h"
#include "backend/scenario/op_syntax.h"
#include "backend/world/dirty.h"
#include "sim/campaign/checkpoint.h"
#include "sim/campaign/sweep.h"
#include "sim/campaign/trace_file.h"
#include "sim/support/json_reader.h"
#include "tools/allocsim/cli.h"
#include "tools/allocsim/report.h"

namespace allocsim::cli {

std::vector<std::string> mutant_names() {
  std::vector<std::string> out;
  for (const auto& m : backend::mutant_table()) out.push_back(std::string(m.name));
  return out;
}

std::vector<std::string> invariant_names() {
  std::vector<std::string> out;
  for (const auto& i : harness::invariant_table()) out.push_back(std::string(i.name));
  return out;
}

void set_check_invariants(const std::string& text) {
  const auto mode = harness::check_mode_by_name(text);
  if (!mode)
    throw UsageError(fmt::format("--check-invariants: expected incremental or full, got \"{}\"{}", text,
                                 did_you_mean(text, {"incremental", "full"})));
  harness::set_check_mode(*mode);
}

namespace {

const char* const kCheckInvariantsHelp =
    "incremental (after a step, only the invariants and nodes its writes touched; the full check at "
    "quiescence) | full (every invariant over the whole state after every step); same results either way";

/// One exploration flag: a row of the table below.
struct ExploreFlag {
  const char* name;  // "long" or "long,s"
  FlagKind kind;
  int phase;  // 0: picks the strategy, read first (sweep then validates); 1: may depend on the strategy
  std::array<std::string, 3> help;   // by Cmd (run, replay, sweep); "": the command does not take the flag
  std::array<const char*, 3> value;  // by Cmd: the default --help shows and the flag starts from (nullptr: none)
  /// Reads the flag's raw value (f.text/on/list at `key`) into `c`. Throws UsageError naming the flag.
  void (*read)(const FlagValues& f, const std::string& key, Cmd which, campaign::ExploreConfig& c);
};

/// The exploration flags, in --help order. See the file comment for adding one.
const std::vector<ExploreFlag>& explore_table() {
  static const std::string run_strategy = campaign::ExploreConfig().strategy,
                           sweep_strategy = campaign::SweepConfig().strategy;
  static const std::vector<ExploreFlag> rows = {
      {"seed",
       FlagKind::value,
       1,
       {"random, pct: run seed S: execution 0 uses S, execution i uses the i-th SplitMix64 output of S",
        "the execution seed to replay (as printed by run)", "random, pct: run seed (as allocsim run)"},
       {"0", nullptr, "0"},  // replay has no default: it replays the execution named by --seed or --schedule
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) {
         if (f.text.at(k).empty()) return;  // replay by --schedule
         // An exhaustive strategy draws nothing: a seed given to it would be ignored, so it is refused.
         if (f.given.count(k) && !c.spec().caps.seeded)
           throw UsageError(fmt::format("--{} applies to --strategy {} only (--strategy {} takes no seed)", k,
                                        sim::strategy_names_with(&sim::StrategyCaps::seeded), c.strategy));
         c.seed = parse_u64("--" + k, f.text.at(k), 0, UINT64_MAX);
       }},
      {"executions,n",
       FlagKind::value,
       1,
       {"number of executions (with dfs: an upper bound; the run says whether the tree was exhausted)", "",
        "sampling strategies: executions per scenario (default 1000); exhaustive ones: cap per work unit "
        "(default: none)"},
       {"1000", nullptr, nullptr},
       [](const FlagValues& f, const std::string& k, Cmd which, campaign::ExploreConfig& c) {
         const std::string& t = f.text.at(k);
         const bool tree = which == Cmd::sweep && c.spec().caps.exhaustive;  // sweep: validated by now
         if (which == Cmd::sweep && t.empty())
           c.executions = tree ? 0 : 1000;
         else
           c.executions = parse_u64("--" + k, t, tree ? 0 : 1, 1'000'000'000'000ull);
       }},
      {"strategy",
       FlagKind::value,
       0,
       {fmt::format("scheduling strategy: {} (see `allocsim list strategies`)", sim::strategy_names(" | ")), "",
        fmt::format("{} (see `allocsim list strategies`)", sim::strategy_names(" | "))},
       {run_strategy.c_str(), nullptr, sweep_strategy.c_str()},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) {
         c.strategy = f.text.at(k);
         if (!sim::find_strategy(c.strategy)) {
           std::vector<std::string> names;
           for (const sim::StrategySpec& s : sim::strategies()) names.push_back(std::string(s.name));
           throw UsageError(fmt::format("--strategy: unknown strategy \"{}\"{} (available: {})", c.strategy,
                                        did_you_mean(c.strategy, names), sim::strategy_names()));
         }
       }},
      {"preemption-bound",
       FlagKind::value,
       0,
       {"dfs: only schedules with at most K preemptions, 0 first, then 1, ... (CHESS); uses plain DFS, "
        "since DPOR under a bound is unsound (Coons et al., OOPSLA 2013)",
        "", "dfs: schedules with at most K preemptions (plain DFS)"},
       {nullptr, nullptr, nullptr},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) {
         if (!f.text.at(k).empty()) c.preemption_bound = uint32_t(parse_u64("--" + k, f.text.at(k), 0, 1000));
       }},
      {"reduction",
       FlagKind::value,
       0,
       {"dfs: none | dpor (source-set DPOR with sleep sets; the default when unbounded, refused with "
        "--preemption-bound) | states (sleep sets and state caching: each distinct state explored once) | "
        "symmetry (states, taken up to renaming interchangeable actors)",
        "",
        "dfs: dpor (default when unbounded) | states (state caching) | symmetry (states up to renaming "
        "interchangeable actors) | none (plain DFS; the only choice with "
        "--preemption-bound)"},
       {nullptr, nullptr, nullptr},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) { c.reduction = f.text.at(k); }},
      {"state-memory",
       FlagKind::value,
       1,
       {"dfs --reduction states or symmetry: the visited-state table's memory bound, as BYTES or with KiB, MiB or GiB "
        "(at least 64KiB; default 256MiB); past it, states are explored without being stored",
        "",
        "dfs --reduction states or symmetry: the visited-state table's memory bound per work unit (at least 64KiB; "
        "default "
        "256MiB)"},
       {nullptr, nullptr, nullptr},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) {
         if (f.text.at(k).empty()) return;
         if (c.reduction != "states" && c.reduction != "symmetry")
           throw UsageError(fmt::format("--{} applies to --reduction states or symmetry only", k));
         c.state_memory = parse_bytes("--" + k, f.text.at(k), uint64_t{64} << 10, uint64_t{1} << 40);
       }},
      {"depth",
       FlagKind::value,
       1,
       {"pct: bug depth d (d-1 priority change points over k steps, k from a calibration execution)", "",
        "pct: bug depth d"},
       {"3", nullptr, "3"},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) {
         if (f.given.count(k) && !c.spec().caps.takes_depth)  // as --reduction and --preemption-bound (strategy table)
           throw UsageError(fmt::format("--{} applies to --strategy {} only (--strategy {} takes no depth)", k,
                                        sim::strategy_names_with(&sim::StrategyCaps::takes_depth), c.strategy));
         c.pct_depth = uint32_t(parse_u64("--" + k, f.text.at(k), 1, 1000));
       }},
      {"stop-on-first",
       FlagKind::on_off,
       1,
       {"stop at the first violating execution", "", ""},
       {},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) {
         c.stop_at_first_violation = f.on.at(k);
       }},
      {"check-determinism",
       FlagKind::on_off,
       1,
       {"run every execution a second time from its recorded schedule and compare the steps; a "
        "difference exits 4 and names the first differing step",
        "",
        "run every execution a second time from its recorded schedule and compare the steps; a difference "
        "fails its scenario, names the first differing step, and exits 4"},
       {},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) {
         c.check_determinism = f.on.at(k);
       }},
      {"max-steps",
       FlagKind::value,
       1,
       {"steps per execution before steps-bounded fires (default: the scenario's max_steps, else 10000; "
        "given, it overrides the scenario's)",
        "steps per execution before steps-bounded fires (default: the scenario's max_steps, else 10000; "
        "given, it overrides the scenario's)",
        "steps per execution (default: each scenario's max_steps, else 10000)"},
       {nullptr, nullptr, nullptr},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) {
         if (!f.text.at(k).empty()) c.max_steps = parse_u64("--" + k, f.text.at(k), 1, 100'000'000);
       }},
      {"mutant",
       FlagKind::repeatable,
       1,
       {"switch on a protocol mutant (repeatable; see `allocsim list mutants`)",
        "switch on a protocol mutant (repeatable; see `allocsim list mutants`)", ""},
       {},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) { c.mutants = f.list.at(k); }},
      {"order",
       FlagKind::repeatable,
       1,
       {"happens-before constraints added to the scenario's `order` (repeatable), as JSON: "
        "'[[\"flowB:delete.before#1\", \"flowA:owner.update.after#1\"]]' (see README, Pinning an interleaving)",
        "constraints added to the scenario's `order`, as for run (repeatable)", ""},
       {},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig& c) {
         c.order = f.list.at(k);
         for (const std::string& text : c.order) {
           if (text.find_first_not_of(" \t\r\n") == std::string::npos)
             throw UsageError(
                 "--order: empty; it takes the constraints themselves, as JSON: [[\"A:point#1\", \"B:point#1\"]]");
           try {
             const nlohmann::json parsed = nlohmann::json::parse(text);  // read again, with the scenario
             static_cast<void>(parsed);
           } catch (const nlohmann::json::parse_error& e) {
             // Where the text stops being JSON: nlohmann's byte is the 1-based position of the bad character, past
             // the end when the text ends early.
             const std::string where =
                 e.byte > text.size() ? "ends early" : fmt::format("at character {}", std::max<size_t>(e.byte, 1));
             throw UsageError(
                 fmt::format("--order: not valid JSON ({}): {}{}", where, text,
                             text.find_first_not_of(" \t\r\n") != std::string::npos &&
                                     text[text.find_first_not_of(" \t\r\n")] == '['
                                 ? ""
                                 : " (the constraints themselves, [[\"A:point#1\", \"B:point#1\"]], not a file)"));
           }
         }
       }},
      // Not part of ExploreConfig: it changes no result (tests/scenarios/incremental_invariants.cpp), only the
      // cost of a step, so reports, checkpoints and replay lines do not carry it.
      {"check-invariants",
       FlagKind::value,
       1,
       {kCheckInvariantsHelp, kCheckInvariantsHelp, kCheckInvariantsHelp},
       {"incremental", "incremental", "incremental"},
       [](const FlagValues& f, const std::string& k, Cmd, campaign::ExploreConfig&) {
         set_check_invariants(f.text.at(k));
       }},
  };
  return rows;
}

std::string key_of(const ExploreFlag& row) {
  const std::string name = row.name;
  return name.substr(0, name.find(','));
}

void validate(const campaign::ExploreConfig& c) {
  try {
    c.validate();
  } catch (const campaign::ConfigError& e) {
    throw UsageError(e.what());
  }
}

}  // namespace

// The rows' arrays are indexed by the three commands that take exploration flags, first in Cmd's order.
static_assert(size_t(Cmd::run) == 0 && size_t(Cmd::replay) == 1 && size_t(Cmd::sweep) == 2);

void explore_options(po::options_description& d, FlagValues& f, Cmd which) {
  const auto w = size_t(which);
  if (w > size_t(Cmd::sweep)) throw std::logic_error("explore_options: a command without exploration flags");
  for (const ExploreFlag& row : explore_table()) {
    if (row.help[w].empty()) continue;
    const std::string key = key_of(row);
    const char* help = row.help[w].c_str();
    switch (row.kind) {
      case FlagKind::value:
        if (row.value[w])
          d.add_options()(row.name, po::value(&f.text[key])->default_value(row.value[w]), help);
        else
          d.add_options()(row.name, po::value(&f.text[key]), help);
        break;
      case FlagKind::on_off:
        d.add_options()(row.name, po::bool_switch(&f.on[key]), help);
        break;
      case FlagKind::repeatable:
        d.add_options()(row.name, po::value(&f.list[key])->composing(), help);
        break;
    }
  }
}

void to_explore_config(const FlagValues& f, Cmd which, campaign::ExploreConfig& c) {
  const auto w = size_t(which);
  for (int phase : {0, 1}) {
    for (const ExploreFlag& row : explore_table())
      if (row.phase == phase && !row.help[w].empty()) row.read(f, key_of(row), which, c);
    if (phase == 0 && which == Cmd::sweep) validate(c);  // sweep's --executions default depends on it
  }
  if (which != Cmd::sweep) validate(c);
}

po::options_description common_options(Common& c, bool run) {
  po::options_description d(run ? "run options" : "replay options");
  declare_flags(d, c.flags, run ? Cmd::run : Cmd::replay);
  return d;
}

namespace {

/// Whether `path` is an existing file somewhere under `folder`, an existing folder (`sweep scenarios/` reads every
/// file there, so an output onto one of them would overwrite it; a new file there is left alone).
bool inside(const std::string& path, const std::string& folder) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec) || !std::filesystem::is_regular_file(path, ec)) return false;
  const auto f = std::filesystem::canonical(folder, ec);
  if (ec) return false;
  const auto p = std::filesystem::canonical(path, ec);
  if (ec) return false;
  return std::mismatch(f.begin(), f.end(), p.begin(), p.end()).first == f.end();
}

}  // namespace

void check_checkpoint_output(const std::string& path, const std::string& campaign) {
  check_output_dir("--checkpoint", path);
  if (path.empty()) return;
  if (const std::string why = campaign::checkpoint_overwrite_refusal(path, campaign); !why.empty())
    throw UsageError(fmt::format("--checkpoint {}: {}", path, why));
}

void check_output_dir(const char* flag, const std::string& path) {
  if (path.empty()) return;
  const auto dir = std::filesystem::path(path).parent_path();
  const std::string d = dir.empty() ? "." : dir.string();
  if (!std::filesystem::is_directory(d) || ::access(d.c_str(), W_OK) != 0)
    throw UsageError(fmt::format("{} {}: directory {} does not exist or is not writable", flag, path, d));
  // A directory (DIR or DIR/) would be found only at the end, when the file cannot be renamed onto it.
  if (std::filesystem::is_directory(path))
    throw UsageError(fmt::format("{} {}: is a directory; give a file name", flag, path));
  std::error_code ec;  // equivalent() is false, with ec set, when either does not exist
  for (const std::string& in : command_inputs()) {
    if (std::filesystem::equivalent(in, path, ec))
      throw UsageError(
          fmt::format("{} {}: is the file this command reads ({}); give another name, or it would be "
                      "overwritten",
                      flag, path, in));
    if (inside(path, in))
      throw UsageError(
          fmt::format("{} {}: is a file in {}, which this command reads; give another name, or it "
                      "would be overwritten",
                      flag, path, in));
  }
  // Outputs need not exist yet: compared as absolute paths with `.` and `..` resolved (weakly_canonical).
  const std::string abs = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec).string();
  for (const auto& [other, at] : checked_outputs())
    if (other != flag && at == abs)
      throw UsageError(fmt::format("{} {}: is also the file of {}; give each output its own file", flag, path, other));
  checked_outputs().emplace_back(flag, abs);
}

void check_not_a_finding_file(const char* flag, const std::string& path, const std::string& out) {
  if (path.empty() || out.empty()) return;
  std::error_code ec;
  const auto folder = std::filesystem::weakly_canonical(std::filesystem::absolute(out), ec);
  const auto file = std::filesystem::weakly_canonical(std::filesystem::absolute(path), ec);
  // A finding's files are INVARIANT-HASH8.json and INVARIANT-HASH8.trace.json (sim/campaign/swarm.h, its slug).
  static const std::regex finding(R"([a-z][a-z0-9-]*-[0-9a-f]{8}(\.trace)?\.json)");
  if (file.parent_path() == folder && std::regex_match(file.filename().string(), finding))
    throw UsageError(
        fmt::format("{} {}: is named as the swarm names a finding's file in --out {}, so one could "
                    "overwrite the other; give another name",
                    flag, path, out));
}

Common parse_common(const std::string& cmd, int argc, char** argv, bool run) {
  Common c;
  po::options_description d = common_options(c, run);
  po::options_description hidden;
  hidden.add_options()("scenario", po::value(&c.scenario));
  // One line in an error message; help spells replay's two forms out.
  const std::string usage = fmt::format("allocsim {} {} [options]", cmd, run ? "SCENARIO" : "SCENARIO|TRACE.json");
  const std::string help_usage = run ? usage
                                     : fmt::format(
                                           "allocsim {0} SCENARIO (--seed E | --schedule S) [options]\n"
                                           "       allocsim {0} TRACE.json [options]",
                                           cmd);
  const po::variables_map vm = parse_options(argc, argv, d, hidden, "scenario", 1, usage);
  if (vm.count("help")) {
    std::cout << "usage: " << help_usage << "\n\n" << d;
    if (run)
      std::cout << "\nexamples:\n"
                   "  allocsim run scenarios/alloc-004-simultaneous-claim.json --executions 10000\n"
                   "  allocsim run scenarios/alloc-004-simultaneous-claim.json --mutant client-side-claim\n";
    else
      std::cout << "\nexamples:\n"
                   "  allocsim replay scenarios/mutants/client-side-claim.json --seed 17\n"
                   "  allocsim replay min.trace.json   (a trace file: run's corpus entries, shrink -o)\n";
    std::exit(kExitOk);
  }
  note_given(vm, c.flags);
  c.fingerprints = c.flags.value("fingerprints");
  c.record = c.flags.value("record");
  c.trace = trace_flags(c.flags);
  if (c.scenario.empty()) throw UsageError("missing SCENARIO (a scenario file, see scenarios/)");
  check_flag_pairs(c.flags);
  // Flags that contradict each other were refused by note_given (the rows' `conflicts`), never silently ignored.
  if (!run) {
    const bool seed_given = vm.count("seed") && !vm["seed"].defaulted();
    if ((seed_given || !c.trace.schedule.empty()) && campaign::looks_like_trace(c.scenario))
      throw UsageError(
          fmt::format("{} is a trace file: it replays its own schedule (--seed and --schedule take a "
                      "scenario file)",
                      c.scenario));
    if (seed_given && !c.trace.schedule.empty())
      throw UsageError("--seed and --schedule: give one (an execution seed, or a schedule)");
  }
  check_output_dir("--trace-out", c.trace.trace_out);
  check_output_dir("--perfetto", c.trace.perfetto);
  check_output_dir("--fingerprints", c.fingerprints);
  check_output_dir("--record", c.record);
  check_output_dir("--report-html", c.trace.report_html);
  check_output_dir("--report-json", c.trace.report_json);
  for (const auto& m : c.flags.mutants())
    if (!backend::mutant_by_name(m))
      throw UsageError(fmt::format("--mutant: unknown mutant \"{}\"{} (see `allocsim list mutants`)", m,
                                   did_you_mean(m, mutant_names())));
  to_config(c, run);  // the flags' values and the strategy table's checks, before anything runs
  return c;
}

campaign::ExploreConfig to_config(const Common& c, bool run) {
  campaign::ExploreConfig cfg;
  if (!run) cfg.executions = 1;  // replay runs the one execution
  to_explore_config(c.flags, run ? Cmd::run : Cmd::replay, cfg);
  return cfg;
}

void add_order_flags(harness::Scenario& sc, const campaign::ExploreConfig& cfg) {
  const std::vector<std::string> names = actor_names(sc);
  const sim::PointVocabulary points = harness::point_vocabulary(sc);
  for (const std::string& text : cfg.order) {
    try {
      sim::append_order(sc.order, sim::parse_order(nlohmann::ordered_json::parse(text), names, &points));
    } catch (const sim::OrderError& e) {
      throw UsageError(fmt::format("--order {}: {}", text, e.what()));
    }
  }
}

std::vector<std::string> actor_names(const harness::Scenario& sc) {
  std::vector<std::string> out;
  for (const auto& a : sc.actors) out.push_back(a.name);
  return out;
}

std::string replay_command(const Common& c, uint64_t seed, const campaign::ExploreConfig& cfg) {
  return cfg.replay_line(c.scenario, campaign::ReplayTarget{.seed = seed, .schedule = {}});
}

}  // namespace allocsim::cli
