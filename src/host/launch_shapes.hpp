// The launch-shape table: every shape a loss kernel may take (src/kernels/shapes.hpp runs
// them), described once, and the rule that picks the fastest from timed trials. Host-only: the
// deck parser, the report and the tests of the choice read this table too.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace klmini {

enum class LaunchShape {
  automatic,          // the deck's "auto": fused times the candidates and runs the fastest
  rows,               // hosts: one work item per row
  segments_2048,      // hosts: rows cut into 2048-column segments
  segments,           // devices, rows that are not whole 16-byte chunks: short segments, scalar loads
  grid_u2_half,       // devices: persistent grid at half occupancy, 2 chunks a step
  grid_u4_full,       // persistent grid at full occupancy, 4 chunks a step
  grid_u4_quarter,    // persistent grid at a quarter of the occupancy, 4 chunks a step
  rows_u4_t256,       // one team of 256 per row (RowSums), 4 chunks a step
  rows_t256_lean,     // the same, 2 chunks a step (16-bit: 1), held to 32 registers: full occupancy
  rows_t256_b5,       // the same, 4 chunks a step (16-bit: 2), held to 48 registers: 5 teams an SM
  rows_u8_t256,       // fp32: the same, 8 chunks a step (94 registers: 2 teams an SM)
  rows_u8_t512,       // one team of 512 per row, 8 chunks a step (16-bit: 4)
  rows_u4_t1024,      // one team of 1024 per row, 4 chunks a step (16-bit: 2), 64 registers
  grid_staged_t1024,  // exact terms on Cuda: the grid whose teams stage the log table in scratch
};

struct LaunchShapeInfo {
  LaunchShape shape;
  std::string_view name;
  bool device;  // a device shape (else a host one)
  std::string_view summary;
};

inline constexpr std::array<LaunchShapeInfo, 14> kLaunchShapes = {{
    {LaunchShape::automatic, "auto", false, "time every candidate shape, run the fastest"},
    {LaunchShape::rows, "rows", false, "one work item per row"},
    {LaunchShape::segments_2048, "segments_2048", false, "rows cut into 2048-column segments"},
    {LaunchShape::segments, "segments", true, "short row segments with scalar loads (rows not whole 16-byte chunks)"},
    {LaunchShape::grid_u2_half, "grid_u2_half", true, "persistent grid, half occupancy, 2 chunks a step"},
    {LaunchShape::grid_u4_full, "grid_u4_full", true, "persistent grid, full occupancy, 4 chunks a step"},
    {LaunchShape::grid_u4_quarter, "grid_u4_quarter", true, "persistent grid, quarter occupancy, 4 chunks a step"},
    {LaunchShape::rows_u4_t256, "rows_u4_t256", true, "a team of 256 per row, 4 chunks a step"},
    {LaunchShape::rows_t256_lean, "rows_t256_lean", true,
     "a team of 256 per row, 2 chunks a step (16-bit: 1), at most 32 registers (full occupancy)"},
    {LaunchShape::rows_t256_b5, "rows_t256_b5", true,
     "a team of 256 per row, 4 chunks a step (16-bit: 2), at most 48 registers (5 teams an SM)"},
    {LaunchShape::rows_u8_t256, "rows_u8_t256", true,
     "fp32: a team of 256 per row, 8 chunks a step (2 teams an SM: more loads in flight, fewer teams)"},
    {LaunchShape::rows_u8_t512, "rows_u8_t512", true,
     "a team of 512 per row, 8 chunks a step (16-bit: 4): 32 elements a thread a step"},
    {LaunchShape::rows_u4_t1024, "rows_u4_t1024", true,
     "a team of 1024 per row, 4 chunks a step (16-bit: 2), at most 64 registers"},
    {LaunchShape::grid_staged_t1024, "grid_staged_t1024", true,
     "exact terms: persistent grid of 1024-thread teams that stage the log table"},
}};

const LaunchShapeInfo& info(LaunchShape s);
std::string_view shape_name(LaunchShape s);
std::optional<LaunchShape> find_shape(std::string_view name);
// "auto|rows|...": the names a deck's `shape` key may hold.
std::string shape_names();

// How the shape of a run's product kernel was chosen.
enum class ShapeChoice { only, trial, deck };
const char* to_string(ShapeChoice c);

struct ShapeTrial {
  LaunchShape shape;
  double median_s;
};

// The fastest trial's shape. Trials within `tolerance` (relative) of the fastest count as ties,
// which the earliest candidate wins: the candidates come in the order of preference, so noise
// between equal shapes does not flip the choice from run to run.
inline constexpr double kShapeTieTolerance = 0.002;
LaunchShape fastest_shape(const std::vector<ShapeTrial>& trials, double tolerance = kShapeTieTolerance);

}  // namespace klmini
