// Tests -p (a compile_commands.json supplies the file's flags), `--` (flags
// after it go to clang), and explain's --json and --dot forms.
//
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/model.cpp
// RUN: echo '[{"directory": "%t", "file": "%t/model.cpp", "command": "c++ -std=c++17 -DSCALE=3 -c %t/model.cpp"}]' > %t/compile_commands.json
// RUN: kiln explain %t/model.cpp -p %t | FileCheck %s
// RUN: kiln explain %s -- -DSCALE=3 | FileCheck %s
// RUN: not kiln explain %s 2>&1 | FileCheck %s --check-prefix=NOFLAGS
// RUN: kiln explain %s --json -- -DSCALE=3 | FileCheck %s --check-prefix=JSON
// RUN: kiln explain %s --dot -- -DSCALE=3 | FileCheck %s --check-prefix=DOT

#include <kiln/kiln.h>

#ifndef SCALE
#error "SCALE comes from the build's flags"
#endif

using kiln::Tensor;

// CHECK: Kiln produced 2 graphs, with 1 graph break and 3 ops.
// CHECK: %{{[0-9]+}} = const 3
// NOFLAGS: error: "SCALE comes from the build's flags"
// JSON-DAG: "schema": "kiln.explain"
// JSON-DAG: "version": 1
// JSON-DAG: "graph_count": 2
// JSON-DAG: "graph_break_count": 1
// JSON-DAG: "op_count": 3
// JSON-DAG: "reason": "kiln::graph_break()"
// JSON-DAG: "name": "kiln_scaled_0"
// JSON-DAG: "expr": "x"
// JSON-DAG: "type": "f32 tensor of rank 2"
// DOT: digraph kiln {
// DOT: subgraph cluster_0 {
// DOT: label="scaled";
// DOT: "kiln_scaled_0" [shape=box, label="kiln_scaled_0\n2 ops"];
// DOT: [shape=octagon, label="break: kiln::graph_break()
KILN_COMPILE() Tensor scaled(const Tensor &x) {
  Tensor y = kiln::exp(x) * SCALE;
  kiln::graph_break();
  return y + 1;
}
