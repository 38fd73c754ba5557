// Tests KILN_ALLOW_IN_GRAPH(): a function whose body cannot be traced (a
// raw-pointer loop) runs inside the compiled graph as one opaque node, with
// no graph break, even under fullgraph=true. A call that returns another
// rank than the graph assumed makes the statements run eagerly instead,
// with the same result.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: kiln compile %s -o %t.cpu.cpp --log=graph_code 2>&1 | FileCheck %s --check-prefix=KILN
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpu.cpp %t.cpu.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: %t.eager > %t.eager.txt
// RUN: env KILN_LOGS=guards,graph_calls %t.cpu > %t.cpu.txt 2> %t.cpu.log
// RUN: %compare %t.ref.txt %t.eager.txt
// RUN: %compare %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=CALLS < %t.cpu.log

#include <kiln/kiln.h>

#include <iostream>

using kiln::Tensor;

KILN_ALLOW_IN_GRAPH() Tensor clip(const Tensor &x) {
  Tensor y = x.contiguous().clone();
  float *p = y.data<float>();
  for (int64_t i = 0; i < y.numel(); ++i)
    p[i] = p[i] > 1.0f ? 1.0f : p[i];
  return y;
}

KILN_ALLOW_IN_GRAPH() Tensor rowsum(const Tensor &x) { return kiln::sum(x, {1}); }

// CHECK: Kiln produced 2 graphs, with 0 graph breaks and 6 ops.
// CHECK: opaque_call(%{{[0-9]+}}) {{{.*}}kiln.callee = "::clip"}
// KILN: func.func private @kiln_model_0_opaque_{{[0-9]+}}(tensor<?x?xf32>) -> tensor<?x?xf32>
// KILN-LABEL: func.func @kiln_model_0(
// KILN: kiln.mul
// KILN: kiln.opaque_call @kiln_model_0_opaque_{{[0-9]+}}(
// KILN: kiln.exp
KILN_COMPILE(fullgraph = true) Tensor model(const Tensor &x) {
  return kiln::exp(clip(x * 2)) + 1;
}

KILN_COMPILE() Tensor sums(const Tensor &x) { return rowsum(x) * 3; }

// CALLS: kiln: graph kiln_model_0: ran compiled
// CALLS: kiln: opaque call of ::rowsum: it returned another rank or dtype than the graph was built for
// CALLS-NEXT: kiln: graph kiln_sums_1: an opaque call failed; running it eagerly
int main() {
  Tensor x = kiln::randn({3, 4}, 1);
  std::cout << model(x) << "\n";
  std::cout << sums(x) << "\n";
  return 0;
}
