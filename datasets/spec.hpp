// The shard contract in plain C++ types: what a generator declares and fills, and what readers find.
// Header-only and free of HDF5, so the plugin API can name these types without pulling in HDF5.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace loci::datasets {

enum class DType : std::uint8_t { u8, i8, u16, i16, u32, i32, u64, i64, f32, f64 };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::u8:
    case DType::i8:
      return 1;
    case DType::u16:
    case DType::i16:
      return 2;
    case DType::u32:
    case DType::i32:
    case DType::f32:
      return 4;
    case DType::u64:
    case DType::i64:
    case DType::f64:
      return 8;
  }
  return 0;
}

// numpy spelling, used in index.json, the dataset card and error messages.
constexpr const char* dtype_name(DType t) {
  switch (t) {
    case DType::u8:
      return "uint8";
    case DType::i8:
      return "int8";
    case DType::u16:
      return "uint16";
    case DType::i16:
      return "int16";
    case DType::u32:
      return "uint32";
    case DType::i32:
      return "int32";
    case DType::u64:
      return "uint64";
    case DType::i64:
      return "int64";
    case DType::f32:
      return "float32";
    case DType::f64:
      return "float64";
  }
  return "?";
}

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, std::uint8_t>)
    return DType::u8;
  else if constexpr (std::is_same_v<T, std::int8_t>)
    return DType::i8;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return DType::u16;
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return DType::i16;
  else if constexpr (std::is_same_v<T, std::uint32_t>)
    return DType::u32;
  else if constexpr (std::is_same_v<T, std::int32_t>)
    return DType::i32;
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return DType::u64;
  else if constexpr (std::is_same_v<T, std::int64_t>)
    return DType::i64;
  else if constexpr (std::is_same_v<T, float>)
    return DType::f32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::f64;
  else
    static_assert(sizeof(T) == 0, "no loci dtype for this C++ type");
}

// One named array. For a per-sample array, `shape` excludes the leading sample axis (whose dimension is "sample").
struct ArraySpec {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::string> dims;    // one name per axis, e.g. {"token", "channel"}
  std::vector<std::int64_t> shape;  // same length as dims
  std::string doc;                  // one line, written as the HDF5 attribute "doc" and in the dataset card

  std::int64_t elements() const {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
  }
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * dtype_size(dtype); }
};

// A dataset-level array (e.g. /positions, /adjacency), stored once per shard and in full.
struct Array {
  ArraySpec spec;
  std::vector<std::uint8_t> bytes;

  template <class T>
  static Array of(ArraySpec spec, const std::vector<T>& values) {
    spec.dtype = dtype_of<T>();
    if (static_cast<std::int64_t>(values.size()) != spec.elements())
      throw std::invalid_argument("array '" + spec.name + "': " + std::to_string(values.size()) +
                                  " values for shape of " + std::to_string(spec.elements()));
    Array a{std::move(spec), {}};
    a.bytes.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
    return a;
  }
};

// A dataset-level array of text along one dimension (e.g. /token_label: each parcel's region name), stored as
// UTF-8 variable-length strings, which h5py, xarray (h5netcdf) and netCDF-C read as strings.
struct TextArray {
  std::string name;
  std::string dim;  // e.g. "token"; its size is values.size()
  std::vector<std::string> values;
  std::string doc;

  // Its name, dimension and size as an array spec (the dtype means nothing here), for the checks arrays share.
  ArraySpec shape() const { return {name, DType::u8, {dim}, {static_cast<std::int64_t>(values.size())}, doc}; }
};

// A file outside loci whose contents decide a dataset's bytes (an atlas, a subject's series), with its checksum.
struct InputFile {
  std::string file;  // as the config names it
  std::int64_t bytes = 0;
  std::string sha256;
};

using AttrValue = std::variant<std::int64_t, double, std::string>;
using Attributes = std::map<std::string, AttrValue>;

// Everything a generator declares about its dataset before the first sample is made.
struct DatasetLayout {
  std::vector<ArraySpec> sample_arrays;  // per sample; the shard prepends the "sample" axis
  std::vector<Array> dataset_arrays;     // must include "positions" (token x coordinate)
  std::vector<TextArray> text_arrays;    // dataset-level text, each along a dimension the arrays use
  Attributes attributes;                 // written as root attributes of every shard
};

// Writable view of one sample's slots, handed to a generator by the driver. Index i follows sample_arrays.
class SampleSlots {
 public:
  SampleSlots(const std::vector<ArraySpec>* specs, std::vector<void*> slots)
      : specs_(specs), slots_(std::move(slots)) {}

  template <class T>
  T* get(std::size_t i) const {
    check<T>(i);
    return static_cast<T*>(slots_[i]);
  }
  template <class T>
  T* get(std::string_view name) const {
    return get<T>(index_of(name));
  }

  std::size_t index_of(std::string_view name) const {
    for (std::size_t i = 0; i < specs_->size(); ++i)
      if ((*specs_)[i].name == name) return i;
    throw std::out_of_range("no per-sample array named '" + std::string(name) + "'");
  }
  const ArraySpec& spec(std::size_t i) const { return (*specs_)[i]; }

 private:
  template <class T>
  void check(std::size_t i) const {
    if (i >= slots_.size()) throw std::out_of_range("sample array index out of range");
    if ((*specs_)[i].dtype != dtype_of<T>())
      throw std::invalid_argument("array '" + (*specs_)[i].name + "' is " + dtype_name((*specs_)[i].dtype) + ", not " +
                                  dtype_name(dtype_of<T>()));
  }
  const std::vector<ArraySpec>* specs_;
  std::vector<void*> slots_;
};

}  // namespace loci::datasets
