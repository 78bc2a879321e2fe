// An execution's result as op atomicity compares it (op_results.h; docs/DESIGN.md §5, "Op atomicity").
#include "backend/world/op_results.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <climits>
#include <iterator>

#include "sim/state_hash.h"

namespace allocsim::harness {

namespace {

bool id_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'; }

/// An id "<kind>-<actor>-<n>" in a text: where its kind and its digits are, its actor (an index) and n.
struct IdHit {
  size_t kind_begin = 0, kind_end = 0, digits = 0, end = 0;
  size_t actor = 0;
  long n = 0;
};

/// The id ending at text[end) of the token text[begin, end), when the text before its digits ends in "-<actor>" for
/// one of `actors` (the longest that fits), preceded by the kind's letters.
bool id_ending(std::string_view text, size_t begin, size_t end, const std::vector<std::string>& actors, IdHit& out) {
  size_t d = end;
  while (d > begin && std::isdigit(static_cast<unsigned char>(text[d - 1]))) --d;
  if (d == end || end - d > 9 || d < begin + 2 || text[d - 1] != '-') return false;
  const std::string_view before = text.substr(begin, d - 1 - begin);  // "...<kind>-<actor>"
  size_t best = actors.size();
  for (size_t a = 0; a < actors.size(); ++a)
    if (before.size() > actors[a].size() + 1 && before.ends_with(actors[a]) &&
        before[before.size() - actors[a].size() - 1] == '-' &&
        (best == actors.size() || actors[a].size() > actors[best].size()))
      best = a;
  if (best == actors.size()) return false;
  const size_t kind_end = begin + before.size() - actors[best].size() - 1;
  size_t kind_begin = kind_end;
  while (kind_begin > begin && std::isalpha(static_cast<unsigned char>(text[kind_begin - 1]))) --kind_begin;
  if (kind_begin == kind_end) return false;
  long n = 0;
  for (size_t i = d; i < end; ++i) n = n * 10 + (text[i] - '0');
  out = IdHit{kind_begin, kind_end, d, end, best, n};
  return true;
}

/// What render_result reuses, per thread: once warm, a result is rendered without allocating (the check runs at
/// every quiescence; tests/bench/run_allocations.cpp holds executions to no allocation).
struct Scratch {
  std::string text, renumbered;
  std::vector<IdHit> hits, ranked;
  std::vector<std::string_view> lines;
  std::vector<size_t> order;
  std::vector<std::string> actors;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

/// Renumbers `text` into `out` (the ranks of renumber_ids), with `s`'s vectors as working storage.
void renumber_into(std::string_view text, const std::vector<std::string>& actors, Scratch& s, std::string& out) {
  s.hits.clear();
  for (size_t i = 0; i < text.size();) {
    if (!id_char(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && id_char(text[j])) ++j;
    IdHit hit;
    if (id_ending(text, i, j, actors, hit)) s.hits.push_back(hit);
    i = j;
  }
  auto key_less = [text](const IdHit& a, const IdHit& b) {
    const std::string_view ka = text.substr(a.kind_begin, a.kind_end - a.kind_begin);
    const std::string_view kb = text.substr(b.kind_begin, b.kind_end - b.kind_begin);
    if (ka != kb) return ka < kb;
    if (a.actor != b.actor) return a.actor < b.actor;
    return a.n < b.n;
  };
  s.ranked = s.hits;
  std::sort(s.ranked.begin(), s.ranked.end(), key_less);
  out.clear();
  size_t from = 0;
  for (const IdHit& h : s.hits) {
    // Its rank: the distinct numbers of its kind and actor below it, plus one.
    const auto group = std::lower_bound(s.ranked.begin(), s.ranked.end(),
                                        IdHit{h.kind_begin, h.kind_end, 0, 0, h.actor, LONG_MIN}, key_less);
    size_t rank = 1;
    long last = LONG_MIN;
    for (auto it = group; it != s.ranked.end() && key_less(*it, h); ++it)
      if (it->n != last) last = it->n, ++rank;
    out.append(text.substr(from, h.digits - from));
    fmt::format_to(std::back_inserter(out), "#{}", rank);
    from = h.end;
  }
  out.append(text.substr(from));
}

/// The lines of `text` (views into it, without their '\n'; a last line without one counts) into `out`, cleared first.
void split_lines(std::string_view text, std::vector<std::string_view>& out) {
  out.clear();
  for (size_t i = 0; i < text.size();) {
    size_t e = text.find('\n', i);
    if (e == std::string_view::npos) e = text.size();
    out.push_back(text.substr(i, e - i));
    i = e + 1;
  }
}

template <class... Args>
void put(std::string& t, fmt::format_string<Args...> form, Args&&... args) {
  fmt::format_to(std::back_inserter(t), form, std::forward<Args>(args)...);
}

/// The entries of `m` (pairs whose first is a string) in key order, each written with `form`.
template <class Map>
void put_sorted(std::string& t, Scratch& s, const Map& m,
                fmt::format_string<const std::string&, const typename Map::value_type::second_type&> form) {
  s.order.clear();
  for (size_t i = 0; i < m.size(); ++i) s.order.push_back(i);
  const auto at = [&m](size_t i) -> const auto& { return *std::next(m.begin(), static_cast<std::ptrdiff_t>(i)); };
  std::sort(s.order.begin(), s.order.end(), [&](size_t a, size_t b) { return at(a).first < at(b).first; });
  for (size_t i : s.order) put(t, form, at(i).first, at(i).second);
}

}  // namespace

std::string renumber_ids(const std::string& text, const std::vector<std::string>& actors) {
  Scratch s;
  std::string out;
  renumber_into(text, actors, s, out);
  return out;
}

uint64_t OpLevelResults::next_serial() {
  static std::atomic<uint64_t> serial{0};
  return ++serial;
}

uint64_t raw_result_digest(const WorldState& w) {
  using sim::state_mix, sim::state_mix_text;
  const backend::BackendState& st = w.backend().state();
  uint64_t h = 0x7265737565746c73ull;  // "results"
  for (const ActorState& a : w.actors()) {
    h = state_mix(h, a.outcomes.size());
    for (const char* o : a.outcomes) h = o ? state_mix_text(h, o) : state_mix(h, 0);
  }
  auto opt = [&h](const std::optional<std::string>& o) {
    h = o ? state_mix_text(state_mix(h, 1), *o) : state_mix(h, 0);
  };
  for (const backend::NodeFixture& n : st.nodes) {
    opt(n.owner);
    opt(n.owner_epoch);
    opt(n.restore_record);
    h = state_mix(state_mix_text(state_mix_text(h, n.mig_config), n.mig_state), n.labels.stamp());
    h = state_mix(h, n.mig_layout.size());
    for (const auto& [profile, count] : n.mig_layout) h = state_mix(state_mix_text(h, profile), uint64_t(count));
    h = state_mix(h, n.workloads.size());
    for (const auto& [workload, units] : n.workloads) h = state_mix(state_mix_text(h, workload), uint64_t(units));
  }
  h = state_mix(h, st.claims.size());
  for (const backend::Claim& c : st.claims) {
    h = state_mix_text(state_mix_text(state_mix_text(h, c.claim_id), c.owner), c.generation);
    h = state_mix(state_mix_text(state_mix_text(h, c.status), c.entry_name), c.workload_ready);
    h = state_mix(h, c.nodes.size());
    for (const std::string& node : c.nodes) h = state_mix_text(h, node);
  }
  h = state_mix(h, st.shared_config.size());
  for (const auto& [entry, nodes] : st.shared_config) {
    h = state_mix(state_mix_text(h, entry), nodes.size());
    for (const auto& [node, one] : nodes) h = state_mix(state_mix_text(h, node), uint64_t(one));
  }
  h = state_mix(state_mix(h, st.shared_tombstone), st.shared_map_deleted);
  h = state_mix_text(h, st.pointer);
  opt(st.pointer_restore);
  h = state_mix(h, st.pending_geometry.size());
  for (const backend::PendingGeometry& p : st.pending_geometry)
    h = state_mix(state_mix_text(h, p.node), std::bit_cast<uint64_t>(p.due));
  h = state_mix(h, st.failing_geometry.size());
  for (const std::string& f : st.failing_geometry) h = state_mix_text(h, f);
  h = state_mix(h, st.failed_reads.size());
  for (const auto& [kind, reason] : st.failed_reads) h = state_mix_text(state_mix_text(h, kind), reason);
  return state_mix(h, std::bit_cast<uint64_t>(st.clock.now()));
}

const OpLevelResults::Result* OpLevelResults::find(uint64_t digest) const {
  const auto it = std::lower_bound(results.begin(), results.end(), digest,
                                   [](const Result& r, uint64_t d) { return r.digest < d; });
  return it != results.end() && it->digest == digest ? &*it : nullptr;
}

void render_result(const WorldState& w, std::string& out) {
  const backend::BackendState& st = w.backend().state();
  Scratch& s = scratch();
  std::string& t = s.text;
  t.clear();
  s.actors.resize(w.actors().size());
  for (size_t i = 0; i < w.actors().size(); ++i) {
    const ActorState& a = w.actors()[i];
    s.actors[i].assign(a.name);
    put(t, "actor {}:", a.name);
    for (const char* o : a.outcomes) put(t, " {}", o ? o : "-");
    t += '\n';
  }
  // Every map and list is rendered sorted: its insertion order is no one's to observe, and two steps that commute
  // (DPOR runs one of their orders) may insert in either order.
  for (const backend::NodeFixture& n : st.nodes) {
    put(t, "node {} owner={} epoch={} mig.config={} mig.state={} restore={} layout=", n.name,
        n.owner ? std::string_view(*n.owner) : "-", n.owner_epoch ? std::string_view(*n.owner_epoch) : "-",
        n.mig_config, n.mig_state, n.restore_record ? std::string_view(*n.restore_record) : "-");
    put_sorted(t, s, n.mig_layout, "{}:{},");
    t += " workloads=";
    put_sorted(t, s, n.workloads, "{}:{},");
    t += " labels=";
    put_sorted(t, s, n.labels.get(), "{}={},");
    t += '\n';
  }
  // The claims and the map's entries are sets: sorted below, once their ids are ranks (their order must not depend
  // on the numbers the ranks replace).
  for (const backend::Claim& c : st.claims) {
    put(t, "claim {} owner={} generation={} status={} ready={} entry={} nodes=", c.claim_id, c.owner, c.generation,
        c.status, c.workload_ready, c.entry_name);
    for (const std::string& node : c.nodes) put(t, "{},", node);
    t += '\n';
  }
  for (const auto& [entry, nodes] : st.shared_config) {
    put(t, "entry {} nodes=", entry);
    put_sorted(t, s, nodes, "{}:{},");
    t += '\n';
  }
  put(t, "map tombstone={} deleted={}\npointer={} restore={}\npending=", st.shared_tombstone, st.shared_map_deleted,
      st.pointer, st.pointer_restore ? std::string_view(*st.pointer_restore) : "-");
  s.order.clear();
  for (size_t i = 0; i < st.pending_geometry.size(); ++i) s.order.push_back(i);
  std::sort(s.order.begin(), s.order.end(), [&](size_t a, size_t b) {
    const auto &x = st.pending_geometry[a], &y = st.pending_geometry[b];
    return x.node != y.node ? x.node < y.node : x.due < y.due;
  });
  for (size_t i : s.order) put(t, "{}@{},", st.pending_geometry[i].node, st.pending_geometry[i].due);
  t += " failing=";
  s.order.clear();
  for (size_t i = 0; i < st.failing_geometry.size(); ++i) s.order.push_back(i);
  std::sort(s.order.begin(), s.order.end(),
            [&](size_t a, size_t b) { return st.failing_geometry[a] < st.failing_geometry[b]; });
  for (size_t i : s.order) put(t, "{},", st.failing_geometry[i]);
  t += " failed_reads=";
  put_sorted(t, s, st.failed_reads, "{}:{},");
  put(t, " clock={}\n", st.clock.now());
  renumber_into(t, s.actors, s, s.renumbered);
  // The claim and entry lines, sorted among their kind now that their ids are ranks.
  split_lines(s.renumbered, s.lines);
  for (const std::string_view prefix : {std::string_view("claim "), std::string_view("entry ")}) {
    const auto first =
        std::find_if(s.lines.begin(), s.lines.end(), [&](std::string_view l) { return l.starts_with(prefix); });
    const auto last = std::find_if(first, s.lines.end(), [&](std::string_view l) { return !l.starts_with(prefix); });
    std::sort(first, last);
  }
  out.clear();
  for (const std::string_view l : s.lines) {
    out += l;
    out += '\n';
  }
}

uint64_t result_digest(std::string_view text) { return XXH3_64bits(text.data(), text.size()); }

ResultDiff diff_results(std::string_view a, std::string_view b, size_t max_lines) {
  std::vector<std::string_view> la, lb;
  split_lines(a, la);
  split_lines(b, lb);
  ResultDiff d;
  size_t shown = 0;
  for (size_t i = 0; i < std::max(la.size(), lb.size()); ++i) {
    const std::string_view x = i < la.size() ? la[i] : "", y = i < lb.size() ? lb[i] : "";
    if (x == y) continue;
    ++d.differing;
    if (shown++ >= max_lines) continue;
    fmt::format_to(std::back_inserter(d.text), "- {}\n+ {}\n", x, y);
  }
  return d;
}

}  // namespace allocsim::harness
