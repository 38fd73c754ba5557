// Tests structs of tensors as model code passes them around: a helper that
// returns braces read through a local (`Out o = block(x); o.y`), structured
// bindings of an aggregate, a std::pair and a std::tuple, std::make_pair and
// std::get, a field assigned in place and in the arms of an if, defaults
// from member initializers, a struct returned whole by a root, and locals
// that code outside the graph reads (each field an output). The only breaks
// are the I/O and the explicit one; every graph runs compiled with the eager results, at
// sizes the source never names.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: env KILN_MIN_COMPILED_PERCENT=95 %matches_eager %s %t 5
// RUN: env KILN_MIN_COMPILED_PERCENT=95 %matches_eager %s %t 9
// RUN: FileCheck %s --check-prefix=STITCHED < %t/cpu.cpp
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <utility>

using kiln::Tensor;

struct Gated {
  Tensor value;
  Tensor gate;
  float eps = 1e-3f;
};

struct Split {
  Tensor w;
  Gated operator()(const Tensor &x) const {
    Tensor h = kiln::matmul(x, w);
    return {kiln::tanh(h), kiln::sigmoid(h)};
  }
};

std::pair<Tensor, Tensor> halves(const Tensor &x) {
  return std::make_pair(kiln::relu(x), kiln::relu(-x));
}

std::tuple<Tensor, Tensor, int64_t> moments(const Tensor &x) {
  Tensor m = kiln::mean(x, {-1}, true);
  return {m, kiln::mean((x - m) * (x - m), {-1}, true), x.size(-1)};
}

Gated blank(const Tensor &x) {
  Gated g;
  g.value = x;
  g.gate = kiln::sigmoid(x);
  return g;
}

struct Model {
  Split split;

  // CHECK-LABEL: Model::forward (
  // CHECK-NOT: Graph breaks
  KILN_COMPILE() Tensor forward(const Tensor &x, bool squash) const {
    Gated o = split(x);
    auto [pos, neg] = halves(o.value);
    auto [mean, var, width] = moments(pos - neg);
    o.value = (o.value - mean) / kiln::sqrt(var + o.eps);
    if (squash)
      o.gate = o.gate * 0.5f;
    std::pair<Tensor, Tensor> p{o.value, o.gate};
    return std::get<0>(p) * p.second + static_cast<float>(width);
  }

  // A struct returned whole: each field an output of the graph.
  // CHECK-LABEL: Model::gated (
  // CHECK-NOT: Graph breaks
  // CHECK: outputs: return.0 return.1 return.2
  KILN_COMPILE() Gated gated(const Tensor &x) const {
    return blank(kiln::gelu(x));
  }

  // Locals that host code reads: their fields are the first graph's
  // outputs, and the graph after the break reads them back.
  // CHECK-LABEL: Model::report (
  // CHECK-NEXT: Graph breaks:
  // CHECK-NEXT: 1. call to 'printf', whose body is not visible
  // CHECK-NEXT: records.cpp:[[@LINE+9]]:5
  // CHECK-NEXT: 2. kiln::graph_break()
  // CHECK-NEXT: records.cpp:[[@LINE+9]]:5
  // CHECK-NEXT: Graph
  // CHECK: outputs: o.value o.gate o.eps lo hi
  // CHECK: inputs: o.value (f32 tensor of rank 2) lo (f32 tensor of rank 2) hi
  KILN_COMPILE() Tensor report(const Tensor &x) const {
    Gated o = split(x);
    auto [lo, hi] = halves(o.gate);
    std::printf("report %.4f %.4f\n", kiln::sum(o.value).item<float>(),
                kiln::sum(hi).item<float>());
    kiln::graph_break();
    return o.value * lo + hi;
  }
};

// The stitched code declares the locals first; the bindings name an object
// the fallback assigns.
// STITCHED: {{^}}Gated o{};
// STITCHED-NEXT: {{^}}std::pair<kiln::Tensor, kiln::Tensor> kiln_bindings[[P:[0-9]+]]_{};
// STITCHED-NEXT: {{^}}auto &[pos, neg] = kiln_bindings[[P]]_;
// STITCHED: {{^ *}}kiln_bindings[[P]]_ = (halves(o.value));
// STITCHED: {{^}}Gated kiln_record_{};
// STITCHED-NEXT: {{^}}if (::kiln_stitched::{{.*}}(kiln_record_.value, kiln_record_.gate, kiln_record_.eps, x))

int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 4;
  Model model{Split{kiln::randn({6, 6}, 1)}};
  Tensor x = kiln::randn({n, 6}, 2);
  for (bool squash : {false, true})
    std::printf("forward %d %.4f\n", squash,
                kiln::sum(model.forward(x, squash)).item<float>());
  Gated g = model.gated(x);
  std::printf("gated %.4f %.4f %.4f\n", kiln::sum(g.value).item<float>(),
              kiln::sum(g.gate).item<float>(), g.eps);
  std::printf("report %.4f\n", kiln::sum(model.report(x)).item<float>());
}
