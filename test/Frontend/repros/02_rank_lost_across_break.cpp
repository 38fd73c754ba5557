// Repro 02 (shared/repros): the graph after a break reads the rank-3 value
// the graph before it made, typed from that graph's output.
//
// RUN: kiln explain %s | FileCheck %s
// RUN: %matches_eager %s %t
// CHECK: inputs: ids (i64 tensor of rank 2) table (f32 tensor of rank 2)
// CHECK: inputs: x (f32 tensor of rank 3)
//
// After a graph break, a tensor computed by the previous graph (rank 3 here)
// is guarded as rank 2 in the next graph, so that graph never runs compiled:
// its guard fails on every call and it silently runs eagerly.
#include <kiln/kiln.h>
#include <cstdio>
using kiln::Tensor;

KILN_COMPILE() Tensor f(const Tensor &ids, const Tensor &table) {
  Tensor x = kiln::embedding(ids, table); // [2, 3, 4]
  kiln::graph_break();
  return kiln::softmax(x * 2.0f, -1);
}

int main() {
  Tensor ids = kiln::from_vector<int64_t>({0, 1, 2, 3, 4, 5}, {2, 3});
  Tensor table = kiln::randn({10, 4}, 1);
  Tensor y = f(ids, table);
  std::printf("%f\n", kiln::sum(y).item<float>());
}
