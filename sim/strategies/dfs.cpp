#include "sim/strategies/dfs.h"

#include <fmt/format.h>

#include <algorithm>

#include <charconv>
#include <stdexcept>
#include "sim/assert.h"

namespace allocsim::sim {

DfsStrategy::DfsStrategy(DfsOptions options) : opt_(std::move(options)) {
  start_item(opt_.prefix);
  level_known_ = !opt_.preemption_bound || opt_.prefix.empty();
}

void DfsStrategy::start_item(const std::vector<Choice>& prefix) {
  stack_.clear();
  for (const Choice& c : prefix) stack_.push_back({c, {}});
  fixed_ = prefix.size();
}

void DfsStrategy::begin_execution(uint64_t) {
  if (done_) throw std::logic_error("dfs: begin_execution after the tree was exhausted");
  pos_ = 0;
}

std::vector<Choice> DfsStrategy::path_prefix(size_t len) const {
  std::vector<Choice> out;
  for (size_t i = 0; i < len; ++i) out.push_back(stack_[i].choice);
  return out;
}

ActorId DfsStrategy::choose(std::span<const Candidate> runnable, ActorId current) {
  if (pos_ < stack_.size()) {
    const Choice c = stack_[pos_].choice;
    const bool ok = c.kind == Choice::Actor && std::any_of(runnable.begin(), runnable.end(),
                                                           [&](const Candidate& r) { return r.actor == c.value; });
    if (!ok)
      throw std::logic_error(
          fmt::format("dfs: replayed choice {} ({}) is not possible here: the world is not "
                      "deterministic, or the prefix does not fit it",
                      pos_, format_choice(c)));
    ++pos_;
    return static_cast<ActorId>(c.value);
  }
  const bool branch = !opt_.branch_depth || stack_.size() < *opt_.branch_depth;
  const bool current_runnable =
      current != kNoActor && std::any_of(runnable.begin(), runnable.end(), [&](auto& r) { return r.actor == current; });
  Node n{{Choice::Actor, runnable[0].actor}, {}};
  if (opt_.preemption_bound && current_runnable) {
    // Only continuing is free; every other actor is a preemption, deferred to the next level.
    n.choice.value = current;
    if (branch && level_ + 1 <= *opt_.preemption_bound) {
      std::vector<Choice> item = path_prefix(stack_.size());
      for (const Candidate& r : runnable) {
        if (r.actor == current) continue;
        item.push_back({Choice::Actor, r.actor});
        next_level_.push_back(item);
        item.pop_back();
      }
    }
  } else if (branch) {
    for (size_t i = 1; i < runnable.size(); ++i) n.left.push_back(runnable[i].actor);
  }
  stack_.push_back(std::move(n));
  ++pos_;
  return static_cast<ActorId>(stack_.back().choice.value);
}

uint64_t DfsStrategy::draw(uint64_t bound) {
  if (pos_ < stack_.size()) {
    const Choice c = stack_[pos_].choice;
    if (c.kind != Choice::Draw || c.value >= bound)
      throw std::logic_error(fmt::format("dfs: replayed choice {} ({}) is not a possible draw in [0, {}) here", pos_,
                                         format_choice(c), bound));
    ++pos_;
    return c.value;
  }
  Node n{{Choice::Draw, 0}, {}};
  if (!opt_.branch_depth || stack_.size() < *opt_.branch_depth)
    for (uint64_t v = 1; v < bound; ++v) n.left.push_back(v);
  stack_.push_back(std::move(n));
  ++pos_;
  return 0;
}

bool DfsStrategy::end_execution(const ExecutionResult& result) {
  if (pos_ != stack_.size())
    throw std::logic_error(
        fmt::format("dfs: the execution made {} choices where {} were replayed: the world is not "
                    "deterministic, or the prefix is longer than the execution",
                    pos_, stack_.size()));
  if (!level_known_) {
    // The first execution under a user prefix: its preemptions are the prefix's (fresh nodes add none).
    level_known_ = true;
    level_ = result.preemptions;
    if (level_ + 1 > *opt_.preemption_bound) next_level_.clear();
    if (level_ > *opt_.preemption_bound) this_level_.clear(), stack_.resize(fixed_);
  }
  ALLOCSIM_ASSERT(!opt_.preemption_bound || result.preemptions == level_,  // fresh nodes never preempt
                  "dfs: an execution at preemption level {} made {} preemptions", level_, result.preemptions);
  done_ = !advance();
  return !done_;
}

bool DfsStrategy::advance() {
  while (stack_.size() > fixed_) {
    Node& n = stack_.back();
    if (!n.left.empty()) {
      n.choice.value = n.left.front();
      n.left.erase(n.left.begin());
      return true;
    }
    stack_.pop_back();
  }
  // The subtree under the current root is done: the next saved item, this level first.
  if (this_level_.empty()) {
    if (next_level_.empty()) return false;
    std::swap(this_level_, next_level_);
    ++level_;
  }
  start_item(this_level_.front());
  this_level_.pop_front();
  return true;
}

namespace {

nlohmann::json choices_json(const std::vector<Choice>& cs) {
  nlohmann::json a = nlohmann::json::array();
  for (const Choice& c : cs) a.push_back(format_choice(c));
  return a;
}

std::vector<Choice> choices_from(const nlohmann::json& a) {
  std::vector<Choice> out;
  for (const auto& c : a) out.push_back(parse_choice(c.get<std::string>()));
  return out;
}

}  // namespace

nlohmann::json DfsStrategy::save() const {
  nlohmann::json s;
  s["schema"] = "allocsim/dfs-state/v1";
  s["level"] = level_;
  s["level_known"] = level_known_;
  s["fixed"] = fixed_;
  s["done"] = done_;
  nlohmann::json st = nlohmann::json::array();
  for (const Node& n : stack_) {
    std::vector<Choice> left;
    for (uint64_t v : n.left) left.push_back({n.choice.kind, v});
    st.push_back({{"c", format_choice(n.choice)}, {"left", choices_json(left)}});
  }
  s["stack"] = st;
  for (const auto* q : {&this_level_, &next_level_}) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& item : *q) items.push_back(choices_json(item));
    s[q == &this_level_ ? "this_level" : "next_level"] = items;
  }
  return s;
}

void DfsStrategy::restore(const nlohmann::json& s) {
  try {
    if (s.at("schema") != "allocsim/dfs-state/v1") throw std::invalid_argument("not an allocsim/dfs-state/v1");
    std::vector<Node> stack;
    for (const auto& n : s.at("stack")) {
      Node node{parse_choice(n.at("c").get<std::string>()), {}};
      for (const Choice& c : choices_from(n.at("left"))) {
        if (c.kind != node.choice.kind) throw std::invalid_argument("a node mixes actor and draw options");
        node.left.push_back(c.value);
      }
      stack.push_back(std::move(node));
    }
    const size_t fixed = s.at("fixed").get<size_t>();
    if (fixed > stack.size()) throw std::invalid_argument("fixed is deeper than the stack");
    std::deque<std::vector<Choice>> a, b;
    for (const auto& item : s.at("this_level")) a.push_back(choices_from(item));
    for (const auto& item : s.at("next_level")) b.push_back(choices_from(item));
    stack_ = std::move(stack);
    fixed_ = fixed;
    level_ = s.at("level").get<uint32_t>();
    level_known_ = s.at("level_known").get<bool>();
    done_ = s.at("done").get<bool>();
    this_level_ = std::move(a);
    next_level_ = std::move(b);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(fmt::format("dfs state: {}", e.what()));
  }
}

std::vector<std::vector<Choice>> enumerate_prefixes(Engine& engine, const WorldFactory& make_world, size_t depth,
                                                    std::optional<uint32_t> bound) {
  DfsStrategy dfs(DfsOptions{.preemption_bound = bound, .prefix = {}, .branch_depth = depth});
  std::vector<std::vector<Choice>> out;
  bool more = true;
  while (more) {
    dfs.begin_execution(0);
    auto world = make_world();
    ExecutionResult r = engine.run(*world, dfs);
    if (r.schedule.size() > depth) r.schedule.resize(depth);
    out.push_back(r.schedule);
    more = dfs.end_execution(r);
  }
  return out;
}

}  // namespace allocsim::sim
