#include "sim/campaign/corpus.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "sim/assert.h"
#include "sim/campaign/config.h"
#include "sim/campaign/order_min.h"
#include "sim/campaign/sweep.h"
#include "sim/campaign/trace_replay.h"
#include "sim/schedule.h"
#include "sim/shrink.h"
#include "sim/support/words.h"

namespace allocsim::campaign {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSuffix = ".trace.json";

bool is_hex(std::string_view s, size_t n) {
  return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(uint8_t(c)) != 0; });
}

/// Invariant names as a file-name field: no dots (they separate fields), nothing a shell would quote.
std::string name_field(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (!std::isalnum(uint8_t(c)) && c != '-' && c != '_') c = '_';
  return out;
}

/// The digest's hex digits (a digest is "algorithm:hex"), the first 12 of them.
std::string digest12(const std::string& digest) {
  const std::string hex = digest.substr(digest.find(':') == std::string::npos ? 0 : digest.find(':') + 1);
  return name_field(hex.substr(0, 12));
}

std::string fingerprint_hex(const sim::ExecutionResult& r) { return fmt::format("{:016x}", r.fingerprint()); }

/// The entry's schedule by name, mapped onto `current`'s actors (choices of actors it no longer has are
/// dropped: the lenient replay then picks the next runnable actor, as the shrinker does).
std::vector<sim::Choice> schedule_on(const Trace& t, const Subject& current) {
  const std::vector<std::string> names = current.actor_names();
  std::vector<sim::Choice> out;
  for (const TraceChoice& c : t.choices) {
    if (c.draw) {
      out.push_back({sim::Choice::Draw, c.value});
      continue;
    }
    const auto it = std::find(names.begin(), names.end(), c.actor);
    if (it != names.end()) out.push_back({sim::Choice::Actor, uint64_t(it - names.begin())});
  }
  return out;
}

/// Runs `s` (with `extra` mutants) along `schedule` once more and tallies the world it leaves into `e`.
void tally_along(EntryReplay& e, const Subject& s, const std::vector<std::string>& extra,
                 std::span<const sim::Choice> schedule, uint64_t max_steps) {
  const std::unique_ptr<Compiled> compiled = s.compile(extra);
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps});
  sim::LenientReplayStrategy strategy(schedule);
  const std::unique_ptr<Tally> tally = s.tally();
  run_one(engine, *compiled, strategy, [&](const sim::World& w) { tally->add(w); });
  tally->drain(e.outcomes, e.barrier_hits, e.counters);
}

/// The entry's `order` block, when it has one (an optional trace key; old entries have none).
std::optional<nlohmann::json> order_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json doc = nlohmann::json::parse(ss.str(), nullptr, false);
  if (doc.is_object() && doc.contains("order") && doc["order"].is_array() && !doc["order"].empty()) return doc["order"];
  return std::nullopt;
}

/// The scenario changed (or the program did): re-run `current` from the entry's order, else along its
/// schedule, and call it re-found when the same invariant breaks.
void rerun_changed(EntryReplay& e, const std::string& path, const Trace& t, const Subject& current,
                   const std::vector<std::string>& extra, const OrderReplay& order) {
  std::optional<sim::ExecutionResult> r;
  if (const auto block = order_of(path)) {
    if (order) {
      r = order(current, extra, *block);
    } else {
      const std::unique_ptr<Compiled> compiled = current.compile(extra);
      r = run_order_block(*compiled, current.actor_names(), *block, t.max_steps);
    }
    if (r) e.via = "order";
  }
  if (!r) {
    const std::unique_ptr<Compiled> compiled = current.compile(extra);
    sim::Engine engine(sim::EngineOptions{.max_steps = t.max_steps});
    const std::vector<sim::Choice> schedule = schedule_on(t, current);
    sim::LenientReplayStrategy s(schedule);
    r = run_one(engine, *compiled, s);
    e.via = "lenient schedule";
  }
  e.steps = r->steps.size();
  e.fingerprint = fingerprint_hex(*r);
  e.invariant = r->violation ? r->violation->invariant : "";
  e.status = r->violation && r->violation->invariant == e.stored_invariant ? EntryStatus::refound : EntryStatus::stale;
  if (!e.violating()) return;
  tally_along(e, current, extra, r->schedule, t.max_steps);
  e.replay = fmt::format("allocsim replay {} --schedule {}", shell_quote(current.path()),
                         shell_quote(sim::format_schedule(r->schedule, current.actor_names())));
  for (const std::string& m : extra) e.replay += " --mutant " + m;
  if (t.max_steps != current.max_steps(std::nullopt)) e.replay += fmt::format(" --max-steps {}", t.max_steps);
}

}  // namespace

std::string corpus_dir(const std::string& scenario_path, const std::string& flag) {
  if (!flag.empty()) return flag;
  return (fs::path(scenario_path).parent_path() / ".allocsim" / "corpus").string();
}

bool installed_example(const std::string& scenario_path) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(scenario_path).parent_path() / kInstalledMarker, ec);
}

namespace {

constexpr std::string_view kBoundMark = "~max-steps-";

}  // namespace

std::string corpus_key(const std::string& scenario_path, std::vector<std::string> extra_mutants,
                       std::optional<uint64_t> step_bound) {
  std::sort(extra_mutants.begin(), extra_mutants.end());
  extra_mutants.erase(std::unique(extra_mutants.begin(), extra_mutants.end()), extra_mutants.end());
  std::string key = fs::path(scenario_path).stem().string();
  for (const auto& m : extra_mutants) key += "+" + m;
  if (step_bound) key += fmt::format("{}{}", kBoundMark, *step_bound);
  return key;
}

namespace {

/// The engine's own violation (sim/engine_decide.cpp): the one whose existence depends on the step bound.
bool bound_decides(std::string_view invariant) { return invariant == "steps-bounded"; }

}  // namespace

std::optional<uint64_t> foreign_bound(const Subject& subject, std::optional<uint64_t> flag) {
  if (!flag || subject.max_steps(flag) == subject.max_steps(std::nullopt)) return std::nullopt;
  return flag;
}

std::string entry_key(const std::string& scenario_path, const std::vector<std::string>& extra_mutants,
                      const std::string& invariant, std::optional<uint64_t> bound) {
  return corpus_key(scenario_path, extra_mutants, bound_decides(invariant) ? bound : std::nullopt);
}

std::optional<KeyParts> parse_key(const std::string& key, const std::string& stem) {
  if (!key.starts_with(stem)) return std::nullopt;
  std::string_view rest = std::string_view(key).substr(stem.size());
  KeyParts out;
  if (const size_t at = rest.rfind(kBoundMark); at != std::string_view::npos) {
    const std::string_view digits = rest.substr(at + kBoundMark.size());
    uint64_t n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() ||
        (digits.size() > 1 && digits.front() == '0'))  // as corpus_key writes it: no sign, no leading zero
      return std::nullopt;
    out.step_bound = n;
    rest = rest.substr(0, at);
  }
  while (!rest.empty()) {
    if (rest.front() != '+') return std::nullopt;  // another scenario whose stem begins with this one's
    rest.remove_prefix(1);
    const size_t plus = std::min(rest.find('+'), rest.size());
    if (plus == 0) return std::nullopt;  // an empty mutant name: corpus_key writes none
    out.mutants.emplace_back(rest.substr(0, plus));
    rest.remove_prefix(plus);
  }
  return out;
}

std::optional<EntryName> parse_entry_name(const std::string& file_name) {
  if (!file_name.ends_with(kSuffix)) return std::nullopt;
  std::string rest = file_name.substr(0, file_name.size() - kSuffix.size());
  std::vector<std::string> fields;  // from the right: hash8, invariant, digest12
  for (int i = 0; i < 3; ++i) {
    const size_t dot = rest.rfind('.');
    if (dot == std::string::npos) return std::nullopt;
    fields.push_back(rest.substr(dot + 1));
    rest.resize(dot);
  }
  EntryName n{rest, fields[2], fields[1], fields[0]};
  if (n.key.empty() || n.invariant.empty() || !is_hex(n.hash8, 8) || !is_hex(n.digest12, 12)) return std::nullopt;
  return n;
}

std::string entry_file_name(const Trace& t, const std::string& key) {
  ALLOCSIM_ASSERT(t.violation.has_value(), "a corpus entry is a violating trace");
  std::string identity = t.violation->invariant;
  for (const TraceChoice& c : t.choices) identity += c.draw ? fmt::format(",#{}", c.value) : "," + c.actor;
  const uint64_t h = XXH3_64bits(identity.data(), identity.size());
  return fmt::format("{}.{}.{}.{:08x}{}", key, digest12(t.scenario_digest), name_field(t.violation->invariant),
                     uint32_t(h >> 32), kSuffix);
}

Stored store_entry(const std::string& dir, const Trace& t, const std::string& key) {
  const fs::path path = fs::path(dir) / entry_file_name(t, key);
  std::error_code ec;
  if (fs::exists(path, ec)) return {path.string(), false};
  fs::create_directories(dir, ec);
  if (ec) throw CorpusError(fmt::format("{}: cannot create the corpus folder: {}", dir, ec.message()));
  write_file_atomically(path.string(), trace_to_text(t));
  return {path.string(), true};
}

namespace {

/// The regular files of corpus folder `dir` that `keep` accepts, as `keep` returns them, sorted.
template <class Keep>
std::vector<std::string> files_of(const std::string& dir, Keep keep) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return {};
  if (!fs::is_directory(dir, ec)) throw CorpusError(fmt::format("{}: not a folder (expected a corpus folder)", dir));
  std::vector<std::string> out;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file())
      if (auto kept = keep(it->path())) out.push_back(std::move(*kept));
  if (ec) throw CorpusError(fmt::format("{}: cannot list the corpus folder: {}", dir, ec.message()));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> list_entries(const std::string& dir) {
  return files_of(dir, [](const fs::path& p) -> std::optional<std::string> {
    if (!parse_entry_name(p.filename().string())) return std::nullopt;
    return p.string();
  });
}

std::vector<std::string> list_non_entries(const std::string& dir) {
  return files_of(dir, [](const fs::path& p) -> std::optional<std::string> {
    if (p.extension() != ".json" || parse_entry_name(p.filename().string())) return std::nullopt;
    return p.filename().string();
  });
}

const char* status_name(EntryStatus s) {
  switch (s) {
    case EntryStatus::violates:
      return "violates";
    case EntryStatus::refound:
      return "re-found";
    case EntryStatus::passes:
      return "passes";
    case EntryStatus::stale:
      return "stale";
    case EntryStatus::unreadable:
      return "unreadable";
  }
  return "?";
}

EntryReplay replay_entry(const System& system, const std::string& path, const Subject& current,
                         const std::vector<std::string>& extra, const OrderReplay& order) {
  EntryReplay e;
  e.path = path;
  Trace t;
  try {
    t = load_trace(system, path);
  } catch (const TraceError& err) {
    e.note = err.what();
    return e;
  }
  if (!t.violation) {
    e.note = fmt::format("{}: records no violation (not a corpus entry)", path);
    return e;
  }
  e.stored_invariant = t.violation->invariant;
  if (t.scenario_digest == current.digest()) {
    const TraceReplay rr = replay_trace(t);
    if (!rr.divergence) {
      e.via = "schedule";
      e.steps = rr.result.steps.size();
      e.fingerprint = fingerprint_hex(rr.result);
      e.invariant = rr.result.violation ? rr.result.violation->invariant : "";
      e.status = rr.result.violation ? EntryStatus::violates : EntryStatus::passes;
      if (e.violating()) {
        tally_along(e, *t.scenario, {}, rr.result.schedule, t.max_steps);
        e.replay = "allocsim replay " + shell_quote(path);
      }
      return e;
    }
    // Same scenario, different program: the schedule no longer fits step for step.
    e.note = fmt::format("strict replay diverged at step {} ({})", rr.divergence->step, rr.divergence->label);
  }
  rerun_changed(e, path, t, current, extra, order);
  return e;
}

std::vector<EntryReplay> replay_corpus(const System& system, const std::string& dir, const Subject& current,
                                       const std::vector<std::string>& extra,
                                       std::optional<uint64_t> explicit_max_steps, const OrderReplay& order) {
  const std::optional<uint64_t> bound = foreign_bound(current, explicit_max_steps);
  const std::string key = corpus_key(current.path(), extra);
  const std::string bounded = corpus_key(current.path(), extra, bound);
  const uint64_t run_bound = current.max_steps(explicit_max_steps);
  // A steps-bounded entry recorded under another bound than this run's is not this run's, whatever its key
  // says (an entry an earlier version stored under the plain key); one that cannot be read is replayed, to be
  // reported unreadable.
  const auto recorded_under_another_bound = [&](const std::string& path) {
    try {
      return load_trace(system, path).max_steps != run_bound;
    } catch (const std::exception&) {
      return false;
    }
  };
  std::vector<EntryReplay> out;
  for (const std::string& path : list_entries(dir)) {
    const EntryName n = *parse_entry_name(fs::path(path).filename().string());
    if (n.key != (bound_decides(n.invariant) ? bounded : key)) continue;
    if (bound_decides(n.invariant) && recorded_under_another_bound(path)) continue;
    out.push_back(replay_entry(system, path, current, extra, order));
  }
  return out;
}

std::string replay_summary(const std::vector<EntryReplay>& replays) {
  uint64_t violating = 0, refound = 0, stale = 0, unreadable = 0;
  for (const auto& e : replays) {
    violating += e.status == EntryStatus::violates;
    refound += e.status == EntryStatus::refound;
    stale += e.status == EntryStatus::stale;
    unreadable += e.status == EntryStatus::unreadable;
  }
  std::string s = fmt::format("{} replayed: {} still {}", support::count_of(replays.size(), "corpus trace"), violating,
                              support::noun_for(violating, "violates", "violate"));
  if (refound) s += fmt::format(", {} re-found", refound);
  if (stale) s += fmt::format(", {} stale", stale);
  if (unreadable) s += fmt::format(", {} unreadable", unreadable);
  return s;
}

std::string replay_lines(const std::vector<EntryReplay>& replays, const std::string& indent) {
  std::string out;
  for (const auto& e : replays) {
    const std::string name = fs::path(e.path).filename().string();
    const std::string run = fmt::format("{}, fingerprint {}", support::count_of(e.steps, "step"), e.fingerprint);
    switch (e.status) {
      case EntryStatus::violates:
        out += fmt::format("{}execution 0: {}: still violates {} ({})\n", indent, name, e.invariant, run);
        break;
      case EntryStatus::refound:
        out += fmt::format("{}execution 0: {}: the scenario changed; re-found {} through its {} ({})\n", indent, name,
                           e.invariant, e.via, run);
        break;
      case EntryStatus::passes:
        out += fmt::format("{}{}: passes now: {} no longer breaks ({})\n", indent, name, e.stored_invariant, run);
        break;
      case EntryStatus::stale:
        out += fmt::format(
            "{}{}: stale: the scenario changed and its {} no longer breaks {} (kept; `allocsim "
            "corpus prune` removes it)\n",
            indent, name, e.via, e.stored_invariant);
        break;
      case EntryStatus::unreadable:
        out += fmt::format("{}{}: unreadable: {}\n", indent, name, e.note);
        break;
    }
    if (e.violating()) out += fmt::format("{}  replay: {}\n", indent, e.replay);
  }
  return out;
}

void judge_with_corpus(const std::vector<EntryReplay>& replays, const Subject& subject, RunReport& report) {
  if (std::none_of(replays.begin(), replays.end(), [](const EntryReplay& e) { return e.violating(); })) return;
  RunReport judged = report;
  count_corpus(replays, subject, judged);
  subject.judge(judged);
  report.met = judged.met;
  report.unmet = std::move(judged.unmet);
}

void count_corpus(const std::vector<EntryReplay>& replays, const Subject& subject, RunReport& report) {
  std::set<std::string> reached(report.reached.begin(), report.reached.end());
  for (const auto& e : replays) {
    if (!e.violating()) continue;
    ++report.summary.executions;
    ++report.summary.violating_executions;
    ++report.summary.violations_by_invariant[e.invariant];
    for (const auto& [actor, ops] : e.outcomes)
      for (const auto& [op, ends] : ops)
        for (const auto& [end, n] : ends) report.outcomes[actor][op][end] += n;
    for (const auto& [name, n] : e.counters) report.counters[name] += n;
    for (const auto& [barrier, n] : e.barrier_hits) reached.insert(barrier);
  }
  report.reached.clear();
  for (const std::string& b : subject.barriers())
    if (reached.count(b)) report.reached.push_back(b);
}

nlohmann::json corpus_json(const std::vector<EntryReplay>& replays) {
  nlohmann::json entries = nlohmann::json::array();
  uint64_t violating = 0;
  for (const auto& e : replays) {
    violating += e.violating();
    entries.push_back({{"path", e.path},
                       {"status", status_name(e.status)},
                       {"invariant", e.invariant},
                       {"via", e.via},
                       {"steps", e.steps},
                       {"fingerprint", e.fingerprint}});
  }
  return {{"replayed", replays.size()}, {"still_violating", violating}, {"entries", std::move(entries)}};
}

void replay_sweep_corpus(const System& system, SweepResults& results, const std::string& dir) {
  if (results.config.shard_count != 1) return;
  results.corpus.assign(results.plans.size(), {});
  for (size_t p = 0; p < results.plans.size(); ++p) {
    const ScenarioPlan& plan = results.plans[p];
    if (plan.scenario)
      results.corpus[p] = replay_corpus(system, corpus_dir(plan.path, dir), *plan.scenario, results.config.mutants,
                                        results.config.max_steps);
  }
}

}  // namespace allocsim::campaign
