// Every change a step makes to the backend's state is in that step's footprint as a write (docs/DESIGN.md §2, "DPOR
// must never hide a violation"). The port reaches its state only through FootprintedState's accessors, so this holds
// by construction; these tests check it from outside, by comparing the state object by object at every step boundary
// (each barrier, and the end of each call) over random sequences of every backend call, with other actors' writes run
// at random barriers (backend calls, and label, map and pointer writes through the accessors the harness's foreign
// writes use). Reads are not checked here: only a write changes a value to compare.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backend/model/memory_backend_idioms.h"
#include "sim/prng.h"
#include "tests/backend/backend_fixtures.h"

namespace allocsim::backend::testing {
namespace {

using Key = std::pair<Obj, std::string>;
using Objects = std::map<Key, std::string>;

std::string text(const std::optional<std::string>& s) { return s ? "'" + *s + "'" : "None"; }

/// The state as one value per footprint object (footprinted_state.h's list): two states differ in an object's value
/// exactly when a write of that object could have made the difference.
Objects objects(const BackendState& s) {
  Objects o;
  for (const NodeFixture& n : s.nodes)
    o[{Obj::Node, n.name}] =
        fmt::format("{} {} {} {} {} {} {} {} {} {} {}", fmt::join(n.labels.get(), ","), text(n.owner),
                    text(n.owner_epoch), n.resource_version, n.mig_config, n.mig_state, n.mig_state_generation,
                    fmt::join(n.mig_layout, ","), fmt::join(n.workloads, ","), text(n.restore_record), n.gpu_count);
  std::vector<std::string> ids;
  for (const Claim& c : s.claims) {
    ids.push_back(c.claim_id);
    std::vector<std::string> grant;
    for (const auto& [workload, devices] : c.plan.assignments)
      for (const DeviceIdentity& d : devices)
        grant.push_back(workload + "@" + d.node.value_or("") + "/" + text(d.uuid));
    o[{Obj::Claim, c.claim_id}] =
        fmt::format("{} {} {} {} {} {} {} {} {} {} {}", c.owner, fmt::join(grant, ","), fmt::join(c.plan.geometry, ","),
                    c.generation, fmt::join(c.nodes, ","), c.status, c.workload_ready, c.entry_name, c.op_id,
                    c.releasing, fmt::join(c.label_versions, ","));
  }
  o[{Obj::Claim, ""}] = fmt::format("{}", fmt::join(ids, ","));
  std::vector<std::string> entries;
  for (const auto& [entry, members] : s.shared_config)
    entries.push_back(fmt::format("{}={}", entry, fmt::join(members, ",")));
  o[{Obj::SharedMap, port::kMapName}] = fmt::format("{} {} {} {}", fmt::join(entries, ";"), s.shared_config_version,
                                                    s.shared_tombstone, s.shared_map_deleted);
  o[{Obj::Pointer, port::kPolicyName}] = fmt::format("{} {} {}", s.pointer, s.pointer_version, text(s.pointer_restore));
  o[{Obj::Clock, port::kClockName}] = fmt::format("{} {}", s.clock.now(), s.clock.time());
  std::vector<std::string> pending;
  for (const PendingGeometry& p : s.pending_geometry)
    pending.push_back(fmt::format("{}@{}:{}", p.node, p.due, p.version));
  o[{Obj::Clock, port::kPendingName}] = fmt::format("{}", fmt::join(pending, ","));
  for (const char* kind : {"nodes", "pods", "config"}) {
    const std::string* reason = find_in(s.failed_reads, std::string(kind));
    o[{Obj::FailedReads, kind}] = reason ? *reason : "-";
  }
  o[{Obj::FailedReads, port::kReleasePodsName}] =
      fmt::format("{} {}", fmt::join(s.release_pods_hidden.workloads, ","), s.release_pods_hidden.reads);
  for (const NodeFixture& n : s.nodes) {
    const auto in = [&n](const std::vector<std::string>& v) {
      return std::find(v.begin(), v.end(), n.name) != v.end();
    };
    const double* until = find_in(s.failing_geometry_until, n.name);
    const int* partial = find_in(s.partial_geometry, n.name);
    o[{Obj::FailingGeometry, n.name}] = fmt::format("{} {} {} {}", in(s.failing_geometry), until ? *until : -1.0,
                                                    in(s.hollow_geometry), partial ? *partial : 0);
  }
  std::vector<std::string> audit;
  for (const Mutation& m : s.audit) audit.push_back(m.op_id + " " + m.kind + " " + m.target + " " + m.detail);
  o[{Obj::Audit, ""}] = fmt::format("{}", fmt::join(audit, ";"));
  return o;
}

/// The group of footprint objects `key` belongs to: what the checks below count and the control leaves out, one group
/// per accessor family of footprinted_state.h.
std::string group(const Key& key) {
  switch (key.first) {
    case Obj::Node:
      return "node";
    case Obj::Claim:
      return key.second.empty() ? "claim table" : "claim";
    case Obj::SharedMap:
      return "shared map";
    case Obj::Pointer:
      return "pointer";
    case Obj::Clock:
      return key.second == port::kPendingName ? "pending geometry" : "clock";
    case Obj::FailedReads:
      return key.second == port::kReleasePodsName ? "release-pods hook" : "read failure";
    case Obj::FailingGeometry:
      return "geometry faults";
    case Obj::Audit:
      return "audit";
    default:
      return "other";
  }
}

/// Every group above.
const std::vector<std::string> kGroups =
    {"node",         "claim table",       "claim",           "shared map", "pointer", "clock", "pending geometry",
     "read failure", "release-pods hook", "geometry faults", "audit"};

/// A caller that checks, at every step boundary, that each object whose value changed since the last boundary (or
/// that appeared or went) was touched as a write in between; `dropped` names a group whose writes it leaves
/// unrecorded (the control).
class WriteChecker : public SequentialCaller {
 public:
  WriteChecker(MemoryBackend& b, sim::Prng& prng, std::string dropped)
      : b_(b), prng_(prng), dropped_(std::move(dropped)) {
    before_ = objects(b_.state());
  }

  BarrierHit barrier(std::string_view name, std::string detail) override {
    boundary(name);
    if (prng_.below(3) == 0) other_actor();
    return SequentialCaller::barrier(name, std::move(detail));
  }
  void touch(Obj what, std::string_view name, bool write) override {
    Key key{what, std::string(name)};
    if (write && group(key) != dropped_) written_.insert(std::move(key));
  }

  /// A step ends at `where`: every changed object must have been written.
  void boundary(std::string_view where) {
    Objects now = objects(b_.state());
    std::set<Key> keys;
    for (const auto& [key, value] : before_) keys.insert(key);
    for (const auto& [key, value] : now) keys.insert(key);
    for (const Key& key : keys) {
      const auto old = before_.find(key), cur = now.find(key);
      if (old != before_.end() && cur != now.end() && old->second == cur->second) continue;
      changed.insert(group(key));
      if (!written_.count(key))
        missed.push_back(fmt::format("at {}: ({}, {}) changed without a write in the footprint", where,
                                     static_cast<int>(key.first), key.second));
    }
    before_ = std::move(now);
    written_.clear();
  }

  std::vector<std::string> missed;
  std::set<std::string> changed;  // the groups with an object that changed, each change checked

 private:
  /// Another actor's step between two of this call's steps: one write with no barrier of its own, through the
  /// backend's calls or, as the harness's foreign writes do, through its footprinting accessors.
  void other_actor() {
    const std::string node = prng_.below(2) ? "n1" : "n2";
    FootprintedState& state = b_.footprinted();
    switch (prng_.below(9)) {
      case 0:
        b_.bind_workload(*this, node, "foreign", 1);
        break;
      case 1:
        b_.unbind_workload(*this, node, "foreign");
        break;
      case 2:
        b_.shift_resource_version(*this, node, 1);
        break;
      case 3:
        b_.fail_reads(*this, prng_.below(2) ? "config" : "pods",
                      prng_.below(2) ? std::optional<std::string>("timeout") : std::nullopt);
        break;
      case 4:
        b_.hide_from_release(*this, {"w", "foreign"}, 1);
        break;
      case 5:
        put_in(state.node_for_write(*this, node).labels.edit(), std::string("foreign"), std::string("1"));
        break;
      case 6: {
        FootprintedState::SharedMapFields map = state.shared_map_for_write(*this);
        put_in(map.entries, std::string("foreign-entry"), OrderedMap<std::string, int>{{node, 1}});
        map.version += 1;
        break;
      }
      case 7: {
        FootprintedState::PointerFields pointer = state.pointer_for_write(*this);
        pointer.pointer = "foreign-config";
        pointer.version += 1;
        break;
      }
      default:
        b_.advance_clock(*this, 1);
        break;
    }
    boundary("another actor's write");
  }

  MemoryBackend& b_;
  sim::Prng& prng_;
  std::string dropped_;
  Objects before_;
  std::set<Key> written_;
};

/// `calls` random backend calls on two 2-card A100 nodes, each checked by `c`.
void run_calls(MemoryBackend& b, WriteChecker& c, sim::Prng& prng, int calls) {
  std::vector<std::pair<std::string, std::string>> claims;  // (id, generation) reserved so far
  std::optional<InventorySnapshot> old;
  int op = 0;
  for (int i = 0; i < calls; ++i) {
    const std::string node = prng.below(2) ? "n1" : "n2";
    const std::string flow = prng.below(2) ? "flowA" : "flowB";
    const std::string op_id = fmt::format("{}:op{}", flow, ++op);
    try {
      switch (prng.below(12)) {
        case 0:
        case 1:
        case 2: {  // plan and reserve, sometimes on an older inventory
          auto inv = b.inventory(c, std::nullopt);
          if (!inv.known) break;
          if (!old || prng.below(2)) old = inv.value;
          const std::vector<WorkloadRequest> requests = prng.below(2)
                                                            ? std::vector<WorkloadRequest>{req("w", 1, flow)}
                                                            : std::vector<WorkloadRequest>{mig_req("w", 10, flow)};
          const PlanOutcome plan = b.plan(c, requests, *old);
          if (const auto* p = std::get_if<FeasiblePlan>(&plan)) {
            ReserveLoss loss;
            ClaimObservation obs;
            b.try_reserve_into(c, *p, op_id, p->snapshot_generation, loss, obs);
            if (!loss) claims.emplace_back(obs.claim_id, obs.desired_generation);
          }
          break;
        }
        case 3:
        case 4:
          if (!claims.empty()) {
            const auto& [id, gen] = claims[prng.below(claims.size())];
            b.release(c, id, op_id, prng.below(4) ? gen : "gen-0", prng.below(5) == 0);
          }
          break;
        case 5:
          if (!claims.empty()) {
            const auto& [id, gen] = claims[prng.below(claims.size())];
            b.observe(c, id);
            b.claims_of(c, flow);
            if (b.state().claim(id) != nullptr) {
              b.mark_workload_ready(c, id);
              b.bindings(c, id, "w");
              if (prng.below(2)) b.reconcile(c, id, prng.below(2) ? "failed" : "ready", gen);
            }
          }
          break;
        case 6:
          b.bind_workload(c, node, "w", 1);
          break;
        case 7:
          b.unbind_workload(c, node, "w");
          break;
        case 8:
          b.advance_clock(c, static_cast<double>(prng.below(4)));
          b.apply_pending_geometry(c);
          break;
        case 9:
          b.fail_reads(c, prng.below(2) ? "nodes" : "config",
                       prng.below(2) ? std::optional<std::string>("timeout") : std::nullopt);
          break;
        case 10:
          switch (prng.below(4)) {
            case 0:
              b.fail_geometry(c, node);
              break;
            case 1:
              b.fail_geometry_for(c, node, 2);
              break;
            case 2:
              b.geometry_without_effect(c, node);
              break;
            default:
              b.geometry_partial(c, node, 1);
              break;
          }
          break;
        default:
          b.hide_from_release(c, {"w"}, 1 + static_cast<int>(prng.below(2)));
          break;
      }
    } catch (const std::out_of_range&) {
      // A mutant's KeyError (strict-claim-lookup): the effects before it still count. (A porting rule's
      // PortRuleBroken is a logic_error, and fails the test.)
    } catch (const OwnershipConflict&) {
      // A reconcile's lost generation, likewise.
    }
    c.boundary("the end of a call");
  }
}

struct Findings {
  std::vector<std::string> missed;
  std::set<std::string> changed;
};

/// The findings of random sequences of 40 calls on three authorities, with and without a delayed apply: `seeds`
/// sequences with no mutant, and `seeds / 4` (at least 1) under each mutant (their defects are other paths through the
/// same accessors) but release-spins-on-busy-nodes, which spins with no other actor to end its wait.
Findings check_writes(const std::string& dropped, uint64_t seeds) {
  Findings f;
  std::vector<std::optional<Mutant>> configs = {std::nullopt};
  for (const MutantInfo& m : mutant_table())
    if (m.id != Mutant::ReleaseSpinsOnBusyNodes) configs.push_back(m.id);
  for (const std::optional<Mutant>& m : configs)
    for (uint64_t seed = 1; seed <= (m ? std::max<uint64_t>(1, seeds / 4) : seeds); ++seed)
      for (const char* authority : {kAuthorityManagedMig, kAuthorityDevicePlugin, kAuthorityDra})
        for (const double apply : {0.0, 5.0}) {
          sim::Prng prng(seed);
          BackendOptions o = opts(authority, apply);
          o.release_read_hook = true;  // hide_from_release is among the calls
          if (m) o.mutants.add(*m);
          MemoryBackend b({a100_node("n1"), a100_node("n2")}, o);
          WriteChecker c(b, prng, dropped);
          run_calls(b, c, prng, 40);
          f.changed.insert(c.changed.begin(), c.changed.end());
          f.missed.insert(f.missed.end(), c.missed.begin(), c.missed.end());
        }
  return f;
}

TEST_CASE("footprints: every object a step changes is a write in that step's footprint", "[footprints]") {
  const Findings f = check_writes("", 24);
  for (const std::string& m : f.missed) UNSCOPED_INFO(m);
  CHECK(f.missed.empty());
  // Every group of objects changed somewhere, so each group's writes were checked.
  CHECK(f.changed == std::set<std::string>(kGroups.begin(), kGroups.end()));
}

TEST_CASE("footprints: the write check sees each group of objects' writes go missing", "[footprints]") {
  // The control: with one group's writes left out of the footprint, the same sequences report missed writes.
  for (const std::string& dropped : kGroups) {
    INFO("writes of " << dropped << " left out");
    CHECK_FALSE(check_writes(dropped, 8).missed.empty());
  }
}

}  // namespace
}  // namespace allocsim::backend::testing
