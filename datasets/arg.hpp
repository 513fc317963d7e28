// Options in the LibTorch C++ style: required values go to the constructor, the rest are chained setters,
// `BatchStreamOptions("train", {"tokens"}, 128).seed(7).epoch(2)`. LOCI_ARG(T, name) declares a member `name_`
// with a setter `name(value)` that returns the options and a getter `name()`.
#pragma once

#include <utility>

// The alias keeps `const` on the member, not on what a pointer type points to.
#define LOCI_ARG(T, name)                                   \
 public:                                                    \
  using name##_t = T;                                       \
  auto name(name##_t value)->decltype(*this) {              \
    name##_ = std::move(value);                             \
    return *this;                                           \
  }                                                         \
  const name##_t& name() const noexcept { return name##_; } \
                                                            \
 private:                                                   \
  name##_t name##_
