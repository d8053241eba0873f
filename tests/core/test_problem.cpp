// A run's data and its kernels' units (src/core/problem.hpp): how a row is cut into work items
// and fixed units, how many units a row adds, and the poisoned result a kernel must overwrite.
// Built once per backend (tests/CMakeLists.txt), on the space KLMINI_TEST_SPACE.
#include "kernels/kernel_test_support.hpp"

#include <catch2/catch_test_macros.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace {
constexpr bool kHost = klmini::is_host_space<Space>();
}

TEST_CASE("row segments: a host item is a whole row, a device item four columns") {
  CHECK(klmini::segment_width<Space>(1030) == (kHost ? 1030 : 4));
  CHECK(klmini::segment_width<Space>(3) == 3);  // a row narrower than a segment is one
  const auto p = upload(std::vector<float>(2 * 10, 0.1f), std::vector<float>(2 * 10, 0.1f), 2, 10, false);
  const klmini::RowSegments s = klmini::row_segments(p);
  CHECK(s.vocab == 10);
  CHECK(s.per_row == (kHost ? 1 : 3));
  const std::int64_t last = 2 * s.per_row - 1;  // the second row's last item
  CHECK(s.row(last) == 1);
  CHECK(s.begin(last) == (kHost ? 0 : 8));
  CHECK(s.end(last) == 10);  // cut at the row's end
  const auto policy = klmini::row_segment_policy(p, s);
  CHECK(policy.end() - policy.begin() == 2 * s.per_row);
}

TEST_CASE("fixed units: a row's columns cut at every multiple of unit_columns") {
  CHECK(klmini::unit_columns<Space>() == (kHost ? klmini::kHostUnitColumns : klmini::kDeviceSegmentColumns));
  CHECK(klmini::max_units_per_row<Space>(1030) == (kHost ? 3 : 258));
  CHECK(klmini::max_units_per_row<Space>(512) == (kHost ? 1 : 128));
  const klmini::RowSegments whole_row{1030, 1030, 1};  // an item of one whole row
  std::vector<std::array<std::int64_t, 3>> units;
  klmini::for_each_unit<Space>(whole_row, 0, [&](std::int64_t row, std::int64_t begin, std::int64_t end) {
    units.push_back({row, begin, end});
  });
  using Units = std::vector<std::array<std::int64_t, 3>>;
  if constexpr (!klmini::kFixedUnits<Space>) {
    CHECK(units == Units{{0, 0, 1030}});  // an item is one unit
  } else if (kHost) {
    CHECK(units == Units{{0, 0, 512}, {0, 512, 1024}, {0, 1024, 1030}});
  } else {
    CHECK(units.size() == 258);
    CHECK(units.back() == std::array<std::int64_t, 3>{0, 1028, 1030});
  }
}

TEST_CASE("a result is poisoned until a kernel writes it") {
  const klmini::Result<Space> r("r");
  klmini::poison<Space>(r);
  CHECK(klmini::is_poison(klmini::read_sum<Space>(r)));
  klmini::zero_sum<Space>(r);
  CHECK_FALSE(klmini::is_poison(klmini::read_sum<Space>(r)));
  CHECK(klmini::read_result<Space>(r) == 0.0);
}
