// Caller: everything a backend call needs from whoever is calling it.
//
// Upstream relies on process-global state for these (faults.barrier, threading.RLock, one id counter); the
// port makes them an explicit first argument so that the simulator can give each actor its own:
// - barrier(): upstream's `faults.barrier(name, **context)`. Under the simulator it is a scheduling point
//   (docs/DESIGN.md §2). It may throw to inject a fault (crash/raise, backend/CONTRACT.md §2).
// - lock()/unlock(): upstream's `with self._lock:` (a re-entrant lock). Under the simulator, a simulated
//   re-entrant mutex where a contended acquire blocks the actor. unlock() never switches.
// - next_id(): ids for plans, claims and generations. Upstream draws them from one global counter; the
//   port asks the caller, and the simulator answers from a counter per actor ("gen-flowA-2"), so ids never
//   depend on how unrelated actors interleave (a deliberate deviation, docs/DESIGN.md §3).
// - touch(): the footprint of the current step (DPOR); a no-op by default.
#pragma once

#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace allocsim::backend {

/// What a fired barrier tells its caller (backend/CONTRACT.md §2 `Hit`).
struct BarrierHit {
  bool drop_response = false;
};

/// Objects a step can touch, for footprints (docs/DESIGN.md §2).
enum class Obj : unsigned char {
  Node,
  Claim,
  SharedMap,
  Pointer,
  Clock,
  FailedReads,
  FailingGeometry,
  Audit,
  Lock,
  AllNodes
};

class Caller {
 public:
  virtual ~Caller() = default;
  /// Fires barrier `name` (one of backend/CONTRACT.md §2's allocation barriers); `detail` is its context rendered
  /// as "key=value key=value". REQUIRES: name is a known barrier.
  virtual BarrierHit barrier(std::string_view name, std::string detail) = 0;
  /// barrier() with the detail as a compiled format and its arguments (upstream's keyword context, in order),
  /// `c.barrier("delete.after", FMT_COMPILE("entry={} op_id={}"), e, id)`: the backend's form. The format is
  /// parsed at compile time and the detail written into detail_buffer(), so a barrier costs no format parsing
  /// and, with a reused buffer, no allocation (docs/DESIGN.md §5, "Storage reused across executions"; runtime
  /// parsing of these details was about 8 % of a `run`'s instructions).
  template <class S, class... Args, std::enable_if_t<fmt::detail::is_compiled_string<S>::value, int> = 0>
  BarrierHit barrier(std::string_view name, const S& detail, const Args&... args) {
    std::string& buffer = detail_buffer();
    buffer.clear();
    fmt::format_to(std::back_inserter(buffer), detail, args...);
    return barrier_detail(name, buffer);
  }
  /// Where the compiled form formats a detail; valid until the next barrier. A caller that keeps the
  /// buffer per actor (the simulator's) overrides it.
  virtual std::string& detail_buffer() { return detail_buffer_; }
  /// Fires barrier `name` with the detail in detail_buffer(). REQUIRES: `detail` is detail_buffer().
  virtual BarrierHit barrier_detail(std::string_view name, const std::string& detail) { return barrier(name, detail); }
  virtual void lock() = 0;
  virtual void unlock() = 0;
  /// A fresh id of `kind` ("plan", "claim", "gen"), e.g. "claim-3" or "claim-flowA-3".
  virtual std::string next_id(std::string_view kind) = 0;
  /// Adds `text` to the current step's detail: a port-only hook that changed what the step read says so, as
  /// "fault=KIND:..." (read_hooks.cpp). Callers that keep no steps ignore it.
  virtual void note(std::string_view text) { (void)text; }
  /// Records that the current step reads (write=false) or writes object `what` named `name`.
  virtual void touch(Obj what, std::string_view name, bool write) { (void)what, (void)name, (void)write; }
  /// Whether touch() does anything with a read. False: the caller keeps no footprints (only writes matter to it),
  /// so a loop that would read-touch every node skips the calls: they grew a step with the pool (docs/DESIGN.md §5,
  /// "Per-node cost of inventory and plan").
  bool records_reads() const { return records_reads_; }
  /// How many LockGuards are alive on this caller: the lock depth the port's code took through `with self._lock:`
  /// blocks (a raw lock() is not counted). The port checks it at every barrier (memory_backend.h, rule 1).
  int lock_guards() const { return lock_guards_; }

 protected:
  bool records_reads_ = true;

 private:
  friend class LockGuard;
  int lock_guards_ = 0;
  std::string detail_buffer_;
};

/// RAII for Caller::lock (upstream's `with self._lock:`).
class LockGuard {
 public:
  explicit LockGuard(Caller& c) : c_(c) {
    c_.lock();
    ++c_.lock_guards_;  // after lock(): an acquire that unwinds (an actor crash while blocked) took nothing
  }
  ~LockGuard() {
    --c_.lock_guards_;
    c_.unlock();
  }
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;

 private:
  Caller& c_;
};

/// A caller for sequential use (tests, tools): barriers do nothing, the lock is free, and ids come from
/// one counter shared by all kinds ("plan-1", "claim-2", "gen-3"), exactly as upstream's.
class SequentialCaller : public Caller {
 public:
  BarrierHit barrier(std::string_view name, std::string detail) override {
    fired.emplace_back(std::string(name), std::move(detail));
    return {};
  }
  void lock() override { ++depth; }
  void unlock() override { --depth; }
  std::string next_id(std::string_view kind) override { return std::string(kind) + "-" + std::to_string(++counter); }

  std::vector<std::pair<std::string, std::string>> fired;  // barriers fired, in order
  int depth = 0;                                           // current lock depth (0 between calls)
  long counter = 0;
};

}  // namespace allocsim::backend
