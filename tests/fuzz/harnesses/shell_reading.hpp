// The emit harness's oracle: a script read the way a POSIX shell splits it into words, before running anything.
// It keeps the words of each line (quotes removed, escapes resolved, operators as words of their own), reads each
// command substitution `$(...)` as a script of its own, and counts what would expand or run: `$`, backticks and a
// word's leading `~`, and unquoted glob or brace characters. Comparing these counts with those of the same script
// made from harmless values tells whether a value added any.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace loci::fuzz {

struct ShellWord {
  std::string text;
  bool is_operator = false;  // a run of one of ; & | ( ) < >

  bool operator==(const ShellWord& o) const { return text == o.text && is_operator == o.is_operator; }
  bool operator!=(const ShellWord& o) const { return !(*this == o); }
};

struct ShellReading {
  std::vector<std::vector<ShellWord>> lines;  // one entry per line; a comment reads as nothing
  std::vector<ShellReading> substitutions;    // each $(...), in order, read as a script (its own nested ones inside)
  int expansions = 0;                         // $ outside single quotes, backticks, a word's leading ~
  int globs = 0;                              // unquoted * ? [ { }
  bool unterminated = false;                  // a quote or $( still open where its line (or the script) ends
};

namespace detail {

inline bool is_operator_char(char c) {
  return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>';
}

class ShellReader {
 public:
  explicit ShellReader(const std::string& s) : s_(s) {}

  // Reads from i_ to the end, or (nested) to the ')' that closes a $( and past it.
  ShellReading read(bool nested) {
    ShellReading r;
    r.lines.emplace_back();
    std::string word;
    bool in_word = false;
    auto end_word = [&] {
      if (in_word) r.lines.back().push_back({word, false});
      word.clear();
      in_word = false;
    };
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == ')' && nested) {
        end_word();
        ++i_;
        return r;
      }
      if (c == '\n') {
        end_word();
        r.lines.emplace_back();
        ++i_;
      } else if (c == ' ' || c == '\t') {
        end_word();
        ++i_;
      } else if (c == '#' && !in_word) {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '$' && i_ + 1 < s_.size() && s_[i_ + 1] == '(') {
        substitute(r);
        in_word = true;
        word += "$(...)";
      } else if (detail::is_operator_char(c)) {
        end_word();
        std::string op(1, c);
        while (++i_ < s_.size() && s_[i_] == c) op += c;
        r.lines.back().push_back({op, true});
      } else if (c == '\'') {
        in_word = true;
        const std::size_t close = s_.find('\'', i_ + 1);
        if (close == std::string::npos || s_.find('\n', i_ + 1) < close) return unterminated(r);
        word += s_.substr(i_ + 1, close - i_ - 1);
        i_ = close + 1;
      } else if (c == '"') {
        in_word = true;
        if (!double_quoted(r, word)) return unterminated(r);
      } else if (c == '\\') {
        in_word = true;
        if (i_ + 1 < s_.size() && s_[i_ + 1] != '\n') word += s_[i_ + 1];
        i_ += 2;
      } else {
        if (c == '$' || c == '`' || (c == '~' && !in_word)) ++r.expansions;
        if (c == '*' || c == '?' || c == '[' || c == '{' || c == '}') ++r.globs;
        in_word = true;
        word += c;
        ++i_;
      }
    }
    end_word();
    if (nested) r.unterminated = true;
    return r;
  }

 private:
  static ShellReading& unterminated(ShellReading& r) {
    r.unterminated = true;
    return r;
  }

  // At "$(": reads the substitution as a script of its own.
  void substitute(ShellReading& r) {
    ++r.expansions;
    i_ += 2;
    ShellReading inner = read(true);
    r.expansions += inner.expansions;
    r.globs += inner.globs;
    r.unterminated = r.unterminated || inner.unterminated;
    r.substitutions.push_back(std::move(inner));
  }

  // At '"': up to its closing quote; false when the line ends first.
  bool double_quoted(ShellReading& r, std::string& word) {
    ++i_;
    while (i_ < s_.size() && s_[i_] != '"') {
      const char c = s_[i_];
      if (c == '\n') return false;
      if (c == '\\' && i_ + 1 < s_.size() &&
          (s_[i_ + 1] == '$' || s_[i_ + 1] == '`' || s_[i_ + 1] == '"' || s_[i_ + 1] == '\\')) {
        word += s_[i_ + 1];
        i_ += 2;
      } else if (c == '$' && i_ + 1 < s_.size() && s_[i_ + 1] == '(') {
        substitute(r);
        word += "$(...)";
      } else {
        if (c == '$' || c == '`') ++r.expansions;
        word += c;
        ++i_;
      }
    }
    if (i_ >= s_.size()) return false;
    ++i_;
    return true;
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace detail

inline ShellReading read_shell(const std::string& script) { return detail::ShellReader(script).read(false); }

inline ShellWord word(const std::string& text) { return {text, false}; }
inline ShellWord op(const std::string& text) { return {text, true}; }

}  // namespace loci::fuzz
