// The run's plan: the kernels it times, in order, each bound to this run's problem and outputs
// and described by its row of the variant table (host/variants.hpp).
#pragma once

#include <functional>
#include <vector>

#include "core/problem.hpp"
#include "host/variants.hpp"
#include "kernels/dispatch.hpp"
#include "kernels/gradient.hpp"
#include "kernels/terms.hpp"

namespace klmini {

// The fp32 matrices a run writes: the `none` term matrix and the gradient (empty views when the
// deck asks for neither), and the gradient's upstream factor.
template <class Space>
struct Outputs {
  using Matrix = typename Problem<Space>::OutMatrix;
  Matrix terms, grad;
  float grad_scale = 1.0f;
};

template <class Space>
struct PlannedKernel {
  const VariantInfo* variant = nullptr;
  std::function<void(const Result<Space>&)> kernel;
};

// `p` and `out` must outlive the plan: its kernels refer to them. `shape`: fused's.
template <class Space, class T>
std::vector<PlannedKernel<Space>> make_plan(const std::vector<Variant>& timed, const Problem<Space, T>& p,
                                            const Outputs<Space>& out, LaunchShape shape) {
  std::vector<PlannedKernel<Space>> plan;
  for (const Variant v : timed) {
    PlannedKernel<Space> k;
    k.variant = &info(v);
    switch (k.variant->computes) {
      case Computes::loss:
        k.kernel = [&p, v, shape](const Result<Space>& r) { variants::run_loss_variant(v, p, r, shape); };
        break;
      case Computes::terms_matrix:
        k.kernel = [&p, &out](const Result<Space>& r) { variants::terms(p, out.terms, r); };
        break;
      case Computes::loss_and_gradient:
        k.kernel = [&p, &out](const Result<Space>& r) { variants::loss_and_gradient(p, out.grad, out.grad_scale, r); };
        break;
      case Computes::gradient:
        k.kernel = [&p, &out](const Result<Space>& r) { variants::gradient_only(p, out.grad, out.grad_scale, r); };
        break;
    }
    plan.push_back(std::move(k));
  }
  return plan;
}

}  // namespace klmini
