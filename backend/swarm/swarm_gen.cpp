#include "backend/swarm/swarm_gen.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "backend/model/contract.h"
#include "backend/model/mig_geometry.h"
#include "backend/swarm/swarm_draw.h"
#include "backend/world/admission_faults.h"
#include "sim/prng.h"

namespace allocsim::harness {

namespace {

using swarm_draw::Cluster;
using swarm_draw::Gen;
using swarm_draw::Json;

/// A product label GFD writes and the GiB of one card (backend/CONTRACT.md §3: each MIG label selects its
/// table; the last two have no MIG table, so they classify as plain GPUs).
struct Product {
  const char* label;
  int gib;
  bool mig;
};
const std::vector<Product>& products() {
  static const std::vector<Product> k = {
      {"NVIDIA-A100-SXM4-80GB", 80, true},
      {"NVIDIA-A100-80GB-PCIe", 80, true},
      {"NVIDIA-A100-SXM4-40GB", 40, true},
      {"NVIDIA-A30", 24, true},
      {"NVIDIA-H100-80GB-HBM3", 80, true},
      {"NVIDIA-H100-NVL", 94, true},
      {"NVIDIA-H200", 141, true},
      {"NVIDIA-L4", 24, false},
      {"Tesla-T4", 16, false},
  };
  return k;
}

const std::vector<const char*> kSharing = {backend::kSharingExclusive, backend::kSharingIsolatedMig,
                                           backend::kSharingCooperative, backend::kSharingAccountingOnly};
const std::vector<const char*> kStatuses = {"pending", "allocated", "prepared", "ready", "failed"};
const std::vector<const char*> kAwaited = {"prepared", "ready", "allocated", "failed"};

SwarmFeatures draw_features(Gen& g) {
  SwarmFeatures f;
  f.mig = g.chance(1, 2);
  for (const char* s : kSharing) {
    if (s == std::string(backend::kSharingIsolatedMig) && !f.mig) continue;
    if (g.chance(1, 2)) f.sharing.emplace_back(s);
  }
  if (f.sharing.empty()) f.sharing.emplace_back(f.mig ? backend::kSharingIsolatedMig : backend::kSharingExclusive);
  f.split_reserve = g.chance(1, 3);
  f.status_ops = g.chance(1, 2);
  f.release = g.chance(3, 4);
  f.second_reserve = g.chance(1, 2);
  f.binds = g.chance(1, 2);
  f.foreign_writes = g.chance(1, 4);
  f.read_faults = g.chance(1, 4);
  f.geometry_faults = f.mig && g.chance(1, 3);
  f.barrier_faults = g.chance(1, 3);
  // A fault after a call's effects (a claim created, a stamp written) leaves state only the flow's restarted
  // controller can clean, as in a real cluster; without one, quiescent-clean reports the leftover claim of a
  // flow that never learned it, which says nothing about the protocol. So faults always come with recovery.
  f.recover = f.barrier_faults;
  f.start_state = g.chance(1, 4);
  f.conditional = g.chance(1, 4);
  f.clock = f.mig && g.chance(1, 2);
  return f;
}

/// A feature added after the first stream's: drawn from a PRNG stream of its own, sim::execution_seed(seed, stream),
/// which also makes the feature's later draws (its node, its ops, its seconds). A scenario that does not draw a
/// feature keeps the bytes it had before the feature existed, and no feature's draws move another's. Rows in stream
/// order; a new feature is a row here with the next stream, its flag in SwarmFeatures (swarm_gen.h) and its name in
/// swarm_features.cpp.
struct LateFeature {
  uint64_t stream;
  bool SwarmFeatures::*flag;
  bool SwarmFeatures::*needs;  // a feature it needs (nullptr: none); without it the stream draws nothing here
  uint64_t num, den;           // its odds
  /// Named among the features only when the file has what it writes (the generator marks it in `written`).
  bool only_if_written;
};
constexpr LateFeature kLateFeatures[] = {
    {1, &SwarmFeatures::flow_clock, &SwarmFeatures::mig, 1, 2, false},
    {2, &SwarmFeatures::leftover_claim, &SwarmFeatures::start_state, 1, 2, false},
    {3, &SwarmFeatures::partial_apply, &SwarmFeatures::geometry_faults, 1, 2, true},
    {4, &SwarmFeatures::release_listing, &SwarmFeatures::read_faults, 1, 2, true},
    {5, &SwarmFeatures::admission_reject, &SwarmFeatures::binds, 1, 2, true},
    {6, &SwarmFeatures::sweeper, nullptr, 1, 4, false},
    {7, &SwarmFeatures::leased_sweeper, &SwarmFeatures::sweeper, 1, 2, false},
    {8, &SwarmFeatures::operand_pause, &SwarmFeatures::foreign_writes, 1, 2, true},
    {9, &SwarmFeatures::hidden_devices, &SwarmFeatures::read_faults, 1, 2, true},
    {10, &SwarmFeatures::claimed_binds, &SwarmFeatures::binds, 1, 2, true},
    {11, &SwarmFeatures::bind_behind, &SwarmFeatures::binds, 1, 2, true},
    {12, &SwarmFeatures::shared_owner, nullptr, 1, 8, false},
    {13, &SwarmFeatures::bind_resource, &SwarmFeatures::binds, 1, 2, true},
};

/// The late features' streams. Each feature's later draws come from its own stream, wherever the generator writes
/// the feature (kLateFeatures).
class LateStreams {
 public:
  /// Draws every late feature into `f`, each from its own stream (the first stream's features are in `f` already).
  LateStreams(uint64_t seed, SwarmFeatures& f) {
    streams_.reserve(std::size(kLateFeatures));
    for (const LateFeature& row : kLateFeatures) {
      Gen& g = streams_.emplace_back(sim::execution_seed(seed, row.stream));
      f.*row.flag = (row.needs == nullptr || f.*row.needs) && g.chance(row.num, row.den);
    }
  }
  /// The stream of the late feature `flag`.
  Gen& of(bool SwarmFeatures::*flag) {
    for (size_t i = 0; i < std::size(kLateFeatures); ++i)
      if (kLateFeatures[i].flag == flag) return streams_[i];
    std::abort();  // every caller names a row of kLateFeatures
  }

 private:
  std::vector<Gen> streams_;
};

/// Keeps a late feature that writes something only where the file has what it wrote (`written` marks those).
void keep_written(SwarmFeatures& f, const SwarmFeatures& written) {
  for (const LateFeature& row : kLateFeatures)
    if (row.only_if_written) f.*row.flag = written.*row.flag;
}

Json make_nodes(Gen& g, const SwarmFeatures& f, Cluster& c) {
  std::vector<Product> pool;
  for (const Product& p : products())
    if (p.mig == f.mig || (!f.mig && g.chance(1, 3))) pool.push_back(p);
  Json nodes = Json::array();
  const int n = g.chance(1, 2) ? 1 : g.range(2, 4);
  for (int i = 0; i < n; ++i) {
    const Product& p = g.pick(pool);
    const int cards = g.chance(3, 4) ? g.range(1, 2) : g.range(3, 8);
    const std::string name = fmt::format("n{}", i + 1);
    Json node = {{"name", name}, {"product", p.label}, {"gpu_count", cards}, {"memory_gib", p.gib}};
    if (p.mig)
      node["labels"] = {{"nvidia.com/gpu.product", p.label},
                        {"nvidia.com/gpu.count", std::to_string(cards)},
                        {"nvidia.com/mig.capable", "true"}};
    int free = cards;
    if (f.start_state) {
      if (g.chance(1, 2)) {
        const std::string w = fmt::format("pod-{}", name);
        const int units = g.range(1, cards);
        node["workloads"] = {{w, units}};
        c.start_workloads.push_back(w);
        free -= units;
      }
      if (g.chance(1, 3)) {
        node["resource_version"] = 7;
        node["owner"] = "flowX";
        node["owner_epoch"] = "gen-flowX-2";
        c.stale_stamp = true;
        c.stamped.push_back(static_cast<size_t>(i));
      }
    }
    c.names.push_back(name);
    c.cards.push_back(cards);
    c.free.push_back(free);
    c.max_cards = std::max(c.max_cards, cards);
    c.min_gib = std::min(c.min_gib, p.gib);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

Json make_requests(Gen& g, const SwarmFeatures& f, const Cluster& c, const std::string& prefix, int index) {
  Json reqs = Json::array();
  const int n = g.chance(2, 3) ? 1 : g.range(2, 3);
  for (int i = 0; i < n; ++i) {
    const std::string& sharing = g.pick(f.sharing);
    Json r = {{"workload", fmt::format("{}{}{}", prefix, index, static_cast<char>('a' + i))},
              {"devices", g.chance(3, 4) ? 1 : g.range(1, std::min(c.max_cards, 4))}};
    if (sharing != backend::kSharingExclusive) r["sharing"] = sharing;
    if (sharing == backend::kSharingIsolatedMig)
      r["minimum_usable_memory_gib"] = std::min(c.min_gib / 4, g.pick(std::vector<int>{5, 10, 20}));
    reqs.push_back(std::move(r));
  }
  return reqs;
}

/// flow_clock: the flow re-carves, so its requests are MIG slices (from its stream, 3 times in 4).
Json recarve(Gen& g2, const SwarmFeatures& f, const Cluster& c, Json reqs) {
  if (!f.flow_clock || !g2.chance(3, 4)) return reqs;
  for (auto& r : reqs) {
    r["sharing"] = backend::kSharingIsolatedMig;
    r["minimum_usable_memory_gib"] = std::min(c.min_gib / 4, g2.pick(std::vector<int>{5, 10, 20}));
  }
  return reqs;
}

/// Whether some actor of `actors` (generated actors, each {"name", "script"}) advances the fake clock.
bool moves_clock(const Json& actors) {
  for (const Json& a : actors)
    for (const Json& op : a["script"])
      if (op["op"] == "advance_clock") return true;
  return false;
}

/// A flow's script: the protocol's natural sequence with the enabled features.
Json flow_script(Gen& g, Gen& g2, const SwarmFeatures& f, Cluster& c, const std::string& prefix,
                 const std::vector<std::string>& flows) {
  Json s = Json::array();
  int reserves = f.second_reserve && g.chance(2, 3) ? 2 : 1;
  if (f.flow_clock && reserves == 1 && g2.chance(1, 2)) reserves = 2;  // the re-carve is a second reserve
  for (int k = 0; k < reserves; ++k) {
    const size_t reserve_at = s.size() + (f.split_reserve ? 2 : 0);
    if (f.split_reserve && g.chance(1, 2)) {
      Json reqs = recarve(g2, f, c, make_requests(g, f, c, prefix, k));
      s.push_back({{"op", "inventory"}});
      s.push_back({{"op", "plan"}, {"requests", reqs}});
      s.push_back({{"op", "reserve"}});
    } else if (f.split_reserve && flows.size() > 1 && g.chance(1, 3)) {
      std::string other = g.pick(flows);
      while (other == prefix) other = g.pick(flows);
      s.push_back({{"op", "reserve"}, {"plan_from", "flow" + other}});
    } else {
      Json op = {{"op", "reserve"}, {"requests", recarve(g2, f, c, make_requests(g, f, c, prefix, k))}};
      if (f.conditional && g.chance(1, 2)) op["retry"] = {{"on", "conflict"}, {"max", g.range(1, 2)}};
      s.push_back(std::move(op));
    }
    const size_t at = std::min(reserve_at, s.size() - 1);
    // The flow waits out part of its carve (less than mig_apply_seconds, 5): after two reserves on one
    // node, 1-4 s each, the first write has applied and the second has not in 10 of 16 draws.
    if (f.flow_clock && g2.chance(2, 3)) {
      s.push_back({{"op", "advance_clock"}, {"seconds", g2.range(1, 4)}});
      if (g2.chance(2, 3)) s.push_back({{"op", "await"}, {"status", "prepared"}, {"polls_max", g2.range(1, 2)}});
    }
    const auto guard = [&](Json op) {
      if (f.conditional && g.chance(1, 2)) op["when"] = {{"op", at}, {"outcome", "claimed"}};
      return op;
    };
    // A client's life after a claim: wait for prepared or ready, mark its workload ready, look again.
    for (int n = f.status_ops ? static_cast<int>(g.below(3)) : 0; n > 0; --n) {
      switch (g.below(5)) {
        case 0:
          s.push_back(guard({{"op", "observe"}}));
          break;
        case 1:
        case 2:
          s.push_back(guard({{"op", "await"}, {"status", g.pick(kAwaited)}, {"polls_max", g.range(1, 3)}}));
          break;
        case 3:
          s.push_back(guard({{"op", "mark_ready"}}));
          break;
        default:
          s.push_back(guard({{"op", "reconcile"}, {"status", g.pick(kStatuses)}}));
          break;
      }
    }
    // The flow's own pod lands on its claim's node: only a one-node cluster says which node that is, and
    // only after a claim (a pod bound without one breaks capacity-within-cards by construction).
    // Its card is taken from the kubelet's: the shrinker may drop the reserve (and with it the `when`), and
    // the pods alone must still fit.
    if (f.binds && c.names.size() == 1 && c.free[0] > 0 && g.chance(1, 3)) {
      c.free[0] -= 1;
      s.push_back({{"op", "bind_workload"},
                   {"node", c.names[0]},
                   {"workload", fmt::format("{}{}a", prefix, k)},
                   {"units", 1},
                   {"when", {{"op", at}, {"outcome", "claimed"}}}});
    }
    if (f.release && (k + 1 == reserves || g.chance(1, 2))) {
      Json op = {{"op", "release"}};
      if (f.binds && g.chance(1, 4)) op["keep_workloads"] = true;
      s.push_back(guard(std::move(op)));
    }
  }
  if (f.status_ops && g.chance(1, 4)) s.push_back({{"op", "observe"}});
  return s;
}

/// flowX's leftover claim (SwarmFeatures::leftover_claim): the last card (ordinal gpu_count-1) of each node flowX
/// stamped that has a free card, at the stamps' epoch, so each stamp is the claim's; null when no stamped node has
/// a free card. The card is taken out of the free ones, which the kubelet's pods must fit in. A stamped node left
/// without a card keeps a claimless stamp (c.stale_stamp stays).
Json leftover_claim(Cluster& c) {
  Json devices = Json::array();
  bool claimless = false;
  for (const size_t i : c.stamped) {
    if (c.free[i] < 1) {
      claimless = true;
      continue;
    }
    c.free[i] -= 1;
    devices.push_back({{"node", c.names[i]}, {"ordinal", c.cards[i] - 1}});
  }
  c.stale_stamp = claimless;
  if (devices.empty()) return Json();
  return {{"id", "leftover-flowX"},
          {"owner", "flowX"},
          {"generation", "gen-flowX-2"},
          {"assignments", {{"pod-flowX", std::move(devices)}}}};
}

/// The extended resource a kubelet's pod on node `node` of `nodes` asks (SwarmFeatures::bind_resource): on a product
/// with a MIG table, half the time its smallest slice, else whole cards.
std::string pod_resource(Gen& g, const Json& nodes, const std::string& node) {
  for (const Json& n : nodes)
    if (n["name"] == node)
      if (const backend::MigFamily* family = backend::find_family(n["product"].get<std::string>());
          family && !family->profiles.empty() && g.chance(1, 2))
        return "nvidia.com/mig-" + family->profiles.front().name;
  return "nvidia.com/gpu";
}

/// The scenario of `seed`; `f` gets its features as the file has them (one needing what the file lacks is off).
Json generate(uint64_t seed, SwarmFeatures& f) {
  Gen g(seed);
  f = draw_features(g);
  LateStreams late(seed, f);
  Gen& g2 = late.of(&SwarmFeatures::flow_clock);
  SwarmFeatures written;  // the late features that wrote something into the file (keep_written)
  Cluster c;
  Json nodes = make_nodes(g, f, c);
  Json leftover = f.leftover_claim ? leftover_claim(c) : Json();
  f.leftover_claim = !leftover.is_null();  // named among the features only when the file has the claim
  // Roles besides flows, in a fixed order; each present at most once.
  std::vector<std::string> roles;
  if (f.recover) roles.emplace_back("ctl");  // first: it always gets a slot
  if (f.binds) roles.emplace_back("kubelet");
  if (f.foreign_writes) roles.emplace_back("operator");
  if (f.read_faults || f.geometry_faults) roles.emplace_back("chaos");
  if (f.clock) roles.emplace_back("clock");
  const int actors = g.range(2, 4);
  std::vector<std::string> side;
  for (const auto& r : roles)
    if (static_cast<int>(side.size()) + 1 < actors && (r == "ctl" || g.chance(2, 3))) side.push_back(r);
  std::vector<std::string> flows;
  for (int i = 0; i < actors - static_cast<int>(side.size()); ++i) flows.emplace_back(1, static_cast<char>('A' + i));
  // The one flow that may fault, and that ctl recovers.
  const std::string faulty = f.barrier_faults ? "flow" + g.pick(flows) : "";
  Json list = Json::array();
  std::vector<std::string> workloads = c.start_workloads;
  for (const auto& fl : flows) list.push_back({{"name", "flow" + fl}, {"script", flow_script(g, g2, f, c, fl, flows)}});
  for (Json& flow : list)  // on the flows' own pods only
    for (Json& op : flow["script"])
      if (f.claimed_binds && op["op"] == "bind_workload") {
        op.erase("units");
        Gen& claims = late.of(&SwarmFeatures::claimed_binds);
        op["claim"] = flows.size() > 1 && claims.chance(1, 4) ? Json("flow" + claims.pick(flows)) : flow["name"];
        written.claimed_binds = true;
      }
  // The operator's script first: a card it relabels away is one the kubelet's pods must leave free.
  Json operator_ops =
      std::find(side.begin(), side.end(), "operator") != side.end() ? swarm_draw::operator_script(g, c) : Json();
  for (const auto& r : side) {
    Json s;
    if (r == "kubelet") {
      s = swarm_draw::kubelet_script(g, c, workloads);
      if (f.admission_reject) {
        s = swarm_draw::with_admission_reject(std::move(s), list, c,
                                              late.of(&SwarmFeatures::admission_reject).range(1, 2));
        written.admission_reject = true;
      }
      for (Json& op : s)  // on the pods' binds only
        if (Gen& res = late.of(&SwarmFeatures::bind_resource);
            f.bind_resource && op["op"] == "bind_workload" && res.chance(1, 2)) {
          op["resource"] = pod_resource(res, nodes, op["node"].get<std::string>());
          written.bind_resource = true;
        }
      for (Json& op : s)  // on the pods' binds and unbinds only
        if (f.bind_behind && (op["op"] == "bind_workload" || op["op"] == "unbind_workload") &&
            late.of(&SwarmFeatures::bind_behind).chance(1, 2)) {
          op["behind"] = true;
          written.bind_behind = true;
        }
    }
    if (r == "operator") s = operator_ops;
    if (r == "operator" && f.operand_pause) {  // appended
      Gen& pause = late.of(&SwarmFeatures::operand_pause);
      const std::string& node = pause.pick(c.names);
      s.push_back(
          {{"op", "set_labels"}, {"node", node}, {"set", {{kDeployDevicePluginLabel, "paused-for-mig-change"}}}});
      if (pause.chance(1, 2))
        s.push_back({{"op", "set_labels"}, {"node", node}, {"set", {{kDeployDevicePluginLabel, "true"}}}});
      written.operand_pause = true;
    }
    if (r == "chaos") {
      s = swarm_draw::chaos_script(g, f, c, workloads);
      for (Json& op : s)  // on the partial_reads ops only
        if (f.release_listing && op["op"] == "partial_reads") {
          op["listings"] = late.of(&SwarmFeatures::release_listing).chance(1, 2)
                               ? Json::array({"release"})
                               : Json::array({"inventory", "release"});
          written.release_listing = true;
        }
      for (Json& op : s)  // on the partial_reads ops that list for inventories
        if (f.hidden_devices && op["op"] == "partial_reads" &&
            (!op.contains("listings") || op["listings"].front() == "inventory")) {
          Gen& hide = late.of(&SwarmFeatures::hidden_devices);
          const size_t i = hide.below(c.names.size());
          op["devices"] = Json::array({{{"node", c.names[i]}, {"ordinal", hide.below(size_t(c.cards[i]))}}});
          written.hidden_devices = true;
        }
      if (f.partial_apply) {  // appended
        Gen& partial = late.of(&SwarmFeatures::partial_apply);
        s.push_back({{"op", "geometry_partial"}, {"node", partial.pick(c.names)}, {"applies", partial.range(1, 2)}});
        written.partial_apply = true;
      }
    }
    if (r == "clock")
      for (int k = g.range(1, 2); k > 0; --k) s.push_back({{"op", "advance_clock"}, {"seconds", 5}});
    if (r == "ctl") s = Json::array({{{"op", "recover"}, {"flow", faulty}}});
    list.push_back({{"name", r}, {"script", std::move(s)}});
  }
  // flowB a replica of flowA (shared_owner): `owner` between the name and the script, as a file
  // is written back (scenario_json.cpp).
  f.shared_owner = f.shared_owner && flows.size() >= 2;
  if (f.shared_owner)
    list[1] = Json{{"name", list[1]["name"]}, {"owner", list[0]["name"]}, {"script", list[1]["script"]}};
  // Last, so that every other actor keeps its place.
  if (f.sweeper) {
    Json sweep = {{"op", "recover"}, {"flow", "flow" + late.of(&SwarmFeatures::sweeper).pick(flows)}, {"wait", false}};
    // A lease only where some actor moves the clock: elsewhere it could never expire.
    f.leased_sweeper = f.leased_sweeper && moves_clock(list);
    if (f.leased_sweeper) {
      sweep.erase("wait");
      sweep["lease_seconds"] = late.of(&SwarmFeatures::leased_sweeper).chance(1, 2) ? 5 : 10;
    }
    list.push_back({{"name", "sweeper"}, {"script", Json::array({std::move(sweep)})}});
  }
  keep_written(f, written);
  std::string feat;
  for (const auto& n : f.names()) feat += (feat.empty() ? "" : ", ") + n;
  Json doc = {{"schema", "allocsim/scenario/v1"},
              {"name", fmt::format("swarm-{}", seed)},
              {"description", fmt::format("Generated by allocsim swarm from seed {}; features: {}.", seed, feat)}};
  // MIG products under every authority (F1 is a dra scenario with isolated_mig requests); managed-mig two
  // thirds of the time when the cluster is MIG-capable, since only it carves geometry.
  const std::vector<std::string> others = {backend::kAuthorityDevicePlugin, backend::kAuthorityDra,
                                           backend::kAuthorityLocal};
  doc["backend"] = {{"authority",
                     f.mig && g.chance(2, 3) ? std::string(backend::kAuthorityManagedMig) : g.pick(others)},
                    {"mig_apply_seconds", f.clock || f.flow_clock ? 5 : 0},
                    {"mutants", Json::array()}};
  doc["nodes"] = std::move(nodes);
  if (!leftover.is_null()) doc["claims"] = Json::array({std::move(leftover)});
  doc["actors"] = std::move(list);
  // A stale stamp models an incident's unrecovered state on purpose (F5: no recovery can clear it). The healing
  // phase would report it at the end of every execution, and the swarm stops at a scenario's first violation, so
  // it would hide whatever else the scenario finds: such a scenario leaves the phase out (docs/DESIGN.md §5,
  // "The healing phase").
  if (c.stale_stamp)
    doc["invariants"] = {{"all_except", {"heals-after-faults"}}};
  else
    doc["invariants"] = "all";
  doc["expect"] = {{"outcome", "pass"}};
  if (f.barrier_faults) doc["faults"] = swarm_draw::make_faults(g, f, faulty);
  return doc;
}

}  // namespace

SwarmFeatures swarm_features(uint64_t seed) {
  SwarmFeatures f;
  generate(seed, f);
  return f;
}

nlohmann::ordered_json generate_scenario(uint64_t seed) {
  SwarmFeatures f;
  return generate(seed, f);
}

}  // namespace allocsim::harness
