//===- KilnBase.td - The kiln dialect and its op base ----*- tablegen -*-===//
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
    The elementwise ops (arithmetic, comparisons, `where`, the unary ops,
    `sum` and `prod`) take operands of any element types and compute as the
    runtime does, in torch's result type (`promotedElementType`: wrapped
    numbers, the 0-d results of `kiln.from_scalar`, rank below tensors);
    `kiln-materialize-promotions` makes those conversions explicit
    `kiln.cast`s before lowering, so that each lowered op's operands share
    one element type. The other ops take operands of one element type, the
    frontend casting as the runtime would. Binary ops broadcast like
    numpy. Scalars enter a graph as 0-d tensors (`kiln.from_scalar`) and
    sizes as `index` values (`kiln.dim` and `arith` on `index`).
  }];
  let hasConstantMaterializer = 1;
  let useDefaultTypePrinterParser = 1;
  // Sizes are arith values, constants materialize as arith.constant, and
  // arith.select of tensors takes a gradient (KilnGradients.cpp).
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

// An elementwise op that computes in its result's element type: each tensor
// operand is converted to it first (kiln-materialize-promotions).
def Kiln_PromotesToResult : NativeOpTrait<"PromotesToResult"> {
  let cppNamespace = "::mlir::kiln::trait";
}

// A view: the op reads its input (operand 0) in another shape, order or
// range, and eagerly returns a tensor sharing its elements (reshape,
// transpose, slice, narrow, ...). What aliasing asks of an op (the stitched
// code's check that no compiled output shares elements eagerly, the
// partition, a mask's input) reads this trait.
def Kiln_ViewOfInput : NativeOpTrait<"ViewOfInput"> {
  let cppNamespace = "::mlir::kiln::trait";
}

// The element types eager refuses for an op's input (its first operand):
// anything but floating (Kiln_FloatInput: torch's activations, mean,
// softmax, the norms; attention's inference refuses a query so, first) or
// bool (Kiln_NoBoolInput: the rounding and sign ops, argmax, topk,
// scatter_add). The op is refused with eager's
// message, "not supported for dtype i64; convert with to(kiln::kFloat32)
// first", where the operand's constraint would give ODS's.
def Kiln_FloatInput : NativeOpTrait<"FloatInput"> {
  let cppNamespace = "::mlir::kiln::trait";
}
def Kiln_NoBoolInput : NativeOpTrait<"NoBoolInput"> {
  let cppNamespace = "::mlir::kiln::trait";
}

class Kiln_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kiln_Dialect, mnemonic, traits> {
  // How the eager runtime computes the op: a C++ expression in which `$name`
  // stands for the op's operand or attribute `name`, and `$a|$b` for the
  // optional operand `a` when present and `b` otherwise. kiln-tblgen
  // (-gen-kiln-runtime-calls) makes of it the eager backend's printer and
  // the test interpreter's evaluation; empty for ops that have no single
  // runtime call (their result type says what the call needs).
  string cppCall = "";
  // How the frontend traces a call of `kiln::<mnemonic>` into this op: a
  // member template of the tracer (lib/Frontend/Tracer.h) instantiated on
  // the op's class (traceUnary, traceBinary, traceReduction, traceNorm,
  // traceProduct, ...), whether the Tensor method of that name is the same
  // call, and how many arguments (defaults included) a call of it may pass
  // (-1: any number); other counts break. kiln-tblgen
  // (-gen-kiln-traced-calls) makes of them the op's entry in the tracer's
  // table; empty for ops the tracer builds with a function of its own, or
  // from other calls.
  string traceWith = "";
  bit tensorMethod = 0;
  int traceMinArgs = 0;
  int traceMaxArgs = -1;
}

#endif // KILN_DIALECT_KILN_IR_KILNBASE_TD
