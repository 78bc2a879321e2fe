#include "tools/allocsim/replay_epilogue.h"

#include <fmt/format.h>

#include "backend/invariants/state_view.h"
#include "backend/system/backend_world.h"
#include "backend/system/record.h"
#include "sim/campaign/run.h"
#include "sim/shrink.h"

namespace allocsim::cli {

namespace {

/// The world as the execution left it: the actors' outcomes, then every object an invariant can name.
std::string epilogue_of(const harness::BackendWorld& w) {
  const harness::Scenario& sc = *w.compiled().scenario;
  std::string out = "outcomes:\n";
  for (size_t a = 0; a < w.actors().size(); ++a) {
    const harness::ActorState& st = w.actors()[a];
    for (size_t k = 0; k < sc.actors[a].script.size(); ++k) {
      const char* outcome = k < st.outcomes.size() ? st.outcomes[k] : nullptr;
      out += fmt::format("  {} {}: {}\n", st.name, harness::op_name(sc.actors[a].script[k].kind),
                         outcome ? outcome : "(not reached)");
    }
  }
  out += "final state:\n";
  const auto& s = w.backend().state();
  for (const auto& n : s.nodes) out += "  " + harness::render_node(n);
  for (const auto& c : s.claims) out += "  " + harness::render_claim(c);
  out += "  " + harness::render_map_state(s);
  return out;
}

}  // namespace

Replayed replay_epilogue(const campaign::Subject& subject, const sim::ExecutionResult& r, uint64_t max_steps,
                         bool with_record) {
  const std::unique_ptr<campaign::Compiled> compiled = subject.compile({});
  sim::Engine engine(sim::EngineOptions{.max_steps = max_steps});
  sim::LenientReplayStrategy s(r.schedule);
  Replayed out;
  const sim::ExecutionResult again = campaign::run_one(engine, *compiled, s, [&](const sim::World& w) {
    const auto& world = static_cast<const harness::BackendWorld&>(w);
    out.text = epilogue_of(world);
    if (with_record) out.record = harness::record_execution(0, world, r).dump() + "\n";
  });
  if (again.fingerprint() != r.fingerprint()) {
    out.record.clear();
    out.text = fmt::format(
        "outcomes and final state: not shown (running the schedule again gave fingerprint {:016x}, not {:016x})\n",
        again.fingerprint(), r.fingerprint());
  }
  return out;
}

}  // namespace allocsim::cli
