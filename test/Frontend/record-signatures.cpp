// Tests example inputs, as torch.export takes them: a stitched build run
// with KILN_RECORD=FILE writes each compile root's signature (sizes that
// varied between calls as ?, a parameter whose rank or dtype varied, or
// that is not a tensor, as _), and `kiln compile --signatures FILE`
// compiles for it: the library entry point that no caller in the file
// shows is then typed "stated" and runs compiled with no guard miss.
//
// RUN: kiln compile %s -o %t.first.cpp --backend=eager
// RUN: %clangxx -std=c++17 %kiln_includes %t.first.cpp -o %t.first %kiln_link
// RUN: env KILN_RECORD=%t.sig.json %t.first > %t.ref.txt
// RUN: FileCheck %s --check-prefix=SIG < %t.sig.json
// SIG: {"kiln.signatures": 1, "signatures": [
// SIG-DAG: "normalize(f64[?,16], _, _)"
// SIG-DAG: "scale(i64[3], _)"
// SIG: ]}
// RUN: kiln explain %s | FileCheck %s --check-prefix=OPEN
// OPEN: types: rows open
// RUN: kiln explain %s --signatures %t.sig.json | FileCheck %s --check-prefix=TYPES
// TYPES: inputs: rows (f64 tensor of rank 2)
// TYPES-NEXT: outputs: return
// TYPES-NEXT: types: rows recorded
// RUN: kiln compile %s -o %t.cpp --signatures %t.sig.json --require-known-types
// RUN: %clangxx -std=c++17 %kiln_includes %t.cpp %t.o -o %t %kiln_link %kernel_link
// RUN: env KILN_STATS=1 %t > %t.out 2> %t.err
// RUN: %compare %t.ref.txt %t.out
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// STATS: kiln-stats graph_calls=5 compiled=5 guard_misses=0
//
// RUN: echo '{"signatures": 3}' > %t.bad.json
// RUN: not kiln compile %s -o %t.bad.cpp --signatures %t.bad.json 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: kiln: error: --signatures {{.*}}bad.json: not a KILN_RECORD file
#include <kiln/kiln.h>
#include <cstdio>
#include <map>
#include <vector>
using kiln::Tensor;

// Library entry points: what reaches them is decided elsewhere (here, by
// data read at run time), so the translation unit shows nothing.
KILN_COMPILE() Tensor normalize(const Tensor &rows, Tensor *unused, int mode) {
  (void)unused;
  (void)mode;
  return rows / kiln::sum(rows * rows, {-1}, true);
}

KILN_COMPILE() Tensor scale(const Tensor &v, float by) { return v * 2 + 1; }

Tensor load(int64_t n) { return kiln::randn({n, 16}, n).to(kiln::kFloat64); }
Tensor ids(int64_t k) {
  return kiln::from_vector<int64_t>(std::vector<int64_t>{k, k + 1, k + 2}, {3});
}

int main() {
  // Kept by key: the source's types do not reach into a map's values.
  std::map<int64_t, Tensor> batches, keys;
  for (int64_t n : {2, 5, 7})
    batches[n] = load(n);
  for (int64_t k : {1, 4})
    keys[k] = ids(k);
  size_t i = 0;
  for (const auto &[n, rows] : batches) {
    Tensor r = normalize(rows, nullptr, 0);
    std::printf("n=%zu %.9f\n", i++, kiln::sum(r).item<double>());
  }
  i = 0;
  for (const auto &[k, v] : keys) {
    Tensor s = scale(v, 2.0f);
    std::printf("k=%zu %lld\n", i++, (long long)kiln::sum(s).item<int64_t>());
  }
}
