// Math usable in device and host code across Kokkos 3.4 .. 5.x. Kokkos 3.4 keeps its math
// functions in Kokkos::Experimental, Kokkos >= 3.7 in Kokkos (4.x dropped the Experimental
// ones). Translation units without Kokkos (the host-only library: reference, report) get the
// C++ library's functions, which are what Kokkos calls on the host anyway.
// Kokkos translation units must include <Kokkos_Core.hpp> before this header.
#pragma once

#include <cmath>

#include "numerics/bit_cast.hpp"
#include "numerics/fast_log.hpp"

#ifndef KOKKOS_INLINE_FUNCTION
#define KOKKOS_INLINE_FUNCTION inline
#endif

namespace klmini::math {

#if defined(KOKKOS_VERSION) && KOKKOS_VERSION >= 30700
using Kokkos::abs;
using Kokkos::cos;
using Kokkos::exp;
using Kokkos::log;
using Kokkos::sin;
using Kokkos::sqrt;
#elif defined(KOKKOS_VERSION)
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::log;
using Kokkos::Experimental::sin;
using Kokkos::Experimental::sqrt;
KOKKOS_INLINE_FUNCTION float abs(float x) { return Kokkos::Experimental::fabs(x); }
KOKKOS_INLINE_FUNCTION double abs(double x) { return Kokkos::Experimental::fabs(x); }
#else
using std::abs;
using std::cos;
using std::exp;
using std::log;
using std::sin;
using std::sqrt;
#endif

#if defined(__CUDA_ARCH__)
// The fp32 log of Cuda kernels: the hardware log2 (MUFU.LG2, __log2f) times ln 2, with its
// result recentred. Measured on the H200 over whole binades of arguments below 1, lg2.approx
// returns on average 0.53-0.75 ulp of its result above log2(x) (it rounds toward zero), and
// __logf inherits that bias: over a row the errors add up instead of cancelling. Adding half an
// ulp of the result, with its sign, centres the error on zero (the loss's error with each:
// docs/PERFORMANCE.md, The fp32 kernel log on the GPU), for one multiply, one mask and one
// fused multiply-add more than __logf. y * 2^-24 masked to its sign and exponent is
// half an ulp of y; it is 0 for y = 0 (log 1 stays 0) and keeps inf and NaN as they are.
KOKKOS_INLINE_FUNCTION float device_logf(float x) {
  constexpr float kLn2 = 0.693147180559945309f;
  const float y = __log2f(x);
  const float half_ulp = float_of(bits_of(y * 0x1p-24f) & 0xff800000u);
  return fmaf(y, kLn2, half_ulp * kLn2);
}
#endif

// The logarithm of the fp32 kernels. On Cuda devices device_logf above (CUDA's accurate logf
// takes ~40 instructions per element, which makes the fused kernel instruction-bound on
// Hopper); on hosts vector_logf (fast_log.hpp, <= 2 ulp), which vectorizes where libm's scalar
// logf does not. For fp64, the accurate log. Zero, negative, infinite and NaN arguments behave
// as log's do (-inf, NaN, inf, NaN).
KOKKOS_INLINE_FUNCTION float kernel_log(float x) {
#if defined(__CUDA_ARCH__)
  return device_logf(x);
#else
  return vector_logf(x);
#endif
}
KOKKOS_INLINE_FUNCTION double kernel_log(double x) { return log(x); }

}  // namespace klmini::math
