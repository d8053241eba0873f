// The edge-case vectors of docs/SEMANTICS.md, shared by the semantics and reference tests and
// the kernel tests of every backend. Expected values are batchmean in exact arithmetic; `sum`
// of the terms is expected * tokens.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace klmini::testing {

struct EdgeCase {
  std::string id;
  std::int64_t tokens, vocab;
  std::vector<double> lp, t;  // row-major tokens x vocab, targets as probabilities
  double batchmean;           // NaN where PyTorch gives NaN
};

inline std::vector<double> logs(std::vector<double> p) {
  for (double& x : p) x = std::log(x);
  return p;
}

inline std::vector<double> log_softmax(std::vector<double> z) {
  double m = z[0];
  for (double x : z) m = std::max(m, x);
  double s = 0.0;
  for (double x : z) s += std::exp(x - m);
  for (double& x : z) x = x - m - std::log(s);
  return z;
}

inline std::vector<EdgeCase> edge_cases() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> f_lp = logs({.5, .25, .25}), f_t = {.5, .5, 0};
  const std::vector<double> b_lp = logs({.7, .2, .1}), b_t = {.7, .2, .1};
  f_lp.insert(f_lp.end(), b_lp.begin(), b_lp.end());
  f_t.insert(f_t.end(), b_t.begin(), b_t.end());
  return {
      {"A", 1, 3, logs({.5, .25, .25}), {.5, .5, 0}, 0.34657359027997264},
      {"B", 1, 3, b_lp, b_t, 0.0},
      {"C", 1, 4, logs({.25, .25, .25, .25}), {1, 0, 0, 0}, 1.3862943611198906},
      {"D", 1, 4, log_softmax({10, 0, 0, 0}), {.25, .25, .25, .25}, 6.113841829395048},
      {"E", 1, 4, {0, -inf, -inf, -inf}, {1, 0, 0, 0}, nan},
      {"F", 2, 3, f_lp, f_t, 0.17328679513998632},
      {"G", 1, 3, logs({.5, .25, .25}), {.6, .3, .1}, 0.07246032792714358},
      {"H", 1, 3, logs({.5, .25, .25}), {1.1, -0.1, 0}, nan},
      {"I", 1, 3, {nan, std::log(.5), std::log(.5)}, {0, .5, .5}, nan},
  };
}

// The same case with targets given as log-probabilities. log(0) = -inf and exp(-inf) * -inf
// is NaN in PyTorch; log of a negative target is NaN too.
inline EdgeCase as_log_target(EdgeCase c) {
  bool nan_result = std::isnan(c.batchmean);
  for (double& x : c.t) {
    if (!(x > 0.0)) nan_result = true;
    x = std::log(x);
  }
  if (nan_result) c.batchmean = std::numeric_limits<double>::quiet_NaN();
  c.id += " (log_target)";
  return c;
}

inline std::vector<float> to_float(const std::vector<double>& v) { return {v.begin(), v.end()}; }

}  // namespace klmini::testing
