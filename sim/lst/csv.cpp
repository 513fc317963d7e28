#include "sim/lst/csv.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>

#include "sim/lst/classify.hpp"

namespace loci::sim::lst {

namespace {

constexpr int kN = 4;
constexpr int kDigits = kN * kN;

struct Record {
  int line = 0;  // where the record starts
  std::vector<std::string> fields;
};

[[noreturn]] void fail(const std::string& name, int line, const std::string& what) {
  throw std::runtime_error(name + ":" + std::to_string(line) + ": " + what);
}

std::string trim(const std::string& s) {
  std::size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// RFC 4180 records; a quoted field may span lines, so each record remembers the line it starts on.
std::vector<Record> split_records(const std::string& text, const std::string& name) {
  std::vector<Record> records;
  Record rec;
  std::string field;
  bool quoted = false, any = false;
  int line = 1;
  rec.line = 1;
  auto end_record = [&] {
    rec.fields.push_back(trim(field));
    field.clear();
    bool blank = rec.fields.size() == 1 && rec.fields[0].empty() && !any;
    if (!blank) records.push_back(std::move(rec));
    rec = Record{};
    any = false;
  };
  std::size_t i = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"') {
      quoted = true;
      any = true;
    } else if (c == ',') {
      rec.fields.push_back(trim(field));
      field.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
      rec.line = ++line;
    } else {
      field += c;
    }
  }
  if (quoted) fail(name, rec.line, "unterminated quoted field");
  if (!field.empty() || !rec.fields.empty() || any) end_record();
  return records;
}

bool parse_int(const std::string& s, int* out) {
  if (s.empty() || s.size() > 9) return false;
  std::size_t k = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (k == s.size()) return false;
  for (std::size_t j = k; j < s.size(); ++j)
    if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
  *out = std::stoi(s);
  return true;
}

// A spreadsheet that stores the digit string as a number drops its leading zeros (blank cells), so a shorter
// all-digit string with exactly one target digit is left-padded back to 16. The file shipped in lst_grid keeps all
// 16 digits; the padding is for copies that went through such a tool.
std::string puzzle_digits(const std::string& raw, const std::string& name, int line) {
  bool digits = !raw.empty();
  for (char c : raw) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  const auto targets = std::count(raw.begin(), raw.end(), static_cast<char>('0' + kN + 1));
  if (!digits || raw.size() > static_cast<std::size_t>(kDigits) ||
      (raw.size() < static_cast<std::size_t>(kDigits) && targets != 1))
    fail(name, line, "expected " + std::to_string(kDigits) + " digits in 'puzzles', got '" + raw + "'");
  return std::string(static_cast<std::size_t>(kDigits) - raw.size(), '0') + raw;
}

LabelledPuzzle parse_row(const Record& r, const std::map<std::string, std::size_t>& col, const std::string& name) {
  auto field = [&](const char* key) -> const std::string* {
    auto it = col.find(key);
    return it == col.end() ? nullptr : &r.fields[it->second];
  };
  LabelledPuzzle out;
  out.line = r.line;
  if (const std::string* id = field("id"); id && !parse_int(*id, &out.id))
    fail(name, r.line, "'ID' must be an integer, got '" + *id + "'");
  if (const std::string* num = field("lst_num"); num && !num->empty() && !parse_int(*num, &out.lst_num))
    fail(name, r.line, "'LST_num' must be an integer or empty, got '" + *num + "'");

  const std::string& cond = *field("condition");
  out.condition = condition_from_name(cond);
  if (out.condition == kNone)
    fail(name, r.line, "'condition' must be Binary, Ternary or Quaternary, got '" + cond + "'");

  const std::string digits = puzzle_digits(*field("puzzles"), name, r.line);
  Puzzle& p = out.puzzle;
  p.n = kN;
  for (int i = 0; i < kDigits; ++i) {
    const int d = digits[static_cast<std::size_t>(i)] - '0';
    if (d > kN + 1)
      fail(name, r.line,
           "'puzzles' digit " + std::to_string(d) + " at cell " + std::to_string(i) +
               " is not 0 (blank), 1-4 (symbol) or 5 (target)");
    if (d == kN + 1) {
      if (p.target >= 0) fail(name, r.line, "'puzzles' marks more than one target (digit 5) in '" + digits + "'");
      p.target = i;
    } else {
      p.cells[i] = static_cast<std::uint8_t>(d);
    }
  }
  if (p.target < 0) fail(name, r.line, "'puzzles' has no target (digit 5) in '" + digits + "'");
  if (!is_consistent(p)) fail(name, r.line, "'puzzles' repeats a symbol in a row or column: '" + digits + "'");

  const std::string& sol = *field("solutions");
  if (!parse_int(sol, &p.answer) || p.answer < 1 || p.answer > kN)
    fail(name, r.line, "'solutions' must be a symbol 1..4, got '" + sol + "'");
  return out;
}

}  // namespace

std::vector<LabelledPuzzle> parse_human_puzzles(std::istream& in, const std::string& name) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::vector<Record> records = split_records(text, name);
  if (records.empty()) fail(name, 1, "no header line");

  const Record& header = records.front();
  std::map<std::string, std::size_t> col;
  for (std::size_t k = 0; k < header.fields.size(); ++k) col[lower(header.fields[k])] = k;
  for (const char* need : {"condition", "puzzles", "solutions"})
    if (!col.count(need)) fail(name, header.line, std::string("missing column '") + need + "' in the header");

  std::vector<LabelledPuzzle> rows;
  for (std::size_t k = 1; k < records.size(); ++k) {
    const Record& r = records[k];
    if (r.fields.size() != header.fields.size())
      fail(name, r.line,
           "expected " + std::to_string(header.fields.size()) + " fields, got " + std::to_string(r.fields.size()));
    rows.push_back(parse_row(r, col, name));
  }
  return rows;
}

std::vector<LabelledPuzzle> read_human_puzzles(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  return parse_human_puzzles(in, path);
}

std::vector<Puzzle> puzzles_of(const std::vector<LabelledPuzzle>& rows) {
  std::vector<Puzzle> out;
  out.reserve(rows.size());
  for (const LabelledPuzzle& r : rows) out.push_back(r.puzzle);
  return out;
}

}  // namespace loci::sim::lst
