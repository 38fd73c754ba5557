// Tests that the annotation macros become clang::annotate attributes with
// their arguments as strings under clang, vanish under g++, and warn under
// neither with -Wall -Wextra.
//
// RUN: %clangxx -std=c++17 -fsyntax-only -Wall -Wextra -Werror %kiln_includes %s
// RUN: %clangxx -std=c++17 -fsyntax-only %kiln_includes -Xclang -ast-dump %s | FileCheck %s
// RUN: %if gxx %{ %gxx -std=c++17 -fsyntax-only -Wall -Wextra -Werror %kiln_includes %s %}

#include <kiln/kiln.h>

using kiln::Tensor;

// CHECK-LABEL: FunctionDecl {{.*}} disabled
// CHECK: AnnotateAttr {{.*}} "kiln.disable"
KILN_DISABLE() Tensor disabled(const Tensor &x) { return x; }

// CHECK-LABEL: FunctionDecl {{.*}} shallow
// CHECK: AnnotateAttr {{.*}} "kiln.disable"
// CHECK: StringLiteral {{.*}} "recursive = false"
KILN_DISABLE(recursive = false) Tensor shallow(const Tensor &x) { return x; }

// CHECK-LABEL: FunctionDecl {{.*}} opaque
// CHECK: AnnotateAttr {{.*}} "kiln.allow_in_graph"
KILN_ALLOW_IN_GRAPH() Tensor opaque(const Tensor &x) { return x; }

// An op re-declared as disallowed: the attribute lands on the redeclaration.
namespace kiln {
// CHECK-LABEL: FunctionDecl {{.*}} prev {{.*}} relu
// CHECK: AnnotateAttr {{.*}} "kiln.disallow_in_graph"
KILN_DISALLOW_IN_GRAPH() Tensor relu(const Tensor &x);
} // namespace kiln

// CHECK-LABEL: FunctionDecl {{.*}} strict
// CHECK: AnnotateAttr {{.*}} "kiln.error_on_graph_break"
// CHECK: StringLiteral {{.*}} "true"
KILN_ERROR_ON_GRAPH_BREAK(true) Tensor strict(const Tensor &x) { return x; }

struct Model {
  Tensor w;
  // CHECK-LABEL: CXXMethodDecl {{.*}} forward
  // CHECK: AnnotateAttr {{.*}} "kiln.compile"
  // CHECK: StringLiteral {{.*}} "fullgraph=true"
  // CHECK: StringLiteral {{.*}} "backend=cpu"
  KILN_COMPILE(fullgraph=true, backend=cpu) Tensor forward(const Tensor &x) const {
    kiln::error_on_graph_break guard(false);
    kiln::graph_break();
    return kiln::relu(disabled(x) + shallow(x) + opaque(x) + strict(x)) * w;
  }
};

// A compile root without arguments (the last declaration of the file: the
// CHECK-NOT runs to the end of the dump).
// CHECK-LABEL: FunctionDecl {{.*}} root
// CHECK: AnnotateAttr {{.*}} "kiln.compile"{{$}}
// CHECK-NOT: StringLiteral
KILN_COMPILE() Tensor root(const Tensor &x) { return Model{x}.forward(x); }
