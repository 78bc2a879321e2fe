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
/// the probed step's footprint, and the footprint of each step chosen at a scripted actor choice (with the
/// scripted draws inside it).
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
    scripted_ = SIZE_MAX;
    std::vector<ActorId> ids;
    for (const Candidate& c : runnable) ids.push_back(c.actor);
    if (pos_ < script_.size()) {
      const Choice& c = script_[pos_];
      if (c.kind != Choice::Actor || std::find(ids.begin(), ids.end(), c.value) == ids.end())
        throw std::logic_error(
            fmt::format("dpor units: prefix choice {} ({}) does not fit this execution", pos_, format_choice(c)));
      if (runnable_at_.size() <= pos_) runnable_at_.resize(pos_ + 1);
      runnable_at_[pos_] = ids;
      draws_in_last_ = false;
      scripted_ = pos_++;
      return static_cast<ActorId>(c.value);
    }
    if (pos_ == script_.size() && !probe_) {
      runnable_after_ = ids;
      after_draws_ = draws_in_last_;
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
    draws_in_last_ = true;  // a draw past the script, inside the last scripted step (or later)
    if (!in_probe_) return 0;
    if (draw_ == odometer_.size()) odometer_.push_back({0, bound});
    return odometer_[draw_++].first;
  }

  void step_done(const StepRecord& step) override {
    // Footprints are recorded canonical (StepRecord::footprint): used as they are.
    if (in_probe_) merge_into(probe_fp_, step.footprint);
    if (scripted_ != SIZE_MAX) {
      if (scripted_fp_.size() <= scripted_) scripted_fp_.resize(scripted_ + 1);
      scripted_fp_[scripted_] = step.footprint;
    }
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
  /// Per script position: the footprint of the step chosen there (empty at draws, and for a step that never
  /// ended, as when the script's last choice is the execution's last step cut short).
  const std::vector<Footprint>& scripted_footprints() const { return scripted_fp_; }
  /// Without a probe: the actors runnable at the first choice after the script (empty when the execution
  /// ended there), and whether the script's last step drew past the script (its footprint then depends on
  /// draws the unit branches on).
  const std::vector<ActorId>& runnable_after() const { return runnable_after_; }
  bool drew_after() const { return after_draws_; }

 private:
  const std::vector<Choice>& script_;
  std::optional<ActorId> probe_;
  size_t pos_ = 0;
  size_t draw_ = 0;
  bool in_probe_ = false;
  size_t scripted_ = SIZE_MAX;  // the script position that chose the step in progress
  bool draws_in_last_ = false;  // a draw past the script since the last scripted actor choice
  bool after_draws_ = false;
  std::vector<ActorId> runnable_after_;
  std::vector<std::pair<uint64_t, uint64_t>> odometer_;  // (value, bound) of the probed step's draws
  std::vector<std::vector<ActorId>> runnable_at_;
  Footprint probe_fp_, footprint_;
  std::vector<Footprint> scripted_fp_;
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

bool prefix_asleep(const std::vector<Choice>& prefix, const std::vector<std::vector<SiblingStep>>& siblings,
                   const std::vector<Footprint>& step_footprints, const std::vector<ActorId>& runnable_after) {
  // The rule DporStrategy applies while it replays a prefix (sleep_on_entry): an actor sleeps at a node when
  // it slept at the previous actor node or was an earlier sibling there, is not the actor chosen there, and
  // is independent of the step taken there. Sibling entries stand for every draw of their step, so an actor
  // with an entry is wholly asleep.
  std::vector<SiblingStep> sleep;
  for (size_t k = 0; k < prefix.size(); ++k) {
    if (prefix[k].kind != Choice::Actor) continue;
    const auto actor = static_cast<ActorId>(prefix[k].value);
    if (std::any_of(sleep.begin(), sleep.end(), [&](const SiblingStep& s) { return s.actor == actor; })) return true;
    static const Footprint kNone;
    const Footprint& step = k < step_footprints.size() ? step_footprints[k] : kNone;
    std::vector<SiblingStep> next;
    const auto keep = [&](const SiblingStep& s) {
      if (s.actor != actor && !dependent(s.footprint, step) &&
          std::none_of(next.begin(), next.end(), [&](const SiblingStep& x) { return x.actor == s.actor; }))
        next.push_back(s);
    };
    std::for_each(sleep.begin(), sleep.end(), keep);
    std::for_each(siblings[k].begin(), siblings[k].end(), keep);
    sleep = std::move(next);
  }
  // Right after the prefix: every runnable actor asleep means DporStrategy's first free choice is sleep-set
  // blocked, and the unit's one execution is redundant.
  return !runnable_after.empty() && std::all_of(runnable_after.begin(), runnable_after.end(), [&](ActorId a) {
    return std::any_of(sleep.begin(), sleep.end(), [&](const SiblingStep& s) { return s.actor == a; });
  });
}

UnitSleep unit_sleep(const EngineOptions& options, const WorldFactory& make_world, const std::vector<Choice>& prefix) {
  EngineOptions o = options;
  o.record_footprints = true;
  Engine engine(o);
  ProbeStrategy whole(prefix, std::nullopt);
  run_all(engine, make_world, whole);
  UnitSleep out;
  out.siblings.resize(prefix.size());
  for (size_t m = 0; m < prefix.size(); ++m) {
    if (prefix[m].kind != Choice::Actor) continue;
    const std::vector<Choice> before(prefix.begin(), prefix.begin() + static_cast<ptrdiff_t>(m));
    for (ActorId a : whole.runnable_at()[m]) {
      if (a >= prefix[m].value) break;  // runnable ids are ascending
      ProbeStrategy sibling(before, a);
      run_all(engine, make_world, sibling);
      out.siblings[m].push_back({a, sibling.footprint()});
    }
  }
  // A last step that draws past the prefix has one footprint per draw value, which the unit branches on:
  // the check after the prefix then does not apply (the prefix nodes' own check still does).
  static const std::vector<ActorId> kNoCheck;
  out.asleep = prefix_asleep(prefix, out.siblings, whole.scripted_footprints(),
                             whole.drew_after() ? kNoCheck : whole.runnable_after());
  return out;
}

std::vector<std::vector<SiblingStep>> earlier_siblings(const EngineOptions& options, const WorldFactory& make_world,
                                                       const std::vector<Choice>& prefix) {
  return unit_sleep(options, make_world, prefix).siblings;
}

}  // namespace allocsim::sim
