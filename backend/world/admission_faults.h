// Admission rejections (docs/DESIGN.md §4, `reject_binds`): a node's kubelet refuses the next N pods bound to it, as
// kubelet admission does when the device plugin's Allocate fails ("UnexpectedAdmissionError"): the scheduler's
// choice stands, the pod never runs. Upstream's bind_workload (the test kubelet) has no refusal, so this lives in
// the harness: a refused bind_workload never calls the backend, records `rejected`, and its step's detail says
// `fault=reject_binds:NODE`. Nothing of upstream's behaviour changes.
//
// Footprints (DPOR): the armed rejections are one harness object (admission_faults_id); reject_binds writes it, and
// in a scenario that has a reject_binds op every bind_workload reads it, and writes it when it is refused. A
// scenario without the op touches nothing new, so its traces do not change.
//
// Contract: per node, the binds still to refuse (> 0; a node with none left is removed), sorted by node; arming
// again adds binds.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace allocsim::harness {

/// Per execution (one per WorldState).
struct AdmissionFaults {
  bool enabled = false;                              // the scenario has a reject_binds op; else nothing is armed
  std::vector<std::pair<std::string, int>> refused;  // node -> binds still refused (> 0), sorted by node

  /// Adds `binds` refusals on `node`. REQUIRES: binds >= 1.
  void arm(const std::string& node, int binds);
  /// Whether the next bind on `node` is refused; uses one refusal up when it is.
  bool take(const std::string& node);
};

/// The footprint id of the armed rejections (a harness object, like read_faults_id).
uint64_t admission_faults_id();

}  // namespace allocsim::harness
