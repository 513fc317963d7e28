// What a reader knows about one stored array.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/spec.hpp"

namespace loci::datasets {

struct ArrayInfo {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::string> dims;    // for a per-sample array, without the leading "sample" (as in ArraySpec)
  std::vector<std::int64_t> shape;  // same length as dims
  std::string doc;
  bool per_sample = true;

  std::int64_t elements() const {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
  }
  std::size_t bytes() const { return static_cast<std::size_t>(elements()) * dtype_size(dtype); }  // one sample's
  ArraySpec spec() const { return ArraySpec{name, dtype, dims, shape, doc}; }
  static ArrayInfo of(const ArraySpec& s, bool per_sample) {
    return {s.name, s.dtype, s.dims, s.shape, s.doc, per_sample};
  }
};

// "uint8 [token=16, channel=5]": the form error messages and `loci inspect` use.
std::string describe_type(const ArrayInfo& a);

}  // namespace loci::datasets
