// Math usable in device and host code across Kokkos 3.4 .. 5.x. Kokkos 3.4 keeps its math
// functions in Kokkos::Experimental, Kokkos >= 3.7 in Kokkos (4.x dropped the Experimental
// ones). Translation units without Kokkos (the host-only library: reference, report) get the
// C++ library's functions, which are what Kokkos calls on the host anyway.
// Kokkos translation units must include <Kokkos_Core.hpp> before this header.
#pragma once

#include <cmath>

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
using Kokkos::sqrt;
#elif defined(KOKKOS_VERSION)
using Kokkos::Experimental::cos;
using Kokkos::Experimental::exp;
using Kokkos::Experimental::log;
using Kokkos::Experimental::sqrt;
KOKKOS_INLINE_FUNCTION float abs(float x) { return Kokkos::Experimental::fabs(x); }
KOKKOS_INLINE_FUNCTION double abs(double x) { return Kokkos::Experimental::fabs(x); }
#else
using std::abs;
using std::cos;
using std::exp;
using std::log;
using std::sqrt;
#endif

// The logarithm of the fp32 kernels. On Cuda devices it is the hardware approximation
// __logf (one MUFU.LG2 and a multiply; CUDA documents a maximum absolute error of 2^-21.41 on
// [0.5, 2] and 3 ulp elsewhere), because the accurate logf's ~40 instructions per element make
// the fused kernel instruction-bound on Hopper. On hosts vector_logf (fast_log.hpp, <= 2 ulp),
// which vectorizes where libm's scalar logf does not. For fp64, the accurate log.
// Zero, negative, infinite and NaN arguments behave as log's do (-inf, NaN, inf, NaN).
KOKKOS_INLINE_FUNCTION float kernel_log(float x) {
#if defined(__CUDA_ARCH__)
  return __logf(x);
#else
  return vector_logf(x);
#endif
}
KOKKOS_INLINE_FUNCTION double kernel_log(double x) { return log(x); }

}  // namespace klmini::math
