// Tests (differential tester find, seed 6000, root 530) that products of
// bfloat16 and float16 tensors accumulate in float32 and round once, as
// eager and ATen do: compiled code summed in the half type, rounding every
// partial sum, and a bfloat16 dot product of seven values on a 1/8 grid
// came out -9.0625 where the exact (and eager) value is -9.125. matmul
// (2-d, vector, batched), linear and conv2d, at two sizes. The inputs come
// from a helper taking the dtype as a parameter: `x.to(dtype)` is typed by
// the dtype each call passes (it had been read as x's own type).
//
// RUN: %matches_eager %s %t 7
// RUN: %matches_eager %s %t 12
// RUN: FileCheck %s < %t/cpu.txt
// CHECK: -9.125
#include <kiln/kiln.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using kiln::Tensor;

KILN_COMPILE() Tensor dot(const Tensor &c, const Tensor &d) {
  return kiln::matmul(c, d);
}

KILN_COMPILE() Tensor products(const Tensor &x, const Tensor &w,
                               const Tensor &b, const Tensor &k) {
  Tensor y = kiln::linear(x, w, b);             // [n, 3]
  Tensor z = kiln::matmul(x.unsqueeze(0), w.transpose(0, 1)); // [1, n, 3]
  Tensor img = x.reshape({1, 1, x.size(0), x.size(1)});
  Tensor conv = kiln::conv2d(img, k, Tensor(), 1, 1).sum({1});
  return y + z.squeeze(0) + conv.squeeze(0).slice(1, 0, 3);
}

static Tensor grid(kiln::Shape shape, int64_t seed, kiln::DType dtype) {
  return kiln::randint(-32, 33, shape, seed).to(dtype) * 0.125;
}

int main(int argc, char **argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 7;
  Tensor c = grid({1, 7}, 9600296481, kiln::kBFloat16);
  Tensor d = grid({7}, 9600296482, kiln::kBFloat16);
  std::printf("%g\n", dot(c, d).to(kiln::kFloat32).item<float>());
  Tensor x = grid({n, n}, 1, kiln::kBFloat16), w = grid({3, n}, 2, kiln::kBFloat16);
  Tensor b = grid({3}, 3, kiln::kBFloat16), k = grid({2, 1, 3, 3}, 4, kiln::kBFloat16);
  std::cout << products(x, w, b, k).to(kiln::kFloat32) << "\n";
  Tensor hx = grid({n, n}, 5, kiln::kFloat16), hw = grid({3, n}, 6, kiln::kFloat16);
  Tensor hb = grid({3}, 7, kiln::kFloat16), hk = grid({2, 1, 3, 3}, 8, kiln::kFloat16);
  std::cout << products(hx, hw, hb, hk).to(kiln::kFloat32) << "\n";
  return 0;
}
