// MIG geometry oracle (backend/CONTRACT.md §3). Tables are NVIDIA's published GPU-instance profiles; upstream's
// three families come first and match exactly as upstream's oracle does, so its answers are unchanged.
#include "backend/model/mig_geometry.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "backend/model/pyrepr.h"

namespace allocsim::backend {
namespace {

// The 7-compute / 8-memory-slice grid shared by A100, H100 and H200: names and GiB differ per card,
// slices, caps and starts do not. Arguments are the six profiles' GiB, smallest first.
std::vector<MigProfile> grid_7x8(int g1small, int g1large, int g2, int g3, int g4, int g7) {
  auto n = [](int c, int gib) { return fmt::format("{}g.{}gb", c, gib); };
  return {
      {n(1, g1small), 1, 1, g1small, 7, {0, 1, 2, 3, 4, 5, 6}},
      {n(1, g1large), 1, 2, g1large, 4, {0, 2, 4, 6}},
      {n(2, g2), 2, 2, g2, 3, {0, 2, 4}},
      {n(3, g3), 3, 4, g3, 2, {0, 4}},
      {n(4, g4), 4, 4, g4, 1, {0}},
      {n(7, g7), 7, 8, g7, 1, {0}},
  };
}

// How a product string selects a family. Upstream's keys are case-sensitive substrings; the further
// products are matched case-insensitively (GFD spells "PCIE" and "PCIe" on different A100s), and the
// short model names A30 and H200 only as whole '-'-separated tokens so that e.g. "GH200" or "A3000"
// never pick their tables.
enum class Match { SeedSubstring, Substring, Token };
struct Matcher {
  Match how;
  const char* text;
  size_t family;  // index into families()
};

const std::vector<MigFamily>& families() {
  static const std::vector<MigFamily> all = [] {
    std::vector<MigProfile> a100_80 = grid_7x8(10, 20, 20, 40, 40, 80);
    return std::vector<MigFamily>{
        {"A100-SXM4-80GB", 7, 8, 80, a100_80},
        {"H100-80GB", 7, 8, 80, a100_80},
        {"RTX-PRO-6000-Blackwell",
         4,
         4,
         96,
         {{"1g.24gb", 1, 1, 24, 4, {0, 1, 2, 3}}, {"2g.48gb", 2, 2, 48, 2, {0, 2}}, {"4g.96gb", 4, 4, 96, 1, {0}}}},
        // A100 80GB PCIe: GFD writes "NVIDIA-A100-80GB-PCIe", which upstream's SXM4 key misses.
        {"A100-80GB", 7, 8, 80, a100_80},
        {"A100-40GB", 7, 8, 40, grid_7x8(5, 10, 10, 20, 20, 40)},
        {"A30",
         4,
         4,
         24,
         {{"1g.6gb", 1, 1, 6, 4, {0, 1, 2, 3}}, {"2g.12gb", 2, 2, 12, 2, {0, 2}}, {"4g.24gb", 4, 4, 24, 1, {0}}}},
        {"H100-NVL", 7, 8, 94, grid_7x8(12, 24, 24, 47, 47, 94)},
        {"H200", 7, 8, 141, grid_7x8(18, 35, 35, 71, 71, 141)},
    };
  }();
  return all;
}

const std::vector<Matcher>& matchers() {
  static const std::vector<Matcher> all = {
      {Match::SeedSubstring, "A100-SXM4-80GB", 0},
      {Match::SeedSubstring, "H100-80GB", 1},
      {Match::SeedSubstring, "RTX-PRO-6000-Blackwell", 2},
      {Match::Substring, "A100-80GB", 3},
      {Match::Substring, "A100-SXM4-40GB", 4},
      {Match::Substring, "A100-PCIE-40GB", 4},
      {Match::Substring, "A100-40GB", 4},
      {Match::Token, "A30", 5},
      {Match::Substring, "H100-NVL", 6},
      {Match::Token, "H200", 7},
  };
  return all;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return out;
}

bool matches(const Matcher& m, std::string_view product) {
  switch (m.how) {
    case Match::SeedSubstring:
      return product.find(m.text) != std::string_view::npos;
    case Match::Substring:
      return upper(product).find(m.text) != std::string::npos;
    case Match::Token: {
      const std::string p = upper(product);
      size_t start = 0;
      while (start <= p.size()) {
        size_t end = p.find('-', start);
        if (end == std::string::npos) end = p.size();
        if (p.compare(start, end - start, m.text) == 0) return true;
        start = end + 1;
      }
      return false;
    }
  }
  return false;
}

const MigProfile* profile_of(const MigFamily& f, std::string_view name) {
  for (const auto& p : f.profiles)
    if (p.name == name) return &p;
  return nullptr;
}

// Exhaustive backtracking over legal starts (upstream `_placeable`): widest instances first (stable,
// so equal widths keep layout order), each at every legal start that fits the grid without overlap.
bool placeable(const MigFamily& f, const OrderedMap<std::string, int>& layout) {
  // Per-thread storage reused across calls (a warm plan allocates nothing: docs/DESIGN.md §5, "Storage reused across
  // executions"); nothing in here yields or re-enters, so a call has it to itself.
  thread_local std::vector<const MigProfile*> instances;
  thread_local std::vector<bool> occupied;
  instances.clear();
  for (const auto& [name, count] : layout)
    for (int i = 0; i < count; ++i) instances.push_back(profile_of(f, name));
  // A stable insertion sort, not std::stable_sort, which takes a heap buffer per call; a card holds a
  // handful of instances.
  for (size_t i = 1; i < instances.size(); ++i)
    for (size_t j = i; j > 0 && instances[j - 1]->memory_slices < instances[j]->memory_slices; --j)
      std::swap(instances[j - 1], instances[j]);
  occupied.assign(static_cast<size_t>(f.memory_slices), false);

  auto place = [&](auto&& self, size_t i) -> bool {
    if (i == instances.size()) return true;
    const MigProfile& p = *instances[i];
    for (int start : p.starts) {
      const int stop = start + p.memory_slices;
      if (stop > f.memory_slices) continue;
      bool clash = false;
      for (int s = start; s < stop; ++s) clash = clash || occupied[static_cast<size_t>(s)];
      if (clash) continue;
      for (int s = start; s < stop; ++s) occupied[static_cast<size_t>(s)] = true;
      if (self(self, i + 1)) return true;
      for (int s = start; s < stop; ++s) occupied[static_cast<size_t>(s)] = false;
    }
    return false;
  };
  return place(place, 0);
}

}  // namespace

const std::vector<MigFamily>& mig_families() { return families(); }

const MigFamily* find_family(std::string_view product) {
  for (const auto& m : matchers())
    if (matches(m, product)) return &families()[m.family];
  return nullptr;
}

const MigProfile* smallest_profile(std::string_view product, double gib) {
  const MigFamily* f = find_family(product);
  if (f == nullptr) return nullptr;
  const MigProfile* best = nullptr;
  for (const auto& p : f->profiles) {
    if (static_cast<double>(p.memory_gib) < gib) continue;
    // Strictly smaller only: Python's min() keeps the first of equal keys (table order).
    if (best == nullptr ||
        std::pair(p.memory_gib, p.compute_slices) < std::pair(best->memory_gib, best->compute_slices))
      best = &p;
  }
  return best;
}

std::vector<std::string> check_layout(std::string_view product, const OrderedMap<std::string, int>& layout) {
  const MigFamily* f = find_family(product);
  if (f == nullptr) return {fmt::format("no independent geometry table for product {}", py::repr(product))};
  return check_family_layout(*f, layout);
}

std::vector<std::string> check_family_layout(const MigFamily& family, const OrderedMap<std::string, int>& layout) {
  const MigFamily* f = &family;
  std::vector<std::string> unknown;
  for (const auto& [name, count] : layout)
    if (profile_of(*f, name) == nullptr) unknown.push_back(name);
  if (!unknown.empty()) {
    std::sort(unknown.begin(), unknown.end());
    return {fmt::format("unknown profile(s) {} for {}", py::list(unknown), f->key)};
  }
  long memory = 0, compute = 0, mem_slices = 0;
  for (const auto& [name, count] : layout) {
    const MigProfile& p = *profile_of(*f, name);
    memory += long{p.memory_gib} * count;
    compute += long{p.compute_slices} * count;
    mem_slices += long{p.memory_slices} * count;
  }
  std::vector<std::string> problems;
  if (memory > f->memory_gib)
    problems.push_back(fmt::format("requested {:g} GiB of MIG memory on a {:g} GiB card", static_cast<double>(memory),
                                   static_cast<double>(f->memory_gib)));
  if (compute > f->compute_slices)
    problems.push_back(fmt::format("requested {} compute slices on a card with {}", compute, f->compute_slices));
  if (mem_slices > f->memory_slices)
    problems.push_back(fmt::format("requested {} memory slices on a card with {}", mem_slices, f->memory_slices));
  for (const auto& [name, count] : layout) {
    const int max = profile_of(*f, name)->max_instances;
    if (count > max)
      problems.push_back(fmt::format("{} x {} exceeds the {} instances the card allows", count, name, max));
  }
  if (problems.empty() && !placeable(*f, layout))
    problems.push_back("no legal non-overlapping placement exists for this combination");
  return problems;
}

}  // namespace allocsim::backend
