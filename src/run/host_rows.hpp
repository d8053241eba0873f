// Matrices as the host-side checks read them: fp32 values in host memory.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "numerics/dtype.hpp"

namespace klmini {

// The given rows of a matrix as fp32 values readable on the host (for the reference and the
// element checks): the matrix itself when it is fp32 in host memory and all rows are asked for
// (a host run needs no second copy of its inputs), otherwise a converted copy of those rows.
struct HostRows {
  std::vector<float> storage;
  const float* data = nullptr;
};

template <class Matrix>
HostRows rows_on_host(const Matrix& m, const std::vector<std::int64_t>& rows) {
  using T = typename Matrix::non_const_value_type;
  constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Matrix::memory_space>::accessible;
  const std::int64_t vocab = static_cast<std::int64_t>(m.extent(1));
  const bool all = static_cast<std::int64_t>(rows.size()) == static_cast<std::int64_t>(m.extent(0));
  HostRows out;
  if constexpr (std::is_same_v<T, float>) {
    if (host_memory && all) {
      out.data = m.data();
      return out;
    }
  }
  out.storage.resize(rows.size() * static_cast<std::size_t>(vocab));
  out.data = out.storage.data();
  using HostMatrix = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace>;
  const HostMatrix host = all ? Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), m)
                              : HostMatrix("klmini::rows_on_host", rows.size(), vocab);
  if (!all)
    for (std::size_t k = 0; k < rows.size(); ++k)
      Kokkos::deep_copy(Kokkos::subview(host, k, Kokkos::ALL()), Kokkos::subview(m, rows[k], Kokkos::ALL()));
  const T* src = host.data();
  float* dst = out.storage.data();
  Kokkos::parallel_for("klmini::to_fp32",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<std::int64_t>>(
                           0, std::int64_t(out.storage.size())),
                       [=](const std::int64_t i) { dst[i] = to_float(src[i]); });
  Kokkos::DefaultHostExecutionSpace().fence();
  return out;
}

}  // namespace klmini
