// What the fault ops do (op_behaviour.h; their syntax is backend/scenario/op_syntax_faults.cpp). fail_reads,
// restore_reads and fail_geometry call the upstream's test hooks. The faults with shape (docs/DESIGN.md §4):
// - stale_reads (`writes` K, `reads` N): the next N inventory or observe reads, by any actor, answer from the
//   state as of K writes ago (read_faults.h says what a write is and how the history is kept);
// - partial_reads (`workloads`, `reads` N, `listings`): the next N inventories list the pods without those
//   workloads, and say nothing about it (completeness stays "complete", unlike a failed pod listing); with
//   `listings` naming "release", the next N release workload checks likewise (the port's read hook
//   hide_from_release, backend/model/read_hooks.cpp), and "inventory" must then be named to keep the first;
// - fail_geometry_for (`node`, `seconds` S): geometry applies on the node fail until the fake clock has moved
//   S seconds past now, then succeed again (`fail_geometry` stays the permanent one);
// - geometry_no_effect (`node`): from now on an apply there reports `success` for its write while the node's
//   mig_layout is left unchanged;
// - geometry_partial (`node`, `applies` N): the next N applies there carve one slice of their layout and report
//   `failed`;
// - reject_binds (`node`, `binds` N): the node's kubelet refuses the next N binds on it (admission_faults.h; the
//   refused bind is op_environment.cpp's).
// Upstream has no hook for any of them (its hooks are fail_reads and fail_geometry): the read faults are the
// harness's (read_faults.h) but for a release's listing, a port-only read hook; the geometry faults port-only
// backend hooks (backend/model/geometry_hooks.cpp). Each
// records `done`; a fault that fires later adds "fault=..." to the detail of the read it changes.
#include "backend/ops/op_behaviour.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend/ops/script_runner.h"
#include "backend/world/admission_faults.h"
#include "backend/world/read_faults.h"

namespace allocsim::harness {
namespace {

std::string detail_reads(const Op& op) { return fmt::format("kind={}", op.read_kind); }

const char* run_fail_reads(ScriptRunner& run, const Op& op) {
  run.call("fail_reads", detail_reads(op));
  run.backend().fail_reads(run.caller(), op.read_kind, "timeout");
  return "done";
}

const char* run_restore_reads(ScriptRunner& run, const Op& op) {
  run.call("restore_reads", detail_reads(op));
  run.backend().fail_reads(run.caller(), op.read_kind, std::nullopt);
  return "done";
}

std::string detail_node(const Op& op) { return fmt::format("node={}", op.node); }

const char* run_fail_geometry(ScriptRunner& run, const Op& op) {
  run.call("fail_geometry", detail_node(op));
  run.backend().fail_geometry(run.caller(), op.node);
  return "done";
}

// -- stale_reads -----------------------------------------------------------------------------------

std::string detail_stale(const Op& op) { return fmt::format("writes={} reads={}", op.writes, op.reads); }

const char* run_stale(ScriptRunner& run, const Op& op) {
  run.call("stale_reads", detail_stale(op));
  run.ctx().touch(read_faults_id(), true);
  ReadFaults& f = run.world().read_faults;
  f.stale_writes = op.writes;
  f.stale_reads = op.reads;
  return "done";
}

// -- partial_reads ---------------------------------------------------------------------------------

std::string detail_partial(const Op& op) {
  std::string d;
  if (!op.workloads.empty()) d = fmt::format("workloads={} ", fmt::join(op.workloads, ","));
  if (!op.devices.empty()) d += fmt::format("devices={} ", fmt::join(device_uuids(op.devices), ","));
  d += fmt::format("reads={}", op.reads);
  if (!op.listings.empty()) d += fmt::format(" listings={}", fmt::join(op.listings, ","));
  return d;
}

const char* run_partial(ScriptRunner& run, const Op& op) {
  run.call("partial_reads", detail_partial(op));
  if (partial_reads_covers(op, "inventory")) {
    run.ctx().touch(read_faults_id(), true);
    ReadFaults& f = run.world().read_faults;
    f.partial_workloads = op.workloads;
    f.partial_devices = op.devices;
    f.partial_reads = op.reads;
  }
  if (partial_reads_covers(op, "release")) run.backend().hide_from_release(run.caller(), op.workloads, op.reads);
  return "done";
}

// -- fail_geometry_for, geometry_no_effect, geometry_partial --------------------------------------

std::string detail_geometry_for(const Op& op) { return fmt::format("node={} seconds={:g}", op.node, op.seconds); }

const char* run_geometry_for(ScriptRunner& run, const Op& op) {
  run.call("fail_geometry_for", detail_geometry_for(op));
  run.backend().fail_geometry_for(run.caller(), op.node, op.seconds);
  return "done";
}

const char* run_no_effect(ScriptRunner& run, const Op& op) {
  run.call("geometry_no_effect", detail_node(op));
  run.backend().geometry_without_effect(run.caller(), op.node);
  return "done";
}

std::string detail_partial_apply(const Op& op) { return fmt::format("node={} applies={}", op.node, op.applies); }

const char* run_partial_apply(ScriptRunner& run, const Op& op) {
  run.call("geometry_partial", detail_partial_apply(op));
  run.backend().geometry_partial(run.caller(), op.node, op.applies);
  return "done";
}

// -- reject_binds ----------------------------------------------------------------------------------

std::string detail_reject(const Op& op) { return fmt::format("node={} binds={}", op.node, op.binds); }

const char* run_reject(ScriptRunner& run, const Op& op) {
  run.call("reject_binds", detail_reject(op));
  run.ctx().touch(admission_faults_id(), true);
  run.world().admission.arm(op.node, op.binds);
  return "done";
}

}  // namespace

std::vector<OpBehaviour> fault_op_behaviour() {
  return {
      {OpKind::FailReads, detail_reads, run_fail_reads},
      {OpKind::RestoreReads, detail_reads, run_restore_reads},
      {OpKind::FailGeometry, detail_node, run_fail_geometry},
      {OpKind::StaleReads, detail_stale, run_stale},
      {OpKind::PartialReads, detail_partial, run_partial},
      {OpKind::FailGeometryFor, detail_geometry_for, run_geometry_for},
      {OpKind::GeometryNoEffect, detail_node, run_no_effect},
      {OpKind::GeometryPartial, detail_partial_apply, run_partial_apply},
      {OpKind::RejectBinds, detail_reject, run_reject},
  };
}

}  // namespace allocsim::harness
