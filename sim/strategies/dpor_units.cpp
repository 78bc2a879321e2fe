#include "sim/strategies/dpor_units.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "sim/schedule.h"  // format_choice

namespace allocsim::sim {

namespace {

/// Replays `script`, then (when `probe` is set) runs that actor for one step, enumerating every combination
/// of the draws inside that step across executions (an odometer, last draw fastest); everything after it
/// takes the first runnable actor and draws 0. Records the runnable actors at each scripted actor choice and
/// the probed step's footprint.
class ProbeStrategy final : public Strategy {
 public:
  ProbeStrategy(const std::vector<Choice>& script, std::optional<ActorId> probe) : script_(script), probe_(probe) {}

  void begin_execution(uint64_t) override {
    pos_ = 0;
    draw_ = 0;
    in_probe_ = false;
    probe_fp_.clear();
  }

  ActorId choose(std::span<const Candidate> runnable, ActorId) override {
    in_probe_ = false;
    std::vector<ActorId> ids;
    for (const Candidate& c : runnable) ids.push_back(c.actor);
    if (pos_ < script_.size()) {
      const Choice& c = script_[pos_];
      if (c.kind != Choice::Actor || std::find(ids.begin(), ids.end(), c.value) == ids.end())
        throw std::logic_error(
            fmt::format("dpor units: prefix choice {} ({}) does not fit this execution", pos_, format_choice(c)));
      if (runnable_at_.size() <= pos_) runnable_at_.resize(pos_ + 1);
      runnable_at_[pos_] = ids;
      ++pos_;
      return static_cast<ActorId>(c.value);
    }
    if (probe_ && pos_ == script_.size()) {
      if (std::find(ids.begin(), ids.end(), *probe_) == ids.end())
        throw std::logic_error("dpor units: the probed sibling is not runnable");
      ++pos_;
      in_probe_ = true;
      return *probe_;
    }
    ++pos_;
    return ids.front();
  }

  uint64_t draw(uint64_t bound) override {
    if (pos_ < script_.size()) {
      const Choice& c = script_[pos_];
      if (c.kind != Choice::Draw || c.value >= bound)
        throw std::logic_error(fmt::format("dpor units: prefix choice {} ({}) is not a possible draw in [0, {})", pos_,
                                           format_choice(c), bound));
      ++pos_;
      return c.value;
    }
    if (!in_probe_) return 0;
    if (draw_ == odometer_.size()) odometer_.push_back({0, bound});
    return odometer_[draw_++].first;
  }

  void step_done(const StepRecord& step) override {
    if (in_probe_) merge_into(probe_fp_, normalized(step.footprint));
  }

  bool end_execution(const ExecutionResult&) override {
    if (pos_ < script_.size() + (probe_ ? 1 : 0))
      throw std::logic_error(
          fmt::format("dpor units: the execution ended after {} of the prefix's {} choices (a "
                      "nondeterministic world, or a prefix that does not fit it)",
                      pos_, script_.size()));
    merge_into(footprint_, probe_fp_);
    odometer_.resize(draw_);  // draws not made this time belong to another branch
    while (!odometer_.empty() && odometer_.back().first + 1 >= odometer_.back().second) odometer_.pop_back();
    if (odometer_.empty()) return false;
    ++odometer_.back().first;
    return true;
  }

  const std::vector<std::vector<ActorId>>& runnable_at() const { return runnable_at_; }
  const Footprint& footprint() const { return footprint_; }

 private:
  const std::vector<Choice>& script_;
  std::optional<ActorId> probe_;
  size_t pos_ = 0;
  size_t draw_ = 0;
  bool in_probe_ = false;
  std::vector<std::pair<uint64_t, uint64_t>> odometer_;  // (value, bound) of the probed step's draws
  std::vector<std::vector<ActorId>> runnable_at_;
  Footprint probe_fp_, footprint_;
};

void run_all(Engine& engine, const WorldFactory& make_world, ProbeStrategy& probe) {
  for (bool more = true; more;) {
    probe.begin_execution(0);
    auto world = make_world();
    ExecutionResult r = engine.run(*world, probe);
    more = probe.end_execution(r);
  }
}

}  // namespace

std::vector<std::vector<SiblingStep>> earlier_siblings(const EngineOptions& options, const WorldFactory& make_world,
                                                       const std::vector<Choice>& prefix) {
  EngineOptions o = options;
  o.record_footprints = true;
  Engine engine(o);
  ProbeStrategy whole(prefix, std::nullopt);
  run_all(engine, make_world, whole);
  std::vector<std::vector<SiblingStep>> out(prefix.size());
  for (size_t m = 0; m < prefix.size(); ++m) {
    if (prefix[m].kind != Choice::Actor) continue;
    const std::vector<Choice> before(prefix.begin(), prefix.begin() + static_cast<ptrdiff_t>(m));
    for (ActorId a : whole.runnable_at()[m]) {
      if (a >= prefix[m].value) break;  // runnable ids are ascending
      ProbeStrategy sibling(before, a);
      run_all(engine, make_world, sibling);
      out[m].push_back({a, sibling.footprint()});
    }
  }
  return out;
}

}  // namespace allocsim::sim
