#include "backend/ops/actor_caller.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "backend/model/barriers.h"
#include "backend/world/object_ids.h"
#include "backend/world/state_digest.h"

namespace allocsim::harness {

using sim::PointKind;

backend::BarrierHit ActorCaller::barrier(std::string_view name, std::string detail) { return fire(name, detail); }

// The buffer is the actor's and outlives the execution: formatting a detail allocates nothing once it has
// grown to the longest detail. The engine copies it at the point, before the actor can fire another.
std::string& ActorCaller::detail_buffer() { return st_.detail_scratch; }

backend::BarrierHit ActorCaller::barrier_detail(std::string_view name, const std::string& detail) {
  return fire(name, detail);
}

namespace {

/// Barriers one actor of an op-level execution may pass (ActorCaller::op_level_barrier): far more than any script
/// fires, so that only an op that never returns reaches it.
constexpr uint64_t kOpLevelBarriers = 100'000;

/// barrier_table()'s names as views, measured once: compared or passed on as `const char*`, each was measured
/// (strlen) at every barrier, a tenth of a barrier's harness cost (tools/bench/README.md, "Session 18").
const std::vector<std::string_view>& barrier_name_views() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> v;
    for (const backend::Named& b : backend::barrier_table()) v.emplace_back(b.name);
    return v;
  }();
  return names;
}

}  // namespace

backend::BarrierHit ActorCaller::fire(std::string_view name, const std::string& detail) {
  const auto& names = barrier_name_views();
  for (size_t i = 0; i < names.size(); ++i) {
    if (name != names[i]) continue;
    ++w_.barrier_hits_[i];
    if (!w_.c_.atomic_ops)
      ctx_.point(PointKind::Barrier, names[i], detail);  // the barrier table's names are static
    else
      op_level_barrier(names[i], detail);
    return fault_at(i);
  }
  // Upstream's faults.barrier raises UnknownBarrier for a name outside BARRIERS.
  throw std::invalid_argument(fmt::format("unknown barrier '{}'", name));
}

// In an op-level execution (CompiledScenario::atomic_ops; docs/DESIGN.md §5, "Op atomicity") a barrier is no
// scheduling point: the op runs on to its end. What another writer could do between a reserve's read of a node and
// its compare-and-swap is drawn instead: either nothing or an update of that node's version (shift_resource_version),
// after which the reserve's own code loses its CAS and rolls back, as a barrier-level execution's reserve does. The
// script runner takes the update back when the reserve ends (undo_concurrent_update).
void ActorCaller::op_level_barrier(std::string_view name, const std::string& detail) {
  // A stale read's "K writes ago" counts the steps that wrote (read_faults.h): the op's steps of a barrier-level
  // execution end here, so the history is recorded here as well.
  if (w_.read_faults.enabled) w_.read_faults.after_step(w_.backend_.state());
  // An op that never returns (the release-spins-on-busy-nodes mutant) has no scheduling point left to stop it at.
  if (++op_level_barriers_ > kOpLevelBarriers)
    throw std::runtime_error(fmt::format("an op-level execution passed {} barriers in one actor", kOpLevelBarriers));
  if (name != "owner.read.after") return;
  // The barrier's detail begins "node=NAME " (memory_backend_reserve.cpp, reserve_stamp_node).
  constexpr std::string_view kNode = "node=";
  if (!detail.starts_with(kNode)) throw std::logic_error("owner.read.after without its node: " + detail);
  const size_t end = detail.find(' ');
  const std::string node = detail.substr(kNode.size(), end == std::string::npos ? end : end - kNode.size());
  if (!concurrent_node_.empty() || ctx_.draw(2) == 0) return;  // one stand-in per reserve: its CAS is lost then
  ctx_.note("op-level=concurrent-update");
  shift_uncounted(node, +1);
  concurrent_node_ = node;
}

void ActorCaller::undo_concurrent_update() {
  if (concurrent_node_.empty()) return;
  shift_uncounted(concurrent_node_, -1);
  concurrent_node_.clear();
}

// The stand-in is no write a barrier-level execution makes, so a stale read's count of writes (read_faults.h) leaves
// it out.
void ActorCaller::shift_uncounted(const std::string& node, int64_t by) {
  const uint64_t writes = w_.read_faults.writes;
  w_.backend_.shift_resource_version(*this, node, by);
  w_.read_faults.writes = writes;
}

void ActorCaller::lock() { w_.lock_.lock(ctx_); }
void ActorCaller::unlock() { w_.lock_.unlock(); }

void ActorCaller::touch(backend::Obj what, std::string_view name, bool write) {
  // Audit appends commute: no invariant reads the log's order, only the entries a step added, so
  // treating appends as conflicting writes would make every pair of mutating steps dependent.
  if (what == backend::Obj::Audit) return;
  if (write) w_.memo.dirty.write(what, name, w_.c_.node_index);  // dirty.h: what the next check re-runs
  if (write && (what == backend::Obj::Node || what == backend::Obj::Claim)) ++w_.read_faults.writes;  // read_faults.h
  if (!records_reads_) return;  // nothing records the footprint: skip hashing the id
  if (what == backend::Obj::Claim && w_.symmetric()) note_touched_claim(w_, name);  // state_digest.h
  ctx_.touch(object_id(what, name), write);
  // The visibility condition (docs/DESIGN.md §2): invariants are checked after every step, and several read more
  // than one object (single-ownership: nodes and claims; no-orphaned-geometry: nodes, claims and the map;
  // shared-map-never-deleted: the map and the pointer; stale-plan-writes-nothing: claims). Two steps that
  // write different ones of those commute in their final state but not in the state checked between them,
  // so a write to any of them also writes one shared object, making such writes dependent. Conservative
  // (soundness over reduction); reads, and writes of the clock, read-failure flags and failing-geometry
  // set (which no invariant reads), stay independent.
  if (write && (what == backend::Obj::Node || what == backend::Obj::Claim || what == backend::Obj::SharedMap ||
                what == backend::Obj::Pointer))
    ctx_.touch(invariant_visible_id(), true);
}

std::string ActorCaller::next_id(std::string_view kind) {
  // Formatted on the stack, then copied once (most ids fit a string's own buffer: no allocation). Through a
  // back_inserter the text grew a character at a time, and format_to_n checks its bound at every character:
  // the size is bounded here instead (20: a long's 19 digits and its sign).
  const long counter = ++st_.id_counter;
  char buf[96];
  std::string id;
  if (kind.size() + st_.name.size() + 2 + 20 <= sizeof buf)
    id.assign(buf, fmt::format_to(buf, FMT_COMPILE("{}-{}-{}"), kind, st_.name, counter));
  else
    id = fmt::format(FMT_COMPILE("{}-{}-{}"), kind, st_.name, counter);
  if (kind == "gen") st_.op_epoch = id;
  return id;
}

/// The fault choice at barrier_table()[index] (FaultSpec): a draw over {none, its actions} while under the
/// bound. Crash and raise throw; drop_response marks the op and lets the call complete.
backend::BarrierHit ActorCaller::fault_at(size_t index) {
  const FaultSpec& f = w_.c_.scenario->faults;
  if (!f.eligible(st_.name)) return {};
  const char* barrier = backend::barrier_table()[index].name;
  const auto* actions = backend::find_in(f.barriers, barrier_name_views()[index]);
  if (actions == nullptr || !fault_budget_left()) return {};
  const uint64_t v = ctx_.draw(1 + actions->size());
  if (v == 0) return {};
  count_fault();
  const FaultAction action = (*actions)[v - 1];
  fmt::memory_buffer note;  // on the stack: notes are short
  fmt::format_to(std::back_inserter(note), "fault={}", fault_action_name(action));
  ctx_.note(std::string_view(note.data(), note.size()));
  switch (action) {
    case FaultAction::Crash:
      st_.crashed = barrier;
      st_.outcomes[st_.op_index] = "crashed";  // run() never gets to assign this op's outcome
      throw sim::ActorCrash{barrier};
    case FaultAction::Raise:
      throw InjectedError(barrier);
    case FaultAction::DropResponse:
      dropped = true;
      return {.drop_response = true};
  }
  return {};
}

bool ActorCaller::fault_budget_left() {
  ctx_.touch(faults_fired_id(), false);
  return w_.faults_fired_ < w_.c_.scenario->faults.max;
}

void ActorCaller::count_fault() {
  ctx_.touch(faults_fired_id(), true);
  ++w_.faults_fired_;
}

}  // namespace allocsim::harness
