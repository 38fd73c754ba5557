// Tests model code written as modules: a LayerNorm functor called as
// `ln(x)`, blocks held in a std::vector and run by range-for, by a host
// index and by a constant index in an unrolled loop, and a member module
// of a member. The loops whose trip count is the vector's size stay on the
// host with their bodies compiled (one graph per iteration, its members
// named through the loop variable); every graph runs compiled with the
// eager results, at sizes the source never names.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t 5
// CHECK: Kiln produced {{[0-9]+}} graphs, with 0 graph breaks
// CHECK-LABEL: Model::forward
// CHECK: Loops left on the host
// CHECK-NEXT: - at {{.*}}modules.cpp:[[@LINE+29]]:5
// CHECK: inputs: h (f32 tensor of rank 2) b.ln.w (f32 tensor of rank 1) b.ln.b (f32 tensor of rank 1) b.fc (f32 tensor of rank 2)
// CHECK-LABEL: Model::by_index
// CHECK: Loops left on the host
// CHECK-NEXT: - at {{.*}}modules.cpp:[[@LINE+31]]:5
// CHECK: inputs: h (f32 tensor of rank 2) this->blocks[l].ln.w (f32 tensor of rank 1) this->blocks[l].ln.b (f32 tensor of rank 1) this->blocks[l].fc (f32 tensor of rank 2)
// CHECK-LABEL: Model::first_two
// CHECK-NOT: Graph breaks
// CHECK: this->blocks[0].ln.w {{.*}} this->blocks[1].fc (f32 tensor of rank 2) this->ln_f.w
#include <kiln/kiln.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
using kiln::Tensor;

struct LayerNorm {
  Tensor w, b;
  Tensor operator()(const Tensor &x) const { return kiln::layer_norm(x, w, b); }
};
struct Block {
  LayerNorm ln;
  Tensor fc;
  Tensor forward(const Tensor &x) const { return x + kiln::relu(kiln::matmul(ln(x), fc)); }
};
struct Model {
  std::vector<Block> blocks;
  LayerNorm ln_f;
  KILN_COMPILE() Tensor forward(const Tensor &x) const {
    Tensor h = x;
    for (const Block &b : blocks)
      h = b.forward(h);
    return ln_f(h);
  }
  KILN_COMPILE() Tensor by_index(const Tensor &x) const {
    Tensor h = x;
    for (size_t l = 0; l < blocks.size(); ++l)
      h = blocks[l].forward(h);
    return ln_f(h);
  }
  KILN_COMPILE() Tensor first_two(const Tensor &x) const {
    Tensor h = x;
    for (int l = 0; l < 2; ++l)
      h = blocks[l].forward(h);
    return ln_f(h);
  }
};
int main(int argc, char **argv) {
  int64_t n = argc > 1 ? std::atoll(argv[1]) : 3, C = 8;
  Model m;
  for (int l = 0; l < 3; ++l)
    m.blocks.push_back(Block{LayerNorm{kiln::ones({C}), kiln::zeros({C})}, kiln::randn({C, C}, l + 1) * 0.3f});
  m.ln_f = LayerNorm{kiln::ones({C}), kiln::zeros({C})};
  Tensor x = kiln::randn({n, C}, 9);
  std::printf("%f\n", kiln::sum(m.forward(x)).item<float>());
  std::printf("%f\n", kiln::sum(m.by_index(x)).item<float>());
  std::printf("%f\n", kiln::sum(m.first_two(x)).item<float>());
}
