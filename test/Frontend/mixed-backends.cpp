// Tests a file whose compile roots name different backends: the cpu and the
// cuda graphs are linked into one object (their helpers, such as the
// deallocation pipeline's, kept local so they do not clash), the program
// links and prints what the uncompiled one prints; the cpu graph runs
// compiled, the cuda graph on the GPU where there is one (GPU) and eagerly,
// with the reason, where not (NOGPU).
//
// RUN: kiln compile %s -o %t.cpp --cuda-format=ptx
// RUN: llvm-nm %t.o | FileCheck %s --check-prefix=SYMBOLS
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpp %t.o -o %t.bin %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_LOGS=guards,graph_calls %t.bin > %t.txt 2> %t.log
// RUN: %compare %t.ref.txt %t.txt
// RUN: FileCheck %s --check-prefix=CPU < %t.log
// RUN: FileCheck %s --check-prefix=%cuda_run < %t.log

// SYMBOLS-DAG: T _mlir_ciface_kiln_onCpu_1
// SYMBOLS-DAG: T _mlir_ciface_kiln_onGpu_0
// SYMBOLS-DAG: T kiln_entry_kiln_onCpu_1
// SYMBOLS-DAG: T kiln_entry_kiln_onGpu_0
// SYMBOLS-NOT: T dealloc_helper

// CPU: kiln: graph kiln_onCpu_1: ran compiled
// GPU: kiln: graph kiln_onGpu_0: ran compiled
// NOGPU: kiln: graph kiln_onGpu_0 is compiled for cuda: {{.*}}; running it eagerly

#include <kiln/kiln.h>

#include <iostream>

using kiln::Tensor;

KILN_COMPILE(backend=cuda)
Tensor onGpu(const Tensor &x, const Tensor &y) {
  return kiln::softmax(x + y, -1) * 2.0f;
}

KILN_COMPILE(backend=cpu)
Tensor onCpu(const Tensor &x, const Tensor &y) {
  return kiln::softmax(x + y, -1) * 3.0f;
}

int main() {
  Tensor x = kiln::randn({3, 5}, 1), y = kiln::randn({5}, 2);
  std::cout << onGpu(x, y) << "\n" << onCpu(x, y) << "\n";
}
