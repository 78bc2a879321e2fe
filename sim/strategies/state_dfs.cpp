#include "sim/strategies/state_dfs.h"

#include <fmt/format.h>

#include <atomic>
#include <stdexcept>

#include "sim/schedule.h"

namespace allocsim::sim {

namespace {

constexpr ActorId kMaxActors = 64;  // a sleep set is a 64-bit mask in the table

uint64_t bit(ActorId a) { return uint64_t{1} << a; }

/// A process-wide id per strategy object: the engine's memo of an execution is keyed by it (replayed_prefix).
uint64_t next_strategy_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

StateDfsStrategy::StateDfsStrategy(StateDfsOptions options)
    : opt_(std::move(options)), table_(opt_.state_memory), id_(next_strategy_id()) {
  for (const Choice& c : opt_.prefix) stack_.push_back({c});
  fixed_ = stack_.size();
}

uint64_t StateDfsStrategy::to_representative(uint64_t mask) const {
  if (renaming_.empty()) return mask;
  uint64_t out = 0;
  for (ActorId a = 0; a < renaming_.size(); ++a)
    if (mask & bit(a)) out |= bit(renaming_[a]);
  return out;  // a mask holds actors of this world only: every one has a place in the renaming
}

uint64_t StateDfsStrategy::from_representative(uint64_t mask) const {
  if (renaming_.empty()) return mask;
  uint64_t out = 0;
  for (ActorId a = 0; a < renaming_.size(); ++a)
    if (mask & bit(renaming_[a])) out |= bit(a);
  return out;
}

void StateDfsStrategy::begin_execution(uint64_t) {
  if (done_) throw std::logic_error("dfs (states): begin_execution after the tree was exhausted");
  pos_ = 0;
  last_actor_node_ = SIZE_MAX;
  last_step_fp_.clear();
  ++executions_;
}

void StateDfsStrategy::sleep_on_entry(std::vector<Sleeper>& out) const {
  out.clear();
  if (last_actor_node_ == SIZE_MAX) return;
  const Node& parent = stack_[last_actor_node_];
  const auto took = static_cast<ActorId>(parent.choice.value);
  // Asleep at the parent, or explored there before the actor just taken, and independent of its step.
  for (const Sleeper& s : parent.sleep)
    if (s.actor != took && !dependent(s.footprint, last_step_fp_)) out.push_back(s);
  for (size_t i = 0; i + 1 < parent.explored.size(); ++i) {
    const Sleeper& s = parent.explored[i];
    if (s.actor != took && !dependent(s.footprint, last_step_fp_)) out.push_back(s);
  }
}

ActorId StateDfsStrategy::choose(std::span<const Candidate> runnable, ActorId) {
  if (pos_ < stack_.size()) {
    const Node& n = stack_[pos_];
    const Choice c = n.choice;
    const bool ok = c.kind == Choice::Actor && std::any_of(runnable.begin(), runnable.end(),
                                                           [&](const Candidate& r) { return r.actor == c.value; });
    if (!ok)
      throw std::logic_error(
          fmt::format("dfs (states): replayed choice {} ({}) is not possible here: the world is "
                      "not deterministic, or the prefix does not fit it",
                      pos_, format_choice(c)));
    if (n.fingerprint != 0 && n.fingerprint != fingerprint_)
      throw std::logic_error(
          fmt::format("dfs (states): replayed choice {} reached another canonical state than "
                      "before: the world's canonical state is not deterministic",
                      pos_));
    last_actor_node_ = pos_++;
    return static_cast<ActorId>(c.value);
  }
  Node n;
  n.fingerprint = fingerprint_;
  sleep_on_entry(n.sleep);
  uint64_t asleep = 0;
  for (const Sleeper& s : n.sleep) asleep |= bit(s.actor);
  ++stats_.states;
  for (ActorId a = 0; a < renaming_.size(); ++a)
    if (renaming_[a] != a) {
      ++stats_.renamed;
      break;
    }
  // Godefroid's rule: a state seen before is explored again only for what its earlier visits all slept on
  // and this one does not; the table keeps what every visit so far slept on.
  uint64_t allowed = ~asleep;
  const bool seen = [&] {
    if (uint64_t* stored = table_.find(fingerprint_)) {
      const uint64_t earlier = from_representative(*stored);
      allowed = earlier & ~asleep;
      // As in the book, what is explored again is explored under Z ∩ Z': an actor asleep now but explored at an
      // earlier visit (outside Z') does not sleep below this one.
      std::erase_if(n.sleep, [&](const Sleeper& s) { return (earlier & bit(s.actor)) == 0; });
      *stored &= to_representative(asleep);
      return true;
    }
    table_.insert(fingerprint_, to_representative(asleep));  // false when full: explored, just not remembered
    return false;
  }();
  std::vector<uint64_t> options;
  for (const Candidate& r : runnable) {
    if (r.actor >= kMaxActors)
      throw std::invalid_argument(fmt::format("state caching supports at most {} actors", kMaxActors));
    if (allowed & bit(r.actor)) options.push_back(r.actor);
  }
  if (options.empty()) {
    ++(seen ? stats_.pruned : stats_.sleep_blocked);
    return kAbandon;
  }
  stats_.reopened += seen;
  n.choice = {Choice::Actor, options[0]};
  n.left.assign(options.begin() + 1, options.end());
  n.explored.push_back({static_cast<ActorId>(options[0]), {}});
  stack_.push_back(std::move(n));
  last_actor_node_ = pos_++;
  return static_cast<ActorId>(options[0]);
}

uint64_t StateDfsStrategy::draw(uint64_t bound) {
  if (pos_ < stack_.size()) {
    const Choice c = stack_[pos_].choice;
    if (c.kind != Choice::Draw || c.value >= bound)
      throw std::logic_error(fmt::format("dfs (states): replayed choice {} ({}) is not a possible draw in [0, {}) here",
                                         pos_, format_choice(c), bound));
    ++pos_;
    return c.value;
  }
  Node n;
  n.choice = {Choice::Draw, 0};
  for (uint64_t v = 1; v < bound; ++v) n.left.push_back(v);
  stack_.push_back(std::move(n));
  ++pos_;
  return 0;
}

void StateDfsStrategy::step_done(const StepRecord& step) {
  last_step_fp_.assign(step.footprint.begin(), step.footprint.end());
  // The step's footprint, merged over the draw values it has been taken with, is how it sleeps later.
  if (last_actor_node_ != SIZE_MAX && !stack_[last_actor_node_].explored.empty())
    merge_into(stack_[last_actor_node_].explored.back().footprint, last_step_fp_);
}

bool StateDfsStrategy::end_execution(const ExecutionResult& result) {
  if (pos_ != stack_.size())
    throw std::logic_error(
        fmt::format("dfs (states): the execution made {} choices where {} were replayed: the "
                    "world is not deterministic, or the prefix is longer than the execution",
                    pos_, stack_.size()));
  (void)result;
  done_ = !advance();
  replayed_ = done_ || stack_.empty() ? 0 : stack_.size() - 1;
  return !done_;
}

bool StateDfsStrategy::advance() {
  while (stack_.size() > fixed_) {
    Node& n = stack_.back();
    if (!n.left.empty()) {
      n.choice.value = n.left.front();
      n.left.erase(n.left.begin());
      if (n.choice.kind == Choice::Actor) n.explored.push_back({static_cast<ActorId>(n.choice.value), {}});
      return true;
    }
    stack_.pop_back();
  }
  return false;
}

StateCacheStats StateDfsStrategy::stats() const {
  StateCacheStats s = stats_;
  s.distinct = table_.size();
  s.table_bytes = table_.bytes();
  s.table_max_bytes = table_.max_bytes();
  s.table_full = table_.full();
  s.collision_probability = table_.collision_probability();
  return s;
}

nlohmann::json StateDfsStrategy::save() const {
  nlohmann::json stack = nlohmann::json::array();
  for (const Node& n : stack_) {
    nlohmann::json left = nlohmann::json::array();
    for (uint64_t v : n.left) left.push_back(format_choice({n.choice.kind, v}));
    stack.push_back({{"c", format_choice(n.choice)}, {"left", left}});
  }
  return {{"schema", "allocsim/state-dfs-state/v1"}, {"fixed", fixed_}, {"done", done_}, {"stack", stack}};
}

void StateDfsStrategy::restore(const nlohmann::json& s) {
  replayed_ = 0;  // the engine knows nothing of the stack restored
  try {
    if (s.at("schema") != "allocsim/state-dfs-state/v1")
      throw std::invalid_argument("not an allocsim/state-dfs-state/v1");
    std::vector<Node> stack;
    for (const auto& j : s.at("stack")) {
      Node n;
      n.choice = parse_choice(j.at("c").get<std::string>());
      for (const auto& l : j.at("left")) {
        const Choice c = parse_choice(l.get<std::string>());
        if (c.kind != n.choice.kind) throw std::invalid_argument("a node mixes actor and draw options");
        n.left.push_back(c.value);
      }
      stack.push_back(std::move(n));
    }
    const size_t fixed = s.at("fixed").get<size_t>();
    if (fixed > stack.size()) throw std::invalid_argument("fixed is deeper than the stack");
    stack_ = std::move(stack);
    fixed_ = fixed;
    done_ = s.at("done").get<bool>();
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(fmt::format("state-dfs state: {}", e.what()));
  }
}

}  // namespace allocsim::sim
