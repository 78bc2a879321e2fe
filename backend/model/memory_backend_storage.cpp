// MemoryBackend's state lookups and recycled storage: BackendState's lookups by name, the upstream's `_record`, and
// the spare lists (spares.h) that new claims, audit entries and map entries take their buffers
// from. Line numbers in comments refer to seed/memory_backend_reindented.py.
#include <atomic>
#include <stdexcept>

#include "backend/model/memory_backend.h"

#include "backend/model/barriers.h"

namespace allocsim::backend {

// -- state lookups ------------------------------------------------------------------------------

uint64_t StampedLabels::fresh_stamp() {
  // Only ever compared for equality (labels_class): which number a write gets decides nothing else, so a
  // counter shared by the sweep's threads keeps every run deterministic.
  static std::atomic<uint64_t> last{0};
  return last.fetch_add(1, std::memory_order_relaxed) + 1;
}

std::string_view MemoryBackend::classify_labels(size_t node, const StampedLabels& labels) {
  std::vector<LabelClass>& memo = label_classes_.get();
  if (memo.size() <= node) memo.resize(node + 1);
  LabelClass& m = memo[node];
  m.stamp = labels.stamp();
  m.result = gfd_class(labels.get());
  m.known = true;
  return m.result;
}

std::string NodeFixture::classification() const {
  if (!mig_layout.empty()) return kClassMig;
  return classify_gfd_labels(labels.get());
}

const NodeFixture* BackendState::node(std::string_view name) const {
  for (const auto& n : nodes)
    if (n.name == name) return &n;
  return nullptr;
}
NodeFixture* BackendState::node(std::string_view name) {
  return const_cast<NodeFixture*>(static_cast<const BackendState*>(this)->node(name));
}
const Claim* BackendState::claim(std::string_view id) const {
  for (const auto& c : claims)
    if (c.claim_id == id) return &c;
  return nullptr;
}
Claim* BackendState::claim(std::string_view id) {
  return const_cast<Claim*>(static_cast<const BackendState*>(this)->claim(id));
}

void poison(Claim& claim) {
  poison(claim.claim_id);
  poison(claim.owner);
  poison(claim.plan);
  poison(claim.generation);
  poison(claim.nodes);
  poison(claim.status);
  poison(claim.workload_ready);
  poison(claim.entry_name);
  poison(claim.op_id);
  poison(claim.releasing);
  poison(claim.label_versions);
}

bool MemoryBackend::barrier_known(std::string_view name) { return is_barrier(name); }

// -- claim storage ------------------------------------------------------------------------------------------

Claim MemoryBackend::new_claim() {
  Claim fresh;  // every field as the upstream's `_Claim(...)` starts it
  // Only the buffers of fields try_reserve_into assigns in full right after, and of those it starts empty
  // (cleared here): their old contents never show.
  spare_claims_.take_parts([&fresh](Claim& old) {
    fresh.claim_id.swap(old.claim_id);
    fresh.owner.swap(old.owner);
    fresh.plan = std::move(old.plan);
    fresh.generation.swap(old.generation);
    fresh.nodes.swap(old.nodes);
    fresh.op_id.swap(old.op_id);
    fresh.entry_name.swap(old.entry_name);
    fresh.entry_name.clear();
    fresh.label_versions.swap(old.label_versions);
    fresh.label_versions.clear();
  });
  return fresh;
}

void MemoryBackend::assign_plan(FeasiblePlan& to, const FeasiblePlan& from) {
  static_assert(sizeof(FeasiblePlan) == 136, "FeasiblePlan changed: assign the new field in assign_plan");
  to.assignments = from.assignments;
  to.geometry = from.geometry;
  to.snapshot_generation = from.snapshot_generation;
  to.plan_id = from.plan_id;
  assign_keeping(to.notes, from.notes, spare_texts_);
}

void MemoryBackend::recycle_state() {
  BackendState& s = s_.untracked();  // a world reset: no actor is inside the backend
  for (Claim& cl : s.claims) spare_claims_.give(std::move(cl));
  s.claims.clear();
  for (Mutation& m : s.audit) spare_mutations_.give(std::move(m));
  s.audit.clear();
  for (auto& entry : s.shared_config) spare_entries_.give(std::move(entry));
  s.shared_config.clear();
  if (s.pointer_restore) spare_texts_.give(std::move(*s.pointer_restore));
  s.pointer_restore.reset();
}

void MemoryBackend::erase_entry(SharedConfig& entries, const std::string& entry) {
  for (auto it = entries.begin(); it != entries.end(); ++it)
    if (it->first == entry) {
      spare_entries_.give(std::move(*it));
      entries.erase(it);
      return;
    }
}

// The upstream's `_record` (lines 525-528).
void MemoryBackend::record(Caller& c, const std::string& op_id, std::string_view kind, std::string_view target,
                           std::string_view detail) {
  std::vector<Mutation>& audit = s_.audit_for_write(c);
  Mutation m = spare_mutations_.take();  // every field assigned: a spare's old contents never show
  m.op_id.assign(op_id);
  m.kind.assign(kind);
  m.target.assign(target);
  m.detail.assign(detail);
  audit.push_back(std::move(m));
}

}  // namespace allocsim::backend
