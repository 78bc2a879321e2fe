// Shared fixtures for the backend unit tests: nodes labelled as GPU Feature Discovery labels them,
// requests, and callers that record what the backend did at each barrier.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <catch2/catch.hpp>

#include "backend/model/caller.h"
#include "backend/model/memory_backend.h"

namespace allocsim::backend::testing {

inline const std::string kA100 = "NVIDIA-A100-SXM4-80GB";
inline const std::string kH100 = "NVIDIA-H100-80GB-HBM3";
inline const std::string kBlackwell = "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition";

/// A MIG-capable node with MIG off (classifies physical), as upstream's unit-test `_node` builds it.
inline NodeFixture gpu_node(std::string name, int count = 4, std::string product = kBlackwell, double memory = 96.0,
                            Labels extra = {}) {
  Labels labels = {{"nvidia.com/gpu.product", product},         {"nvidia.com/gpu.count", std::to_string(count)},
                   {"nvidia.com/mig.capable", "true"},          {"nvidia.com/mig.strategy", "single"},
                   {"nvidia.com/gpu.sharing-strategy", "none"}, {"nvidia.com/gpu.replicas", "1"}};
  for (auto& [k, v] : extra) put_in(labels, k, v);
  NodeFixture n;
  n.name = std::move(name);
  n.product = std::move(product);
  n.gpu_count = count;
  n.memory_gib = memory;
  n.labels = std::move(labels);
  return n;
}

/// An A100 80GB node with two cards (the ALLOC-004/005/021 fixtures).
inline NodeFixture a100_node(std::string name, int count = 2) { return gpu_node(std::move(name), count, kA100, 80.0); }

inline WorkloadRequest req(std::string workload, int count = 1, std::string flow = "flowA",
                           std::string sharing = kSharingExclusive, std::optional<int64_t> memory_bytes = {}) {
  return {std::move(flow), std::move(workload), count, std::move(sharing), memory_bytes};
}

/// A MIG sharer of `gib` GiB for `flow`.
inline WorkloadRequest mig_req(std::string workload, int gib, std::string flow = "flowA") {
  return req(std::move(workload), 1, std::move(flow), kSharingIsolatedMig, int64_t{gib} * kGiB);
}

inline BackendOptions opts(std::string authority, double apply_seconds = 0.0, std::vector<Mutant> mutants = {}) {
  BackendOptions o;
  o.authority = std::move(authority);
  o.mig_apply_seconds = apply_seconds;
  for (Mutant m : mutants) o.mutants.add(m);
  return o;
}

/// A known, complete inventory of every node (fails the test otherwise).
inline InventorySnapshot snapshot(MemoryBackend& b, Caller& c) {
  auto obs = b.inventory(c, std::nullopt);
  REQUIRE(obs.known);
  return obs.value;
}

inline FeasiblePlan feasible(const PlanOutcome& outcome) {
  if (const auto* bad = std::get_if<Infeasible>(&outcome)) {
    for (const auto& r : bad->reasons) UNSCOPED_INFO(r);
    FAIL("plan is infeasible");
  }
  return std::get<FeasiblePlan>(outcome);
}

inline Infeasible infeasible(const PlanOutcome& outcome) {
  REQUIRE(std::holds_alternative<Infeasible>(outcome));
  return std::get<Infeasible>(outcome);
}

/// Plans `requests` on a fresh inventory and reserves with its generation.
inline ClaimObservation plan_and_reserve(MemoryBackend& b, Caller& c, const std::vector<WorkloadRequest>& requests,
                                         const std::string& op) {
  const FeasiblePlan plan = feasible(b.plan(c, requests, snapshot(b, c)));
  return b.reserve(c, plan, op, plan.snapshot_generation);
}

/// A fired barrier with the lock depth at the moment it fired.
struct Fired {
  std::string name;
  std::string detail;
  int depth;
  bool operator==(const Fired&) const = default;
};

/// A SequentialCaller that records lock depth per barrier and can run a hook at a barrier (the hook plays
/// "another actor ran here": it may mutate the backend's state by hand).
class HookCaller : public SequentialCaller {
 public:
  BarrierHit barrier(std::string_view name, std::string detail) override {
    log.push_back({std::string(name), detail, depth});
    auto hit = SequentialCaller::barrier(name, std::move(detail));
    // A copy: the hook may replace or clear itself while it runs.
    if (auto run = hook) run(name);
    return hit;
  }
  void touch(Obj what, std::string_view name, bool write) override {
    touches.push_back({what, std::string(name), write});
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& f : log) out.push_back(f.name);
    return out;
  }

  struct Touch {
    Obj what;
    std::string name;
    bool write;
  };
  std::vector<Fired> log;
  std::vector<Touch> touches;
  std::function<void(std::string_view)> hook;
};

inline std::vector<std::string> kinds(const std::vector<Mutation>& ms) {
  std::vector<std::string> out;
  for (const auto& m : ms) out.push_back(m.kind);
  return out;
}

}  // namespace allocsim::backend::testing

namespace Catch {
template <>
struct StringMaker<allocsim::backend::Mutation> {
  static std::string convert(const allocsim::backend::Mutation& m) {
    return "(" + m.op_id + ", " + m.kind + ", " + m.target + ", " + m.detail + ")";
  }
};
template <>
struct StringMaker<allocsim::backend::testing::Fired> {
  static std::string convert(const allocsim::backend::testing::Fired& f) {
    return "(" + f.name + ", " + f.detail + ", depth " + std::to_string(f.depth) + ")";
  }
};
}  // namespace Catch
