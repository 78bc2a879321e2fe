#include "sim/order.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include "sim/assert.h"
#include "sim/support/json_reader.h"
#include "sim/support/words.h"

namespace allocsim::sim {

OrderError::OrderError(std::string pointer, const std::string& message)
    : std::invalid_argument(pointer.empty() ? message : pointer + ": " + message),
      pointer_(std::move(pointer)),
      message_(message) {}

std::string StepLabel::text() const { return fmt::format("{}:{}#{}", actor_name, point, n); }

std::string OrderConstraint::text() const { return fmt::format("[\"{}\", \"{}\"]", before.text(), after.text()); }

namespace {

std::string json_quoted(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

std::string known_actors(const std::vector<std::string>& actors) {
  std::string out;
  for (const std::string& a : actors) out += (out.empty() ? "" : ", ") + a;
  return out;
}

}  // namespace

StepLabel parse_label(std::string_view text, const std::vector<std::string>& actors, const std::string& pointer,
                      const PointVocabulary* points) {
  const auto bad = [&](const std::string& why) {
    return OrderError(pointer, fmt::format("label {}: {} (expected ACTOR:POINT or ACTOR:POINT#N, N >= 1)",
                                           json_quoted(text), why));
  };
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) throw bad("no ':' between actor and point");
  StepLabel l;
  l.actor_name = std::string(text.substr(0, colon));
  std::string_view point = text.substr(colon + 1);
  if (const size_t hash = point.rfind('#'); hash != std::string_view::npos) {
    const std::string_view num = point.substr(hash + 1);
    uint64_t n = 0;
    const auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    // All digits but past 64 bits: a whole number, out of range like any N above 2^32 - 1.
    if (ec == std::errc::result_out_of_range && p == num.data() + num.size())
      throw bad(fmt::format("occurrence #{} is out of range", num));
    if (num.empty() || ec != std::errc() || p != num.data() + num.size())
      throw bad(fmt::format("occurrence {} is not a whole number", json_quoted(num)));
    if (n < 1 || n > UINT32_MAX) throw bad(fmt::format("occurrence #{} is out of range", num));
    l.n = static_cast<uint32_t>(n);
    point = point.substr(0, hash);
  }
  if (l.actor_name.empty()) throw bad("empty actor");
  if (point.empty()) throw bad("empty point");
  l.point = std::string(point);
  const auto it = std::find(actors.begin(), actors.end(), l.actor_name);
  if (it == actors.end()) {
    // Only a difference of case earns a suggestion: actor names differ by one letter by design (flowA, flowB),
    // so the nearest name by edit distance would be a guess.
    const auto same_letters = [&](const std::string& a) {
      return a.size() == l.actor_name.size() &&
             std::equal(a.begin(), a.end(), l.actor_name.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
             });
    };
    const auto near = std::find_if(actors.begin(), actors.end(), same_letters);
    throw OrderError(pointer,
                     fmt::format("label {}: unknown actor {} ({})", json_quoted(text), json_quoted(l.actor_name),
                                 near != actors.end() ? "did you mean " + json_quoted(*near) + "?"
                                                      : "actors: " + known_actors(actors)));
  }
  l.actor = static_cast<ActorId>(it - actors.begin());
  if (points) {
    ALLOCSIM_ASSERT(points->per_actor.size() == actors.size(), "{} point lists for {} actors", points->per_actor.size(),
                    actors.size());
    const std::vector<const char*>& known = points->per_actor[l.actor];
    if (!support::contains(known, l.point)) {
      const std::string why = points->explain ? points->explain(l.actor, l.point) : std::string();
      throw OrderError(pointer, fmt::format("label {}: actor {} never resumes from point {}{}", json_quoted(text),
                                            json_quoted(l.actor_name), json_quoted(l.point),
                                            why.empty() ? support::hint(l.point, known) : " (" + why + ")"));
    }
  }
  return l;
}

OrderSpec parse_order(const nlohmann::ordered_json& block, const std::vector<std::string>& actors,
                      const PointVocabulary* points) {
  if (!block.is_array())
    throw OrderError("", fmt::format("expected an array of [\"ACTOR:POINT#N\", \"ACTOR:POINT#N\"] pairs, got {}",
                                     block.type_name()));
  OrderSpec spec;
  for (size_t i = 0; i < block.size(); ++i) {
    const auto& pair = block[i];
    const std::string at = fmt::format("/{}", i);
    if (!pair.is_array() || pair.size() != 2)
      throw OrderError(at, fmt::format("expected a pair [X, Y] of labels, got {}",
                                       pair.is_array() ? support::count_of(pair.size(), "element") : pair.type_name()));
    StepLabel side[2];
    for (size_t k = 0; k < 2; ++k) {
      const std::string p = fmt::format("{}/{}", at, k);
      if (!pair[k].is_string())
        throw OrderError(p, fmt::format("expected a label string, got {}", pair[k].type_name()));
      side[k] = parse_label(pair[k].get<std::string>(), actors, p, points);
    }
    if (side[0] == side[1])
      throw OrderError(at, fmt::format("a step cannot come before itself ({} twice)", side[0].text()));
    spec.constraints.push_back({std::move(side[0]), std::move(side[1])});
  }
  check_acyclic(spec);
  return spec;
}

void append_order(OrderSpec& base, const OrderSpec& extra) {
  for (const OrderConstraint& c : extra.constraints) base.constraints.push_back(c);
  check_acyclic(base);
}

void check_acyclic(const OrderSpec& spec) {
  // Nodes: the distinct labels, in first-appearance order. Edges: each constraint (X -> Y, tagged with its
  // index) and, per (actor, point), each occurrence to the next larger one present (program order).
  std::vector<const StepLabel*> nodes;
  const auto node_of = [&](const StepLabel& l) {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (*nodes[i] == l) return i;
    nodes.push_back(&l);
    return nodes.size() - 1;
  };
  struct Edge {
    size_t to;
    long constraint;  // -1: program order
  };
  std::vector<std::vector<Edge>> out;
  for (size_t c = 0; c < spec.constraints.size(); ++c) {
    const size_t x = node_of(spec.constraints[c].before), y = node_of(spec.constraints[c].after);
    out.resize(nodes.size());
    out[x].push_back({y, static_cast<long>(c)});
  }
  out.resize(nodes.size());
  for (size_t a = 0; a < nodes.size(); ++a) {
    std::optional<size_t> next;
    for (size_t b = 0; b < nodes.size(); ++b)
      if (nodes[b]->actor == nodes[a]->actor && nodes[b]->point == nodes[a]->point && nodes[b]->n > nodes[a]->n &&
          (!next || nodes[b]->n < nodes[*next]->n))
        next = b;
    if (next) out[a].push_back({*next, -1});
  }
  // Iterative DFS with colours; on a back edge, the constraints along the stack from its target form the cycle.
  std::vector<int> colour(nodes.size(), 0);
  for (size_t root = 0; root < nodes.size(); ++root) {
    if (colour[root]) continue;
    std::vector<std::pair<size_t, size_t>> stack{{root, 0}};  // node, next edge
    std::vector<long> via{-1};                                // the edge that entered each stack entry
    colour[root] = 1;
    while (!stack.empty()) {
      auto& [v, e] = stack.back();
      if (e == out[v].size()) {
        colour[v] = 2, stack.pop_back(), via.pop_back();
        continue;
      }
      const Edge edge = out[v][e++];
      if (colour[edge.to] == 0) {
        colour[edge.to] = 1, stack.push_back({edge.to, 0}), via.push_back(edge.constraint);
        continue;
      }
      if (colour[edge.to] != 1) continue;
      std::string names;
      size_t k = stack.size();
      while (stack[k - 1].first != edge.to) --k;
      std::vector<long> cyc(via.begin() + static_cast<long>(k), via.end());
      cyc.push_back(edge.constraint);
      for (long c : cyc)
        if (c >= 0) names += (names.empty() ? "" : ", ") + spec.constraints[size_t(c)].text();
      throw OrderError("", fmt::format("no execution can satisfy these constraints: they form a cycle{}: {}",
                                       std::any_of(cyc.begin(), cyc.end(), [](long c) { return c < 0; })
                                           ? " (with an actor's own occurrences of a point in order)"
                                           : "",
                                       names));
    }
  }
}

nlohmann::ordered_json order_json(const OrderSpec& spec) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const OrderConstraint& c : spec.constraints) out.push_back({c.before.text(), c.after.text()});
  return out;
}

OrderSpec remap_order(const OrderSpec& spec, const std::vector<std::string>& actors) {
  OrderSpec out;
  const auto id_of = [&](StepLabel& l) {
    const auto it = std::find(actors.begin(), actors.end(), l.actor_name);
    if (it == actors.end()) return false;
    l.actor = static_cast<ActorId>(it - actors.begin());
    return true;
  };
  for (OrderConstraint c : spec.constraints)
    if (id_of(c.before) && id_of(c.after)) out.constraints.push_back(std::move(c));
  return out;
}

}  // namespace allocsim::sim

namespace allocsim::sim {

OrderTracker::OrderTracker(const OrderSpec& spec) : spec_(spec), taken_(spec.constraints.size(), false) {
  const auto key_of = [&](const StepLabel& l) {
    for (size_t k = 0; k < keys_.size(); ++k)
      if (keys_[k].actor == l.actor && keys_[k].point == l.point) return k;
    keys_.push_back({l.actor, l.point});
    return keys_.size() - 1;
  };
  for (const OrderConstraint& c : spec.constraints) {
    before_key_.push_back(key_of(c.before));
    after_key_.push_back(key_of(c.after));
  }
}

std::optional<size_t> OrderTracker::holding_back(ActorId actor, std::string_view point) const {
  for (size_t c = 0; c < after_key_.size(); ++c) {
    const Key& k = keys_[after_key_[c]];
    if (!taken_[c] && k.actor == actor && k.point == point && k.count + 1 == spec_.constraints[c].after.n) return c;
  }
  return std::nullopt;
}

void OrderTracker::take(ActorId actor, std::string_view point, std::vector<size_t>& labelled) {
  labelled.clear();
  for (Key& k : keys_)
    if (k.actor == actor && k.point == point) ++k.count;
  for (size_t c = 0; c < spec_.constraints.size(); ++c) {
    const OrderConstraint& oc = spec_.constraints[c];
    const Key& x = keys_[before_key_[c]];
    const Key& y = keys_[after_key_[c]];
    const bool is_x = x.actor == actor && x.point == point && x.count == oc.before.n;
    const bool is_y = y.actor == actor && y.point == point && y.count == oc.after.n;
    if (is_x) taken_[c] = true;
    if (is_x || is_y) labelled.push_back(c);
  }
}

}  // namespace allocsim::sim
