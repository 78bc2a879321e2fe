// The scenario loader (DESIGN.md §4): bytes -> strict JSON -> validated Scenario.
//
// Three layers, each failing with a ScenarioError that names the file and a JSON pointer:
//   1. bytes: readable, at most 4 MiB, not empty, UTF-8 text (checked before nlohmann sees it, so
//      binary input gets a message about bytes instead of a confusing JSON syntax error);
//   2. JSON: a SAX builder over nlohmann::ordered_json (file order is part of the scenario) that also
//      rejects duplicate keys and absurd nesting, which nlohmann's own parser silently accepts;
//   3. schema: the Checker walks the document, resolving every reference, so a loaded scenario never
//      fails for a reason the file could have told.
#include "backend/harness/scenario.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <system_error>
#include <utility>

#include "backend/harness/catalog.h"

namespace allocsim::harness {

ScenarioError::ScenarioError(std::string file, std::string pointer, std::string message)
    : std::runtime_error(pointer.empty() ? fmt::format("{}: {}", file, message)
                                         : fmt::format("{}: {}: {}", file, pointer, message)),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      message_(std::move(message)) {}

// -- op vocabulary ---------------------------------------------------------------------------------

/// Every op name, in enum order.
const std::vector<const char*>& op_names() {
  static const std::vector<const char*> k = {
      "inventory", "plan",          "reserve",         "observe",    "await",         "mark_ready",    "reconcile",
      "release",   "bind_workload", "unbind_workload", "fail_reads", "restore_reads", "fail_geometry", "advance_clock",
      "recover",
  };
  return k;
}

/// The op's name as written in scenario files; "unknown" for a value outside the enum.
const char* op_name(OpKind k) {
  const auto& names = op_names();
  const auto i = static_cast<std::size_t>(k);
  return i < names.size() ? names[i] : "unknown";
}

/// The outcomes an op of kind `k` can record (the vocabulary of expect.actors).
const std::vector<const char*>& op_outcomes(OpKind k) {
  static const std::vector<const char*> inventory = {"complete", "partial", "unknown"};
  static const std::vector<const char*> plan = {"feasible", "infeasible", "skipped"};
  // `error` (a raise fault), `unknown` (a dropped response, or a failed read) and `crashed` (a crash fault) are
  // the words of the ops that fire barriers (faults, FaultSpec).
  static const std::vector<const char*> reserve = {"claimed", "conflict", "infeasible", "unknown",
                                                   "skipped", "error",    "crashed"};
  static const std::vector<const char*> observe = {"pending", "allocated", "prepared", "ready",
                                                   "failed",  "unknown",   "skipped"};
  static const std::vector<const char*> await = {"pending", "allocated", "prepared", "ready",
                                                 "failed",  "timeout",   "skipped"};
  static const std::vector<const char*> mark_ready = {"done", "skipped", "error", "unknown", "crashed"};
  static const std::vector<const char*> reconcile = {"pending", "allocated", "prepared", "ready",
                                                     "failed",  "conflict",  "skipped"};
  static const std::vector<const char*> release = {"released", "pending_recovery", "stale", "skipped",
                                                   "error",    "unknown",          "crashed"};
  static const std::vector<const char*> recover = {"released", "none",    "pending_recovery", "stale",
                                                   "error",    "unknown", "crashed"};
  static const std::vector<const char*> done = {"done"};
  switch (k) {
    case OpKind::Inventory: return inventory;
    case OpKind::Plan: return plan;
    case OpKind::Reserve: return reserve;
    case OpKind::Observe: return observe;
    case OpKind::Await: return await;
    case OpKind::MarkReady: return mark_ready;
    case OpKind::Reconcile: return reconcile;
    case OpKind::Release: return release;
    case OpKind::BindWorkload:
    case OpKind::UnbindWorkload:
    case OpKind::FailReads:
    case OpKind::RestoreReads:
    case OpKind::FailGeometry:
    case OpKind::AdvanceClock: return done;
    case OpKind::Recover: return recover;
  }
  return done;
}

const char* fault_action_name(FaultAction a) {
  switch (a) {
    case FaultAction::Crash: return "crash";
    case FaultAction::Raise: return "raise";
    case FaultAction::DropResponse: return "drop_response";
  }
  return "unknown";
}

bool FaultSpec::eligible(const std::string& actor) const {
  return enabled && (actors.empty() || std::find(actors.begin(), actors.end(), actor) != actors.end());
}

namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kSchema = "allocsim/scenario/v1";
constexpr std::size_t kMaxFileBytes = std::size_t{4} << 20;
// The schema itself nests 7 deep (/actors/0/script/0/requests/0); anything far beyond is not a scenario,
// and stopping early keeps a file of 4 MiB of '[' from becoming millions of allocations.
constexpr std::size_t kMaxDepth = 16;
constexpr int kMaxNodes = 64;
constexpr int kMaxActors = 16;
constexpr int kMaxScriptOps = 256;
constexpr int kMaxRequests = 16;
constexpr int kMaxGpus = 64;
constexpr double kMaxMemoryGib = 4096;
constexpr double kMaxSeconds = 86400;

const std::vector<const char*> kTopKeys = {"schema", "name",       "description", "backend", "nodes",
                                           "actors", "invariants", "expect",      "faults",  "max_steps"};
const std::vector<const char*> kFaultKeys = {"max", "actors", "barriers", "fail_reads", "fail_geometry"};
const std::vector<const char*> kFaultActions = {"crash", "raise", "drop_response"};  // FaultAction order
constexpr int kMaxFaults = 16;
const std::vector<const char*> kBackendKeys = {"authority", "mig_apply_seconds", "mutants"};
const std::vector<const char*> kNodeKeys = {"name",   "product",   "gpu_count", "memory_gib",
                                            "labels", "workloads", "mig_config"};
const std::vector<const char*> kActorKeys = {"name", "script"};
const std::vector<const char*> kRequestKeys = {"workload", "devices", "sharing", "minimum_usable_memory_gib"};
const std::vector<const char*> kExpectKeys = {"outcome", "violation", "actors", "reach"};

const std::vector<const char*> kAuthorities = {backend::kAuthorityDevicePlugin, backend::kAuthorityManagedMig,
                                               backend::kAuthorityLocal, backend::kAuthorityDra};
const std::vector<const char*> kSharings = {backend::kSharingExclusive, backend::kSharingIsolatedMig,
                                            backend::kSharingCooperative, backend::kSharingAccountingOnly};
const std::vector<const char*> kClaimStatuses = {backend::kClaimPending, backend::kClaimAllocated,
                                                 backend::kClaimPrepared, backend::kClaimReady, backend::kClaimFailed};
const std::vector<const char*> kReadKinds = {"nodes", "pods", "config"};
const std::vector<const char*> kOutcomes = {"pass", "violation"};

/// The keys an op of kind `k` takes, "op" included (the did-you-mean candidates for its unknown keys).
const std::vector<const char*>& op_keys(OpKind k) {
  static const std::vector<const char*> none = {"op"};
  static const std::vector<const char*> inventory = {"op", "nodes"};
  static const std::vector<const char*> plan = {"op", "requests"};
  static const std::vector<const char*> reserve = {"op", "requests", "plan_from"};
  static const std::vector<const char*> await = {"op", "status", "polls_max"};
  static const std::vector<const char*> reconcile = {"op", "status"};
  static const std::vector<const char*> release = {"op", "keep_workloads"};
  static const std::vector<const char*> bind = {"op", "node", "workload", "units"};
  static const std::vector<const char*> unbind = {"op", "node", "workload"};
  static const std::vector<const char*> reads = {"op", "kind"};
  static const std::vector<const char*> geometry = {"op", "node"};
  static const std::vector<const char*> clock = {"op", "seconds"};
  static const std::vector<const char*> recover = {"op", "flow"};
  switch (k) {
    case OpKind::Inventory: return inventory;
    case OpKind::Plan: return plan;
    case OpKind::Reserve: return reserve;
    case OpKind::Await: return await;
    case OpKind::Reconcile: return reconcile;
    case OpKind::Release: return release;
    case OpKind::BindWorkload: return bind;
    case OpKind::UnbindWorkload: return unbind;
    case OpKind::FailReads:
    case OpKind::RestoreReads: return reads;
    case OpKind::FailGeometry: return geometry;
    case OpKind::AdvanceClock: return clock;
    case OpKind::Recover: return recover;
    case OpKind::Observe:
    case OpKind::MarkReady: return none;
  }
  return none;
}

/// The names of a catalog, as did-you-mean candidates.
template <class Catalog>
std::vector<const char*> names_of(const Catalog& catalog) {
  std::vector<const char*> out;
  for (const auto& entry : catalog) out.push_back(entry.name);
  return out;
}

const std::vector<const char*>& mutant_names() {
  static const std::vector<const char*> k = names_of(backend::mutant_catalog());
  return k;
}
const std::vector<const char*>& invariant_names() {
  static const std::vector<const char*> k = names_of(invariant_catalog());
  return k;
}
const std::vector<const char*>& barrier_names() {
  static const std::vector<const char*> k = names_of(barrier_catalog());
  return k;
}

// -- text helpers ----------------------------------------------------------------------------------

bool contains(const std::vector<const char*>& list, std::string_view word) {
  return std::any_of(list.begin(), list.end(), [&](const char* s) { return word == s; });
}

/// RFC 6901: `~` and `/` inside a reference token are written `~0` and `~1`.
std::string escape_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string child(const std::string& ptr, std::string_view key) { return ptr + "/" + escape_token(key); }
std::string child(const std::string& ptr, std::size_t index) { return fmt::format("{}/{}", ptr, index); }

/// A string from the file, quoted and JSON-escaped for a message (control characters and quotes in a
/// name must not garble the diagnostic); long strings are clipped.
std::string quote(std::string_view s) {
  constexpr std::size_t kClip = 64;
  const bool clipped = s.size() > kClip;
  const std::string shown = Json(std::string(s.substr(0, kClip))).dump(-1, ' ', false, Json::error_handler_t::replace);
  return clipped ? shown + "..." : shown;
}

std::string quote_all(const std::vector<const char*>& words) {
  std::string out;
  for (const char* w : words) out += (out.empty() ? "" : ", ") + quote(w);
  return out;
}

/// Optimal string alignment distance: Levenshtein plus adjacent transpositions, the commonest typo.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

/// " (did you mean "X"?)" for the closest candidate within distance 2, or "". Distance ignores case first
/// (so "flowb" finds "flowB" rather than "flowA") and counts it second; the first candidate wins a tie.
/// A word no longer than the distance is not a typo of anything.
std::string did_you_mean(std::string_view word, const std::vector<const char*>& candidates) {
  constexpr std::size_t kMaxTypo = 2;
  constexpr std::size_t kMaxWord = 128;  // far longer than any candidate: skip the quadratic table
  if (word.size() > kMaxWord) return "";
  const std::string folded = lowercase(word);
  const char* best = nullptr;
  std::pair<std::size_t, std::size_t> best_distance{kMaxTypo + 1, 0};
  for (const char* c : candidates) {
    const std::pair<std::size_t, std::size_t> d{edit_distance(folded, lowercase(c)), edit_distance(word, c)};
    if (d.first <= kMaxTypo && d.first < word.size() && d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best == nullptr ? "" : fmt::format(" (did you mean {}?)", quote(best));
}

/// did_you_mean, or else the whole (short) vocabulary, so the reader always learns what is accepted.
std::string hint(std::string_view word, const std::vector<const char*>& candidates) {
  std::string suggestion = did_you_mean(word, candidates);
  if (!suggestion.empty() || candidates.empty()) return suggestion;
  return fmt::format(" (expected one of {})", quote_all(candidates));
}

/// 1-based line and column (in bytes) of byte `offset` of `text`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t last_newline = before.rfind('\n');
  const std::size_t column = last_newline == std::string_view::npos ? offset + 1 : offset - last_newline;
  return {line, column};
}

// -- layer 1: bytes --------------------------------------------------------------------------------

std::string too_large(std::size_t bytes) {
  return fmt::format("file is {} bytes; scenario files are limited to 4 MiB", bytes);
}

/// Length of the valid UTF-8 sequence starting at `s[i]`, or 0 (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char second_lo = 0x80, second_hi = 0xBF;  // the lead byte narrows the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_lo = 0xA0;  // overlong
    if (lead == 0xED) second_hi = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_lo = 0x90;  // overlong
    if (lead == 0xF4) second_hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > s.size() || byte(i + 1) < second_lo || byte(i + 1) > second_hi) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return length;
}

/// Rejects what cannot be a scenario before any JSON parsing: oversize, empty, and non-text input.
void check_bytes(std::string_view text, const std::string& file) {
  if (text.size() > kMaxFileBytes) throw ScenarioError(file, "", too_large(text.size()));
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) throw ScenarioError(file, "", "file is empty");
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const bool control = b < 0x20 && b != '\t' && b != '\n' && b != '\r';
    const std::size_t n = control ? 0 : utf8_sequence_length(text, i);
    if (n == 0) {
      const auto [line, column] = line_column(text, i);
      throw ScenarioError(file, "",
                          fmt::format("not a text file: unexpected byte 0x{:02x} at line {} column {} "
                                      "(scenario files are UTF-8 JSON)",
                                      b, line, column));
    }
    i += n;
  }
}

[[noreturn]] void fail_os(const std::string& file, std::string_view what, int error) {
  throw ScenarioError(file, "", fmt::format("{}: {}", what, std::generic_category().message(error)));
}

/// Closes a file descriptor on every path out of read_file.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

/// The file's bytes, at most 4 MiB of them (a larger regular file is rejected before it is read).
std::string read_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_os(path, "cannot open", errno);
  const FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail_os(path, "cannot read", errno);
  if (S_ISDIR(st.st_mode)) fail_os(path, "cannot read", EISDIR);
  if (S_ISREG(st.st_mode) && static_cast<std::uintmax_t>(st.st_size) > kMaxFileBytes)
    throw ScenarioError(path, "", too_large(static_cast<std::size_t>(st.st_size)));
  // Pipes and devices have no size up front: read one byte past the limit to know it was exceeded.
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= kMaxFileBytes) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_os(path, "cannot read", errno);
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  throw ScenarioError(path, "",
                      fmt::format("file is more than {} bytes; scenario files are limited to 4 MiB", kMaxFileBytes));
}

std::string digest_of(std::string_view text) {
  const XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  return fmt::format("xxh3-128:{:016x}{:016x}", h.high64, h.low64);
}

// -- layer 2: JSON ---------------------------------------------------------------------------------

/// Builds an ordered_json DOM like nlohmann's own builder, but fails on a duplicate key (nlohmann keeps
/// the last one, silently dropping the first) and on nesting deeper than kMaxDepth. Pointers into
/// the DOM stay valid because a container only grows while it is the innermost open one.
class StrictBuilder : public nlohmann::json_sax<Json> {
 public:
  StrictBuilder(Json& root, std::string_view text, const std::string& file) : root_(root), text_(text), file_(file) {}

  bool null() override { return put(nullptr); }
  bool boolean(bool v) override { return put(v); }
  bool number_integer(number_integer_t v) override { return put(v); }
  bool number_unsigned(number_unsigned_t v) override { return put(v); }
  bool number_float(number_float_t v, const string_t&) override { return put(v); }
  bool string(string_t& v) override { return put(std::move(v)); }
  bool binary(binary_t& v) override { return put(Json::binary(std::move(v))); }
  bool start_object(std::size_t) override { return open(Json::object()); }
  bool start_array(std::size_t) override { return open(Json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    Frame& f = stack_.back();
    if (!f.keys.insert(k).second)
      throw ScenarioError(file_, child(f.pointer, k), fmt::format("duplicate key {}", quote(k)));
    auto& members = f.node->get_ref<Json::object_t&>();
    // Appending directly keeps a huge object linear; ordered_map's operator[] would search it each time.
    members.emplace_back(k, nullptr);
    f.slot = &members.back().second;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    // nlohmann's position counts the bytes read, so the offending byte is the one before it.
    const auto [line, column] = line_column(text_, position == 0 ? 0 : position - 1);
    throw ScenarioError(file_, "",
                        fmt::format("invalid JSON at line {} column {}: {}", line, column, strip_prefix(ex.what())));
  }

 private:
  struct Frame {
    Json* node;
    std::string pointer;
    std::set<std::string> keys;  // objects only
    Json* slot = nullptr;        // objects: where the value of the last key goes
  };

  /// "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..." -> "syntax
  /// error ...": the position is restated in our own line/column terms.
  static std::string strip_prefix(std::string_view what) {
    if (what.substr(0, 1) == "[") {
      const std::size_t end = what.find("] ");
      if (end != std::string_view::npos) what.remove_prefix(end + 2);
    }
    if (what.substr(0, 11) == "parse error") {
      const std::size_t colon = what.find(": ");
      if (colon != std::string_view::npos) what.remove_prefix(colon + 2);
    }
    return std::string(what);
  }

  /// The pointer of the value about to be stored; only containers ask, since only they can fail.
  std::string next_pointer() const {
    if (stack_.empty()) return "";
    const Frame& f = stack_.back();
    if (f.node->is_array()) return child(f.pointer, f.node->size());
    return child(f.pointer, f.node->get_ref<const Json::object_t&>().back().first);
  }

  /// Stores `v` where the next value goes and returns where it went.
  Json* place(Json v) {
    if (stack_.empty()) return &(root_ = std::move(v));
    Frame& f = stack_.back();
    if (f.node->is_array()) {
      auto& items = f.node->get_ref<Json::array_t&>();
      items.push_back(std::move(v));
      return &items.back();
    }
    return &(*f.slot = std::move(v));
  }

  bool put(Json v) {
    place(std::move(v));
    return true;
  }

  bool open(Json container) {
    std::string pointer = next_pointer();
    if (stack_.size() >= kMaxDepth)
      throw ScenarioError(file_, pointer, fmt::format("JSON nested deeper than {} levels", kMaxDepth));
    Json* node = place(std::move(container));
    stack_.push_back(Frame{node, std::move(pointer), {}, nullptr});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  Json& root_;
  std::string_view text_;
  const std::string& file_;
  std::vector<Frame> stack_;
};

Json parse_json(std::string_view text, const std::string& file) {
  Json root;
  StrictBuilder builder(root, text, file);
  Json::sax_parse(text.begin(), text.end(), &builder, nlohmann::detail::input_format_t::json, true, false);
  return root;
}

// -- layer 3: schema -------------------------------------------------------------------------------

/// Walks a parsed document into a Scenario. Every getter takes the value and its pointer, and fails with
/// what was expected and what was found.
class Checker {
 public:
  explicit Checker(const std::string& file) : file_(file) {}

  /// The whole document; `s.path` and `s.digest` are left to the caller.
  void document(const Json& doc, Scenario& s) {
    if (!doc.is_object()) fail("", fmt::format("expected an object at the top level, got {}", doc.type_name()));
    check_schema(doc);
    check_keys(doc, "", kTopKeys);
    s.name = nonempty_string(require(doc, "", "name"), "/name");
    if (const Json* v = find(doc, "description")) s.description = string_value(*v, "/description");
    if (const Json* v = find(doc, "backend")) backend_section(*v, "/backend", s);
    nodes_section(require(doc, "", "nodes"), "/nodes", s);
    actors_section(require(doc, "", "actors"), "/actors", s);
    if (const Json* v = find(doc, "invariants")) s.invariants = invariants_section(*v, "/invariants");
    if (const Json* v = find(doc, "faults")) s.faults = faults_section(*v, "/faults", s);
    if (const Json* v = find(doc, "expect")) s.expect = expect_section(*v, "/expect", s);
    if (const Json* v = find(doc, "max_steps"))
      s.max_steps = static_cast<uint64_t>(int_value(*v, "/max_steps", 1, static_cast<int>(kMaxScenarioSteps),
                                                    " (steps per execution)"));
  }

 private:
  [[noreturn]] void fail(const std::string& ptr, const std::string& message) const {
    throw ScenarioError(file_, ptr, message);
  }

  // -- generic getters --

  static const Json* find(const Json& obj, const char* key) {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  const Json& require(const Json& obj, const std::string& ptr, const char* key) const {
    const Json* v = find(obj, key);
    if (v == nullptr) fail(ptr, fmt::format("missing required key {}", quote(key)));
    return *v;
  }

  void check_keys(const Json& obj, const std::string& ptr, const std::vector<const char*>& allowed,
                  const std::string& context = "") const {
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (!contains(allowed, it.key()))
        fail(child(ptr, it.key()),
             fmt::format("unknown key {}{}{}", quote(it.key()), context, hint(it.key(), allowed)));
  }

  void want(const Json& v, const std::string& ptr, bool ok, const char* expected) const {
    if (!ok) fail(ptr, fmt::format("expected {}, got {}", expected, v.type_name()));
  }
  void want_object(const Json& v, const std::string& ptr) const { want(v, ptr, v.is_object(), "an object"); }
  void want_array(const Json& v, const std::string& ptr) const { want(v, ptr, v.is_array(), "an array"); }

  void want_size(const Json& v, const std::string& ptr, std::size_t lo, std::size_t hi, const char* noun) const {
    want_array(v, ptr);
    if (v.size() < lo || v.size() > hi) fail(ptr, fmt::format("expected {} to {} {}, got {}", lo, hi, noun, v.size()));
  }

  std::string string_value(const Json& v, const std::string& ptr) const {
    want(v, ptr, v.is_string(), "a string");
    return v.get<std::string>();
  }

  std::string nonempty_string(const Json& v, const std::string& ptr) const {
    std::string s = string_value(v, ptr);
    if (s.empty()) fail(ptr, "expected a non-empty string, got \"\"");
    return s;
  }

  bool bool_value(const Json& v, const std::string& ptr) const {
    want(v, ptr, v.is_boolean(), "a boolean");
    return v.get<bool>();
  }

  /// What a number field found: the number itself, or the type when it is not one.
  static std::string found(const Json& v) { return v.is_number() ? v.dump() : std::string(v.type_name()); }

  /// An integer in [lo, hi]; floats (even 2.0) and booleans are not integers.
  int int_value(const Json& v, const std::string& ptr, int lo, int hi, std::string_view note = "") const {
    bool ok = false;
    if (v.is_number_unsigned())
      ok = v.get<std::uint64_t>() >= static_cast<std::uint64_t>(std::max(lo, 0)) &&
           v.get<std::uint64_t>() <= static_cast<std::uint64_t>(hi);
    else if (v.is_number_integer())
      ok = v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
    if (!ok) fail(ptr, fmt::format("expected an integer from {} to {}{}, got {}", lo, hi, note, found(v)));
    return static_cast<int>(v.get<std::int64_t>());
  }

  /// A number in [lo, hi], or (lo, hi] when `lo_open`.
  double number_value(const Json& v, const std::string& ptr, double lo, double hi, bool lo_open = false) const {
    const double x = v.is_number() ? v.get<double>() : 0;
    const bool ok = v.is_number() && (lo_open ? x > lo : x >= lo) && x <= hi;
    if (!ok) {
      const std::string range =
          lo_open ? fmt::format("greater than {} and at most {}", lo, hi) : fmt::format("from {} to {}", lo, hi);
      fail(ptr, fmt::format("expected a number {}, got {}", range, found(v)));
    }
    return x;
  }

  std::string choice(const Json& v, const std::string& ptr, const std::vector<const char*>& allowed) const {
    if (!v.is_string()) fail(ptr, fmt::format("expected one of {}, got {}", quote_all(allowed), v.type_name()));
    const std::string& word = v.get_ref<const std::string&>();
    if (!contains(allowed, word))
      fail(ptr,
           fmt::format("expected one of {}, got {}{}", quote_all(allowed), quote(word), did_you_mean(word, allowed)));
    return word;
  }

  /// A name from a fixed vocabulary (`noun` = "mutant", "invariant", ...).
  std::string known_name(const Json& v, const std::string& ptr, const std::vector<const char*>& vocabulary,
                         const char* noun) const {
    const std::string name = string_value(v, ptr);
    if (!contains(vocabulary, name))
      fail(ptr, fmt::format("unknown {} {}{}", noun, quote(name), hint(name, vocabulary)));
    return name;
  }

  /// An array of distinct names from a vocabulary.
  std::vector<std::string> known_names(const Json& v, const std::string& ptr,
                                       const std::vector<const char*>& vocabulary, const char* noun,
                                       bool allow_empty) const {
    want_array(v, ptr);
    if (v.empty() && !allow_empty) fail(ptr, fmt::format("expected a non-empty array of {} names, got []", noun));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string p = child(ptr, i);
      std::string name = known_name(v[i], p, vocabulary, noun);
      reject_duplicate(out, name, ptr, p, noun);
      out.push_back(std::move(name));
    }
    return out;
  }

  /// Fails when `name` is already in `seen` (whose i-th entry is at `list_ptr`/i).
  void reject_duplicate(const std::vector<std::string>& seen, const std::string& name, const std::string& list_ptr,
                        const std::string& ptr, const char* noun) const {
    const auto it = std::find(seen.begin(), seen.end(), name);
    if (it != seen.end())
      fail(ptr, fmt::format("duplicate {} {} (first at {})", noun, quote(name),
                            child(list_ptr, static_cast<std::size_t>(it - seen.begin()))));
  }

  /// A name made of letters, digits and `extra` (node names also appear in pointers, labels and ids).
  void check_charset(const std::string& name, const std::string& ptr, const char* noun, std::string_view extra,
                     const char* allowed) const {
    for (char c : name) {
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      extra.find(c) != std::string_view::npos;
      if (!ok) fail(ptr, fmt::format("invalid {} name {}: use only letters, digits, {}", noun, quote(name), allowed));
    }
  }

  // -- sections --

  void check_schema(const Json& doc) const {
    const Json& v = require(doc, "", "schema");
    if (!v.is_string() || v.get_ref<const std::string&>() != kSchema)
      fail("/schema", fmt::format("expected {}, got {}", quote(kSchema),
                                  v.is_string() ? quote(v.get_ref<const std::string&>()) : v.type_name()));
  }

  void backend_section(const Json& v, const std::string& ptr, Scenario& s) const {
    want_object(v, ptr);
    check_keys(v, ptr, kBackendKeys);
    if (const Json* a = find(v, "authority")) s.authority = choice(*a, child(ptr, "authority"), kAuthorities);
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
      // Without labels the seed's classifier says "unknown" and the node is never planned on; a node
      // written without labels means a plain GPU node, so give it what GPU Feature Discovery would.
      n.labels = {{"nvidia.com/gpu.product", n.product}, {"nvidia.com/gpu.count", std::to_string(n.gpu_count)}};
    }
    if (const Json* w = find(v, "workloads")) n.workloads = node_workloads(*w, child(ptr, "workloads"), n.gpu_count);
    if (const Json* m = find(v, "mig_config")) n.mig_config = nonempty_string(*m, child(ptr, "mig_config"));
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
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string p = child(ptr, it.key());
      if (it.key().empty()) fail(p, "workload ids must be non-empty");
      out.emplace_back(it.key(), int_value(it.value(), p, 1, gpu_count, " (the node's gpu_count)"));
    }
    return out;
  }

  void actors_section(const Json& v, const std::string& ptr, Scenario& s) const {
    want_size(v, ptr, 1, kMaxActors, "actors");
    std::vector<std::string> names;
    for (std::size_t i = 0; i < v.size(); ++i) {
      ActorSpec actor = actor_entry(v[i], child(ptr, i), s);
      reject_duplicate(names, actor.name, ptr, child(child(ptr, i), "name"), "actor name");
      names.push_back(actor.name);
      s.actors.push_back(std::move(actor));
    }
    // plan_from and recover's flow may name an actor defined later in the file, so they are resolved once
    // all are known.
    for (const ActorSpec& actor : s.actors)
      for (const Op& op : actor.script) {
        if (op.plan_from) check_plan_from(op, actor.name, names);
        if (op.kind == OpKind::Recover) check_recover_flow(op, actor.name, names);
      }
  }

  void check_recover_flow(const Op& op, const std::string& self, const std::vector<std::string>& names) const {
    const std::string ptr = child(op.pointer, "flow");
    if (op.flow == self)
      fail(ptr, fmt::format("recover names the actor itself ({}); a flow's own cleanup is \"release\"", quote(self)));
    std::vector<const char*> known;
    for (const std::string& n : names) known.push_back(n.c_str());
    if (!contains(known, op.flow))
      fail(ptr, fmt::format("actor {} is not in /actors{}", quote(op.flow), did_you_mean(op.flow, known)));
  }

  // -- faults (FaultSpec in scenario.h) --

  FaultSpec faults_section(const Json& v, const std::string& ptr, const Scenario& s) const {
    want_object(v, ptr);
    check_keys(v, ptr, kFaultKeys);
    FaultSpec f;
    f.enabled = true;
    if (const Json* m = find(v, "max")) f.max = int_value(*m, child(ptr, "max"), 1, kMaxFaults);
    if (const Json* a = find(v, "actors")) {
      std::vector<const char*> names;
      for (const ActorSpec& actor : s.actors) names.push_back(actor.name.c_str());
      const std::string aptr = child(ptr, "actors");
      want_array(*a, aptr);
      if (a->empty()) fail(aptr, "expected a non-empty array of actor names (omit \"actors\" to let every actor fault), got []");
      for (std::size_t i = 0; i < a->size(); ++i) {
        const std::string p = child(aptr, i);
        const std::string name = string_value((*a)[i], p);
        if (!contains(names, name))
          fail(p, fmt::format("actor {} is not in /actors{}", quote(name), did_you_mean(name, names)));
        reject_duplicate(f.actors, name, aptr, p, "actor");
        f.actors.push_back(name);
      }
    }
    if (const Json* b = find(v, "barriers")) f.barriers = fault_barriers(*b, child(ptr, "barriers"));
    if (const Json* r = find(v, "fail_reads")) {
      const std::string rptr = child(ptr, "fail_reads");
      want_size(*r, rptr, 1, kReadKinds.size(), "read kinds");
      for (std::size_t i = 0; i < r->size(); ++i) {
        std::string kind = choice((*r)[i], child(rptr, i), kReadKinds);
        reject_duplicate(f.fail_reads, kind, rptr, child(rptr, i), "read kind");
        f.fail_reads.push_back(std::move(kind));
      }
    }
    if (const Json* g = find(v, "fail_geometry")) {
      const std::string gptr = child(ptr, "fail_geometry");
      want_size(*g, gptr, 1, kMaxNodes, "nodes");
      for (std::size_t i = 0; i < g->size(); ++i) {
        std::string node = node_ref((*g)[i], child(gptr, i), s);
        reject_duplicate(f.fail_geometry, node, gptr, child(gptr, i), "node");
        f.fail_geometry.push_back(std::move(node));
      }
    }
    if (f.barriers.empty() && f.fail_reads.empty() && f.fail_geometry.empty())
      fail(ptr, "faults enables no fault: give \"barriers\", \"fail_reads\" or \"fail_geometry\"");
    return f;
  }

  /// {barrier: [action, ...]}: known barriers (did-you-mean), each with distinct known actions.
  OrderedMap<std::string, std::vector<FaultAction>> fault_barriers(const Json& v, const std::string& ptr) const {
    want_object(v, ptr);
    if (v.empty()) fail(ptr, "expected an object of barrier -> actions, got {}");
    OrderedMap<std::string, std::vector<FaultAction>> out;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string p = child(ptr, it.key());
      if (!contains(barrier_names(), it.key()))
        fail(p, fmt::format("unknown barrier {}{}", quote(it.key()), hint(it.key(), barrier_names())));
      want_size(it.value(), p, 1, kFaultActions.size(), "actions");
      std::vector<std::string> seen;
      std::vector<FaultAction> actions;
      for (std::size_t i = 0; i < it.value().size(); ++i) {
        const std::string ap = child(p, i);
        const std::string word = string_value(it.value()[i], ap);
        if (!contains(kFaultActions, word))
          fail(ap, fmt::format("unknown fault action {}{}", quote(word), hint(word, kFaultActions)));
        reject_duplicate(seen, word, p, ap, "fault action");
        seen.push_back(word);
        const auto at = std::find_if(kFaultActions.begin(), kFaultActions.end(),
                                     [&](const char* a) { return word == a; });
        actions.push_back(static_cast<FaultAction>(at - kFaultActions.begin()));
      }
      out.emplace_back(it.key(), std::move(actions));
    }
    return out;
  }

  void check_plan_from(const Op& op, const std::string& self, const std::vector<std::string>& names) const {
    const std::string ptr = child(op.pointer, "plan_from");
    if (*op.plan_from == self)
      fail(ptr,
           fmt::format("plan_from names the actor itself ({}); omit plan_from to reserve its own plan", quote(self)));
    if (std::find(names.begin(), names.end(), *op.plan_from) == names.end())
      fail(ptr, fmt::format("actor {} is not in /actors", quote(*op.plan_from)));
  }

  ActorSpec actor_entry(const Json& v, const std::string& ptr, const Scenario& s) const {
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
    const Json& script = require(v, ptr, "script");
    const std::string script_ptr = child(ptr, "script");
    want_size(script, script_ptr, 0, kMaxScriptOps, "ops");
    for (std::size_t i = 0; i < script.size(); ++i) a.script.push_back(op_entry(script[i], child(script_ptr, i), s));
    return a;
  }

  OpKind op_kind(const Json& v, const std::string& ptr) const {
    const std::string name = string_value(v, ptr);
    const auto& names = op_names();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (name == names[i]) return static_cast<OpKind>(i);
    fail(ptr, fmt::format("unknown op {}{}", quote(name), hint(name, names)));
  }

  Op op_entry(const Json& v, const std::string& ptr, const Scenario& s) const {
    want_object(v, ptr);
    Op op{};
    op.kind = op_kind(require(v, ptr, "op"), child(ptr, "op"));
    op.pointer = ptr;
    check_keys(v, ptr, op_keys(op.kind), fmt::format(" for op {}", quote(op_name(op.kind))));
    op_fields(v, ptr, s, op);
    return op;
  }

  /// The fields of `op`; check_keys has already rejected any the op does not take.
  void op_fields(const Json& v, const std::string& ptr, const Scenario& s, Op& op) const {
    const auto at = [&](const char* key) { return child(ptr, key); };
    switch (op.kind) {
      case OpKind::Inventory:
        if (const Json* n = find(v, "nodes")) op.nodes = node_scope(*n, at("nodes"), s);
        break;
      case OpKind::Plan:
        op.has_requests = true;
        op.requests = requests(require(v, ptr, "requests"), at("requests"));
        break;
      case OpKind::Reserve:
        if (find(v, "requests") != nullptr && find(v, "plan_from") != nullptr)
          fail(ptr, "reserve takes \"requests\" or \"plan_from\", not both");
        if (const Json* r = find(v, "requests")) {
          op.has_requests = true;
          op.requests = requests(*r, at("requests"));
        }
        if (const Json* p = find(v, "plan_from")) op.plan_from = nonempty_string(*p, at("plan_from"));
        break;
      case OpKind::Await:
        op.status = choice(require(v, ptr, "status"), at("status"), kClaimStatuses);
        if (const Json* p = find(v, "polls_max")) op.polls_max = int_value(*p, at("polls_max"), 1, 1000);
        break;
      case OpKind::Reconcile: op.status = choice(require(v, ptr, "status"), at("status"), kClaimStatuses); break;
      case OpKind::Release:
        if (const Json* k = find(v, "keep_workloads")) op.keep_workloads = bool_value(*k, at("keep_workloads"));
        break;
      case OpKind::BindWorkload:
      case OpKind::UnbindWorkload:
        op.node = node_ref(require(v, ptr, "node"), at("node"), s);
        op.workload = nonempty_string(require(v, ptr, "workload"), at("workload"));
        if (const Json* u = find(v, "units")) op.units = int_value(*u, at("units"), 1, kMaxGpus);
        break;
      case OpKind::FailReads:
      case OpKind::RestoreReads: op.read_kind = choice(require(v, ptr, "kind"), at("kind"), kReadKinds); break;
      case OpKind::FailGeometry: op.node = node_ref(require(v, ptr, "node"), at("node"), s); break;
      case OpKind::AdvanceClock:
        op.seconds = number_value(require(v, ptr, "seconds"), at("seconds"), 0, kMaxSeconds);
        break;
      case OpKind::Recover: op.flow = nonempty_string(require(v, ptr, "flow"), at("flow")); break;
      case OpKind::Observe:
      case OpKind::MarkReady: break;
    }
  }

  std::string node_ref(const Json& v, const std::string& ptr, const Scenario& s) const {
    const std::string name = nonempty_string(v, ptr);
    std::vector<const char*> known;
    for (const NodeSpec& n : s.nodes) known.push_back(n.name.c_str());
    if (!contains(known, name))
      fail(ptr, fmt::format("node {} is not in /nodes{}", quote(name), did_you_mean(name, known)));
    return name;
  }

  std::vector<std::string> node_scope(const Json& v, const std::string& ptr, const Scenario& s) const {
    want_array(v, ptr);
    if (v.empty()) fail(ptr, "expected a non-empty array of node names (omit \"nodes\" to scope every node), got []");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::string name = node_ref(v[i], child(ptr, i), s);
      reject_duplicate(out, name, ptr, child(ptr, i), "node");
      out.push_back(std::move(name));
    }
    return out;
  }

  std::vector<RequestSpec> requests(const Json& v, const std::string& ptr) const {
    want_size(v, ptr, 1, kMaxRequests, "requests");
    std::vector<RequestSpec> out;
    std::vector<std::string> workloads;
    for (std::size_t i = 0; i < v.size(); ++i) {
      RequestSpec r = request(v[i], child(ptr, i));
      reject_duplicate(workloads, r.workload, ptr, child(child(ptr, i), "workload"), "workload");
      workloads.push_back(r.workload);
      out.push_back(std::move(r));
    }
    return out;
  }

  RequestSpec request(const Json& v, const std::string& ptr) const {
    want_object(v, ptr);
    check_keys(v, ptr, kRequestKeys);
    RequestSpec r;
    r.workload = nonempty_string(require(v, ptr, "workload"), child(ptr, "workload"));
    if (const Json* d = find(v, "devices")) r.devices = int_value(*d, child(ptr, "devices"), 1, kMaxGpus);
    if (const Json* sh = find(v, "sharing")) r.sharing = choice(*sh, child(ptr, "sharing"), kSharings);
    if (const Json* m = find(v, "minimum_usable_memory_gib"))
      r.minimum_usable_memory_gib = number_value(*m, child(ptr, "minimum_usable_memory_gib"), 0, kMaxMemoryGib);
    return r;
  }

  std::vector<std::string> invariants_section(const Json& v, const std::string& ptr) const {
    if (v.is_string() && v.get_ref<const std::string&>() == "all") return {};
    if (!v.is_array())
      fail(ptr, fmt::format("expected \"all\" or an array of invariant names, got {}",
                            v.is_string() ? quote(v.get_ref<const std::string&>()) : v.type_name()));
    return known_names(v, ptr, invariant_names(), "invariant", false);
  }

  Expectation expect_section(const Json& v, const std::string& ptr, const Scenario& s) const {
    want_object(v, ptr);
    check_keys(v, ptr, kExpectKeys);
    Expectation e;
    expect_verdict(v, ptr, s, e);
    if (const Json* a = find(v, "actors")) e.actors = expect_actors(*a, child(ptr, "actors"), s);
    if (const Json* r = find(v, "reach"))
      e.reach = known_names(*r, child(ptr, "reach"), barrier_names(), "barrier", true);
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

  OrderedMap<std::string, OrderedMap<std::string, std::vector<std::string>>> expect_actors(const Json& v,
                                                                                           const std::string& ptr,
                                                                                           const Scenario& s) const {
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
      out.emplace_back(it.key(), expect_actor_ops(it.value(), p, *actor));
    }
    return out;
  }

  OrderedMap<std::string, std::vector<std::string>> expect_actor_ops(const Json& v, const std::string& ptr,
                                                                     const ActorSpec& actor) const {
    want_object(v, ptr);
    OrderedMap<std::string, std::vector<std::string>> out;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string p = child(ptr, it.key());
      const std::string& name = it.key();
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
    const auto& vocabulary = op_outcomes(in_script->kind);
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

  const std::string& file_;
};

}  // namespace

/// Parses `text` as if read from `path`: bytes, then strict JSON, then the schema. Throws ScenarioError.
Scenario parse_scenario(const std::string& text, const std::string& path) {
  check_bytes(text, path);
  Scenario s;
  try {
    const Json doc = parse_json(text, path);
    Checker(path).document(doc, s);
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
Scenario load_scenario(const std::string& path) { return parse_scenario(read_file(path), path); }

}  // namespace allocsim::harness
