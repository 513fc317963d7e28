// Chainable options in the LibTorch style, for the option classes of sim/graph and sim/dynamics:
//   WaxmanOptions().nodes(200).alpha(0.1).beta(0.5)
#pragma once

#include <utility>

#define LOCI_SIM_OPTION(T, name, init)      \
 public:                                    \
  auto name(T value)->decltype(*this) {     \
    name##_ = std::move(value);             \
    return *this;                           \
  }                                         \
  const T& name() const { return name##_; } \
                                            \
 private:                                   \
  T name##_ = init
