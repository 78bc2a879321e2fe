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
#include <string_view>
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

// The operands (docs/DESIGN.md §4, bind_workload): the GPU operator runs the device plugin on a node unless the node's
// labels turn it off, and mig-manager turns it off (`paused-for-mig-change`) while it reconfigures MIG and back on
// after. A kubelet without a device plugin admits no GPU pod: a bind there is refused as reject_binds' are, before any
// armed refusal is used (no Allocate is called). Upstream's plan and test kubelet read no operand label, so this too
// is the harness's. Only a scenario whose start labels or set_labels ops name an operand label checks it
// (CompiledScenario::operand_labels), so the bind's read of its node's labels adds nothing to other scenarios' steps.
inline constexpr const char* kDeployOperandsLabel = "nvidia.com/gpu.deploy.operands";
inline constexpr const char* kDeployDevicePluginLabel = "nvidia.com/gpu.deploy.device-plugin";

/// Whether label key `key` is one device_plugin_off reads.
inline bool is_operand_label(std::string_view key) {
  return key == kDeployOperandsLabel || key == kDeployDevicePluginLabel;
}

/// Whether `labels` (a node's) say its device plugin is not running: the operands label is "false", or the
/// device-plugin label is present and not "true" ("false", "paused-for-mig-change").
template <class Labels>
bool device_plugin_off(const Labels& labels) {
  for (const auto& [key, value] : labels) {
    if (key == kDeployOperandsLabel && value == "false") return true;
    if (key == kDeployDevicePluginLabel && value != "true") return true;
  }
  return false;
}

}  // namespace allocsim::harness
