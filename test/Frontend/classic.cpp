// Tests the classic graph-break example end to end: explain's report, the
// captured graphs (KILN), the stitched C++ (CPP), and the program built
// uncompiled, with --backend=eager and with --backend=cpu printing the same
// results on shapes the source never names, the compiled graphs running.
//
// RUN: kiln explain %s | FileCheck %s --check-prefix=EXPLAIN
// RUN: kiln compile %s -o %t.cpu.cpp --log=graph_code 2>&1 | FileCheck %s --check-prefix=KILN
// RUN: FileCheck %s --check-prefix=CPP < %t.cpu.cpp
// RUN: kiln compile %s -o %t.eager.cpp --backend=eager
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %s -o %t.ref %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.eager.cpp -o %t.eager %kiln_link
// RUN: %clangxx -std=c++17 -Wall -Wextra -Werror %kiln_includes %t.cpu.cpp %t.cpu.o -o %t.cpu %kiln_link %kernel_link
// RUN: %t.ref > %t.ref.txt
// RUN: env KILN_LOGS=graph_calls %t.eager > %t.eager.txt 2> %t.eager.log
// RUN: env KILN_LOGS=graph_calls %t.cpu > %t.cpu.txt 2> %t.cpu.log
// RUN: %compare %t.ref.txt %t.eager.txt
// RUN: %compare %t.ref.txt %t.cpu.txt
// RUN: FileCheck %s --check-prefix=CALLS < %t.cpu.log
// RUN: rm -rf %t.debug && kiln compile %s -o %t.dbg.cpp --debug-dir %t.debug
// RUN: FileCheck %s --check-prefix=DEBUG-KILN < %t.debug/classic.cpp.tmp.dbg.0-kiln.mlir
// RUN: FileCheck %s --check-prefix=DEBUG-PASSES < %t.debug/classic.cpp.tmp.dbg.1-after-each-pass.mlir
// RUN: FileCheck %s --check-prefix=DEBUG-LLVM < %t.debug/classic.cpp.tmp.dbg.3-llvm-O3.ll
// RUN: FileCheck %s --check-prefix=EXPLAIN < %t.debug/classic.cpp.tmp.dbg.capture.txt
// DEBUG-KILN: func.func @kiln_f_0(
// DEBUG-PASSES: IR Dump After ConvertKilnToLinalg
// DEBUG-PASSES: IR Dump After OneShotBufferize
// DEBUG-PASSES: IR Dump After ReconcileUnrealizedCasts
// DEBUG-LLVM: define {{.*}}@kiln_entry_kiln_f_0(

#include <kiln/kiln.h>

#include <cstdio>
#include <iostream>

using kiln::Tensor;

// EXPLAIN: Kiln produced 3 graphs, with 2 graph breaks and 5 ops.
// EXPLAIN: f (
// EXPLAIN: 1. call to 'printf', whose body is not visible
// EXPLAIN-NEXT: at {{.*}}classic.cpp:{{[0-9]+}}:3
// EXPLAIN: 2. Tensor::item() (a value that depends on tensor data)
// EXPLAIN-NEXT: at {{.*}}classic.cpp:{{[0-9]+}}:
// EXPLAIN: Graph kiln_f_0 (3 ops):
// EXPLAIN-NEXT: inputs: a (f32 tensor of rank 2)
// EXPLAIN-NEXT: outputs: x
// EXPLAIN: Graph kiln_f_1 (1 ops):
// EXPLAIN-NEXT: inputs: b (f32 tensor of rank 2)
// EXPLAIN-NEXT: outputs: b
// EXPLAIN: Graph kiln_f_2 (1 ops):
// EXPLAIN-NEXT: inputs: x (f32 tensor of rank 2) b (f32 tensor of rank 2)
// EXPLAIN-NEXT: outputs: return

// KILN-LABEL: func.func @kiln_f_0(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32>
// KILN: kiln.abs %arg0
// KILN: kiln.add
// KILN: kiln.div %arg0
KILN_COMPILE() Tensor f(Tensor a, Tensor b) {
  Tensor x = a / (kiln::abs(a) + 1);
  std::printf("f: computing\n");
  if (kiln::sum(b).item<float>() < 0)
    b = b * -1;
  return x * b;
}
// KILN-LABEL: func.func @kiln_f_1(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32>
// KILN: kiln.mul %arg0
// KILN-LABEL: func.func @kiln_f_2(

// CPP: namespace kiln_stitched {
// CPP: static bool kiln_f_0(kiln::Tensor &o0, const kiln::Tensor &i0);
// CPP: #line 1 "{{.*}}classic.cpp"
// CPP: kiln::Tensor x{};
// CPP-NEXT: if (!::kiln_stitched::kiln_f_0(x, a)) {
// CPP-NEXT: #line {{[0-9]+}} "{{.*}}classic.cpp"
// CPP-NEXT: x = (a / (kiln::abs(a) + 1));
// CPP: std::printf("f: computing\n");
// CPP: if (!::kiln_stitched::kiln_f_1(b, b)) {
// CPP: if (kiln::Tensor kiln_result_; ::kiln_stitched::kiln_f_2(kiln_result_, x, b))
// CPP-NEXT: return kiln_result_;
// CPP-NEXT: #line {{[0-9]+}} "{{.*}}classic.cpp"
// CPP-NEXT: return x * b;
// The wrappers' definitions follow the user's code.
// CPP: {{^\[\[maybe_unused\]\] static bool kiln_f_0\(kiln::Tensor &o0, const kiln::Tensor &i0\) \{$}}
// CPP-NEXT: {{^  if \(kiln::abi::inDisabledCode\(\)\)$}}
// CPP-NEXT: {{^    return false;$}}
// CPP-NEXT: {{^  static constexpr kiln::abi::GraphSite site\("kiln_f_0", "classic.cpp:58", 3, "a", kiln_cpu_features_\);$}}
// CPP-NEXT: {{^  if \(!kiln::abi::guard\(site, \{\{i0, 2, kiln::kFloat32\}\}\)\)$}}

// The first call's b sums to a negative value, the second's to a positive
// one: both arms of the host branch run.
// CALLS: kiln: graph kiln_f_0: ran compiled
// CALLS: kiln: graph kiln_f_1: ran compiled
// CALLS: kiln: graph kiln_f_2: ran compiled
// CALLS: kiln: graph kiln_f_0: ran compiled
// CALLS: kiln: graph kiln_f_2: ran compiled
int main() {
  Tensor a = kiln::randn({7, 3}, 1);
  Tensor b = kiln::abs(kiln::randn({7, 3}, 2)) * -1;
  std::cout << f(a, b) << "\n";
  std::cout << f(a, b * -1) << "\n";
  return 0;
}
