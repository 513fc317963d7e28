// The bits of one trivially copyable value read as another type of the same size: C++20's std::bit_cast for
// C++17. The exp and log kernels build their powers of two in the exponent field with it, and bfloat16 is the
// high half of a float's bits.
#pragma once

#include <cstring>
#include <type_traits>

namespace loci::cpu {

template <class To, class From>
inline To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast: the two types must have the same size");
  static_assert(std::is_trivially_copyable<To>::value && std::is_trivially_copyable<From>::value,
                "bit_cast: both types must be trivially copyable");
  To to;
  std::memcpy(&to, &from, sizeof to);
  return to;
}

}  // namespace loci::cpu
