// Repro 09 (shared/repros): the Tensor& out-parameter is a graph output.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// RUN: FileCheck %s --check-prefix=OUT < %t/cpu.txt
// CHECK: Kiln produced 1 graph, with 0 graph breaks and 4 ops.
// CHECK: outputs: return aux
// OUT: aux defined=1
// OUT: aux=0.888552
//
// MISCOMPILE: a Tensor& output parameter assigned inside a compiled graph is
// dropped. explain lists "outputs: return" only; compiled, aux stays
// undefined ("aux defined=0"); eagerly aux=0.888552.
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

KILN_COMPILE() Tensor f(const Tensor &x, Tensor &aux) {
  Tensor y = kiln::relu(x);
  aux = kiln::sum(y * y);
  return y * 2.0f;
}

int main() {
  Tensor x = kiln::randn({4, 3}, 1);
  Tensor aux;
  Tensor y = f(x, aux);
  std::printf("y=%f aux defined=%d\n", kiln::sum(y).item<float>(), (int)aux.defined());
  if (aux.defined()) std::printf("aux=%f\n", aux.item<float>());
}
