#include <catch2/catch.hpp>
#include <iostream>
#include <map>
#include <fmt/format.h>
#include "backend/harness/runner.h"
#include "backend/harness/world.h"
#include "sim/strategies/dfs.h"
#include "sim/strategies/dpor.h"
#include "sim/trace_equivalence.h"
using namespace allocsim;
static std::string show(const sim::ExecutionResult& x) {
  std::string o;
  for (size_t k = 0; k < x.steps.size(); ++k) {
    o += fmt::format("{:2}: a{} {} {} {{", k, x.steps[k].actor, x.steps[k].what, x.steps[k].detail);
    for (auto a : sim::normalized(x.steps[k].footprint)) o += fmt::format("{:04x}{} ", a.object & 0xffff, a.write ? "w" : "r");
    o += "}\n";
  }
  return o;
}
TEST_CASE("zz debug missing", "[.debug]") {
  harness::Scenario sc = harness::load_scenario(std::string(ALLOCSIM_SOURCE_DIR) + "/scenarios/alloc-005-last-out.json");
  auto c = harness::compile(sc, {});
  sim::Engine engine(sim::EngineOptions{.record_footprints = true});
  std::map<uint64_t, sim::ExecutionResult> dfs_traces, dpor_traces;
  for (int mode = 0; mode < 2; ++mode) {
    std::unique_ptr<sim::Strategy> s;
    if (mode == 0) s = std::make_unique<sim::DfsStrategy>(); else s = std::make_unique<sim::DporStrategy>();
    for (;;) {
      s->begin_execution(0);
      harness::BackendWorld w(*c);
      auto r = engine.run(w, *s);
      (mode == 0 ? dfs_traces : dpor_traces).emplace(sim::trace_fingerprint(r), r);
      if (!s->end_execution(r)) break;
    }
  }
  int shown = 0;
  for (auto& [fp, r] : dfs_traces)
    if (!dpor_traces.count(fp) && shown++ < 1) std::cout << "MISSING:\n" << show(r);
  // the dpor execution with the longest common schedule prefix
  CHECK(shown == 0);
}
