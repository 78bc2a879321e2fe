#include "sim/campaign/explain.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <utility>

#include "sim/campaign/order_min.h"
#include "sim/campaign/run.h"
#include "sim/shrink.h"

namespace allocsim::campaign {

namespace {

/// One step's footprint folded per object: object -> written (ordered: explanations are deterministic).
using Touches = std::map<uint64_t, bool>;

struct Graph {
  std::vector<sim::ActorId> actor;
  std::vector<Touches> touches;           // Data and View objects (Sync ones dropped)
  std::vector<Touches> locks;             // Sync objects: lock -> its actor holds it when the step ends
  std::map<uint64_t, ObjectName> names;   // every object touched
  std::vector<bool> sink;                 // the violating step(s)
  std::vector<std::vector<bool>> before;  // before[j][i]: i happens-before j (i < j)

  /// The objects steps i < j both touch, at least one of them writing; View objects only into a sink.
  std::vector<uint64_t> conflicts(size_t i, size_t j) const {
    std::vector<uint64_t> out;
    for (const auto& [obj, w] : touches[i]) {
      const auto it = touches[j].find(obj);
      if (it == touches[j].end() || !(w || it->second)) continue;
      if (names.at(obj).role == ObjectName::View && !sink[j]) continue;
      out.push_back(obj);
    }
    return out;
  }
};

/// The violating step(s): the last step, or at quiescence the last step of every actor.
std::vector<uint64_t> sinks(const sim::ExecutionResult& r) {
  if (r.steps.empty()) return {};
  if (r.violation_actor) return {r.steps.size() - 1};
  std::map<sim::ActorId, uint64_t> last;
  for (size_t i = 0; i < r.steps.size(); ++i) last[r.steps[i].actor] = i;
  std::vector<uint64_t> out;
  for (const auto& [a, i] : last) out.push_back(i);
  std::sort(out.begin(), out.end());
  return out;
}

Graph happens_before(const Subject& sc, const sim::ExecutionResult& r, const std::vector<std::string>& details) {
  Graph g;
  const size_t n = r.steps.size();
  g.before.assign(n, std::vector<bool>(n, false));
  g.sink.assign(n, false);
  for (uint64_t s : sinks(r)) g.sink[s] = true;
  for (const sim::StepRecord& s : r.steps)
    for (const sim::Access& a : s.footprint)
      if (!g.names.count(a.object)) g.names[a.object] = sc.name_object(a.object, details);
  for (const sim::StepRecord& s : r.steps) {
    g.actor.push_back(s.actor);
    Touches t, l;
    for (const sim::Access& a : s.footprint)
      if (g.names.at(a.object).role != ObjectName::Sync)
        t[a.object] = t[a.object] || a.write;
      else
        l[a.object] = a.held;
    g.touches.push_back(std::move(t));
    g.locks.push_back(std::move(l));
  }
  // The invariant that fired read the visible state after the violating step, whatever that step touched
  // itself: a sink depends on every earlier step that wrote a View object, so a stamp a recovery left behind
  // is in the recovery's slice even when its own footprint does not reach the node. Only the slice: racing
  // pairs are the steps' own conflicts (conflicts()), a reversal of which says something about the steps.
  std::vector<bool> writes_view(n, false);
  for (size_t i = 0; i < n; ++i)
    for (const auto& [obj, w] : g.touches[i])
      writes_view[i] = writes_view[i] || (w && g.names.at(obj).role == ObjectName::View);
  for (size_t j = 0; j < n; ++j)
    for (size_t i = 0; i < j; ++i) {
      if (g.before[j][i]) continue;
      if (g.actor[i] != g.actor[j] && g.conflicts(i, j).empty() && !(g.sink[j] && writes_view[i])) continue;
      g.before[j][i] = true;  // a direct edge: everything before i is before j too
      for (size_t k = 0; k < i; ++k)
        if (g.before[i][k]) g.before[j][k] = true;
    }
  return g;
}

/// A step that lets go of a lock (its actor held it before the step and not after), and where the hold began:
/// the first of the actor's unbroken run of steps that end holding it. The slice keeps every earlier step of
/// an actor it keeps, so `took` is in the slice exactly when the actor's last step in the slice ends holding
/// the lock.
struct Release {
  size_t step, took;
  uint64_t lock;
};

std::vector<Release> releases(const Graph& g) {
  std::vector<Release> out;
  std::map<std::pair<sim::ActorId, uint64_t>, size_t> since;  // (actor, lock) held -> the run's first step
  for (size_t k = 0; k < g.actor.size(); ++k)
    for (const auto& [lock, held] : g.locks[k]) {
      const auto key = std::make_pair(g.actor[k], lock);
      const auto it = since.find(key);
      if (held && it == since.end()) since.emplace(key, k);
      if (!held && it != since.end()) out.push_back({k, it->second, lock}), since.erase(it);
    }
  return out;
}

/// Lock hand-overs (explain.h, 3): a release left out whose actor took the lock in a step of the slice, when a
/// later step of another actor in the slice touches that lock. Without it the lock would stay held.
bool needed(const Graph& g, const std::vector<bool>& in, const Release& r) {
  if (in[r.step] || !in[r.took]) return false;
  for (size_t j = r.step + 1; j < in.size(); ++j)
    if (in[j] && g.actor[j] != g.actor[r.step] && g.locks[j].count(r.lock)) return true;
  return false;
}

std::vector<uint64_t> causal_slice(const Graph& g) {
  std::vector<bool> in(g.actor.size(), false);
  const auto add = [&](size_t s) {
    in[s] = true;
    for (size_t i = 0; i < s; ++i)
      if (g.before[s][i]) in[i] = true;
  };
  for (uint64_t s = 0; s < g.sink.size(); ++s)
    if (g.sink[s]) add(s);
  const std::vector<Release> handed = releases(g);
  for (bool grew = true; grew;) {  // ends: each pass that goes on adds a step
    grew = false;
    for (const Release& r : handed)
      if (needed(g, in, r)) add(r.step), grew = true;
  }
  std::vector<uint64_t> out;
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i]) out.push_back(i);
  return out;
}

/// The schedule split per step: chunk k+1 is step k's actor choice and the draws made inside it; chunk 0
/// holds draws made before any step.
std::vector<std::vector<sim::Choice>> chunks(std::span<const sim::Choice> schedule) {
  std::vector<std::vector<sim::Choice>> out(1);
  for (const sim::Choice& c : schedule) {
    if (c.kind == sim::Choice::Actor) out.emplace_back();
    out.back().push_back(c);
  }
  return out;
}

/// `schedule` with second's actor's steps in (first, second] moved before `first`.
std::vector<sim::Choice> reversed_schedule(const Graph& g, std::span<const sim::Choice> schedule, size_t first,
                                           size_t second) {
  const auto parts = chunks(schedule);
  std::vector<size_t> order;
  for (size_t k = 0; k < first; ++k) order.push_back(k);
  for (size_t k = first + 1; k <= second; ++k)
    if (g.actor[k] == g.actor[second]) order.push_back(k);
  for (size_t k = first; k < g.actor.size(); ++k)
    if (k == first || k > second || g.actor[k] != g.actor[second]) order.push_back(k);
  std::vector<sim::Choice> out = parts[0];
  for (size_t k : order)
    if (k + 1 < parts.size()) out.insert(out.end(), parts[k + 1].begin(), parts[k + 1].end());
  return out;
}

std::string reversal_outcome(const sim::ExecutionResult& rev, const std::string& invariant) {
  if (!rev.violation)
    return fmt::format("no violation: the execution ends after {} steps{}", rev.steps.size(),
                       rev.quiescent ? " with every actor finished" : "");
  if (rev.violation->invariant != invariant)
    return fmt::format("{} breaks instead, after {} steps: {}", rev.violation->invariant, rev.steps.size(),
                       rev.violation->message);
  return "";  // the same invariant: the pair does not matter
}

std::string verb(bool write) { return write ? "wrote" : "read"; }

/// The objects of a pair in the subject's words, the View object only when nothing else is shared.
std::vector<std::string> object_words(const Graph& g, const std::vector<uint64_t>& objs) {
  std::vector<std::string> out, view;
  for (uint64_t o : objs) {
    const ObjectName& n = g.names.at(o);
    auto& into = n.role == ObjectName::View ? view : out;
    if (std::find(into.begin(), into.end(), n.words) == into.end()) into.push_back(n.words);
  }
  return out.empty() ? view : out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

struct Context {
  const Subject& sc;
  const sim::ExecutionResult& r;
  const Graph& g;
  std::vector<std::string> names, labels, details;
};

std::string pair_sentence(const Context& c, const RacingPair& p, const std::vector<uint64_t>& objs) {
  bool w1 = false, w2 = false;
  for (uint64_t o : objs) w1 |= c.g.touches[p.first].at(o), w2 |= c.g.touches[p.second].at(o);
  const std::string what = join(p.objects, ", ");
  const auto step_words = [&](uint64_t i) {
    const std::string& d = c.details[i];
    return fmt::format("step {} ({}{}{})", i, c.labels[i], d.empty() ? "" : ": ", d);
  };
  return fmt::format("{} {} {} at {} before {} {} it at {}; the other way round: {}.",
                     c.names[c.r.steps[p.first].actor], verb(w1), what, step_words(p.first),
                     c.names[c.r.steps[p.second].actor], verb(w2), step_words(p.second), p.reversed);
}

}  // namespace

std::string_view violating_call(const sim::ExecutionResult& r) {
  if (r.steps.empty()) return "";
  const sim::ActorId a = r.steps.back().actor;
  for (size_t k = r.steps.size(); k-- > 0;)
    if (r.steps[k].actor == a && r.steps[k].kind == sim::PointKind::Call) return r.steps[k].what;
  return "";
}

bool broken_by_world(const Subject& subject, const sim::ExecutionResult& r) {
  return r.violation && r.violation_actor && subject.world_write(violating_call(r));
}

ObjectName Subject::name_object(uint64_t object, const std::vector<std::string>& details) const {
  (void)details;
  return {ObjectName::Data, fmt::format("object {:016x}", object)};
}

std::vector<std::string> step_labels(const sim::ExecutionResult& r, const std::vector<std::string>& actor_names) {
  std::map<std::pair<sim::ActorId, std::string_view>, uint32_t> seen;
  std::vector<std::string> out;
  for (const sim::StepRecord& s : r.steps) {
    const uint32_t n = ++seen[{s.actor, s.what}];
    const std::string who = s.actor < actor_names.size() ? actor_names[s.actor] : fmt::format("@{}", s.actor);
    out.push_back(fmt::format("{}:{}#{}", who, s.what, n));
  }
  return out;
}

namespace {

/// A reversal that was carried out (both steps ran, the second first) and that matters; `faithful` when
/// every actor still passed every point it passed in the original execution (occurrences aside: a poll may
/// repeat fewer times): the same kinds of steps, reordered, rather than an actor prevented from acting.
struct Checked {
  RacingPair pair;
  bool faithful = false;
};

/// Runs the reversal of (i, j); nullopt when it was not carried out or does not matter. Counted in `held`
/// when step i ran and j did not run before it (the scenario's order pins them, or j's label changed because
/// the reversal removed a wait or a poll); a run that ended before i is not counted there.
std::optional<Checked> check_pair(const Context& c, sim::Engine& engine, const Compiled& compiled,
                                  std::span<const sim::Choice> schedule, uint64_t i, uint64_t j, uint64_t& held) {
  const std::vector<sim::Choice> rev = reversed_schedule(c.g, schedule, i, j);
  sim::LenientReplayStrategy s(rev);
  const sim::ExecutionResult rr = run_one(engine, compiled, s);
  const std::vector<std::string> got = step_labels(rr, c.names);
  const auto pos = [&](const std::string& l) { return std::find(got.begin(), got.end(), l) - got.begin(); };
  const auto n = static_cast<std::ptrdiff_t>(got.size());
  const auto pi = pos(c.labels[i]), pj = pos(c.labels[j]);
  if (pi < n && (pj == n || pj > pi)) ++held;
  if (pi == n || pj == n || pj > pi) return std::nullopt;  // the other order did not happen
  std::string outcome = reversal_outcome(rr, c.r.violation->invariant);
  if (outcome.empty()) return std::nullopt;
  const auto points = [](const std::vector<std::string>& labels) {
    std::map<std::string, bool> out;
    for (const std::string& l : labels) out[l.substr(0, l.rfind('#'))] = true;
    return out;
  };
  const auto had = points(c.labels), has = points(got);
  const bool faithful = std::all_of(had.begin(), had.end(), [&](const auto& p) { return has.count(p.first) > 0; });
  return Checked{RacingPair{i, j, object_words(c.g, c.g.conflicts(i, j)), std::move(outcome)}, faithful};
}

/// Steps 4 and 5: the pairs that matter (the faithful ones when there are any), the tightest only.
std::vector<RacingPair> racing_pairs(const Context& c, std::span<const sim::Choice> schedule, uint64_t max_steps,
                                     const std::vector<uint64_t>& slice, uint64_t& runs, uint64_t& held) {
  const std::unique_ptr<Compiled> compiled = c.sc.compile({});
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps});
  std::vector<Checked> matter;
  for (size_t a = 0; a < slice.size(); ++a)
    for (size_t b = a + 1; b < slice.size(); ++b) {
      const uint64_t i = slice[a], j = slice[b];
      if (c.g.actor[i] == c.g.actor[j] || c.g.conflicts(i, j).empty() || runs >= kMaxExplainRuns) continue;
      ++runs;
      if (auto k = check_pair(c, engine, *compiled, schedule, i, j, held)) matter.push_back(std::move(*k));
    }
  const bool any_faithful = std::any_of(matter.begin(), matter.end(), [](const Checked& k) { return k.faithful; });
  std::erase_if(matter, [&](const Checked& k) { return any_faithful && !k.faithful; });
  std::vector<RacingPair> out;
  for (const Checked& k : matter) {
    const RacingPair& p = k.pair;
    const bool looser = std::any_of(matter.begin(), matter.end(), [&](const Checked& o) {
      const RacingPair& q = o.pair;
      return &o != &k && c.g.actor[q.first] == c.g.actor[p.first] && c.g.actor[q.second] == c.g.actor[p.second] &&
             q.first >= p.first && q.second <= p.second;
    });
    if (!looser) out.push_back(p);
  }
  return out;
}

std::string summary(const Context& c, const std::vector<RacingPair>& pairs, uint64_t runs, uint64_t held) {
  const std::string& inv = c.r.violation->invariant;
  if (pairs.empty()) {
    std::map<sim::ActorId, bool> actors;
    for (sim::ActorId a : c.g.actor) actors[a] = true;
    if (runs == 0)
      return fmt::format(
          "No race: {} breaks with no two actors' steps depending on each other{}, so it breaks in "
          "every order.",
          inv, actors.size() == 1 ? " (one actor)" : "");
    if (held == runs)
      return fmt::format(
          "No race found: none of the {} dependent pairs of different actors' steps tried ran the other way round "
          "when replayed reversed (an order pinning them, or one step enabling the other, prevents it), so no "
          "reversal shows what {} needs.",
          runs, inv);
    if (held > 0)
      return fmt::format(
          "No race: {} breaks in every order tried; of the {} dependent pairs of different actors' steps tried, "
          "{} did not run the other way round when replayed reversed, and the others still break it.",
          inv, runs, held);
    return fmt::format(
        "No race: {} breaks in every order; each of the {} dependent pairs of different actors' "
        "steps, reversed, still breaks it.",
        inv, runs);
  }
  std::string out =
      fmt::format("{} needs {} ordered as it was: ", inv,
                  pairs.size() == 1 ? "one pair of steps" : fmt::format("{} pairs of steps", pairs.size()));
  for (size_t k = 0; k < pairs.size(); ++k) {
    const auto objs = c.g.conflicts(pairs[k].first, pairs[k].second);
    out += (k ? " " : "") + pair_sentence(c, pairs[k], objs);
  }
  return out;
}

}  // namespace

std::optional<Explanation> explain(const Subject& sc, std::span<const sim::Choice> schedule, uint64_t max_steps) {
  const std::unique_ptr<Compiled> compiled = sc.compile({});
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps, .record_footprints = true});
  sim::LenientReplayStrategy replay(schedule);
  const sim::ExecutionResult r = run_one(engine, *compiled, replay);
  if (!r.violation || r.steps.size() > kMaxExplainSteps) return std::nullopt;
  if (r.steps.empty() && r.violation_actor) return std::nullopt;  // an actor threw before its first point
  if (r.steps.empty()) {
    // Nothing ran before the invariant failed: this scenario's start state breaks it by itself. A check made at
    // quiescence (heals-after-faults) sees the start state only once every op is gone, as a shrunk scenario has
    // them: in a file with ops, some schedules may repair the state, so "every schedule" is this scenario's.
    Explanation e;
    e.kind = "start";
    e.summary = fmt::format(
        "No race: {} fails before any step, on the start state itself, so every schedule of this scenario fails "
        "(a start state that models an incident's leftovers on purpose, or one to fix; in a file whose ops can "
        "repair that state, only the schedules that leave it alone do).",
        r.violation->invariant);
    return e;
  }
  std::vector<std::string> details;
  for (const sim::StepRecord& s : r.steps) details.push_back(s.detail);
  const Graph g = happens_before(sc, r, details);
  Context c{sc, r, g, sc.actor_names(), step_labels(r, sc.actor_names()), std::move(details)};
  Explanation e;
  e.slice = causal_slice(g);
  const sim::StepRecord& last = r.steps.back();
  if (broken_by_world(sc, r)) {
    // The world's own write broke it: the state held the invariant before that step, and nothing the
    // protocol did raced with it. Said as it is, not as a race (no pairs are looked for).
    e.kind = "world";
    // The call is named only where the step's point does not already name it (a write after a lock wait).
    const std::string& label = c.labels.back();
    const std::string call(violating_call(r));
    const size_t colon = label.find(':'), hash = label.rfind('#');
    const bool named = colon != std::string::npos && hash != std::string::npos && hash > colon &&
                       label.compare(colon + 1, hash - colon - 1, call) == 0;
    e.summary = fmt::format(
        "Not a race of the protocol: {} broke at step {}, a write of the world ({}{}{}{}), on a state that held it "
        "before. Another controller's write made the state wrong by itself; whether the protocol should survive it "
        "is a question for the scenario, not a schedule.",
        r.violation->invariant, r.steps.size() - 1, label, named ? "" : ", of its " + call + " call",
        last.detail.empty() ? "" : ": ", last.detail);
  } else {
    uint64_t runs = 0, held = 0;
    e.pairs = racing_pairs(c, r.schedule, max_steps, e.slice, runs, held);
    e.kind = e.pairs.empty() ? "sequential" : "race";
    e.summary = summary(c, e.pairs, runs, held);
  }
  for (const RacingPair& p : e.pairs) e.order.emplace_back(c.labels[p.first], c.labels[p.second]);
  Pin pin = pin_violation(sc, r, e.order, max_steps);
  e.pin = pin.how;
  e.needs = std::move(pin.needs);
  if (pin.how == "minimised") e.order = std::move(pin.order);
  return e;
}

nlohmann::ordered_json explanation_to_json(const Explanation& e) {
  nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
  for (const RacingPair& p : e.pairs)
    pairs.push_back({{"first", p.first}, {"second", p.second}, {"objects", p.objects}, {"reversed", p.reversed}});
  nlohmann::ordered_json order = nlohmann::ordered_json::array();
  for (const auto& [x, y] : e.order) order.push_back({x, y});
  nlohmann::ordered_json j = {{"kind", e.kind},
                              {"summary", e.summary},
                              {"pairs", pairs},
                              {"slice", e.slice},
                              {"order", order}};
  if (!e.pin.empty()) j["pin"] = e.pin;
  if (!e.needs.empty()) j["needs"] = e.needs;
  return j;
}

namespace {

template <class T>
T field(const nlohmann::ordered_json& j, const char* key, const std::string& at) {
  if (!j.is_object() || !j.contains(key)) throw std::invalid_argument(fmt::format("{}/{}: missing", at, key));
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    throw std::invalid_argument(fmt::format("{}/{}: wrong type", at, key));
  }
}

}  // namespace

Explanation explanation_from_json(const nlohmann::ordered_json& j) {
  Explanation e;
  e.kind = field<std::string>(j, "kind", "");
  if (e.kind != "race" && e.kind != "sequential" && e.kind != "start" && e.kind != "world")
    throw std::invalid_argument("/kind: expected \"race\", \"sequential\", \"start\" or \"world\"");
  e.summary = field<std::string>(j, "summary", "");
  const auto pairs = field<std::vector<nlohmann::ordered_json>>(j, "pairs", "");
  for (size_t k = 0; k < pairs.size(); ++k) {
    const std::string at = fmt::format("/pairs/{}", k);
    e.pairs.push_back(RacingPair{field<uint64_t>(pairs[k], "first", at), field<uint64_t>(pairs[k], "second", at),
                                 field<std::vector<std::string>>(pairs[k], "objects", at),
                                 field<std::string>(pairs[k], "reversed", at)});
  }
  e.slice = field<std::vector<uint64_t>>(j, "slice", "");
  const auto order = field<std::vector<nlohmann::ordered_json>>(j, "order", "");
  for (size_t k = 0; k < order.size(); ++k) {
    const auto& o = order[k];
    if (!o.is_array() || o.size() != 2 || !o[0].is_string() || !o[1].is_string())
      throw std::invalid_argument(fmt::format("/order/{}: expected [label, label]", k));
    e.order.emplace_back(o[0].get<std::string>(), o[1].get<std::string>());
  }
  if (j.contains("pin")) {
    e.pin = field<std::string>(j, "pin", "");
    if (e.pin != "pairs" && e.pin != "minimised" && e.pin != "none")
      throw std::invalid_argument("/pin: expected \"pairs\", \"minimised\" or \"none\"");
  }
  if (j.contains("needs")) e.needs = field<std::string>(j, "needs", "");
  return e;
}

}  // namespace allocsim::campaign
