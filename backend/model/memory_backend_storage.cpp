// MemoryBackend's state lookups and recycled storage: the upstream's `self._nodes[name]` / `self._claims[id]`,
// `_record`, and the spare lists (spares.h) that new claims, audit entries and map entries take their buffers
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

NodeFixture& MemoryBackend::node_at(std::string_view name) {
  if (NodeFixture* n = s_.node(name)) return *n;
  throw std::out_of_range("no node " + std::string(name));
}
Claim& MemoryBackend::claim_at(const std::string& id) {
  if (Claim* c = s_.claim(id)) return *c;
  throw std::out_of_range("no claim " + id);
}

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
  for (Claim& cl : s_.claims) spare_claims_.give(std::move(cl));
  s_.claims.clear();
  for (Mutation& m : s_.audit) spare_mutations_.give(std::move(m));
  s_.audit.clear();
  for (auto& entry : s_.shared_config) spare_entries_.give(std::move(entry));
  s_.shared_config.clear();
  if (s_.pointer_restore) spare_texts_.give(std::move(*s_.pointer_restore));
  s_.pointer_restore.reset();
}

void MemoryBackend::erase_entry(const std::string& entry) {
  for (auto it = s_.shared_config.begin(); it != s_.shared_config.end(); ++it)
    if (it->first == entry) {
      spare_entries_.give(std::move(*it));
      s_.shared_config.erase(it);
      return;
    }
}

// The upstream's `_record` (lines 525-528).
void MemoryBackend::record(Caller& c, const std::string& op_id, std::string_view kind, std::string_view target,
                           std::string_view detail) {
  c.touch(Obj::Audit, "", true);
  Mutation m = spare_mutations_.take();  // every field assigned: a spare's old contents never show
  m.op_id.assign(op_id);
  m.kind.assign(kind);
  m.target.assign(target);
  m.detail.assign(detail);
  s_.audit.push_back(std::move(m));
}

}  // namespace allocsim::backend
