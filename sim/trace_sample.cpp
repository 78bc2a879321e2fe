#include "sim/trace_sample.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace allocsim::sim {

namespace {
constexpr size_t kBatch = 4096;  // pending fingerprints folded in at once: amortises the sorted merge
}

TraceSample::TraceSample(size_t capacity) : capacity_(std::max<size_t>(capacity, 1)) {}

TraceSample TraceSample::from_parts(unsigned level, std::vector<uint64_t> kept, size_t capacity) {
  if (level > 63) throw std::invalid_argument("trace sample level above 63");
  TraceSample s(capacity);
  s.level_ = level;
  for (size_t i = 0; i < kept.size(); ++i) {
    if (i > 0 && kept[i - 1] >= kept[i]) throw std::invalid_argument("trace fingerprints are not sorted");
    if (!s.below(kept[i])) throw std::invalid_argument("a trace fingerprint lies above its sample's level");
  }
  s.kept_ = std::move(kept);
  s.fold();
  return s;
}

void TraceSample::add(uint64_t fingerprint) {
  if (!below(fingerprint)) return;
  pending_.push_back(fingerprint);
  if (pending_.size() >= kBatch) fold();
}

void TraceSample::merge(const TraceSample& other) {
  other.fold();
  fold();
  // Raise to the coarser level first (invariant 3: a level only ever filters), then union.
  while (level_ < other.level_) {
    ++level_;
    std::erase_if(kept_, [&](uint64_t fp) { return !below(fp); });
  }
  for (uint64_t fp : other.kept_)
    if (below(fp)) pending_.push_back(fp);
  fold();
}

void TraceSample::fold() const {
  if (!pending_.empty()) {
    std::sort(pending_.begin(), pending_.end());
    pending_.erase(std::unique(pending_.begin(), pending_.end()), pending_.end());
    std::vector<uint64_t> merged;
    merged.reserve(kept_.size() + pending_.size());
    std::set_union(kept_.begin(), kept_.end(), pending_.begin(), pending_.end(), std::back_inserter(merged));
    kept_ = std::move(merged);
    pending_.clear();
  }
  while (kept_.size() > capacity_ && level_ < 63) {
    ++level_;
    // kept_ is sorted, so the fingerprints below the new bound are a prefix.
    const uint64_t bound = uint64_t{1} << (64 - level_);
    kept_.erase(std::lower_bound(kept_.begin(), kept_.end(), bound), kept_.end());
  }
}

uint64_t TraceSample::distinct() const {
  fold();
  return uint64_t(kept_.size()) << level_;
}

unsigned TraceSample::level() const {
  fold();
  return level_;
}

const std::vector<uint64_t>& TraceSample::kept() const {
  fold();
  return kept_;
}

}  // namespace allocsim::sim
