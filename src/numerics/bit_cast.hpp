// Reading a float's bits and building floats from bits, in host and device code alike (memcpy,
// which every compiler turns into a register move; std::bit_cast is C++20 and host-only for
// nvcc 11). One place for what the element types, the kernels' logs and the exact log all do.
#pragma once

#include <cstdint>
#include <cstring>

#ifndef KOKKOS_INLINE_FUNCTION
#define KOKKOS_INLINE_FUNCTION inline
#endif

namespace klmini {

KOKKOS_INLINE_FUNCTION std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
KOKKOS_INLINE_FUNCTION float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
KOKKOS_INLINE_FUNCTION std::uint64_t bits_of(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
KOKKOS_INLINE_FUNCTION double double_of(std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

}  // namespace klmini
