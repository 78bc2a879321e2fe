#include "sim/support/json_reader.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <set>
#include <system_error>

namespace allocsim::support {

std::string pointer_text(std::string_view pointer) {
  return pointer.empty() ? std::string("(document root)") : std::string(pointer);
}

std::string located(std::string_view file, std::string_view pointer, std::string_view message) {
  return fmt::format("{}: {}: {}", file, pointer_text(pointer), message);
}

InputError::InputError(std::string file, std::string pointer, std::string message)
    : InputError(std::move(file), std::move(pointer), std::move(message), true) {}

InputError InputError::about_file(std::string file, std::string message) {
  return InputError(std::move(file), "", std::move(message), false);
}

std::string InputError::reworded(std::string_view message) const {
  return has_pointer_ ? located(file_, pointer_, message) : fmt::format("{}: {}", file_, message);
}

InputError::InputError(std::string file, std::string pointer, std::string message, bool has_pointer)
    : std::runtime_error(has_pointer ? located(file, pointer, message) : fmt::format("{}: {}", file, message)),
      file_(std::move(file)),
      pointer_(std::move(pointer)),
      message_(std::move(message)),
      has_pointer_(has_pointer) {}

// -- pointers and words ----------------------------------------------------------------------------

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

/// 1-based line and column (in bytes) of byte `offset` of `text`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
  const std::size_t last_newline = before.rfind('\n');
  const std::size_t column = last_newline == std::string_view::npos ? offset + 1 : offset - last_newline;
  return {line, column};
}

// -- bytes -----------------------------------------------------------------------------------------

namespace {

/// "4 MiB" for a whole number of MiB, else "N bytes".
std::string limit_text(const TextRules& rules) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  return rules.max_bytes % kMiB == 0 ? fmt::format("{} MiB", rules.max_bytes / kMiB)
                                     : fmt::format("{} bytes", rules.max_bytes);
}

std::string too_large(std::size_t bytes, const TextRules& rules) {
  return fmt::format("file is {} bytes; {} are limited to {}", bytes, rules.kind, limit_text(rules));
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

}  // namespace

void check_text(std::string_view text, const std::string& file, const TextRules& rules) {
  if (text.size() > rules.max_bytes) throw InputError::about_file(file, too_large(text.size(), rules));
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) throw InputError::about_file(file, "file is empty");
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const bool control = b < 0x20 && b != '\t' && b != '\n' && b != '\r';
    const std::size_t n = control ? 0 : utf8_sequence_length(text, i);
    if (n == 0) {
      const auto [line, column] = line_column(text, i);
      throw InputError::about_file(file, fmt::format("not a text file: unexpected byte 0x{:02x} at line {} column {} "
                                                     "({} are UTF-8 JSON)",
                                                     b, line, column, rules.kind));
    }
    i += n;
  }
}

namespace {

[[noreturn]] void fail_os(const std::string& file, std::string_view what, int error) {
  throw InputError::about_file(file, fmt::format("{}: {}", what, std::generic_category().message(error)));
}

/// Closes a file descriptor on every path out of read_text.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

}  // namespace

std::string read_text(const std::string& path, const TextRules& rules) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_os(path, "cannot open", errno);
  const FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail_os(path, "cannot read", errno);
  if (S_ISDIR(st.st_mode)) fail_os(path, "cannot read", EISDIR);
  if (S_ISREG(st.st_mode) && static_cast<std::uintmax_t>(st.st_size) > rules.max_bytes)
    throw InputError::about_file(path, too_large(static_cast<std::size_t>(st.st_size), rules));
  // Pipes and devices have no size up front: read one byte past the limit to know it was exceeded.
  std::string text;
  char buffer[1 << 16];
  while (text.size() <= rules.max_bytes) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_os(path, "cannot read", errno);
    if (n == 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  throw InputError::about_file(path, fmt::format("file is more than {} bytes; {} are limited to {}", rules.max_bytes,
                                                 rules.kind, limit_text(rules)));
}

// -- JSON ------------------------------------------------------------------------------------------

namespace {

/// Builds an ordered_json DOM like nlohmann's own builder, but fails on a duplicate key (nlohmann keeps
/// the last one, silently dropping the first) and on nesting deeper than the rules' max_depth. Pointers into
/// the DOM stay valid because a container only grows while it is the innermost open one.
class StrictBuilder : public nlohmann::json_sax<Json> {
 public:
  StrictBuilder(Json& root, std::string_view text, const std::string& file, std::size_t max_depth)
      : root_(root), text_(text), file_(file), max_depth_(max_depth) {}

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
      throw InputError(file_, child(f.pointer, k), fmt::format("duplicate key {}", quote(k)));
    auto& members = f.node->get_ref<Json::object_t&>();
    // Appending directly keeps a huge object linear; ordered_map's operator[] would search it each time.
    members.emplace_back(k, nullptr);
    f.slot = &members.back().second;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    // nlohmann's position counts the bytes read, so the offending byte is the one before it.
    const auto [line, column] = line_column(text_, position == 0 ? 0 : position - 1);
    throw InputError::about_file(file_, fmt::format("invalid JSON at line {} column {}: {}", line, column,
                                                    strip_prefix(ex.what())));
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
    if (stack_.size() >= max_depth_)
      throw InputError(file_, pointer, fmt::format("JSON nested deeper than {} levels", max_depth_));
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
  std::size_t max_depth_;
  std::vector<Frame> stack_;
};

}  // namespace

Json parse_strict(std::string_view text, const std::string& file, const TextRules& rules) {
  Json root;
  StrictBuilder builder(root, text, file, rules.max_depth);
  Json::sax_parse(text.begin(), text.end(), &builder, nlohmann::detail::input_format_t::json, true, false);
  return root;
}

nlohmann::json read_strict_json(const std::string& path, const TextRules& rules) {
  const std::string text = read_text(path, rules);
  check_text(text, path, rules);
  parse_strict(text, path, rules);
  // Valid and duplicate-free by now, so this second parse cannot fail or lose a key.
  return nlohmann::json::parse(text);
}

// -- typed getters ---------------------------------------------------------------------------------

namespace {

/// What a number field found: the number itself, or the type when it is not one.
std::string found(const Json& v) { return v.is_number() ? v.dump() : std::string(v.type_name()); }

}  // namespace

void JsonReader::fail(const std::string& ptr, const std::string& message) const {
  throw InputError(file_, ptr, message);
}

const Json* JsonReader::find(const Json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const Json& JsonReader::require(const Json& obj, const std::string& ptr, const char* key) const {
  const Json* v = find(obj, key);
  if (v == nullptr) fail(ptr, fmt::format("missing required key {}", quote(key)));
  return *v;
}

void JsonReader::check_keys(const Json& obj, const std::string& ptr, const std::vector<const char*>& allowed,
                            const std::string& context) const {
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!contains(allowed, it.key()))
      fail(child(ptr, it.key()), fmt::format("unknown key {}{}{}", quote(it.key()), context, hint(it.key(), allowed)));
}

void JsonReader::want(const Json& v, const std::string& ptr, bool ok, const char* expected) const {
  if (!ok) fail(ptr, fmt::format("expected {}, got {}", expected, v.type_name()));
}
void JsonReader::want_object(const Json& v, const std::string& ptr) const { want(v, ptr, v.is_object(), "an object"); }
void JsonReader::want_array(const Json& v, const std::string& ptr) const { want(v, ptr, v.is_array(), "an array"); }

void JsonReader::want_size(const Json& v, const std::string& ptr, std::size_t lo, std::size_t hi,
                           const char* noun) const {
  want_array(v, ptr);
  if (v.size() < lo || v.size() > hi) fail(ptr, fmt::format("expected {} to {} {}, got {}", lo, hi, noun, v.size()));
}

std::string JsonReader::string_value(const Json& v, const std::string& ptr) const {
  want(v, ptr, v.is_string(), "a string");
  return v.get<std::string>();
}

std::string JsonReader::nonempty_string(const Json& v, const std::string& ptr) const {
  std::string s = string_value(v, ptr);
  if (s.empty()) fail(ptr, "expected a non-empty string, got \"\"");
  return s;
}

bool JsonReader::bool_value(const Json& v, const std::string& ptr) const {
  want(v, ptr, v.is_boolean(), "a boolean");
  return v.get<bool>();
}

/// An integer in [lo, hi]; floats (even 2.0) and booleans are not integers.
int JsonReader::int_value(const Json& v, const std::string& ptr, int lo, int hi, std::string_view note) const {
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
double JsonReader::number_value(const Json& v, const std::string& ptr, double lo, double hi, bool lo_open) const {
  const double x = v.is_number() ? v.get<double>() : 0;
  const bool ok = v.is_number() && (lo_open ? x > lo : x >= lo) && x <= hi;
  if (!ok) {
    const std::string range =
        lo_open ? fmt::format("greater than {} and at most {}", lo, hi) : fmt::format("from {} to {}", lo, hi);
    fail(ptr, fmt::format("expected a number {}, got {}", range, found(v)));
  }
  return x;
}

std::string JsonReader::choice(const Json& v, const std::string& ptr, const std::vector<const char*>& allowed) const {
  if (!v.is_string()) fail(ptr, fmt::format("expected one of {}, got {}", quote_all(allowed), v.type_name()));
  const std::string& word = v.get_ref<const std::string&>();
  if (!contains(allowed, word))
    fail(ptr,
         fmt::format("expected one of {}, got {}{}", quote_all(allowed), quote(word), did_you_mean(word, allowed)));
  return word;
}

/// A name from a fixed vocabulary (`noun` = "mutant", "invariant", ...).
std::string JsonReader::known_name(const Json& v, const std::string& ptr, const std::vector<const char*>& vocabulary,
                                   const char* noun) const {
  const std::string name = string_value(v, ptr);
  if (!contains(vocabulary, name)) fail(ptr, fmt::format("unknown {} {}{}", noun, quote(name), hint(name, vocabulary)));
  return name;
}

/// An array of distinct names from a vocabulary.
std::vector<std::string> JsonReader::known_names(const Json& v, const std::string& ptr,
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
void JsonReader::reject_duplicate(const std::vector<std::string>& seen, const std::string& name,
                                  const std::string& list_ptr, const std::string& ptr, const char* noun) const {
  const auto it = std::find(seen.begin(), seen.end(), name);
  if (it != seen.end())
    fail(ptr, fmt::format("duplicate {} {} (first at {})", noun, quote(name),
                          child(list_ptr, static_cast<std::size_t>(it - seen.begin()))));
}

/// A name made of letters, digits and `extra` (node names also appear in pointers, labels and ids).
void JsonReader::check_charset(const std::string& name, const std::string& ptr, const char* noun,
                               std::string_view extra, const char* allowed) const {
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    extra.find(c) != std::string_view::npos;
    if (!ok) fail(ptr, fmt::format("invalid {} name {}: use only letters, digits, {}", noun, quote(name), allowed));
  }
}

}  // namespace allocsim::support
