//===- KilnTypes.td - The kiln dialect's types and attributes -*- tablegen -*-===//
//
// The kiln dialect works on builtin ranked tensors (dynamic sizes) and,
// before a graph is typed, on open ones: these are the element types its
// ops accept, the open element type, and its enum attributes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_KILN_IR_KILNTYPES_TD
#define KILN_DIALECT_KILN_IR_KILNTYPES_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"

//===----------------------------------------------------------------------===//
// Tensor types
//===----------------------------------------------------------------------===//

def Kiln_AnyElement : AnyTypeOf<[F16, BF16, F32, F64, I1, I32, I64]>;

// The element type of a tensor whose element type is not known yet: what
// the tracer builds a graph on before its inputs are typed, as torch-mlir
// imports `!torch.vtensor<*,unk>` before refining it.
def Kiln_OpenType : TypeDef<Kiln_Dialect, "Open"> {
  let mnemonic = "open";
  let summary = "an element type not known yet";
  let description = [{
    `tensor<*x!kiln.open>` is a tensor whose rank and element type are both
    open; `tensor<?x?x!kiln.open>` one whose rank is known. Every kiln op
    accepts open operands and infers open results from them; once the
    graph's inputs are given types, `kiln-refine-types` infers every result
    again, the ops' verifiers then checking what they check on known types.
    Nothing is lowered while a type is open.
  }];
}

// A tensor of unknown rank (of one of Kiln's element types) or of an open
// element type.
def Kiln_OpenTensor : Type<CPred<"::mlir::kiln::isOpenTensor($_self)">,
                           "open tensor", "::mlir::TensorType">;

// A ranked tensor of `elements`, or an open tensor. The summary is the
// ranked one's: an op on known types is refused as before.
class Kiln_TensorOf<list<Type> elements>
    : AnyTypeOf<[RankedTensorOf<elements>, Kiln_OpenTensor],
                RankedTensorOf<elements>.summary, "::mlir::TensorType">;

def Kiln_Tensor : Kiln_TensorOf<[F16, BF16, F32, F64, I1, I32, I64]>;
def Kiln_NumericTensor : Kiln_TensorOf<[F16, BF16, F32, F64, I32, I64]>;
def Kiln_FloatTensor : Kiln_TensorOf<[F16, BF16, F32, F64]>;
def Kiln_IntTensor : Kiln_TensorOf<[I32, I64]>;
def Kiln_BoolTensor : Kiln_TensorOf<[I1]>;

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

def Kiln_PadMode : I64EnumAttr<"PadMode",
    "what kiln.pad fills its new elements with", [
      I64EnumAttrCase<"constant", 0>, I64EnumAttrCase<"reflect", 1>,
      I64EnumAttrCase<"replicate", 2>]> {
  let cppNamespace = "::mlir::kiln";
}

def Kiln_InterpolateMode : I64EnumAttr<"InterpolateMode",
    "how kiln.interpolate picks and weighs its source pixels", [
      I64EnumAttrCase<"nearest", 0>, I64EnumAttrCase<"bilinear", 1>]> {
  let cppNamespace = "::mlir::kiln";
}

#endif // KILN_DIALECT_KILN_IR_KILNTYPES_TD
