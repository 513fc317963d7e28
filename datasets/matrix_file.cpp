#include "datasets/matrix_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "datasets/detail/h5.hpp"
#include "datasets/detail/self_contained.hpp"
#include "datasets/error.hpp"

namespace loci::datasets {

namespace {

namespace fs = std::filesystem;

std::string lower_extension(const fs::path& file) {
  std::string e = file.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return e;
}

// Fields of a line split at commas, tabs or runs of blanks, trimmed; quotes around a field are dropped.
std::vector<std::string> fields(const std::string& line) {
  const bool commas = line.find(',') != std::string::npos;
  const bool tabs = !commas && line.find('\t') != std::string::npos;
  std::vector<std::string> out;
  std::string current;
  auto flush = [&](bool keep_empty) {
    const auto a = current.find_first_not_of(" \t\r");
    const auto b = current.find_last_not_of(" \t\r");
    std::string f = a == std::string::npos ? "" : current.substr(a, b - a + 1);
    if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = f.substr(1, f.size() - 2);
    if (keep_empty || !f.empty()) out.push_back(f);
    current.clear();
  };
  for (char c : line) {
    if ((commas && c == ',') || (tabs && c == '\t'))
      flush(true);
    else if (!commas && !tabs && (c == ' ' || c == '\t'))
      flush(false);
    else
      current += c;
  }
  flush(commas || tabs);
  return out;
}

bool number(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

Matrix read_text(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw DataError(file, "cannot be opened");
  Matrix m;
  std::string line;
  std::int64_t line_no = 0;
  bool first = true;
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a UTF-8 byte order mark
    if (line.find_first_not_of(" \t\r") == std::string::npos || line[line.find_first_not_of(" \t\r")] == '#') continue;
    const auto f = fields(line);
    std::vector<double> row(f.size());
    bool numeric = true;
    for (std::size_t i = 0; i < f.size() && numeric; ++i) numeric = number(f[i], row[i]);
    if (first) {
      first = false;
      m.cols = static_cast<std::int64_t>(f.size());
      if (!numeric) {
        m.header = f;
        continue;
      }
    }
    const std::string where = file.string() + ":" + std::to_string(line_no);
    if (static_cast<std::int64_t>(f.size()) != m.cols)
      throw DataError(where + ": " + std::to_string(f.size()) + " fields, but the first row has " +
                      std::to_string(m.cols));
    for (std::size_t i = 0; i < f.size(); ++i)
      if (!number(f[i], row[i]) || !std::isfinite(row[i]))
        throw DataError(where + ": field " + std::to_string(i + 1) + " ('" + f[i] + "') is not a finite number");
    m.values.insert(m.values.end(), row.begin(), row.end());
    ++m.rows;
  }
  if (in.bad()) throw DataError(file, "read error");
  if (m.rows == 0) throw DataError(file, "holds no rows of numbers");
  return m;
}

struct Search {
  std::vector<std::string> found;  // 2-D numeric datasets
};

herr_t visit(hid_t group, const char* name, const H5L_info_t* info, void* data) {
  if (info->type != H5L_TYPE_HARD) return 0;
  // H5Oopen and H5Iget_type rather than H5Oget_info*, whose signature changes between HDF5 1.10 and 1.12.
  const h5::Handle object(H5Oopen(group, name, H5P_DEFAULT), H5Oclose);
  if (!object.valid() || H5Iget_type(object) != H5I_DATASET) return 0;
  const h5::Handle space = h5::space(H5Dget_space(object));
  const h5::Handle type = h5::type(H5Dget_type(object));
  const H5T_class_t c = H5Tget_class(type);
  if (H5Sget_simple_extent_ndims(space) == 2 && (c == H5T_INTEGER || c == H5T_FLOAT))
    static_cast<Search*>(data)->found.push_back(name);
  return 0;
}

Matrix read_hdf5(const fs::path& file, std::string dataset) {
  h5::quiet();
  if (!fs::is_regular_file(file)) throw DataError(file, "no such file");
  const h5::Handle f = h5::file(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!f.valid()) throw DataError(file, "not a readable HDF5 file");
  if (const std::string outside = h5::outside_storage(f); !outside.empty())
    throw DataError(file, outside + "; its checksum would not cover those bytes");
  if (dataset.empty()) {
    Search search;
    H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, visit, &search);
    if (search.found.size() != 1) {
      std::string names;
      for (const auto& n : search.found) names += (names.empty() ? "" : ", ") + n;
      throw DataError(file, search.found.empty() ? "holds no 2-D numeric dataset"
                                                 : "holds several 2-D numeric datasets (" + names + "): name one");
    }
    dataset = search.found.front();
  }
  if (H5Lexists(f, dataset.c_str(), H5P_DEFAULT) <= 0) throw DataError(file, "has no dataset '" + dataset + "'");
  const h5::Handle d = h5::dataset(H5Dopen2(f, dataset.c_str(), H5P_DEFAULT));
  if (!d.valid()) throw DataError(file, "'" + dataset + "' is not a dataset");
  const h5::Handle space = h5::space(H5Dget_space(d));
  const h5::Handle type = h5::type(H5Dget_type(d));
  const H5T_class_t c = H5Tget_class(type);
  hsize_t dims[2] = {0, 0};
  if (H5Sget_simple_extent_ndims(space) != 2 || (c != H5T_INTEGER && c != H5T_FLOAT))
    throw DataError(file, "dataset '" + dataset + "' is not a 2-D array of numbers");
  H5Sget_simple_extent_dims(space, dims, nullptr);
  Matrix m;
  m.rows = static_cast<std::int64_t>(dims[0]);
  m.cols = static_cast<std::int64_t>(dims[1]);
  m.values.resize(static_cast<std::size_t>(dims[0] * dims[1]));
  if (!m.values.empty() && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, m.values.data()) < 0)
    throw DataError(file, "dataset '" + dataset + "' cannot be read: " + h5::last_error());
  for (std::size_t k = 0; k < m.values.size(); ++k)
    if (!std::isfinite(m.values[k]))
      throw DataError(file, "dataset '" + dataset + "' holds a non-finite value at row " + std::to_string(k / dims[1]) +
                                ", column " + std::to_string(k % dims[1]));
  if (m.rows == 0) throw DataError(file, "dataset '" + dataset + "' has no rows");
  return m;
}

}  // namespace

Matrix read_matrix(const fs::path& file, const std::string& dataset) {
  const std::string e = lower_extension(file);
  if (e == ".h5" || e == ".hdf5" || e == ".he5") return read_hdf5(file, dataset);
  if (e == ".csv" || e == ".tsv" || e == ".txt") return read_text(file);
  throw DataError(file, "unknown table format '" + e + "' (expected .h5, .hdf5, .csv, .tsv or .txt)");
}

}  // namespace loci::datasets
