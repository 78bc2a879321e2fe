// A scenario run on a fixed schedule, for harness tests: the lowest-numbered runnable actor always runs, so actors
// run one after another in file order, and fault draws take a given list, then 0 (no fault).
#pragma once

#include <fmt/format.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/scenario/scenario_json.h"
#include "backend/system/backend_world.h"
#include "sim/engine.h"

namespace allocsim::harness::testing {

/// The lowest runnable actor runs; every draw takes the next of `draws`, then 0 (no fault).
struct InOrder final : sim::Strategy {
  std::vector<uint64_t> draws;
  size_t next = 0;
  void begin_execution(uint64_t) override {}
  sim::ActorId choose(std::span<const sim::Candidate> r, sim::ActorId) override { return r.front().actor; }
  uint64_t draw(uint64_t) override { return next < draws.size() ? draws[next++] : 0; }
  bool end_execution(const sim::ExecutionResult&) override { return false; }
};

struct ShapedRun {
  Scenario sc;
  std::unique_ptr<CompiledScenario> compiled;
  std::unique_ptr<BackendWorld> world;
  sim::ExecutionResult result;

  explicit ShapedRun(const std::string& text, std::vector<uint64_t> draws = {}, bool footprints = false)
      : sc(parse_scenario(text, "shaped.json")) {
    compiled = compile(sc, {});
    world = std::make_unique<BackendWorld>(*compiled);
    InOrder strategy;
    strategy.draws = std::move(draws);
    result = sim::Engine(sim::EngineOptions{.record_footprints = footprints}).run(*world, strategy);
  }
  std::vector<std::string> outcomes(size_t actor) const {
    std::vector<std::string> out;
    for (const char* o : world->actors()[actor].outcomes) out.push_back(o ? o : "-");
    return out;
  }
  /// "actor what detail" of every Call step of `actor`.
  std::vector<std::string> calls(const std::string& actor) const {
    std::vector<std::string> out;
    for (const auto& s : result.steps)
      if (s.kind == sim::PointKind::Call && world->actor_name(s.actor) == actor)
        out.push_back(fmt::format("{} {}", s.what, s.detail));
    return out;
  }
};

/// Two plain nodes n1, n2 (2 cards each) and the given actors.
inline std::string two_nodes(const std::string& actors, const std::string& extra = "") {
  return fmt::format(R"({{ "schema": "allocsim/scenario/v1", "name": "shaped",
    "nodes": [ {{ "name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 }},
               {{ "name": "n2", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80 }} ],
    "actors": [ {} ] {} }})",
                     actors, extra);
}

}  // namespace allocsim::harness::testing
