// The `faults` section (fault_section.h).
#include "backend/scenario/fault_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "backend/model/barriers.h"

namespace allocsim::harness {

namespace {

using Json = support::Json;
using support::child;
using support::contains;
using support::did_you_mean;
using support::hint;
using support::quote;

const std::vector<const char*> kFaultKeys = {"max", "actors", "barriers", "fail_reads", "fail_geometry"};
const std::vector<const char*> kFaultActions = {"crash", "raise", "drop_response"};  // FaultAction order
constexpr int kMaxFaults = 16;
constexpr int kMaxFailingNodes = 64;  // as /nodes allows

const std::vector<const char*>& known_barriers() {
  static const std::vector<const char*> k = [] {
    std::vector<const char*> out;
    for (const auto& entry : backend::barrier_table()) out.push_back(entry.name);
    return out;
  }();
  return k;
}

/// {barrier: [action, ...]}: known barriers (did-you-mean), each with distinct known actions.
OrderedMap<std::string, std::vector<FaultAction>> fault_barriers(const ScenarioReader& r, const Json& v,
                                                                 const std::string& ptr) {
  r.want_object(v, ptr);
  if (v.empty()) r.fail(ptr, "expected an object of barrier -> actions, got {}");
  OrderedMap<std::string, std::vector<FaultAction>> out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string p = child(ptr, it.key());
    if (!contains(known_barriers(), it.key()))
      r.fail(p, fmt::format("unknown barrier {}{}", quote(it.key()), hint(it.key(), known_barriers())));
    r.want_size(it.value(), p, 1, kFaultActions.size(), "actions");
    std::vector<std::string> seen;
    std::vector<FaultAction> actions;
    for (std::size_t i = 0; i < it.value().size(); ++i) {
      const std::string ap = child(p, i);
      const std::string word = r.string_value(it.value()[i], ap);
      if (!contains(kFaultActions, word))
        r.fail(ap, fmt::format("unknown fault action {}{}", quote(word), hint(word, kFaultActions)));
      r.reject_duplicate(seen, word, p, ap, "fault action");
      seen.push_back(word);
      const auto at =
          std::find_if(kFaultActions.begin(), kFaultActions.end(), [&](const char* a) { return word == a; });
      actions.push_back(static_cast<FaultAction>(at - kFaultActions.begin()));
    }
    out.emplace_back(it.key(), std::move(actions));
  }
  return out;
}

}  // namespace

FaultSpec read_faults_section(const ScenarioReader& r, const Json& v, const std::string& ptr, const Scenario& s) {
  r.want_object(v, ptr);
  r.check_keys(v, ptr, kFaultKeys);
  FaultSpec f;
  f.enabled = true;
  if (const Json* m = r.find(v, "max")) f.max = r.int_value(*m, child(ptr, "max"), 1, kMaxFaults);
  if (const Json* a = r.find(v, "actors")) {
    std::vector<const char*> names;
    for (const ActorSpec& actor : s.actors) names.push_back(actor.name.c_str());
    const std::string aptr = child(ptr, "actors");
    r.want_array(*a, aptr);
    if (a->empty())
      r.fail(aptr, "expected a non-empty array of actor names (omit \"actors\" to let every actor fault), got []");
    for (std::size_t i = 0; i < a->size(); ++i) {
      const std::string p = child(aptr, i);
      const std::string name = r.string_value((*a)[i], p);
      if (!contains(names, name))
        r.fail(p, fmt::format("actor {} is not in /actors{}", quote(name), did_you_mean(name, names)));
      r.reject_duplicate(f.actors, name, aptr, p, "actor");
      f.actors.push_back(name);
    }
  }
  if (const Json* b = r.find(v, "barriers")) f.barriers = fault_barriers(r, *b, child(ptr, "barriers"));
  if (const Json* reads = r.find(v, "fail_reads")) {
    const std::string rptr = child(ptr, "fail_reads");
    r.want_size(*reads, rptr, 1, read_kinds().size(), "read kinds");
    for (std::size_t i = 0; i < reads->size(); ++i) {
      std::string kind = r.choice((*reads)[i], child(rptr, i), read_kinds());
      r.reject_duplicate(f.fail_reads, kind, rptr, child(rptr, i), "read kind");
      f.fail_reads.push_back(std::move(kind));
    }
  }
  if (const Json* g = r.find(v, "fail_geometry")) {
    const std::string gptr = child(ptr, "fail_geometry");
    r.want_size(*g, gptr, 1, kMaxFailingNodes, "nodes");
    for (std::size_t i = 0; i < g->size(); ++i) {
      std::string node = r.node_ref((*g)[i], child(gptr, i));
      r.reject_duplicate(f.fail_geometry, node, gptr, child(gptr, i), "node");
      f.fail_geometry.push_back(std::move(node));
    }
  }
  if (f.barriers.empty() && f.fail_reads.empty() && f.fail_geometry.empty())
    r.fail(ptr, "faults enables no fault: give \"barriers\", \"fail_reads\" or \"fail_geometry\"");
  return f;
}

}  // namespace allocsim::harness
