// GPU Feature Discovery classification (backend/CONTRACT.md §4): the four ordered rules and the pool combination.
#include "backend/model/gfd.h"
#include "backend_fixtures.h"

using namespace allocsim::backend;

namespace {
const std::string kProduct = "nvidia.com/gpu.product";
const std::string kStrategy = "nvidia.com/gpu.sharing-strategy";
const std::string kReplicas = "nvidia.com/gpu.replicas";
const std::string kCount = "nvidia.com/gpu.count";

/// A MIG-capable, single-strategy A100 with MIG off: physical unless a rule below says otherwise.
Labels base(Labels extra = {}) {
  Labels l = {{kProduct, "NVIDIA-A100-SXM4-80GB"},
              {kCount, "2"},
              {"nvidia.com/mig.capable", "true"},
              {"nvidia.com/mig.strategy", "single"}};
  for (auto& [k, v] : extra) put_in(l, k, v);
  return l;
}
}  // namespace

TEST_CASE("rule 1: sharing-strategy mps is mps, with or without replicas or -SHARED", "[gfd]") {
  CHECK(classify_gfd_labels(base({{kStrategy, "mps"}})) == "mps");
  CHECK(classify_gfd_labels(base({{kStrategy, "mps"}, {kReplicas, "4"}})) == "mps");
  CHECK(classify_gfd_labels(base({{kStrategy, "mps"}, {kProduct, "NVIDIA-A100-SXM4-80GB-SHARED"}})) == "mps");
  CHECK(classify_gfd_labels(base({{kStrategy, "MPS"}})) == "physical");  // the strategy value is exact
}

TEST_CASE("rule 2: time-slicing strategy, -SHARED product or replicas > 1", "[gfd]") {
  CHECK(classify_gfd_labels(base({{kStrategy, "time-slicing"}})) == "time-sliced");
  CHECK(classify_gfd_labels(base({{kProduct, "NVIDIA-A100-SXM4-80GB-SHARED"}})) == "time-sliced");
  CHECK(classify_gfd_labels(base({{kReplicas, "2"}})) == "time-sliced");
  CHECK(classify_gfd_labels(base({{kReplicas, " 3 "}})) == "time-sliced");  // stripped like upstream
  CHECK(classify_gfd_labels(base({{kReplicas, "1"}})) == "physical");
  CHECK(classify_gfd_labels(base({{kReplicas, "0"}})) == "physical");
  CHECK(classify_gfd_labels(base({{kReplicas, "two"}})) == "physical");
  CHECK(classify_gfd_labels(base({{kReplicas, "-5"}})) == "physical");
  CHECK(classify_gfd_labels(base({{kProduct, "NVIDIA-A100-shared"}})) == "physical");  // suffix is exact
  // Time-slicing outranks MIG evidence.
  CHECK(classify_gfd_labels(base({{kReplicas, "2"}, {kProduct, "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"}})) ==
        "time-sliced");
}

TEST_CASE("rule 3: single-strategy MIG-capable nodes need geometry evidence", "[gfd]") {
  CHECK(classify_gfd_labels(base()) == "physical");  // capable, MIG off
  CHECK(classify_gfd_labels(base({{kProduct, "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"}})) == "mig");
  CHECK(classify_gfd_labels(base({{"nvidia.com/mig.capable", "TRUE"}, {kProduct, "X-MIG-1g.10gb"}})) == "mig");
  CHECK(classify_gfd_labels(base({{"nvidia.com/mig.capable", "True"}, {kProduct, "X-MIG-1g.10gb"}})) == "mig");
  CHECK(classify_gfd_labels(base({{"nvidia.com/mig.capable", "false"}, {kProduct, "X-MIG-1g.10gb"}})) == "physical");
  CHECK(classify_gfd_labels(base({{"nvidia.com/mig.strategy", "mixed"}, {kProduct, "X-MIG-1g.10gb"}})) == "physical");
  // More advertised units than cards.
  CHECK(classify_gfd_labels(base(), 14) == "mig");
  CHECK(classify_gfd_labels(base(), 2) == "physical");
  CHECK(classify_gfd_labels(base({{kCount, "x"}}), 14) == "physical");
  // An applied, non-default mig.config.
  CHECK(classify_gfd_labels(
            base({{"nvidia.com/mig.config", "all-1g.10gb"}, {"nvidia.com/mig.config.state", "success"}})) == "mig");
  CHECK(classify_gfd_labels(base(
            {{"nvidia.com/mig.config", "all-1g.10gb"}, {"nvidia.com/mig.config.state", "pending"}})) == "physical");
  CHECK(classify_gfd_labels(base(
            {{"nvidia.com/mig.config", "all-disabled"}, {"nvidia.com/mig.config.state", "success"}})) == "physical");
  CHECK(classify_gfd_labels(base({{"nvidia.com/mig.config", ""}, {"nvidia.com/mig.config.state", "success"}})) ==
        "physical");
}

TEST_CASE("rule 4: any nvidia.com/gpu* label is physical, none is unknown", "[gfd]") {
  CHECK(classify_gfd_labels({{"nvidia.com/gpu.count", "1"}}) == "physical");
  CHECK(classify_gfd_labels({{"nvidia.com/gpufoo", "1"}}) == "physical");
  CHECK(classify_gfd_labels({{"nvidia.com/mig.capable", "true"}}) == "unknown");
  CHECK(classify_gfd_labels({}) == "unknown");
}

TEST_CASE("pool combination: worst wins (time-sliced, mps, mig, unknown, physical)", "[gfd]") {
  CHECK(combine_classifications({}) == "unknown");
  CHECK(combine_classifications({"physical"}) == "physical");
  CHECK(combine_classifications({"physical", "unknown"}) == "unknown");
  CHECK(combine_classifications({"unknown", "mig", "physical"}) == "mig");
  CHECK(combine_classifications({"mig", "mps"}) == "mps");
  CHECK(combine_classifications({"mps", "time-sliced", "physical"}) == "time-sliced");
}

TEST_CASE("node classification: carved geometry is mig whatever the labels say", "[gfd]") {
  NodeFixture n = allocsim::backend::testing::gpu_node("n1");
  CHECK(n.classification() == "physical");
  n.mig_layout = {{"1g.24gb", 1}};
  CHECK(n.classification() == "mig");
  n.mig_layout.clear();
  n.labels = Labels{};
  CHECK(n.classification() == "unknown");
}
