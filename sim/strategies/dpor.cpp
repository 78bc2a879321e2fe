#include "sim/strategies/dpor.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "sim/assert.h"

#include "sim/schedule.h"  // format_choice / parse_choice

namespace allocsim::sim {

namespace {

bool contains(const std::vector<ActorId>& v, ActorId a) { return std::find(v.begin(), v.end(), a) != v.end(); }

void insert_sorted(std::vector<ActorId>& v, ActorId a) {
  if (!contains(v, a)) v.insert(std::upper_bound(v.begin(), v.end(), a), a);
}

}  // namespace

DporStrategy::DporStrategy(DporOptions options) : opt_(std::move(options)) {
  if (!opt_.prefix_siblings.empty() && opt_.prefix_siblings.size() != opt_.prefix.size())
    throw std::invalid_argument("dpor: prefix_siblings needs one entry per prefix choice");
  for (size_t k = 0; k < opt_.prefix.size(); ++k) {
    Node n{.choice = opt_.prefix[k]};
    if (!opt_.prefix_siblings.empty())
      for (const SiblingStep& s : opt_.prefix_siblings[k]) {
        n.done.push_back(s.actor);  // explored by earlier units: done before this unit's choice
        n.explored.push_back({.actor = s.actor, .any = true, .footprint = s.footprint});
      }
    stack_.push_back(std::move(n));
  }
  fixed_ = stack_.size();
}

void DporStrategy::sleep_on_entry(std::vector<SleepEntry>& sleep) const {
  // Sleep set on entry (POPL 2014, Algorithm 1): whoever slept at the parent, or was fully explored there
  // before its current choice, and is independent of the step just taken there. Per draw combination.
  sleep.clear();
  if (!opt_.sleep_sets || last_actor_node_ == SIZE_MAX || blocked_) return;
  const Node& p = stack_[last_actor_node_];
  const auto keep = [&](const SleepEntry& e) {
    if (e.actor == p.choice.value || dependent(e.footprint, last_step_fp_)) return;
    add_entry(sleep, e);
  };
  for (const SleepEntry& e : p.sleep) keep(e);
  for (const SleepEntry& e : p.explored)
    if (contains(p.done, e.actor)) keep(e);
}

DporStrategy::Node DporStrategy::fresh_node() {
  if (spare_.empty()) return Node{};
  Node n = std::move(spare_.back());
  spare_.pop_back();
  // Every field as a new Node has it; the vectors keep their capacity. A field added to Node is reset here too.
  static_assert(sizeof(Node) == 160, "Node changed: reset its new field in fresh_node");
  n.choice = {};
  n.bound = 0;
  n.step_node = SIZE_MAX;
  n.enabled.clear();
  n.backtrack.clear();
  n.done.clear();
  n.sleep.clear();
  n.explored.clear();
  n.redundant = false;
  return n;
}

void DporStrategy::pop_node() {
  spare_.push_back(std::move(stack_.back()));
  stack_.pop_back();
}

bool DporStrategy::draws_asleep(size_t actor_node, const Combo& draws) const {
  if (actor_node == SIZE_MAX) return false;
  const Node& n = stack_[actor_node];
  return covered(n.sleep, static_cast<ActorId>(n.choice.value), draws);
}

Combo DporStrategy::draws_before(size_t draw_node) const {
  Combo out;
  const size_t from = stack_[draw_node].step_node == SIZE_MAX ? 0 : stack_[draw_node].step_node + 1;
  for (size_t k = from; k < draw_node; ++k) out.push_back({stack_[k].choice.value, stack_[k].bound});
  return out;
}

void DporStrategy::begin_execution(uint64_t) {
  if (done_) throw std::logic_error("dpor: begin_execution after the tree was exhausted");
  pos_ = 0;
  last_actor_node_ = SIZE_MAX;
  last_step_fp_.clear();
  step_draws_.clear();
  blocked_ = false;
}

ActorId DporStrategy::choose(std::span<const Candidate> runnable, ActorId) {
  std::vector<ActorId>& enabled = enabled_;
  enabled.clear();
  for (const Candidate& c : runnable) enabled.push_back(c.actor);
  step_draws_.clear();
  if (pos_ < stack_.size()) {
    Node& n = stack_[pos_];
    if (n.choice.kind != Choice::Actor || !contains(enabled, static_cast<ActorId>(n.choice.value)) ||
        (pos_ >= fixed_ && n.enabled != enabled))
      throw std::logic_error(
          fmt::format("dpor: replayed choice {} ({}) does not fit this execution: the world is "
                      "not deterministic, or the prefix does not fit it",
                      pos_, format_choice(n.choice)));
    n.enabled = enabled;  // prefix nodes learn theirs on the first replay
    if (pos_ < fixed_ && !opt_.prefix_siblings.empty()) {
      // A prefix node's sleep set follows from the seeded siblings above it; recomputed on every replay
      // (the prefix is replayed identically, so it comes out the same). If the unit's own choice sleeps,
      // an earlier unit covers everything below: this execution is sleep-set blocked and the unit ends.
      sleep_on_entry(n.sleep);
      blocked_ = blocked_ || covered(n.sleep, static_cast<ActorId>(n.choice.value), {});
    }
    blocked_ = blocked_ || n.redundant;
    last_actor_node_ = pos_++;
    return static_cast<ActorId>(n.choice.value);
  }
  Node n = fresh_node();
  n.choice = {Choice::Actor, 0};
  n.enabled = enabled;
  sleep_on_entry(n.sleep);
  std::optional<ActorId> pick;
  for (ActorId a : enabled)
    if (!covered(n.sleep, a, {})) {
      pick = a;
      break;
    }
  if (!pick || blocked_) {
    // Every runnable actor sleeps: whatever follows is equivalent to something explored. The execution ends
    // here, abandoned; its steps so far are still analysed (end_execution), as Algorithm 1 does.
    blocked_ = true;
    spare_.push_back(std::move(n));
    return kAbandon;
  }
  n.done.push_back(*pick);
  // The first choice of a node is the one race analysis relies on: a trace whose step of that actor is a
  // draw combination asleep here would get no source-set entry from it (see the header). So when some of
  // the first choice's draws sleep, every runnable actor joins the source set.
  if (has_entry(n.sleep, *pick))
    n.backtrack = enabled;
  else
    n.backtrack.push_back(*pick);
  n.choice.value = *pick;
  stack_.push_back(std::move(n));
  last_actor_node_ = pos_++;
  return *pick;
}

uint64_t DporStrategy::draw(uint64_t bound) {
  if (pos_ < stack_.size()) {
    const Node& n = stack_[pos_];
    if (n.choice.kind != Choice::Draw || n.choice.value >= bound)
      throw std::logic_error(fmt::format("dpor: replayed choice {} ({}) is not a possible draw in [0, {}) here", pos_,
                                         format_choice(n.choice), bound));
    ++pos_;
    step_draws_.push_back({n.choice.value, bound});
    // Only a prefix draw can be asleep on replay (advance() skips the others): an earlier unit covers it.
    blocked_ = blocked_ || draws_asleep(last_actor_node_, step_draws_);
    return n.choice.value;
  }
  Node d = fresh_node();
  d.choice = {Choice::Draw, 0};
  d.bound = bound;
  d.step_node = last_actor_node_;
  d.redundant = blocked_;
  step_draws_.push_back({0, bound});
  if (!blocked_) {
    // The first value whose event is not asleep; there is one, else the actor (or the previous draw) would
    // have been passed over as asleep.
    while (d.choice.value < bound && draws_asleep(last_actor_node_, step_draws_))
      step_draws_.back().value = ++d.choice.value;
    if (d.choice.value == bound) {
      d.choice.value = 0, step_draws_.back().value = 0;
      blocked_ = d.redundant = true;
    }
  }
  stack_.push_back(std::move(d));
  ++pos_;
  return step_draws_.back().value;
}

void DporStrategy::step_done(const StepRecord& step) {
  last_step_fp_ = step.footprint;  // canonical as recorded (StepRecord::footprint); copied into kept capacity
  if (last_actor_node_ == SIZE_MAX || blocked_) return;
  Node& n = stack_[last_actor_node_];
  const auto actor = static_cast<ActorId>(n.choice.value);
  // Tested before an entry is built: a replayed step finds its event there already, and the copies of its
  // draws and footprint would be thrown away.
  if (!has_event(n.explored, actor, false, step_draws_))
    n.explored.push_back({.actor = actor, .draws = step_draws_, .footprint = last_step_fp_});
}

bool DporStrategy::end_execution(const ExecutionResult& result) {
  if (pos_ != stack_.size() || result.schedule.size() != stack_.size())
    throw std::logic_error(
        fmt::format("dpor: the execution made {} choices where {} were replayed: the world is "
                    "not deterministic, or the prefix is longer than the execution",
                    result.schedule.size(), stack_.size()));
  sleep_blocked_ += blocked_;
  analyse(result);
  done_ = !advance();
  return !done_;
}

void DporStrategy::analyse(const ExecutionResult& r) {
  // Steps and the nodes that chose them; analysis stops where the execution went sleep-set blocked.
  // Its storage is the strategy's, reused: after warm-up an analysis allocates nothing but source-set entries.
  std::vector<size_t>& node_of_step = a_.node_of_step;
  std::vector<ActorId>& actor = a_.actor;
  node_of_step.clear();
  for (size_t k = 0; k < stack_.size(); ++k)
    if (stack_[k].choice.kind == Choice::Actor) {
      if (stack_[k].redundant) break;
      node_of_step.push_back(k);
    }
  const size_t n = node_of_step.size();
  ALLOCSIM_ASSERT(n <= r.steps.size(), "dpor: {} actor nodes for {} steps", n, r.steps.size());
  actor.resize(n);
  // The engine records footprints canonical (StepRecord::footprint): read in place.
  const auto fp = [&](size_t s) -> const Footprint& { return r.steps[s].footprint; };
  for (size_t s = 0; s < n; ++s) actor[s] = r.steps[s].actor;
  a_.objects.build(r, n);
  // Cut short: the halt (a violation, steps-bounded, order-blocked) disables every actor, so it is dependent on
  // every step: each unfinished actor gets one more, unseen step that conflicts with everything, and so does the
  // actor whose step the violation follows (the halt belongs to it, as its next event), so the races the halt
  // has are still reversed: a step of another actor that nothing later depends on could have come after it.
  // A halt with no such actor (steps-bounded, order-blocked) gets one unseen step for every actor that was
  // runnable at some node, as if any of them could own it. An actor whose script ended, other than the
  // violation's, has no step left to race with; before, it got one too, and its phantom races led only to
  // sleep-set-blocked executions (1.29 executions per trace on finding-alloc-022-same-gpu-granted-twice,
  // 1.00 without, the same 63 traces).
  std::vector<ActorId>& unseen = a_.unseen;
  unseen.clear();
  // An order-blocked execution is cut short at its block: what the run-out does after it (sim/engine.h) is no
  // choice of this strategy's, so only the steps before the block are analysed, with the block as the halt.
  if (r.order_blocked && n == r.order_blocked->step) {
    unseen = r.order_blocked->unfinished;
    for (size_t k : node_of_step)
      for (ActorId a : stack_[k].enabled) insert_sorted(unseen, a);
  } else if (r.violation && !r.order_blocked && !r.quiescent && n == r.steps.size()) {
    unseen = r.unfinished;
    if (r.violation_actor) {
      insert_sorted(unseen, *r.violation_actor);
    } else {
      for (size_t k : node_of_step)
        for (ActorId a : stack_[k].enabled) insert_sorted(unseen, a);
    }
  }
  const size_t total = n + unseen.size();
  actor.insert(actor.end(), unseen.begin(), unseen.end());
  // hb.test(j, i): step i happens before step j (program order and dependency, transitively); row `total` is
  // scratch (below). Races i ⋖ j are handled as soon as row j is complete, in the order (j, then i) ascending.
  BitRows& hb = a_.hb;
  hb.reset(total + 1);
  // Whether j can run in v = notdep(i).j from the node before i. Only a lock retry (a LockWait step) can fail
  // to: it needs its lock free. The lock's steps in v are a prefix of its steps after i (they are totally
  // ordered by hb, so once one follows i all later ones do), so the last of them in v leaves the lock as it
  // was in this execution right after it, and that node's enabled set tells whether the waiter could go on;
  // with none in v, the node before i tells. Without this check a release followed by the waiter's retry
  // looked reversible through any initial of v, and sleep sets then hid the real reversal (found by
  // tests/sim/dpor_differential.cpp).
  const auto reversible = [&](size_t i, size_t j) {
    if (j >= n || r.steps[j].waited_lock == 0) return true;
    const uint64_t lock = r.steps[j].waited_lock;
    for (size_t k = j; k-- > i + 1;) {
      if (hb.test(k, i)) continue;
      for (const Access& a : fp(k))
        if (a.object == lock) return contains(stack_[node_of_step[k + 1]].enabled, actor[j]);
    }
    return contains(stack_[node_of_step[i]].enabled, actor[j]);
  };
  const auto race = [&](size_t i, size_t j) {
    if (reversible(i, j) && add_race(i, j, actor[j])) return;
    // Not reversible at i (i released what j waited for): as Flanagan & Godefroid do for a transition that
    // is not co-enabled with its race partner, take the latest earlier dependent step before which j's actor
    // could run, which reverses the order of the two acquires.
    for (size_t e = i; e-- > 0;) {
      if (actor[e] == actor[j] || (j < n && !a_.objects.dependent(e, j)) ||
          !contains(stack_[node_of_step[e]].enabled, actor[j]) || !reversible(e, j))
        continue;
      if (add_race(e, j, actor[j])) break;
    }
  };
  // Row j is built from i = j - 1 down. When i is reached every bit above i is final, so a bit already set at
  // i means a later k with i -> k -> j put it there: i is not a direct predecessor, and row i lies inside row
  // j already, so its footprint need not even be compared. A clear bit and a step of j's actor or a dependent
  // one: i is direct, and a race when the actors differ. (Before, every pair was compared, every predecessor's
  // row OR-ed in, and each race searched for a k in between: two thirds of the analysis.)
  std::vector<size_t>& direct = a_.direct;
  for (size_t j = 0; j < n; ++j) {
    direct.clear();
    for (size_t i = j; i-- > 0;) {
      if (hb.test(j, i)) continue;
      const bool same = actor[i] == actor[j];
      if (!same && !a_.objects.dependent(i, j)) continue;
      hb.set(j, i), hb.or_row(j, i);
      if (!same) direct.push_back(i);
    }
    for (size_t x = direct.size(); x-- > 0;) race(direct[x], j);
  }
  if (total == n) return;
  // The unseen steps are each placed at the end, after every seen step and dependent on all of them. Their
  // direct predecessors are the same for each: the seen steps no later seen step happens after (scratch row
  // `total` collects the rows of the later ones).
  direct.clear();
  for (size_t k = n; k-- > 0;) {
    if (!hb.test(total, k)) direct.push_back(k);
    hb.or_row(total, k);
  }
  for (size_t j = n; j < total; ++j) {
    for (size_t i = 0; i < n; ++i) hb.set(j, i);
    for (size_t x = direct.size(); x-- > 0;)
      if (actor[direct[x]] != actor[j]) race(direct[x], j);
  }
}

bool DporStrategy::add_race(size_t i, size_t j, ActorId j_actor) {
  const std::vector<size_t>& node_of_step = a_.node_of_step;
  const std::vector<ActorId>& actor = a_.actor;
  const BitRows& hb = a_.hb;
  const size_t ni = node_of_step[i];
  if (ni < fixed_) return true;  // inside the prefix: another shard's business
  Node& at = stack_[ni];
  // v = notdep(i, E).j, where E is the execution before j; its initials: first events of their actor that
  // nothing earlier in v happens before.
  const size_t end = std::min(j, node_of_step.size());
  std::vector<size_t>& v = a_.v;
  v.clear();
  for (size_t k = i + 1; k < end; ++k)
    if (!hb.test(k, i)) v.push_back(k);
  v.push_back(j);
  std::vector<ActorId>& seen = a_.seen;
  std::vector<ActorId>& initials = a_.initials;
  seen.clear(), initials.clear();
  for (size_t x = 0; x < v.size(); ++x) {
    const ActorId a = v[x] == j ? j_actor : actor[v[x]];
    if (contains(seen, a)) continue;
    seen.push_back(a);
    bool minimal = true;
    for (size_t y = 0; y < x && minimal; ++y) minimal = !hb.test(v[x], v[y]);
    if (minimal && contains(at.enabled, a)) insert_sorted(initials, a);  // a blocked initial cannot go first
  }
  if (initials.empty()) return false;  // not reversible here: every initial is blocked
  for (ActorId a : initials)
    if (contains(at.backtrack, a)) return true;
  insert_sorted(at.backtrack, initials.front());
  return true;
}

bool DporStrategy::advance() {
  while (stack_.size() > fixed_) {
    Node& n = stack_.back();
    if (!n.redundant) {
      if (n.choice.kind == Choice::Draw) {
        Combo draws = draws_before(stack_.size() - 1);
        draws.push_back({n.choice.value, n.bound});
        while (++draws.back().value < n.bound)
          if (!draws_asleep(n.step_node, draws)) {
            n.choice.value = draws.back().value;
            return true;
          }
      }
      if (n.choice.kind == Choice::Actor) {
        for (ActorId a : n.backtrack) {
          if (contains(n.done, a) || covered(n.sleep, a, {})) continue;
          n.done.push_back(a);
          n.choice.value = a;
          return true;
        }
      }
    }
    pop_node();
  }
  return false;
}

namespace {

nlohmann::json ids_json(const std::vector<ActorId>& v) { return nlohmann::json(v); }

}  // namespace

nlohmann::json DporStrategy::save() const {
  nlohmann::json s;
  s["schema"] = "allocsim/dpor-state/v2";
  s["fixed"] = fixed_;
  s["done"] = done_;
  s["sleep_blocked"] = sleep_blocked_;
  nlohmann::json st = nlohmann::json::array();
  for (const Node& n : stack_)
    st.push_back({{"c", format_choice(n.choice)},
                  {"bound", n.bound},
                  {"enabled", ids_json(n.enabled)},
                  {"backtrack", ids_json(n.backtrack)},
                  {"done", ids_json(n.done)},
                  {"sleep", entries_json(n.sleep)},
                  {"explored", entries_json(n.explored)},
                  {"step_node", n.step_node == SIZE_MAX ? nlohmann::json(nullptr) : nlohmann::json(n.step_node)},
                  {"redundant", n.redundant}});
  s["stack"] = st;
  return s;
}

void DporStrategy::restore(const nlohmann::json& s) {
  try {
    // v1 (before sleep entries per draw combination): its entries stand for every draw value of their step.
    const bool v1 = s.at("schema") == "allocsim/dpor-state/v1";
    if (!v1 && s.at("schema") != "allocsim/dpor-state/v2")
      throw std::invalid_argument("not an allocsim/dpor-state/v2 (nor v1)");
    std::vector<Node> stack;
    size_t last_actor = SIZE_MAX;
    for (const auto& j : s.at("stack")) {
      Node n{.choice = parse_choice(j.at("c").get<std::string>())};
      n.bound = j.at("bound").get<uint64_t>();
      n.enabled = j.at("enabled").get<std::vector<ActorId>>();
      n.backtrack = j.at("backtrack").get<std::vector<ActorId>>();
      n.done = j.at("done").get<std::vector<ActorId>>();
      n.sleep = entries_from(j.at("sleep"), v1);
      n.explored = entries_from(j.at("explored"), v1);
      n.redundant = j.at("redundant").get<bool>();
      if (!v1) {
        if (!j.at("step_node").is_null()) n.step_node = j.at("step_node").get<size_t>();
      } else if (n.choice.kind == Choice::Draw) {
        n.step_node = last_actor;
      }
      if (n.choice.kind == Choice::Actor) last_actor = stack.size();
      if (n.choice.kind == Choice::Draw && (n.step_node != last_actor || n.choice.value >= n.bound))
        throw std::invalid_argument(fmt::format("draw node {} does not fit the stack", stack.size()));
      for (const SleepEntry& e : n.sleep)
        for (const Draw& d : e.draws)
          if (d.value >= d.bound)
            throw std::invalid_argument(fmt::format("node {}: a draw out of bounds", stack.size()));
      stack.push_back(std::move(n));
    }
    const size_t fixed = s.at("fixed").get<size_t>();
    if (fixed > stack.size()) throw std::invalid_argument("fixed is deeper than the stack");
    stack_ = std::move(stack);
    fixed_ = fixed;
    done_ = s.at("done").get<bool>();
    sleep_blocked_ = s.at("sleep_blocked").get<uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(fmt::format("dpor state: {}", e.what()));
  }
}

}  // namespace allocsim::sim
