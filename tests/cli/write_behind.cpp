// Write-behind from the command line (docs/DESIGN.md §4, "Op modifiers"; backend/scenario/conditional_ops.h): a
// violation found through a background actor shrinks in a handful of runs, expect.actors may pin a background
// actor's `skipped`, and a refusable bind that passed its checks cannot land after a refusal armed later
// (backend/ops/op_environment.cpp run_bind: ops-atomic stays quiet).
#include <catch2/catch.hpp>
#include <string>

#include "support.h"

namespace write_behind_cli_test {

using namespace cli_test;

TEST_CASE("write-behind: a violation through a background actor shrinks without exhausting the budget",
          "[cli][behind]") {
  TempDir dir;
  spit(dir / "late.json",
       R"({"schema": "allocsim/scenario/v1", "name": "late", "backend": {"authority": "device-plugin"},
    "nodes": [{"name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 1, "memory_gib": 80}],
    "actors": [{"name": "jobA", "script": [{"op": "reserve", "requests": [{"workload": "a", "devices": 1}]}]},
               {"name": "kubelet", "script": [{"op": "bind_workload", "node": "n1", "workload": "p", "behind": true}]}]})");
  const Captured r = allocsim("run " + (dir / "late.json") + " --strategy dfs --no-corpus");
  INFO(r.text);
  CHECK(r.code == 1);  // capacity-within-cards: the late pod on the claimed card
  CHECK(r.text.find("capacity-within-cards") != std::string::npos);
  CHECK(r.text.find("budget ran out") == std::string::npos);
  CHECK(r.text.find("kubelet.behind0") != std::string::npos);
}

TEST_CASE("write-behind: expect.actors pins a background actor's skipped", "[cli][behind]") {
  TempDir dir;
  spit(dir / "skip.json", R"({"schema": "allocsim/scenario/v1", "name": "skip",
    "nodes": [{"name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80}],
    "actors": [{"name": "jobA", "script": [{"op": "bind_workload", "node": "n1", "workload": "a"},
      {"op": "unbind_workload", "node": "n1", "workload": "a", "behind": true, "when": {"op": 0, "outcome": "rejected"}}]}],
    "expect": {"outcome": "pass", "actors": {"jobA": {"unbind_workload": ["skipped"]},
      "jobA.behind1": {"unbind_workload": ["skipped"]}}}})");
  const Captured r = allocsim("run " + (dir / "skip.json") + " --strategy dfs --no-corpus");
  INFO(r.text);
  CHECK(r.code == 0);
  CHECK(r.text.find("jobA.behind1 unbind_workload: skipped 1") != std::string::npos);
  // Pinned by index too (a per-occurrence pin), where the background actor's one op is op 0.
  spit(dir / "skip-index.json", R"({"schema": "allocsim/scenario/v1", "name": "skip-index",
    "nodes": [{"name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 2, "memory_gib": 80}],
    "actors": [{"name": "jobA", "script": [{"op": "bind_workload", "node": "n1", "workload": "a"},
      {"op": "unbind_workload", "node": "n1", "workload": "a", "behind": true, "when": {"op": 0, "outcome": "rejected"}}]}],
    "expect": {"outcome": "pass", "actors": {"jobA": {"1": ["skipped"]}, "jobA.behind1": {"0": ["skipped"]}}}})");
  const Captured i = allocsim("run " + (dir / "skip-index.json") + " --strategy dfs --no-corpus");
  INFO(i.text);
  CHECK(i.code == 0);
}

TEST_CASE("kubelet refusals: a bind that passed its checks cannot land after a refusal armed later", "[cli][behind]") {
  // kb0's bind used to pass reject_binds' check, wait for the lock a reserve held across its barriers, and land after
  // the kubelet armed two refusals and flowA's bind was refused and its claim released: no op-level execution has
  // that (ops-atomic). The checks and the bind now hold the lock together.
  TempDir dir;
  spit(dir / "armed.json", R"({"schema": "allocsim/scenario/v1", "name": "armed", "backend": {"authority": "dra"},
    "nodes": [{"name": "n1", "product": "NVIDIA-A100-SXM4-80GB", "gpu_count": 7, "memory_gib": 80}],
    "actors": [{"name": "flowA", "script": [{"op": "reserve", "requests": [{"workload": "A0a", "devices": 1}]},
        {"op": "bind_workload", "node": "n1", "workload": "A0a", "when": {"op": 0, "outcome": "claimed"}, "claim": "flowA"},
        {"op": "release"}]},
      {"name": "kubelet", "script": [{"op": "reject_binds", "node": "n1", "binds": 2}]},
      {"name": "kb0", "script": [{"op": "bind_workload", "node": "n1", "workload": "pod1", "units": 3}]}],
    "invariants": ["ops-atomic"]})");
  const Captured r = allocsim("run " + (dir / "armed.json") + " --strategy dfs --no-corpus");
  INFO(r.text);
  CHECK(r.code == 0);
  CHECK(r.text.find("29 executions") != std::string::npos);
  CHECK(r.text.find("0 violating") != std::string::npos);
}

}  // namespace write_behind_cli_test
