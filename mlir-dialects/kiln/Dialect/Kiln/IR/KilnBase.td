//===- KilnBase.td - The kiln dialect, its types and enums -*- tablegen -*-===//
#ifndef KILN_DIALECT_KILN_IR_KILNBASE_TD
#define KILN_DIALECT_KILN_IR_KILNBASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Kiln_Dialect : Dialect {
  let name = "kiln";
  let cppNamespace = "::mlir::kiln";
  let summary = "Graphs of tensor operations captured from C++ model code";
  let description = [{
    The `kiln` dialect holds the graphs that `kiln compile` traces from C++
    functions written against Kiln's tensor runtime. There is one op per
    graph-level operation of the runtime (softmax and layer_norm stay whole,
    so that later work can differentiate them with simple rules), and each
    op's verifier enforces the runtime's rank, shape and element-type rules.

    Values are builtin ranked tensors whose dims may be dynamic (`?`);
    element types are f16, bf16, f32, f64, i1 (bool), i32 and i64 (signed).
    Unlike the eager runtime, ops do not promote element types: the
    frontend inserts `kiln.cast` where torch's type promotion would convert,
    so each op's operands share one element type. Binary ops broadcast like
    numpy. Scalars enter a graph as 0-d tensors (`kiln.from_scalar`) and
    sizes as `index` values (`kiln.dim` and `arith` on `index`).
  }];
  let hasConstantMaterializer = 1;
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Tensor types
//===----------------------------------------------------------------------===//

def Kiln_AnyElement : AnyTypeOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def Kiln_Tensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def Kiln_NumericTensor : RankedTensorOf<[F16, BF16, F32, F64, I32, I64]>;
def Kiln_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Kiln_IntTensor : RankedTensorOf<[I32, I64]>;
def Kiln_BoolTensor : RankedTensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Kiln_CmpPredicate : I64EnumAttr<"CmpPredicate",
    "elementwise comparison", [
      I64EnumAttrCase<"lt", 0>, I64EnumAttrCase<"le", 1>,
      I64EnumAttrCase<"gt", 2>, I64EnumAttrCase<"ge", 3>,
      I64EnumAttrCase<"eq", 4>, I64EnumAttrCase<"ne", 5>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_GeluApproximation : I64EnumAttr<"GeluApproximation",
    "how gelu is computed", [
      I64EnumAttrCase<"none", 0>, I64EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mlir::kiln";
}

#endif // KILN_DIALECT_KILN_IR_KILNBASE_TD
