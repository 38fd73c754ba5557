// Tests kiln compile --backend=aot_eager (torch.compile's aot_eager): each
// graph's function and the training forward and backward that --autograd
// would compile (the same differentiation and min-cut partition) are
// printed as runtime calls into entry points of the stitched source itself,
// with a compiled graph's signature, so GraphCall runs them and records the
// backward as one autograd node as it does compiled code; nothing is
// lowered. A CNN with convolutions, max pooling and adaptive pooling (the
// image ops' gradients printed as the runtime's gradient functions) trains as the uncompiled build does: losses, every
// parameter's and the input's gradient, at two batch sizes the source never
// names. (compiled-backward.cpp runs its training loop through aot_eager
// too, a graph without a backward among them.)
//
// RUN: kiln compile %s --backend=aot_eager -o %t.cpp 2>&1 | FileCheck %s --check-prefix=COMPILE --allow-empty
// RUN: FileCheck %s --check-prefix=STITCHED < %t.cpp
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.aot %kiln_link
// RUN: %t.ref 3 > %t.ref.txt
// RUN: env KILN_STATS=1 %t.aot 3 > %t.aot.txt 2> %t.aot.err
// RUN: %python %S/Inputs/compare.py %t.ref.txt %t.aot.txt
// RUN: FileCheck %s --check-prefix=EXEC < %t.aot.err
// RUN: %t.ref 2 > %t.ref2.txt
// RUN: %t.aot 2 > %t.aot2.txt 2> /dev/null
// RUN: %python %S/Inputs/compare.py %t.ref2.txt %t.aot2.txt
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

using kiln::Tensor;

// COMPILE-NOT: could not compile
// STITCHED: backend aot_eager
// STITCHED: extern "C" void kiln_entry_kiln_Cnn__forward_[[G:[0-9]+]]_forward(void **);
// STITCHED: extern "C" void kiln_entry_kiln_Cnn__forward_[[G]]_backward(void **);
// STITCHED: .backward(kiln_entry_kiln_Cnn__forward_[[G]]_forward, kiln_entry_kiln_Cnn__forward_[[G]]_backward, {
// STITCHED: extern "C" void kiln_entry_kiln_Cnn__forward_[[G]](void **args) {
// STITCHED: extern "C" void kiln_entry_kiln_Cnn__forward_[[G]]_backward(void **args) {
// STITCHED: kiln::adaptive_avg_pool2d_backward(
// STITCHED: [[BOTH:v[0-9]+]] = kiln::conv2d_backward({{.*}}, {true, true});
// STITCHED: kiln::max_pool2d_backward(std::get<0>([[BOTH]])
// STITCHED: kiln::conv2d_backward(
// STITCHED-NOT: kiln_entry_{{.*}}_backward(void **args)
// STITCHED: kiln::abi::returnTensor(
// STITCHED-NOT: _mlir_ciface_
struct Cnn {
  Tensor c1, b1, c2, head;
  KILN_COMPILE() Tensor forward(const Tensor &images) const {
    Tensor x = kiln::relu(kiln::conv2d(images, c1, b1, 1, 1));
    x = kiln::max_pool2d(x, 2);
    x = kiln::relu(kiln::conv2d(x, c2, Tensor(), 1, 1));
    Tensor pooled = kiln::adaptive_avg_pool2d(x, 1).flatten(1);
    return kiln::linear(pooled, head);
  }
};

static void print(const char *what, const Tensor &t) {
  Tensor flat = t.detach().to(kiln::kFloat64).contiguous().reshape({-1});
  std::printf("%s:", what);
  for (int64_t i = 0; i < flat.numel(); ++i)
    std::printf(" %.5f", flat.data<double>()[i]);
  std::printf("\n");
}

// EXEC-NOT: warning
// EXEC: kiln-stats graph_calls=4 compiled=4 guard_misses=0 {{.*}} backward_compiled=3
int main(int argc, char **argv) {
  int64_t batch = argc > 1 ? std::atoll(argv[1]) : 3;
  Cnn m{kiln::randn({4, 3, 3, 3}, 1) * 0.3, kiln::randn({4}, 2) * 0.1,
        kiln::randn({5, 4, 3, 3}, 3) * 0.3, kiln::randn({2, 5}, 4)};
  Tensor images = kiln::randn({batch, 3, 6, 7}, 5);
  std::vector<Tensor> params{m.c1, m.b1, m.c2, m.head};
  for (const Tensor &p : params)
    p.requires_grad_();
  kiln::optim::AdamW opt(params, kiln::optim::AdamWOptions(0.01));
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    Tensor loss = kiln::mean(kiln::square(m.forward(images) - 1));
    loss.backward();
    print("loss", loss);
    for (const Tensor &p : params)
      print("grad", p.grad());
    opt.step();
  }
  kiln::NoGradGuard noGrad;
  print("trained", m.forward(images));
}
