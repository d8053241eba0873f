// Math usable in device and host code across Kokkos 3.4 .. 5.x. Kokkos 3.4 keeps its math
// functions in Kokkos::Experimental, Kokkos >= 3.7 in Kokkos (4.x dropped the Experimental
// ones). Translation units without Kokkos (the host-only library: reference, report) get the
// C++ library's functions, which are what Kokkos calls on the host anyway.
// Kokkos translation units must include <Kokkos_Core.hpp> before this header.
#pragma once

#include <cmath>

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

}  // namespace klmini::math
