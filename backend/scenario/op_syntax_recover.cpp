// The syntax of `recover` (op_syntax.h, scenario.h); its behaviour is backend/ops/op_recover.cpp.
#include "backend/scenario/op_syntax.h"

#include <algorithm>

#include <fmt/format.h>

#include "backend/scenario/scenario_reader.h"

namespace allocsim::harness {
namespace {

using Json = nlohmann::ordered_json;
using support::child;
using support::quote;

void parse_recover(const ScenarioReader& r, const Json& v, const std::string& ptr, Op& op) {
  op.flow = r.nonempty_string(r.require(v, ptr, "flow"), child(ptr, "flow"));
  const Json* w = r.find(v, "wait");
  if (w) op.wait_for_end = r.bool_value(*w, child(ptr, "wait"));
  if (const Json* l = r.find(v, "lease_seconds")) {
    // A lease is a sweeper's belief about a flow that may still run (backend/world/leases.h): waiting for the
    // flow's end first would make it moot.
    if (w && op.wait_for_end)
      r.fail(child(ptr, "wait"),
             "a recover with lease_seconds does not wait for the flow's end; drop \"wait\" or set it to false");
    op.lease_seconds = r.number_value(*l, child(ptr, "lease_seconds"), 0, kMaxSeconds, true);
    op.wait_for_end = false;
  }
}

void resolve_recover(const ScenarioReader& r, const Op& op, const std::string& self,
                     const std::vector<std::string>& actors) {
  const std::string ptr = child(op.pointer, "flow");
  if (op.flow == self)
    r.fail(ptr, fmt::format("recover names the actor itself ({}); a flow's own cleanup is \"release\"", quote(self)));
  std::vector<const char*> known;
  for (const std::string& n : actors) known.push_back(n.c_str());
  if (!support::contains(known, op.flow))
    r.fail(ptr, fmt::format("actor {} is not in /actors{}", quote(op.flow), support::did_you_mean(op.flow, known)));
  // The flow holds its end (the lock recover waits for) from its first step, taken as the actors start in
  // their listed order (docs/DESIGN.md §4, the op table): a recover listed before its flow would find that
  // lock free and run before the flow has begun.
  const auto at = [&](const std::string& name) { return std::find(actors.begin(), actors.end(), name); };
  if (op.wait_for_end && at(op.flow) > at(self))
    r.fail(ptr, fmt::format("recover's flow {} is listed after {} in /actors; list the flow first (it holds its end "
                            "from its first step, which a recover listed before it would not wait for)",
                            quote(op.flow), quote(self)));
}

void json_recover(const Op& op, Json& j) {
  j["flow"] = op.flow;
  if (op.lease_seconds)
    j["lease_seconds"] = *op.lease_seconds;  // implies wait false
  else if (!op.wait_for_end)
    j["wait"] = false;
}

}  // namespace

std::vector<OpSyntax> recover_op_syntax() {
  return {
      {OpKind::Recover,
       "recover",
       R"json({
         "description": "Re-run another flow's cleanup (release by the recorded claim and generation), as a restarted controller would once the flow has ended (ALLOC-033); with wait false, at once, as a sweeper would while the flow may still run; with lease_seconds, only once the flow's lease has expired by the fake clock.",
         "properties": {
           "flow": {"description": "The flow to clean up: an actor in /actors, not this one (listed before this one when the recover waits).", "type": "string", "minLength": 1},
           "wait": {"description": "Wait for the flow's actor to end first (default). false: a sweeper that believes the flow's lease expired and cleans up at once, while the flow may still run; recovery-converges does not judge it.", "type": "boolean", "default": true},
           "lease_seconds": {"description": "A sweeper that judges the flow's lease by the fake clock: the flow renews it at the start of each op (skipped ones included) and after its own advance_clock; at its recover point the sweeper cleans up only if the clock is at least this many seconds (more than 0, up to 86400) past the last renewal, and otherwise records unexpired and writes nothing. Implies wait false (true is refused). The lease is the harness's: upstream has none.", "type": "number", "exclusiveMinimum": 0, "maximum": 86400}
         },
         "required": ["flow"],
         "dependentSchemas": {"lease_seconds": {"properties": {"wait": {"description": "A leased recover never waits for the flow's end.", "const": false}}}}
       })json",
       {"released", "none", "unexpired", "pending_recovery", "stale", "error", "unknown", "crashed"},  //
       parse_recover,
       resolve_recover,
       json_recover,
       nullptr,
       {"recover", "release"}},
  };
}

}  // namespace allocsim::harness
