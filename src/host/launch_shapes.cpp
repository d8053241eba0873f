#include "host/launch_shapes.hpp"

#include <stdexcept>

namespace klmini {

const LaunchShapeInfo& info(LaunchShape s) {
  for (const LaunchShapeInfo& i : kLaunchShapes)
    if (i.shape == s) return i;
  throw std::logic_error("a launch shape without a row in kLaunchShapes");
}

std::string_view shape_name(LaunchShape s) { return info(s).name; }

std::optional<LaunchShape> find_shape(std::string_view name) {
  for (const LaunchShapeInfo& i : kLaunchShapes)
    if (i.name == name) return i.shape;
  return std::nullopt;
}

std::string shape_names() {
  std::string names;
  for (const LaunchShapeInfo& i : kLaunchShapes) names += (names.empty() ? "" : "|") + std::string(i.name);
  return names;
}

const char* to_string(ShapeChoice c) {
  switch (c) {
    case ShapeChoice::only: return "only candidate";
    case ShapeChoice::trial: return "fastest by trial";
    case ShapeChoice::deck: return "the deck's";
  }
  return "?";
}

LaunchShape fastest_shape(const std::vector<ShapeTrial>& trials, double tolerance) {
  if (trials.empty()) throw std::logic_error("fastest_shape: no trials");
  double best = trials.front().median_s;
  for (const ShapeTrial& t : trials)
    if (t.median_s < best) best = t.median_s;
  for (const ShapeTrial& t : trials)
    if (t.median_s <= best * (1.0 + tolerance)) return t.shape;
  return trials.front().shape;  // unreachable: the fastest is within any tolerance of itself
}

}  // namespace klmini
