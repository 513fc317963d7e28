// The one way an options struct declares an option, in the LibTorch C++ frontend's style (its TORCH_ARG): a
// chainable setter, a getter and a writable getter, the default written after the declaration:
//   LOCI_OPTION(double, radius) = 0.15;
//   WaxmanOptions().nodes(200).alpha(0.1);  options.nodes() = 300;  (a config reader binds to the member)
// Header-only, so that sim/, datasets/ and models/ declare their options alike without linking anything of core/.
#pragma once

#include <utility>

// The alias keeps `const` on the member, not on what a pointer type points to.
#define LOCI_OPTION(T, name)                                   \
 public:                                                       \
  using name##_type = T;                                       \
  auto name(name##_type value)->decltype(*this) {              \
    name##_ = std::move(value);                                \
    return *this;                                              \
  }                                                            \
  const name##_type& name() const noexcept { return name##_; } \
  name##_type& name() noexcept { return name##_; }             \
                                                               \
 private:                                                      \
  name##_type name##_
