#include "sim/shrink.h"

#include <fmt/format.h>

#include <stdexcept>

namespace allocsim::sim {

ActorId default_choice(std::span<const Candidate> runnable, ActorId current) {
  for (const Candidate& c : runnable)
    if (c.actor == current) return current;
  return runnable.front().actor;
}

LenientReplayStrategy::LenientReplayStrategy(std::span<const Choice> schedule) {
  for (const Choice& c : schedule) {
    if (c.kind == Choice::Actor)
      actors_.push_back(static_cast<ActorId>(c.value));
    else
      draws_.push_back(c.value);
  }
}

ActorId LenientReplayStrategy::choose(std::span<const Candidate> runnable, ActorId current) {
  if (apos_ < actors_.size()) {
    const ActorId want = actors_[apos_++];
    for (const Candidate& c : runnable)
      if (c.actor == want) return want;
  }
  return default_choice(runnable, current);
}

uint64_t LenientReplayStrategy::draw(uint64_t bound) {
  if (dpos_ < draws_.size()) {
    const uint64_t v = draws_[dpos_++];
    if (v < bound) return v;
  }
  return 0;
}

RunBudget::RunBudget(uint64_t max_runs, double max_seconds)
    : max_runs_(max_runs), max_seconds_(max_seconds), start_(std::chrono::steady_clock::now()) {}

bool RunBudget::take() {
  if (exhausted_) return false;
  if (runs_ >= max_runs_) return !(exhausted_ = true);
  // Looking at the clock every run would cost more than some runs; every 64th is plenty to stop early.
  if (max_seconds_ > 0 && runs_ % 64 == 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > max_seconds_) {
    out_of_time_ = true;
    return !(exhausted_ = true);
  }
  ++runs_;
  return true;
}

namespace {

// One choice point of a depth-first execution: the alternatives in search order, and whether picking
// any but the first is a preemption.
struct Point {
  std::vector<ActorId> alternatives;
  bool preempting;  // the actor that ran last is still runnable (so alternatives[0] is it)
};

// Follows `prefix` (alternative indices), then always the first alternative; records every point.
class PrefixStrategy final : public Strategy {
 public:
  PrefixStrategy(const std::vector<uint32_t>& prefix, std::span<const uint64_t> draws)
      : prefix_(prefix), draws_(draws) {}
  void begin_execution(uint64_t) override { points.clear(), dpos_ = 0; }
  ActorId choose(std::span<const Candidate> runnable, ActorId current) override {
    Point p;
    const ActorId first = default_choice(runnable, current);
    p.preempting = first == current;
    p.alternatives.push_back(first);
    for (const Candidate& c : runnable)
      if (c.actor != first) p.alternatives.push_back(c.actor);
    const size_t at = points.size();
    const uint32_t pick = at < prefix_.size() ? prefix_[at] : 0;
    if (pick >= p.alternatives.size())
      throw std::logic_error(
          fmt::format("preemption search: choice {} has {} alternatives on re-run, expected more "
                      "than {} (the world is not deterministic)",
                      at, p.alternatives.size(), pick));
    const ActorId chosen = p.alternatives[pick];
    points.push_back(std::move(p));
    return chosen;
  }
  uint64_t draw(uint64_t bound) override {
    const uint64_t v = dpos_ < draws_.size() ? draws_[dpos_] : 0;
    ++dpos_;
    return v < bound ? v : 0;
  }
  bool end_execution(const ExecutionResult&) override { return false; }

  std::vector<Point> points;

 private:
  const std::vector<uint32_t>& prefix_;
  std::span<const uint64_t> draws_;
  size_t dpos_ = 0;
};

// The next prefix in depth-first order under bound k, or nullopt when the tree is exhausted.
std::optional<std::vector<uint32_t>> next_prefix(const std::vector<uint32_t>& prefix, const std::vector<Point>& points,
                                                 uint32_t k) {
  std::vector<uint32_t> cost_before(points.size() + 1, 0);
  for (size_t i = 0; i < points.size(); ++i) {
    const uint32_t pick = i < prefix.size() ? prefix[i] : 0;
    cost_before[i + 1] = cost_before[i] + (pick > 0 && points[i].preempting ? 1 : 0);
  }
  for (size_t i = points.size(); i-- > 0;) {
    const uint32_t pick = i < prefix.size() ? prefix[i] : 0;
    if (pick + 1 >= points[i].alternatives.size()) continue;
    if (cost_before[i] + (points[i].preempting ? 1 : 0) > k) continue;
    std::vector<uint32_t> next(prefix.begin(), prefix.begin() + std::min(i, prefix.size()));
    next.resize(i, 0);
    next.push_back(pick + 1);
    return next;
  }
  return std::nullopt;
}

}  // namespace

PreemptionSearch search_min_preemptions(const RunOnce& run, const Accept& accept, std::span<const uint64_t> draws,
                                        uint32_t max_bound, RunBudget& budget) {
  PreemptionSearch out;
  for (uint32_t k = 0; k <= max_bound; ++k) {
    std::optional<std::vector<uint32_t>> prefix = std::vector<uint32_t>{};
    while (prefix) {
      if (!budget.take()) return out;
      PrefixStrategy dfs(*prefix, draws);
      dfs.begin_execution(0);
      ExecutionResult r = run(dfs);
      if (r.preemptions <= k && accept(r)) {
        out.bound = r.preemptions;
        out.complete = true;
        out.found = std::move(r);
        return out;
      }
      prefix = next_prefix(*prefix, dfs.points, k);
    }
  }
  return out;
}

std::vector<size_t> preemption_choices(const ExecutionResult& r) {
  std::vector<size_t> out;
  size_t step = 0;
  for (size_t i = 0; i < r.schedule.size(); ++i) {
    if (r.schedule[i].kind != Choice::Actor) continue;
    if (step < r.steps.size() && r.steps[step].preemption) out.push_back(i);
    ++step;
  }
  return out;
}

}  // namespace allocsim::sim
