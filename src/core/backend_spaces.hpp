// The Kokkos side of the backend table (host/backends.hpp): each row's execution space, where
// this build's Kokkos has it. A backend is one row there and one specialization here.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "host/backends.hpp"

namespace klmini {

// The execution space of a backend; void where this build's Kokkos lacks it.
template <Backend B>
struct SpaceOf {
  using type = void;
};
#ifdef KOKKOS_ENABLE_CUDA
template <>
struct SpaceOf<Backend::cuda> {
  using type = Kokkos::Cuda;
};
#endif
#ifdef KOKKOS_ENABLE_OPENMP
template <>
struct SpaceOf<Backend::openmp> {
  using type = Kokkos::OpenMP;
};
#endif
#ifdef KOKKOS_ENABLE_SERIAL
template <>
struct SpaceOf<Backend::serial> {
  using type = Kokkos::Serial;
};
#endif

template <Backend B>
using space_of = typename SpaceOf<B>::type;

template <Backend B>
inline constexpr bool kCompiledIn = !std::is_void_v<space_of<B>>;

namespace detail {

template <class F, std::size_t... Row>
void for_each_row(F&& f, std::index_sequence<Row...>) {
  (f(std::integral_constant<Backend, kBackends[Row].id>{}), ...);
}

// The row whose space is `Space`; kBackends.size() when none is.
template <class Space, std::size_t... Row>
constexpr std::size_t row_of(std::index_sequence<Row...>) {
  std::size_t row = sizeof...(Row);
  ((row = std::is_same_v<space_of<kBackends[Row].id>, Space> ? Row : row), ...);
  return row;
}

// A compiled-in row's `host` column says what Kokkos says of its memory.
template <Backend B>
constexpr bool host_column_agrees() {
  if constexpr (kCompiledIn<B>)
    return info(B).host ==
           Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename space_of<B>::memory_space>::accessible;
  else
    return true;
}
template <std::size_t... Row>
constexpr bool host_columns_agree(std::index_sequence<Row...>) {
  return (host_column_agrees<kBackends[Row].id>() && ...);
}

}  // namespace detail

static_assert(detail::host_columns_agree(std::make_index_sequence<kBackends.size()>{}),
              "a row of kBackends (host/backends.hpp) says host memory where Kokkos does not, or the reverse");

// Calls f(std::integral_constant<Backend, B>) for each backend compiled in, best first.
template <class F>
void for_each_compiled_backend(F&& f) {
  detail::for_each_row(
      [&f](auto row) {
        if constexpr (kCompiledIn<decltype(row)::value>) f(row);
      },
      std::make_index_sequence<kBackends.size()>{});
}

// The row of an execution space (a compile error for a space the table lacks).
template <class Space>
constexpr const BackendInfo& backend_info() {
  constexpr std::size_t row = detail::row_of<Space>(std::make_index_sequence<kBackends.size()>{});
  static_assert(row < kBackends.size(), "an execution space without its row in kBackends (host/backends.hpp)");
  return kBackends[row];
}

// The backends compiled into this build, best first.
inline std::vector<Backend> compiled_backends() {
  std::vector<Backend> out;
  for_each_compiled_backend([&out](auto row) { out.push_back(decltype(row)::value); });
  return out;
}

}  // namespace klmini
