// The first field in which two backend states differ, for tests of the world reset (backend/world/world_state.h
// reset_world_storage): every field of every node, and the rest of the state through record_state (claims, map,
// pointer, pending geometry, clock) plus the fields it leaves out. A field added to NodeFixture or BackendState
// is added here too, or the reset tests stop seeing it.
#pragma once

#include <fmt/format.h>

#include <string>

#include "backend/model/memory_backend.h"
#include "backend/system/record.h"

namespace allocsim::test {

/// "" when `a` and `b` hold the same value in every field, else the first field that differs ("node 2 owner").
inline std::string state_difference(const backend::BackendState& a, const backend::BackendState& b) {
  if (a.nodes.size() != b.nodes.size()) return "node count";
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const backend::NodeFixture& x = a.nodes[i];
    const backend::NodeFixture& y = b.nodes[i];
    const auto field = [&](const char* name) { return fmt::format("node {} {}", i, name); };
    if (x.name != y.name) return field("name");
    if (x.product != y.product) return field("product");
    if (x.gpu_count != y.gpu_count) return field("gpu_count");
    if (x.memory_gib != y.memory_gib) return field("memory_gib");
    if (x.labels.get() != y.labels.get()) return field("labels");
    if (x.owner != y.owner) return field("owner");
    if (x.owner_epoch != y.owner_epoch) return field("owner_epoch");
    if (x.resource_version != y.resource_version) return field("resource_version");
    if (x.mig_config != y.mig_config) return field("mig_config");
    if (x.mig_state != y.mig_state) return field("mig_state");
    if (x.mig_state_generation != y.mig_state_generation) return field("mig_state_generation");
    if (x.mig_layout != y.mig_layout) return field("mig_layout");
    if (x.workloads != y.workloads) return field("workloads");
    if (x.restore_record != y.restore_record) return field("restore_record");
  }
  if (harness::record_state(a) != harness::record_state(b)) return "record_state (claims, map, pointer, clock, ...)";
  for (size_t i = 0; i < a.claims.size(); ++i) {  // record_state leaves out the port-only bookkeeping
    const backend::Claim& x = a.claims[i];
    const backend::Claim& y = b.claims[i];
    if (x.op_id != y.op_id || x.releasing != y.releasing || x.label_versions != y.label_versions)
      return fmt::format("claim {} bookkeeping", i);
  }
  if (a.failed_reads != b.failed_reads) return "failed_reads";
  if (a.shared_map_deleted != b.shared_map_deleted) return "shared_map_deleted";
  if (a.failing_geometry != b.failing_geometry) return "failing_geometry";
  if (a.failing_geometry_until != b.failing_geometry_until) return "failing_geometry_until";
  if (a.hollow_geometry != b.hollow_geometry) return "hollow_geometry";
  if (a.partial_geometry != b.partial_geometry) return "partial_geometry";
  if (a.release_pods_hidden != b.release_pods_hidden) return "release_pods_hidden";
  if (a.audit != b.audit) return "audit";
  return "";
}

}  // namespace allocsim::test
