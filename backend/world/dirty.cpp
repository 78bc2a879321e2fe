#include "backend/world/dirty.h"

#include <algorithm>
#include <atomic>
#include <bit>

#include "backend/model/name_head.h"

namespace allocsim::harness {

namespace {

// Set once from the command line before any run (and between runs by tests); read at every check.
std::atomic<CheckMode> g_mode{CheckMode::Incremental};

}  // namespace

CheckMode check_mode() { return g_mode.load(std::memory_order_relaxed); }
void set_check_mode(CheckMode mode) { g_mode.store(mode, std::memory_order_relaxed); }

std::optional<CheckMode> check_mode_by_name(std::string_view name) {
  if (name == "incremental") return CheckMode::Incremental;
  if (name == "full") return CheckMode::Full;
  return std::nullopt;
}

NodeIndex::NodeIndex(const std::vector<backend::NodeFixture>& nodes) {
  sorted_.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    sorted_.push_back(Entry{backend::name_head(nodes[i].name), nodes[i].name, static_cast<uint32_t>(i)});
  std::sort(sorted_.begin(), sorted_.end(), [](const Entry& a, const Entry& b) {
    if (a.head != b.head) return a.head < b.head;
    if (a.name != b.name) return a.name < b.name;
    return a.index < b.index;
  });
}

std::optional<uint32_t> NodeIndex::find(std::string_view name) const {
  // upper_bound then one back: the last node of that name, as a front-to-back scan keeping its last match.
  const uint64_t head = backend::name_head(name);
  auto it = std::upper_bound(sorted_.begin(), sorted_.end(), name, [head](std::string_view n, const Entry& e) {
    return head != e.head ? head < e.head : n < e.name;
  });
  if (it == sorted_.begin() || !backend::same_name((it - 1)->name, name)) return std::nullopt;
  return (it - 1)->index;
}

void NodeBits::list(std::vector<uint32_t>& out) const {
  out.clear();
  for (size_t w = 0; w < words_.size(); ++w)
    for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
      out.push_back(static_cast<uint32_t>(w * 64 + std::countr_zero(bits)));
}

void DirtySet::reset(size_t nodes) {
  nodes_.resize(nodes);
  execution_nodes_.resize(nodes);
  kinds_ = 0;
  unresolved_ = execution_unresolved_ = false;
}

void DirtySet::write(backend::Obj what, std::string_view name, const NodeIndex& index) {
  using backend::Obj;
  switch (what) {
    case Obj::Node:
      kinds_ |= kReadsNodes;
      if (const auto i = index.find(name)) {
        nodes_.set(*i);
        execution_nodes_.set(*i);
      } else {
        unresolved_write();
      }
      return;
    case Obj::Claim:
      kinds_ |= kReadsClaims;
      return;
    case Obj::SharedMap:
      kinds_ |= kReadsMap;
      return;
    case Obj::Pointer:
      kinds_ |= kReadsPointer;
      return;
    case Obj::AllNodes:  // no writer today; were there one, it could move any node
      kinds_ |= kReadsNodes;
      unresolved_write();
      return;
    case Obj::Audit:  // appends are seen from the log's length (check_invariants)
    case Obj::Clock:  // read only by quiescent rows and kReadsStep rows
    case Obj::FailedReads:
    case Obj::FailingGeometry:
    case Obj::Lock:
      return;
  }
  unresolved_write();  // a kind added to backend::Obj later: conservative until classified here
}

void DirtySet::clear() {
  nodes_.clear();
  kinds_ = 0;
  unresolved_ = false;
}

void InvariantMemo::reset(size_t nodes) {
  dirty.reset(nodes);
  primed = false;
  claim_nodes.resize(nodes);
  entry_nodes.resize(nodes);
  owned_nodes.resize(nodes);
  scratch.resize(nodes);
  if (all.size() != nodes) {  // once per storage: 0 .. nodes-1 never changes
    all.resize(nodes);
    for (size_t i = 0; i < nodes; ++i) all[i] = static_cast<uint32_t>(i);
  }
  some.reserve(nodes);
  audit_nodes.reserve(nodes);
  // AuditReplay{} field by field, keeping the vectors' capacity (a new execution allocates nothing here).
  replay.nodes.clear();
  replay.entries.clear();
  replay.pointer = AuditReplay::kStart;
  replay.map_writes = replay.pointer_writes = 0;
  replay.applied = 0;
  replay.targeted.resize(nodes);
  replay.valid = false;
}

}  // namespace allocsim::harness
