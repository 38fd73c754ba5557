//===- KilnTypes.td - The kiln dialect's types and attributes -*- tablegen -*-===//
//
// The kiln dialect works on builtin ranked tensors (dynamic sizes): these
// are the element types its ops accept, and its enum attributes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_KILN_IR_KILNTYPES_TD
#define KILN_DIALECT_KILN_IR_KILNTYPES_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"

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

def Kiln_PoolKind : I64EnumAttr<"PoolKind",
    "what a pooling window computes", [
      I64EnumAttrCase<"max", 0>, I64EnumAttrCase<"avg", 1>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_RandomDistribution : I64EnumAttr<"RandomDistribution",
    "what kiln.random draws", [
      I64EnumAttrCase<"uniform", 0>, I64EnumAttrCase<"normal", 1>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_GeluApproximation : I64EnumAttr<"GeluApproximation",
    "how gelu is computed", [
      I64EnumAttrCase<"none", 0>, I64EnumAttrCase<"tanh", 1>]> {
  let cppNamespace = "::mlir::kiln";
}

#endif // KILN_DIALECT_KILN_IR_KILNTYPES_TD
