// Directed interleavings (docs/DESIGN.md §2, "Order"): `order` constraints between labelled steps, parsed and checked.
//
// Shapes:
// - A label `ACTOR:POINT#N` names one step: the N-th time (1-based) that actor ACTOR resumes from the
//   scheduling point POINT (a trace step's `point`: an op/call name, a barrier name, or "lock.wait"). `#N`
//   may be omitted and means `#1`. ACTOR is everything before the first `:`; POINT everything after it up
//   to a trailing `#N`.
// - A constraint `[X, Y]` says that step X is taken before step Y. An order block is a JSON array of such
//   pairs. A constraint whose X never happens (its actor ends first, say) holds Y back for ever; an
//   execution in which every runnable actor is held back ends *order-blocked* (sim/engine.h), which is
//   neither a violation nor a pass. A constraint whose Y never happens is met.
// - OrderSpec: the constraints in file order, actor names resolved to ids (positions in the world's
//   actor list) at parse time.
// Errors: OrderError, carrying a JSON pointer relative to the block ("/0/1"; "" = the block itself) and a
// message; callers prefix it with the file and the key's pointer (`/order/0/1`) or the flag (`--order`).
// Rejected: a malformed label, an unknown actor, a point the actor never resumes from (when the caller gives
// a PointVocabulary: a typo would otherwise name a step that never happens, so its constraint would hold
// a step back for ever or be met without a word), N < 1, X == Y, and a cycle among the constraints (with
// each actor's own occurrences of a point in order: `a:p#2` always comes after `a:p#1`), which no
// execution can satisfy; the message names the constraints on the cycle.
// Generic: no backend word; nothing here depends on addresses, time or hash order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/world.h"

namespace allocsim::sim {

/// Bad order input: `pointer` within the order block ("/0/1") and `message`; what() is "POINTER: MESSAGE".
class OrderError : public std::invalid_argument {
 public:
  OrderError(std::string pointer, const std::string& message);
  const std::string& pointer() const { return pointer_; }
  const std::string& message() const { return message_; }

 private:
  std::string pointer_, message_;
};

/// One labelled step: actor `actor` (named `actor_name`) resuming from `point` for the `n`-th time.
struct StepLabel {
  ActorId actor = kNoActor;
  std::string actor_name;
  std::string point;
  uint32_t n = 1;  // >= 1
  /// "ACTOR:POINT#N" (always with #N, so a printed label is unambiguous).
  std::string text() const;
  bool operator==(const StepLabel&) const = default;
};

/// `before` is taken before `after`.
struct OrderConstraint {
  StepLabel before, after;
  /// `["X", "Y"]`, as written in an order block.
  std::string text() const;
  bool operator==(const OrderConstraint&) const = default;
};

struct OrderSpec {
  std::vector<OrderConstraint> constraints;  // file order (then --order's)
  bool empty() const { return constraints.empty(); }
};

/// The points each actor can resume from, by actor id (the world's own words: static strings, in the order
/// its messages list them). A label whose point is not in its actor's list is refused. Built by the world's
/// side (backend/scenario/op_syntax.h point_vocabulary); sim/ only looks names up.
struct PointVocabulary {
  std::vector<std::vector<const char*>> per_actor;
  /// Optional: why actor `actor` never reaches `point` when the name means something to the world (an op whose
  /// calls have other names, a call this actor never makes), as the parenthesis closing the error; "" when it
  /// means nothing, and the nearest known point is suggested instead.
  std::function<std::string(ActorId actor, std::string_view point)> explain = {};
};

/// Parses one label against `actors` (names by id) and, when `points` is given, the actor's points.
/// REQUIRES: `points`, when given, has one entry per actor. Throws OrderError with `pointer`.
StepLabel parse_label(std::string_view text, const std::vector<std::string>& actors, const std::string& pointer,
                      const PointVocabulary* points = nullptr);

/// Parses an order block (an array of [X, Y] string pairs) and checks it (see the file comment); `points`
/// as for parse_label (nullptr: any point name is accepted, as for a block taken from a recorded trace).
/// Throws OrderError with a pointer relative to `block`.
OrderSpec parse_order(const nlohmann::ordered_json& block, const std::vector<std::string>& actors,
                      const PointVocabulary* points = nullptr);

/// Appends `extra`'s constraints to `base` and checks the result for cycles again (a cycle across the two
/// is reported with the pointers of `extra`, offset by nothing: callers say which source is which). Throws
/// OrderError.
void append_order(OrderSpec& base, const OrderSpec& extra);

/// Throws OrderError naming the constraints of a cycle, if any ("" pointer).
void check_acyclic(const OrderSpec& spec);

/// The block as JSON: [["X", "Y"], ...] with every label in text() form.
nlohmann::ordered_json order_json(const OrderSpec& spec);

/// The engine's view of an order during one execution (sim/engine.cpp): how often each labelled (actor,
/// point) has been taken, and which constraints' X steps have happened. Built only for a non-empty order,
/// so an execution without one does no extra work.
class OrderTracker {
 public:
  explicit OrderTracker(const OrderSpec& spec);
  /// The first constraint (lowest index) that holds back `actor`'s next step, resuming from `point`: its Y
  /// is that step and its X has not been taken. nullopt: the step may be taken.
  std::optional<size_t> holding_back(ActorId actor, std::string_view point) const;
  /// Records that `actor` resumed from `point`. Fills `labelled` with the constraints whose X or Y that
  /// step is (ascending), for the footprint object below.
  void take(ActorId actor, std::string_view point, std::vector<size_t>& labelled);
  /// Whether constraint `c`'s X has been taken.
  bool taken(size_t c) const { return taken_[c]; }
  const OrderSpec& spec() const { return spec_; }
  /// The footprint object both steps of constraint `c` write, so that DPOR sees X and Y as dependent (X
  /// enables Y; a reduction must not treat them as commuting).
  static uint64_t footprint_object(size_t c) { return 0x4f52444552000000ull + c; }  // "ORDER" + c
  /// The progress so far (each labelled point's count, each constraint taken or not), for canonical states
  /// (sim/engine_states.cpp): folded into `seed`.
  uint64_t digest(uint64_t seed) const;

 private:
  struct Key {
    ActorId actor;
    std::string_view point;  // into spec_
    uint32_t count = 0;      // times taken so far in this execution
  };
  const OrderSpec& spec_;
  std::vector<Key> keys_;
  std::vector<size_t> before_key_, after_key_;  // per constraint
  std::vector<bool> taken_;
};

/// `spec` for a world whose actors are `actors` (after an actor was removed, say): constraints that name an
/// actor not in `actors` are dropped; the rest get the new ids.
OrderSpec remap_order(const OrderSpec& spec, const std::vector<std::string>& actors);

}  // namespace allocsim::sim
