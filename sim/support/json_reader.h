// The strict JSON reader every input file goes through (scenarios today; trace files, checkpoints and
// reports are meant to follow): bytes -> strict JSON -> typed getters, each failure an InputError that
// names the file, an RFC 6901 JSON pointer and what was expected.
//
// Shapes:
//   - read_text(path, rules): the file's bytes, at most rules.max_bytes (a larger regular file is rejected
//     before it is read; pipes are read one byte past the limit).
//   - check_text(text, file, rules): not oversize, not empty, UTF-8 text (RFC 3629) without control bytes
//     other than tab/CR/LF, so binary input gets a message about bytes rather than a JSON syntax error.
//   - parse_strict(text, file, rules): an nlohmann::ordered_json (file order kept) that also rejects
//     duplicate keys (nlohmann keeps the last one silently) and nesting deeper than rules.max_depth.
//   - JsonReader: getters over a parsed document that take the value and its pointer and fail with
//     "expected X, got Y"; unknown keys fail with a did-you-mean or the whole (short) vocabulary.
// Errors: InputError only (never nlohmann's exceptions for input the getters type-check first).
// Determinism: nothing here depends on addresses, time or hash order.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace allocsim::support {

using Json = nlohmann::ordered_json;

/// How every loader's message names a JSON pointer: the pointer, or "(document root)" for the root ""
/// (which, printed as it is, reads as nothing or as a stray `""`).
std::string pointer_text(std::string_view pointer);

/// "FILE: POINTER: MESSAGE" (the pointer through pointer_text), the one shape of every loader's error.
std::string located(std::string_view file, std::string_view pointer, std::string_view message);

/// Bad input: `file`, `pointer` (RFC 6901, "" = the whole document) and `message`.
/// what() is located(file, pointer, message); for an error about the file itself (about_file: it cannot be
/// read, is too large, is not text or not JSON) it is "FILE: MESSAGE", there being no place in it to name.
class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string pointer, std::string message);
  /// An error about the file as a whole, not about a place in its JSON.
  static InputError about_file(std::string file, std::string message);
  const std::string& file() const { return file_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& message() const { return message_; }
  /// False for about_file errors (then pointer() is "").
  bool has_pointer() const { return has_pointer_; }
  /// what() with `message` in place of message(): the same file and place, said by another reader.
  std::string reworded(std::string_view message) const;

 private:
  InputError(std::string file, std::string pointer, std::string message, bool has_pointer);
  std::string file_, pointer_, message_;
  bool has_pointer_ = true;
};

/// What a reader accepts at the byte and JSON layers. `kind` names the files in messages ("scenario
/// files are limited to 4 MiB"; a limit that is not a whole number of MiB is given in bytes).
struct TextRules {
  std::size_t max_bytes = std::size_t{4} << 20;
  std::size_t max_depth = 16;
  std::string_view kind = "scenario files";
};

// -- pointers and words ----------------------------------------------------------------------------

/// RFC 6901: `~` and `/` inside a reference token are written `~0` and `~1`.
std::string escape_token(std::string_view token);
/// `ptr` + "/" + escaped `key` (or index).
std::string child(const std::string& ptr, std::string_view key);
std::string child(const std::string& ptr, std::size_t index);
/// A string from a file, quoted and JSON-escaped for a message (control characters and quotes must not
/// garble it); clipped after 64 bytes with "...".
std::string quote(std::string_view s);
/// quote() of each word, joined by ", ".
std::string quote_all(const std::vector<const char*>& words);
bool contains(const std::vector<const char*>& list, std::string_view word);
/// The candidate closest to `word` within edit distance 2 (optimal string alignment, case ignored first and
/// counted second, first candidate wins a tie); else the one candidate that `word` (3 characters or more) is the
/// start of; else nullptr. Command-line suggestions (tools/allocsim) use it too.
const char* closest(std::string_view word, const std::vector<const char*>& candidates);
/// " (did you mean "X"?)" for closest(word, candidates), or "".
std::string did_you_mean(std::string_view word, const std::vector<const char*>& candidates);
/// did_you_mean, or else " (expected one of ...)" with the whole vocabulary.
std::string hint(std::string_view word, const std::vector<const char*>& candidates);
/// 1-based line and column (in bytes) of byte `offset` of `text`.
std::pair<std::size_t, std::size_t> line_column(std::string_view text, std::size_t offset);

// -- bytes and JSON --------------------------------------------------------------------------------

/// The file's bytes. Throws InputError (cannot open/read, a directory, too large).
std::string read_text(const std::string& path, const TextRules& rules = {});
/// Throws InputError for oversize, empty (whitespace only) or non-text input.
void check_text(std::string_view text, const std::string& file, const TextRules& rules = {});
/// Strict JSON: throws InputError for a syntax error (line and column), a duplicate key (its pointer) or
/// nesting deeper than rules.max_depth (the pointer of the container that is one too deep).
Json parse_strict(std::string_view text, const std::string& file, const TextRules& rules = {});
/// read_text + check_text + parse_strict, returned as a plain (key-sorted) nlohmann::json for readers of
/// files this tool wrote with one (checkpoints, sweep reports). Throws InputError.
nlohmann::json read_strict_json(const std::string& path, const TextRules& rules);

// -- typed getters ---------------------------------------------------------------------------------

/// Getters over a document from `file`. Each takes the value and its pointer; failures throw InputError.
class JsonReader {
 public:
  explicit JsonReader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }

  [[noreturn]] void fail(const std::string& ptr, const std::string& message) const;

  /// The member `key` of object `obj`, or nullptr.
  static const Json* find(const Json& obj, const char* key);
  /// The member `key` of the object at `ptr`; fails "missing required key".
  const Json& require(const Json& obj, const std::string& ptr, const char* key) const;
  /// Fails on the first key of `obj` not in `allowed` ("unknown key K<context> (did you mean ...)").
  void check_keys(const Json& obj, const std::string& ptr, const std::vector<const char*>& allowed,
                  const std::string& context = "") const;

  void want(const Json& v, const std::string& ptr, bool ok, const char* expected) const;
  void want_object(const Json& v, const std::string& ptr) const;
  void want_array(const Json& v, const std::string& ptr) const;
  /// An array of lo..hi items (`noun` = what they are, for the message).
  void want_size(const Json& v, const std::string& ptr, std::size_t lo, std::size_t hi, const char* noun) const;

  std::string string_value(const Json& v, const std::string& ptr) const;
  std::string nonempty_string(const Json& v, const std::string& ptr) const;
  bool bool_value(const Json& v, const std::string& ptr) const;
  /// An integer in [lo, hi]; floats (even 2.0) and booleans are not integers. `note` follows the range.
  int int_value(const Json& v, const std::string& ptr, int lo, int hi, std::string_view note = "") const;
  /// A number in [lo, hi], or (lo, hi] when `lo_open`.
  double number_value(const Json& v, const std::string& ptr, double lo, double hi, bool lo_open = false) const;
  /// One of `allowed` (a string).
  std::string choice(const Json& v, const std::string& ptr, const std::vector<const char*>& allowed) const;
  /// A name from a fixed vocabulary (`noun` = "mutant", "invariant", ...).
  std::string known_name(const Json& v, const std::string& ptr, const std::vector<const char*>& vocabulary,
                         const char* noun) const;
  /// An array of distinct names from a vocabulary.
  std::vector<std::string> known_names(const Json& v, const std::string& ptr,
                                       const std::vector<const char*>& vocabulary, const char* noun,
                                       bool allow_empty) const;
  /// Fails when `name` is already in `seen` (whose i-th entry is at `list_ptr`/i).
  void reject_duplicate(const std::vector<std::string>& seen, const std::string& name, const std::string& list_ptr,
                        const std::string& ptr, const char* noun) const;
  /// A name made of ASCII letters, digits and `extra` (`allowed` describes `extra` for the message).
  void check_charset(const std::string& name, const std::string& ptr, const char* noun, std::string_view extra,
                     const char* allowed) const;

 private:
  std::string file_;
};

}  // namespace allocsim::support
