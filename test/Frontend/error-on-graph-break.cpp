// Tests the error-on-graph-break mode along call chains (docs/frontend.md):
// fullgraph=true anywhere on the chain wins, a nested KILN_COMPILE() does not
// relax it, KILN_ERROR_ON_GRAPH_BREAK is inherited and overridden by the
// nearest annotation or guard, guards hold to the end of their block. Every
// break in error mode is reported in clang's format, with its inline chain,
// and the exit status is 1; breaks in "graph break" mode are not errors.
//
// RUN: not kiln compile %s -o %t.cpp 2>&1 | FileCheck %s --implicit-check-not="error:"
// RUN: kiln explain %s | FileCheck %s --check-prefix=EXPLAIN

#include <kiln/kiln.h>

#include <cstdio>

using kiln::Tensor;

Tensor prints(const Tensor &x) {
  std::printf("prints\n"); // PRINTS
  return x;
}
KILN_ERROR_ON_GRAPH_BREAK(false) Tensor prints_relaxed(const Tensor &x) {
  std::printf("relaxed\n"); // RELAXED
  return x;
}
Tensor guard_in_callee(const Tensor &x) {
  kiln::error_on_graph_break guard(true);
  std::printf("guarded\n"); // GUARDED
  return x;
}
KILN_COMPILE(fullgraph = true) Tensor full_callee(const Tensor &x) {
  kiln::graph_break(); // FULL_CALLEE
  return x;
}
KILN_COMPILE() Tensor relaxed_root_callee(const Tensor &x) {
  std::printf("relaxed root\n"); // RELAXED_ROOT
  return x * 2;
}

// The fullgraph root full_callee's own break.
// CHECK: error-on-graph-break.cpp:31:3: error: graph break: kiln::graph_break()
// CHECK-NEXT: kiln::graph_break(); // FULL_CALLEE
// CHECK-NEXT: ^
// CHECK: error-on-graph-break.cpp:48:3: error: graph break: call to 'printf', whose body is not visible (I/O or an opaque function)
// CHECK-NEXT: std::printf("direct\n");
// CHECK-NEXT: ^
KILN_COMPILE(fullgraph = true) Tensor fg_direct(const Tensor &x) {
  Tensor y = x * 2;
  std::printf("direct\n");
  return y;
}

// fullgraph wins over the callee's KILN_ERROR_ON_GRAPH_BREAK(false).
// CHECK: error-on-graph-break.cpp:22:3: error: graph break: call to 'printf'
// CHECK: note: inlined from 'prints_relaxed'
KILN_COMPILE(fullgraph = true) Tensor fg_over_relaxed(const Tensor &x) {
  return prints_relaxed(x) + 1;
}

// Inherited by the callee.
// CHECK: error-on-graph-break.cpp:18:3: error: graph break: call to 'printf'
// CHECK: note: inlined from 'prints'
KILN_COMPILE() KILN_ERROR_ON_GRAPH_BREAK(true) Tensor eob_inherited(const Tensor &x) {
  return prints(x) * 2;
}

// The callee's own annotation is nearer: no error.
KILN_COMPILE() KILN_ERROR_ON_GRAPH_BREAK(true) Tensor eob_overridden(const Tensor &x) {
  return prints_relaxed(x) * 2;
}

// A guard in the callee.
// CHECK: error-on-graph-break.cpp:27:3: error: graph break: call to 'printf'
// CHECK: note: inlined from 'guard_in_callee'
KILN_COMPILE() Tensor guard_callee_root(const Tensor &x) {
  return guard_in_callee(x) - 1;
}

// A guard in the caller's block, around the call.
// CHECK: error-on-graph-break.cpp:18:3: error: graph break: call to 'printf'
// CHECK: note: inlined from 'prints'
KILN_COMPILE() Tensor guard_caller(const Tensor &x) {
  Tensor y = x + 1;
  {
    kiln::error_on_graph_break guard(true);
    y = prints(y);
  }
  return y;
}

// Nested guards: the inner one holds in its block.
KILN_COMPILE() Tensor nested_guards(const Tensor &x) {
  kiln::error_on_graph_break outer(true);
  Tensor y = x * 3;
  {
    kiln::error_on_graph_break inner(false);
    y = prints(y);
  }
  return y;
}

// A fullgraph root inlined into a permissive one keeps its mode.
// CHECK: error-on-graph-break.cpp:31:3: error: graph break: kiln::graph_break()
// CHECK: note: inlined from 'full_callee'
KILN_COMPILE() Tensor calls_full(const Tensor &x) { return full_callee(x) * 2; }

// A nested KILN_COMPILE() does not relax fullgraph.
// CHECK: error-on-graph-break.cpp:35:3: error: graph break: call to 'printf'
// CHECK: note: inlined from 'relaxed_root_callee'
KILN_COMPILE(fullgraph = true) Tensor full_calls_relaxed(const Tensor &x) {
  return relaxed_root_callee(x) + 1;
}

// CHECK: 8 errors generated.

// explain reports the same breaks, marked, and exits 0. Each break is
// counted once, in the function that causes it; a caller lists the call
// that stays on the host because of it, marked where the mode in force
// along that chain makes it an error (docs/frontend.md).
// EXPLAIN: Kiln produced 4 graphs, with 6 graph breaks and 4 ops.
// EXPLAIN-LABEL: eob_overridden (
// EXPLAIN-NOT: Graph breaks:
// EXPLAIN: - prints_relaxed at {{.*}}error-on-graph-break.cpp:{{[0-9]+}}:10{{$}}
// EXPLAIN-LABEL: guard_caller (
// EXPLAIN-NOT: Graph breaks:
// EXPLAIN: - prints at {{.*}}error-on-graph-break.cpp:{{[0-9]+}}:9 [an error: error-on-graph-break or fullgraph]
// EXPLAIN-LABEL: nested_guards (
// EXPLAIN-NOT: Graph breaks:
// EXPLAIN: - prints at {{.*}}error-on-graph-break.cpp:{{[0-9]+}}:9{{$}}
// EXPLAIN-LABEL: prints_relaxed ({{.*}}compiled as a root of its own):
// EXPLAIN: 1. call to 'printf', whose body is not visible (I/O or an opaque function){{$}}
// EXPLAIN-NEXT: at {{.*}}error-on-graph-break.cpp:22:3
// EXPLAIN-LABEL: prints ({{.*}}compiled as a root of its own):
// EXPLAIN: 1. call to 'printf', whose body is not visible (I/O or an opaque function){{$}}
// EXPLAIN-NEXT: at {{.*}}error-on-graph-break.cpp:18:3
// EXPLAIN-NOT: 2.
