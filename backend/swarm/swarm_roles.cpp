// Four parts of a generated scenario (swarm_draw.h): the scripts of the kubelet, the operator and the chaos actor,
// and the faults block. The flows, the clock, the restarted controller and the sweeper are swarm_gen.cpp's.
#include "backend/swarm/swarm_draw.h"

#include <fmt/format.h>

#include "backend/model/barriers.h"
#include "backend/model/contract.h"

namespace allocsim::harness::swarm_draw {

/// The kubelet: binds a pod on a node (and maybe unbinds it). Its pods fit in the cards no start workload holds
/// (kubelet admission: a node never runs more GPU pods than it has cards; the generator must not break
/// capacity-within-cards by itself).
Json kubelet_script(Gen& g, const Cluster& c, std::vector<std::string>& bound) {
  Json s = Json::array();
  std::vector<size_t> fits;
  for (size_t n = 0; n < c.names.size(); ++n)
    if (c.free[n] > 0) fits.push_back(n);
  if (fits.empty()) return Json::array({{{"op", "inventory"}}});
  const size_t i = g.pick(fits);
  const std::string w = fmt::format("pod{}", bound.size() + 1);
  s.push_back({{"op", "bind_workload"}, {"node", c.names[i]}, {"workload", w}, {"units", g.range(1, c.free[i])}});
  bound.push_back(w);
  if (g.chance(1, 2)) s.push_back({{"op", "unbind_workload"}, {"node", c.names[i]}, {"workload", w}});
  return s;
}

/// The kubelet's script `s` with a reject_binds where it refuses something: last, on the node a flow of `flows` binds
/// its own pod on (the refusal races that bind); else first, on the kubelet's own bind's node (or the first node).
Json with_admission_reject(Json s, const Json& flows, const Cluster& cluster, int binds) {
  for (const Json& flow : flows)
    for (const Json& op : flow["script"])
      if (op["op"] == "bind_workload") {
        s.push_back({{"op", "reject_binds"}, {"node", op["node"]}, {"binds", binds}});
        return s;
      }
  const Json node = s.front()["op"] == "bind_workload" ? s.front()["node"] : Json(cluster.names.front());
  s.insert(s.begin(), Json{{"op", "reject_binds"}, {"node", node}, {"binds", binds}});
  return s;
}

/// Another controller's single writes (backend/ops/op_foreign.cpp).
/// A relabel drops nvidia.com/gpu.count by one (a card went unhealthy) only where a card is free, and takes
/// that card from the kubelet: a relabel under pods that fill the node breaks capacity-within-cards by the
/// foreign write alone.
Json operator_script(Gen& g, Cluster& c) {
  Json s = Json::array();
  const int n = g.range(1, 2);
  for (int k = 0; k < n; ++k) {
    const size_t i = g.below(c.names.size());
    switch (g.below(4)) {
      case 0:
        if (c.cards[i] > 1 && c.free[i] > 0) {
          c.free[i] -= 1;
          s.push_back({{"op", "set_labels"},
                       {"node", c.names[i]},
                       {"set", {{"nvidia.com/gpu.count", std::to_string(c.cards[i] - 1)}}}});
        } else {
          s.push_back(
              {{"op", "set_labels"}, {"node", c.names[i]}, {"set", {{"nvidia.com/mig.config", "all-disabled"}}}});
        }
        break;
      case 1:
        s.push_back({{"op", "set_mig_state"},
                     {"node", c.names[i]},
                     {"state", g.pick(std::vector<std::string>{"pending", "success", "failed"})}});
        break;
      case 2:
        s.push_back({{"op", "write_shared_map"}, {"replace", true}});
        break;
      // An admin resetting the pointer: pointing it at any other map would break shared-map-never-deleted's
      // pointer clause by the foreign write alone, a finding about the generator, not the protocol.
      default:
        s.push_back({{"op", "set_pointer"}, {"pointer", backend::kDefaultPointer}});
        break;
    }
  }
  return s;
}

/// Read and geometry faults as ops (backend/ops/op_faults.cpp, the fail_* ops).
Json chaos_script(Gen& g, const SwarmFeatures& f, const Cluster& c, const std::vector<std::string>& workloads) {
  Json s = Json::array();
  std::vector<int> kinds;
  if (f.read_faults) kinds.insert(kinds.end(), {0, 1, 2});
  if (f.geometry_faults) kinds.insert(kinds.end(), {3, 4, 5});
  const int n = g.range(1, 2);
  for (int k = 0; k < n; ++k) {
    const int kind = g.pick(kinds);
    const std::string& node = g.pick(c.names);
    if (kind == 0) {
      const std::string rk = g.pick(std::vector<std::string>{"nodes", "pods", "config"});
      s.push_back({{"op", "fail_reads"}, {"kind", rk}});
      if (g.chance(2, 3)) s.push_back({{"op", "restore_reads"}, {"kind", rk}});
    } else if (kind == 1) {
      s.push_back({{"op", "stale_reads"}, {"writes", g.range(1, 3)}, {"reads", g.range(1, 2)}});
    } else if (kind == 2 && !workloads.empty()) {
      s.push_back({{"op", "partial_reads"}, {"workloads", {g.pick(workloads)}}});
    } else if (kind == 2) {
      s.push_back({{"op", "stale_reads"}});
    } else if (kind == 3) {
      s.push_back({{"op", "fail_geometry"}, {"node", node}});
    } else if (kind == 4) {
      s.push_back({{"op", "fail_geometry_for"}, {"node", node}, {"seconds", g.range(1, 10)}});
    } else {
      s.push_back({{"op", "geometry_no_effect"}, {"node", node}});
    }
  }
  return s;
}

Json make_faults(Gen& g, const SwarmFeatures& f, const std::string& faulty) {
  static const std::vector<std::string> actions = {"crash", "raise", "drop_response"};
  Json barriers = Json::object();
  const auto& cat = backend::barrier_table();
  const int n = g.range(1, 2);
  for (int k = 0; k < n; ++k) {
    const std::string b = g.pick(cat).name;
    if (barriers.contains(b)) continue;
    Json acts = Json::array();
    if (f.recover) acts.push_back("crash");
    for (const auto& a : actions)
      if (!(f.recover && a == "crash") && g.chance(1, 2)) acts.push_back(a);
    if (acts.empty()) acts.push_back(g.pick(actions));
    barriers[b] = std::move(acts);
  }
  Json faults = {{"max", 1}, {"actors", {faulty}}, {"barriers", std::move(barriers)}};
  return faults;
}

}  // namespace allocsim::harness::swarm_draw
