// The scenario loader's schema layer (docs/DESIGN.md §4): a strict JSON document -> a validated Scenario.
//
// The bytes and JSON layers are the strict reader's (sim/support/json_reader.h); the Checker below walks the
// document, resolving every reference, so a loaded scenario never fails for a reason the file could have
// told. Each op's own fields are read by its syntax row of the op table (op_syntax.h).
#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "backend/model/barriers.h"
#include "backend/scenario/conditional_ops.h"
#include "backend/scenario/expect_audit.h"
#include "backend/scenario/fault_section.h"
#include "backend/scenario/invariant_names.h"
#include "backend/scenario/op_syntax.h"
#include "backend/scenario/scenario_reader.h"
#include "backend/scenario/scenario_state.h"

namespace allocsim::harness {

namespace {

using Json = support::Json;
using support::child;
using support::contains;
using support::did_you_mean;
using support::hint;
using support::quote;

// -- the Checker -----------------------------------------------------------------------------------

constexpr const char* kSchema = "allocsim/scenario/v1";
constexpr int kMaxNodes = 64;
constexpr int kMaxActors = 16;
constexpr int kMaxScriptOps = 256;

const std::vector<const char*> kTopKeys = {"schema",           "name",       "description",    "backend", "nodes",
                                           "actors",           "invariants", "expect",         "faults",  "max_steps",
                                           "converge_seconds", "shared_map", "cluster_policy", "order",   "claims"};
const std::vector<const char*> kInvariantsKeys = {"all_except"};
const std::vector<const char*> kBackendKeys = {"authority", "mig_apply_seconds", "mutants"};
const std::vector<const char*> kNodeKeys = [] {
  std::vector<const char*> k = {"name", "product", "gpu_count", "memory_gib", "labels", "workloads", "mig_config"};
  k.insert(k.end(), node_start_keys().begin(), node_start_keys().end());  // scenario_state.h
  return k;
}();
const std::vector<const char*> kActorKeys = {"name", "owner", "script"};
const std::vector<const char*> kExpectKeys = {"outcome", "violation", "actors", "reach", "audit"};

const std::vector<const char*> kOutcomes = {"pass", "violation"};

/// The names of a name table, as did-you-mean candidates.
template <class Table>
std::vector<const char*> names_of(const Table& table) {
  std::vector<const char*> out;
  for (const auto& entry : table) out.push_back(entry.name);
  return out;
}

const std::vector<const char*>& mutant_names() {
  static const std::vector<const char*> k = names_of(backend::mutant_table());
  return k;
}
const std::vector<const char*>& barrier_names() {
  static const std::vector<const char*> k = names_of(backend::barrier_table());
  return k;
}

/// Walks a parsed document into a Scenario. Every getter takes the value and its pointer, and fails with
/// what was expected and what was found.
class Checker : public ScenarioReader {
 public:
  Checker(const std::string& file, const Scenario& s) : ScenarioReader(file, s) {}

  /// The whole document; `s.path` and `s.digest` are left to the caller.
  void document(const Json& doc, Scenario& s) {
    if (!doc.is_object()) fail("", fmt::format("expected an object at the top level, got {}", doc.type_name()));
    check_schema(doc);
    check_keys(doc, "", kTopKeys);
    s.name = nonempty_string(require(doc, "", "name"), "/name");
    if (const Json* v = find(doc, "description")) s.description = string_value(*v, "/description");
    if (const Json* v = find(doc, "backend")) backend_section(*v, "/backend", s);
    nodes_section(require(doc, "", "nodes"), "/nodes", s);
    if (const Json* v = find(doc, "shared_map")) read_shared_map(*this, *v, s.start);
    if (const Json* v = find(doc, "cluster_policy")) read_cluster_policy(*this, *v, s.start);
    actors_section(require(doc, "", "actors"), "/actors", s);
    if (const Json* v = find(doc, "claims")) read_start_claims(*this, *v, s.start);
    stamps_of_identities(s);
    if (const Json* v = find(doc, "invariants")) s.invariants = invariants_section(*v, "/invariants");
    if (const Json* v = find(doc, "faults")) s.faults = read_faults_section(*this, *v, "/faults", s);
    if (const Json* v = find(doc, "expect")) s.expect = expect_section(*v, "/expect", s);
    if (const Json* v = find(doc, "max_steps"))
      s.max_steps = static_cast<uint64_t>(
          int_value(*v, "/max_steps", 1, static_cast<int>(kMaxScenarioSteps), " (steps per execution)"));
    if (const Json* v = find(doc, "converge_seconds"))
      s.converge_seconds = number_value(*v, "/converge_seconds", 0, kMaxSeconds);
    if (const Json* v = find(doc, "order")) s.order = order_section(*v, s);
  }

 private:
  // -- sections --

  /// `order` (sim/order.h): labels name actors of /actors and points they reach (point_vocabulary); errors
  /// get the key's pointer in front.
  sim::OrderSpec order_section(const Json& v, const Scenario& s) const {
    try {
      std::vector<std::string> names;
      for (const ActorSpec& a : s.actors) names.push_back(a.name);
      const sim::PointVocabulary points = point_vocabulary(s);
      return sim::parse_order(v, names, &points);
    } catch (const sim::OrderError& e) {
      fail("/order" + e.pointer(), e.message());
    }
  }

  void check_schema(const Json& doc) const {
    const Json& v = require(doc, "", "schema");
    if (!v.is_string() || v.get_ref<const std::string&>() != kSchema)
      fail("/schema", fmt::format("expected {}, got {}", quote(kSchema),
                                  v.is_string() ? quote(v.get_ref<const std::string&>()) : v.type_name()));
  }

  void backend_section(const Json& v, const std::string& ptr, Scenario& s) const {
    want_object(v, ptr);
    check_keys(v, ptr, kBackendKeys);
    if (const Json* a = find(v, "authority")) s.authority = choice(*a, child(ptr, "authority"), backend::kAuthorities);
    if (const Json* m = find(v, "mig_apply_seconds"))
      s.mig_apply_seconds = number_value(*m, child(ptr, "mig_apply_seconds"), 0, kMaxSeconds);
    if (const Json* m = find(v, "mutants"))
      s.mutants = known_names(*m, child(ptr, "mutants"), mutant_names(), "mutant", true);
  }

  void nodes_section(const Json& v, const std::string& ptr, Scenario& s) const {
    want_size(v, ptr, 1, kMaxNodes, "nodes");
    for (std::size_t i = 0; i < v.size(); ++i) {
      NodeSpec node = node_entry(v[i], child(ptr, i));
      for (std::size_t j = 0; j < s.nodes.size(); ++j)
        if (s.nodes[j].name == node.name)
          fail(child(child(ptr, i), "name"),
               fmt::format("duplicate node name {} (first at {})", quote(node.name), child(ptr, j)));
      s.nodes.push_back(std::move(node));
    }
  }

  NodeSpec node_entry(const Json& v, const std::string& ptr) const {
    want_object(v, ptr);
    check_keys(v, ptr, kNodeKeys);
    NodeSpec n;
    n.name = nonempty_string(require(v, ptr, "name"), child(ptr, "name"));
    check_charset(n.name, child(ptr, "name"), "node", "._-", "'.', '_' and '-'");
    n.product = nonempty_string(require(v, ptr, "product"), child(ptr, "product"));
    n.gpu_count = int_value(require(v, ptr, "gpu_count"), child(ptr, "gpu_count"), 1, kMaxGpus);
    n.memory_gib = number_value(require(v, ptr, "memory_gib"), child(ptr, "memory_gib"), 0, kMaxMemoryGib, true);
    if (const Json* l = find(v, "labels")) {
      n.labels = labels(*l, child(ptr, "labels"));
    } else {
      // Without labels upstream's classifier says "unknown" and the node is never planned on; a node
      // written without labels means a plain GPU node, so give it what GPU Feature Discovery would.
      n.labels = {{"nvidia.com/gpu.product", n.product}, {"nvidia.com/gpu.count", std::to_string(n.gpu_count)}};
    }
    if (const Json* w = find(v, "workloads")) n.workloads = node_workloads(*w, child(ptr, "workloads"), n.gpu_count);
    if (const Json* m = find(v, "mig_config")) n.mig_config = nonempty_string(*m, child(ptr, "mig_config"));
    read_node_start(*this, v, ptr, n);
    return n;
  }

  OrderedMap<std::string, std::string> labels(const Json& v, const std::string& ptr) const {
    want_object(v, ptr);
    OrderedMap<std::string, std::string> out;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string p = child(ptr, it.key());
      if (it.key().empty()) fail(p, "label keys must be non-empty");
      out.emplace_back(it.key(), string_value(it.value(), p));
    }
    return out;
  }

  OrderedMap<std::string, int> node_workloads(const Json& v, const std::string& ptr, int gpu_count) const {
    want_object(v, ptr);
    OrderedMap<std::string, int> out;
    int total = 0;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string p = child(ptr, it.key());
      if (it.key().empty()) fail(p, "workload ids must be non-empty");
      out.emplace_back(it.key(), int_value(it.value(), p, 1, gpu_count, " (the node's gpu_count)"));
      total += out.back().second;
    }
    // Each entry fits on its own; together they must too, or the fixture starts with more held than exists.
    if (total > gpu_count)
      fail(ptr,
           fmt::format("workloads hold {} GPU units in total, more than the node's gpu_count {}", total, gpu_count));
    return out;
  }

  void actors_section(const Json& v, const std::string& ptr, Scenario& s) const {
    want_size(v, ptr, 1, kMaxActors, "actors");
    std::vector<std::string> names;
    for (std::size_t i = 0; i < v.size(); ++i) {
      ActorSpec actor = actor_entry(v[i], child(ptr, i));
      reject_duplicate(names, actor.name, ptr, child(child(ptr, i), "name"), "actor name");
      names.push_back(actor.name);
      s.actors.push_back(std::move(actor));
    }
    // plan_from and recover's flow may name an actor defined later in the file, so they are resolved once
    // all are known.
    for (const ActorSpec& actor : s.actors)
      for (const Op& op : actor.script)
        if (const auto resolve = op_syntax(op.kind).resolve) resolve(*this, op, actor.name, names);
    // The write-behind ops' background actors, after the file's own (conditional_ops.h): the sections read below
    // (expect, faults, order) may name them.
    add_behind_actors(s);
    owner_identities(s.actors, ptr);
    if (s.actors.size() > kMaxActors)
      fail(ptr, fmt::format("{} actors and {} write-behind ops make {} actors, more than {}", v.size(),
                            s.actors.size() - v.size(), s.actors.size(), kMaxActors));
  }

  /// A start state's stamp or claim owner that is an actor's name must be that actor's identity (docs/DESIGN.md §4
  /// "Owner identity"): a `recover` of the actor reads back its identity's claims, so it could never reach them.
  void stamps_of_identities(const Scenario& s) const {
    const auto check = [&](const std::string& owner, const std::string& ptr) {
      for (const ActorSpec& a : s.actors)
        if (a.name == owner && a.identity() != owner)
          fail(ptr, fmt::format("owner {} is actor {}'s name, but that actor acts as {}: no recover of it would "
                                "reach this; name {}",
                                quote(owner), quote(owner), quote(a.identity()), quote(a.identity())));
    };
    for (size_t i = 0; i < s.nodes.size(); ++i)
      if (s.nodes[i].owner) check(*s.nodes[i].owner, child(child("/nodes", i), "owner"));
    for (size_t i = 0; i < s.start.claims.size(); ++i)
      check(s.start.claims[i].owner, child(child("/claims", i), "owner"));
  }

  /// An owner identity that is another actor's name must be that actor's identity too (docs/DESIGN.md §4 "Owner
  /// identity"): else the name would stand for two identities. A write-behind's background actor (listed after the
  /// file's actors, which keep their indices) acts as itself for its issuer, so no identity may be its name.
  void owner_identities(const std::vector<ActorSpec>& actors, const std::string& ptr) const {
    for (size_t i = 0; i < actors.size(); ++i) {
      if (!actors[i].owner) continue;
      for (const ActorSpec& other : actors)
        if (other.name == *actors[i].owner && other.behind_of)
          fail(child(child(ptr, i), "owner"),
               fmt::format("owner identity {} is the name of a write-behind's background actor", quote(other.name)));
        else if (other.name == *actors[i].owner && other.identity() != other.name)
          fail(child(child(ptr, i), "owner"),
               fmt::format("owner identity {} is actor {}'s name, but that actor acts as {}; name {} (the same "
                           "identity) or another identity",
                           quote(other.name), quote(other.name), quote(other.identity()), quote(other.identity())));
    }
  }

  ActorSpec actor_entry(const Json& v, const std::string& ptr) const {
    want_object(v, ptr);
    check_keys(v, ptr, kActorKeys);
    ActorSpec a;
    const std::string name_ptr = child(ptr, "name");
    a.name = nonempty_string(require(v, ptr, "name"), name_ptr);
    if (a.name.find(':') != std::string::npos)
      fail(name_ptr, fmt::format("invalid actor name {}: ':' separates the actor from the op number in "
                                 "operation ids",
                                 quote(a.name)));
    check_charset(a.name, name_ptr, "actor", "_-", "'_' and '-'");
    if (const Json* o = find(v, "owner")) {
      // An owner stamp's text (upstream takes the owner from the operation id up to its first ':'): the start
      // state's names' characters. The actor's own name is the default, left unset.
      const std::string owner_ptr = child(ptr, "owner");
      std::string owner = nonempty_string(*o, owner_ptr);
      check_charset(owner, owner_ptr, "owner identity", "._-", "'.', '_' and '-'");
      if (owner != a.name) a.owner = std::move(owner);
    }
    const Json& script = require(v, ptr, "script");
    const std::string script_ptr = child(ptr, "script");
    want_size(script, script_ptr, 0, kMaxScriptOps, "ops");
    for (std::size_t i = 0; i < script.size(); ++i)
      a.script.push_back(op_entry(script[i], child(script_ptr, i), a.script));
    return a;
  }

  OpKind op_kind(const Json& v, const std::string& ptr) const {
    const std::string name = string_value(v, ptr);
    const auto& names = op_names();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (name == names[i]) return static_cast<OpKind>(i);
    fail(ptr, fmt::format("unknown op {}{}", quote(name), hint(name, names)));
  }

  /// One op: its row's keys plus the modifiers (conditional_ops.h); `earlier` are the ops before it.
  Op op_entry(const Json& v, const std::string& ptr, const std::vector<Op>& earlier) const {
    want_object(v, ptr);
    Op op{};
    op.kind = op_kind(require(v, ptr, "op"), child(ptr, "op"));
    op.pointer = ptr;
    const OpSyntax& spec = op_syntax(op.kind);
    std::vector<const char*> keys = spec.keys;
    keys.insert(keys.end(), modifier_keys(op.kind).begin(), modifier_keys(op.kind).end());
    check_keys(v, ptr, keys, fmt::format(" for op {}", quote(spec.name)));
    spec.parse(*this, v, ptr, op);
    parse_op_modifiers(*this, v, ptr, earlier, op);
    return op;
  }

  /// "all", a list of names, or {"all_except": [names]} (invariants_except; docs/DESIGN.md §4).
  std::vector<std::string> invariants_section(const Json& v, const std::string& ptr) const {
    if (v.is_string() && v.get_ref<const std::string&>() == "all") return {};
    if (v.is_object()) {
      check_keys(v, ptr, kInvariantsKeys);
      const Json* except = find(v, "all_except");
      if (except == nullptr) fail(ptr, "expected {\"all_except\": [invariant names]}");
      const std::vector<std::string> out =
          invariants_except(known_names(*except, child(ptr, "all_except"), invariant_names(), "invariant", false));
      if (out.empty()) fail(child(ptr, "all_except"), "leaves no invariant to check");
      return out;
    }
    if (!v.is_array())
      fail(ptr, fmt::format("expected \"all\", an array of invariant names or {{\"all_except\": [...]}}, got {}",
                            v.is_string() ? quote(v.get_ref<const std::string&>()) : v.type_name()));
    return known_names(v, ptr, invariant_names(), "invariant", false);
  }

  Expectation expect_section(const Json& v, const std::string& ptr, const Scenario& s) const {
    want_object(v, ptr);
    check_keys(v, ptr, kExpectKeys);
    Expectation e;
    expect_verdict(v, ptr, s, e);
    if (const Json* a = find(v, "actors")) e.actors = expect_actors(*a, child(ptr, "actors"), s, e.occurrences);
    if (const Json* r = find(v, "reach"))
      e.reach = known_names(*r, child(ptr, "reach"), barrier_names(), "barrier", true);
    if (const Json* a = find(v, "audit")) e.audit = read_expect_audit(*this, *a, child(ptr, "audit"));
    return e;
  }

  /// outcome/violation: "violation" present means a violation is expected, and outcome may only agree.
  void expect_verdict(const Json& v, const std::string& ptr, const Scenario& s, Expectation& e) const {
    std::string outcome;
    if (const Json* o = find(v, "outcome")) outcome = choice(*o, child(ptr, "outcome"), kOutcomes);
    const Json* violation = find(v, "violation");
    const std::string vptr = child(ptr, "violation");
    if (violation == nullptr) {
      if (outcome == "violation")
        fail(ptr, "missing required key \"violation\" (outcome \"violation\" needs the invariant(s) expected)");
      return;
    }
    if (outcome == "pass") fail(vptr, "\"violation\" contradicts outcome \"pass\"");
    e.pass = false;
    if (violation->is_string()) {
      e.violations.push_back(known_name(*violation, vptr, invariant_names(), "invariant"));
      check_checked(e.violations[0], vptr, s);
      return;
    }
    if (!violation->is_array())
      fail(vptr, fmt::format("expected an invariant name or an array of them, got {}", violation->type_name()));
    e.violations = known_names(*violation, vptr, invariant_names(), "invariant", false);
    for (std::size_t i = 0; i < e.violations.size(); ++i) check_checked(e.violations[i], child(vptr, i), s);
  }

  /// An expected violation of an invariant the scenario does not check could never fire.
  void check_checked(const std::string& name, const std::string& ptr, const Scenario& s) const {
    if (s.invariants.empty()) return;
    if (std::find(s.invariants.begin(), s.invariants.end(), name) == s.invariants.end())
      fail(ptr,
           fmt::format("invariant {} is not in /invariants, so the expected violation could never fire", quote(name)));
  }

  OrderedMap<std::string, OrderedMap<std::string, std::vector<std::string>>> expect_actors(
      const Json& v, const std::string& ptr, const Scenario& s,
      OrderedMap<std::string, OrderedMap<size_t, std::vector<std::string>>>& occurrences) const {
    want_object(v, ptr);
    std::vector<const char*> actor_names;
    for (const ActorSpec& a : s.actors) actor_names.push_back(a.name.c_str());
    OrderedMap<std::string, OrderedMap<std::string, std::vector<std::string>>> out;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string p = child(ptr, it.key());
      const auto actor =
          std::find_if(s.actors.begin(), s.actors.end(), [&](const ActorSpec& a) { return a.name == it.key(); });
      if (actor == s.actors.end())
        fail(p, fmt::format("actor {} is not in /actors{}", quote(it.key()), did_you_mean(it.key(), actor_names)));
      OrderedMap<size_t, std::vector<std::string>> pins;
      out.emplace_back(it.key(), expect_actor_ops(it.value(), p, *actor, pins));
      if (!pins.empty()) occurrences.emplace_back(it.key(), std::move(pins));
    }
    return out;
  }

  OrderedMap<std::string, std::vector<std::string>> expect_actor_ops(
      const Json& v, const std::string& ptr, const ActorSpec& actor,
      OrderedMap<size_t, std::vector<std::string>>& pins) const {
    want_object(v, ptr);
    OrderedMap<std::string, std::vector<std::string>> out;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string p = child(ptr, it.key());
      const std::string& name = it.key();
      if (is_occurrence_key(name)) {  // a pin of one occurrence (expect_audit.h)
        const size_t index = occurrence_index(*this, name, p);
        pins.emplace_back(index, read_occurrence_pin(*this, it.value(), p, actor, index));
        continue;
      }
      if (!contains(op_names(), name)) fail(p, fmt::format("unknown op {}{}", quote(name), hint(name, op_names())));
      out.emplace_back(name, expected_outcomes(it.value(), p, actor, name));
    }
    return out;
  }

  std::vector<std::string> expected_outcomes(const Json& v, const std::string& ptr, const ActorSpec& actor,
                                             const std::string& op) const {
    const auto in_script =
        std::find_if(actor.script.begin(), actor.script.end(), [&](const Op& o) { return op == op_name(o.kind); });
    if (in_script == actor.script.end())
      fail(ptr, fmt::format("actor {} has no {} op in its script", quote(actor.name), quote(op)));
    const std::vector<const char*> vocabulary = expect_vocabulary(actor, op);  // `skipped` when an op has `when`
    want_array(v, ptr);
    if (v.empty()) fail(ptr, fmt::format("expected a non-empty array of {} outcomes, got []", quote(op)));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string p = child(ptr, i);
      std::string word = string_value(v[i], p);
      if (!contains(vocabulary, word))
        fail(p, fmt::format("unknown outcome {} for op {}{}", quote(word), quote(op), hint(word, vocabulary)));
      reject_duplicate(out, word, ptr, p, "outcome");
      out.push_back(std::move(word));
    }
    return out;
  }
};

std::string digest_of(std::string_view text) {
  const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  return fmt::format("xxh3-128:{:016x}{:016x}", h.high64, h.low64);
}

/// A reader's InputError as the ScenarioError the loader's callers catch.
[[noreturn]] void rethrow_as_scenario_error(const support::InputError& e) { throw ScenarioError(e); }

}  // namespace

/// Parses `text` as if read from `path`: bytes, then strict JSON, then the schema. Throws ScenarioError.
Scenario parse_scenario(const std::string& text, const std::string& path) {
  Scenario s;
  try {
    support::check_text(text, path);
    const Json doc = support::parse_strict(text, path);
    Checker(path, s).document(doc, s);
  } catch (const ScenarioError&) {
    throw;
  } catch (const support::InputError& e) {
    rethrow_as_scenario_error(e);
  } catch (const nlohmann::json::exception& e) {
    // Every access above is type-checked first; this is a safety net so bad input never escapes as
    // anything but a ScenarioError.
    throw ScenarioError(path, "", fmt::format("internal error while reading the scenario: {}", e.what()));
  }
  s.path = path;
  s.digest = digest_of(text);
  return s;
}

/// Loads and validates `path`. Throws ScenarioError (never anything else for bad input).
Scenario load_scenario(const std::string& path) {
  std::string text;
  try {
    text = support::read_text(path);
  } catch (const support::InputError& e) {
    rethrow_as_scenario_error(e);
  }
  return parse_scenario(text, path);
}

}  // namespace allocsim::harness
