// One way to declare an option, in the LibTorch style (its TORCH_ARG): a chainable setter, a getter and a writable
// getter, with the default beside the declaration. Every option class of sim/ uses it:
//   WaxmanOptions().nodes(200).alpha(0.1).beta(0.5);  options.nodes() = 300;  (a config reader binds to the member)
#pragma once

#include <utility>

#define LOCI_OPTION(T, name, init)          \
 public:                                    \
  auto name(T value)->decltype(*this) {     \
    name##_ = std::move(value);             \
    return *this;                           \
  }                                         \
  const T& name() const { return name##_; } \
  T& name() { return name##_; }             \
                                            \
 private:                                   \
  T name##_ = init
