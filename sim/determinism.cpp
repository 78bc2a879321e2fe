#include "sim/determinism.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/strategies/replay.h"

namespace allocsim::sim {

namespace {

std::string describe(const StepRecord& s, const std::function<std::string(ActorId)>& actor_name) {
  return fmt::format("{} {} {}{}{}", actor_name(s.actor), to_string(s.kind), s.what, s.detail.empty() ? "" : " ",
                     s.detail);
}

std::string describe(const std::optional<Violation>& v) {
  return v ? fmt::format("violation {}: {}", v->invariant, v->message) : std::string("no violation");
}

/// The two runs' versions of one place, in the words `--check-determinism` prints.
Divergence pair(uint64_t step, std::string label, const std::string& first, const std::string& second) {
  return Divergence{step, std::move(label), "first run: " + first, "second run: " + second, {}};
}

}  // namespace

std::optional<Divergence> first_difference(const ExecutionResult& a, const ExecutionResult& b,
                                           const std::function<std::string(ActorId)>& actor_name) {
  const size_t common = std::min(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < common; ++i) {
    const StepRecord& x = a.steps[i];
    const StepRecord& y = b.steps[i];
    if (x.actor != y.actor || x.kind != y.kind || x.what != y.what || x.detail != y.detail)
      return pair(i, fmt::format("step {}", i), describe(x, actor_name), describe(y, actor_name));
  }
  if (a.steps.size() != b.steps.size()) {
    const auto tail = [&](const ExecutionResult& r) {
      return r.steps.size() > common ? describe(r.steps[common], actor_name)
                                     : fmt::format("ended after {} steps ({})", r.steps.size(), describe(r.violation));
    };
    return pair(common, fmt::format("step {}", common), tail(a), tail(b));
  }
  const bool same_violation = a.violation.has_value() == b.violation.has_value() &&
                              (!a.violation || (a.violation->invariant == b.violation->invariant &&
                                                a.violation->message == b.violation->message));
  if (!same_violation)
    return pair(common, fmt::format("after step {}", common), describe(a.violation), describe(b.violation));
  return std::nullopt;
}

std::optional<Divergence> recheck_execution(Engine& engine, const WorldFactory& make_world,
                                            const ExecutionResult& first) {
  std::unique_ptr<World> world = make_world();
  std::vector<std::string> names;
  for (ActorId id = 0; id < world->actor_count(); ++id) names.emplace_back(world->actor_name(id));
  ReplayStrategy replay(first.schedule, names);
  replay.begin_execution(0);
  const ExecutionResult second = engine.run(*world, replay);
  const auto name = [&](ActorId id) { return std::string(world->actor_name(id)); };
  auto diff = first_difference(first, second, name);
  if (!diff && first.fingerprint() != second.fingerprint())  // unreachable unless the two disagree on the hash
    diff = Divergence{first.steps.size(),
                      fmt::format("after step {}", first.steps.size()),
                      fmt::format("first run: fingerprint {:016x}", first.fingerprint()),
                      fmt::format("second run: fingerprint {:016x} (the step lists are equal)", second.fingerprint()),
                      {}};
  if (!diff && (replay.divergence() || !replay.consumed_all()))
    diff = Divergence{first.steps.size(),
                      fmt::format("after step {}", first.steps.size()),
                      "first run: its recorded schedule",
                      fmt::format("second run: did not follow it: {}",
                                  replay.divergence().value_or("choices were left over")),
                      {}};
  else if (diff && replay.divergence())
    diff->actual += fmt::format("\n  (replay: {})", *replay.divergence());
  if (diff && replay.divergence()) diff->runnable = replay.divergence_runnable();
  return diff;
}

}  // namespace allocsim::sim
