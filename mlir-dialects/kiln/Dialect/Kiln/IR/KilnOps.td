//===- KilnOps.td - The kiln dialect's operations ----------*- tablegen -*-===//
//
// One op per graph-level operation of Kiln's tensor runtime. Verifiers
// (KilnOps.cpp) enforce the runtime's rank, shape and element-type rules;
// result types are inferred (InferTypeOpInterface) wherever the operands
// determine them, and the parsed type must then equal the inferred one.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_KILN_IR_KILNOPS_TD
#define KILN_DIALECT_KILN_IR_KILNOPS_TD

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnTypes.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

def Kiln_DimsOpInterface : OpInterface<"DimsOpInterface"> {
  let cppNamespace = "::mlir::kiln";
  let description = [{
    An op whose attributes name dims of its input (`dim`, `dims`, `dim0`
    and `dim1`, `permutation`, `index`, `start_dim` and `end_dim`). An op traced on open types holds
    them as the source wrote them, torch's negative dims counting from the
    end; once its input's rank is known (kiln-refine-types),
    `normalizeDims` counts them from 0, the form its verifier checks and
    its lowering reads (a reduction's sorted and distinct). A dim out of
    range is left as written, for the verifier to name.
  }];
  let methods = [
    InterfaceMethod<"Counts the op's dims from 0, its input's rank known.",
                    "void", "normalizeDims">,
  ];
}

def Kiln_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mlir::kiln";
  let description = [{
    A differentiable op: its vector-Jacobian product, built of kiln ops, as
    reverse-mode differentiation (kiln-differentiate) reads it. Given the
    gradients of its results (a null Value where nothing reads a result),
    it builds a gradient for each of its operands, of the operand's type,
    or a null Value for an operand that takes none (an integer, bool or
    index operand, a mask, a rounding op's input). The rules are ATen's
    (torch's derivatives.yaml) as the runtime's autograd computes them
    (lib/Runtime/Ops), one per op, in lib/Dialect/Kiln/IR/KilnGradients.cpp;
    an op without one is not differentiated (kiln-differentiate names it).
  }];
  let methods = [
    InterfaceMethod<[{Builds the operands' gradients from the results'
                      (`operandGrads`: one per operand, null for none).}],
                    "::llvm::LogicalResult", "buildGradients",
                    (ins "::mlir::OpBuilder &":$b,
                         "::mlir::ValueRange":$resultGrads,
                         "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>,
  ];
}

//===----------------------------------------------------------------------===//
// Elementwise binary ops (numpy broadcasting)
//===----------------------------------------------------------------------===//

class Kiln_BinaryOp<string mnemonic, Type resultType, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor,
                                             Kiln_PromotesToResult])> {
  let cppCall = "kiln::" # mnemonic # "($lhs, $rhs)";
  let traceWith = "traceBinary";
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs resultType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      return inferArithmeticResult(loc, getOperationName(),
                                   {adaptor.getLhs(), adaptor.getRhs()},
                                   inferred);
    }
  }];
}

def Kiln_AddOp : Kiln_BinaryOp<"add", Kiln_Tensor, [Commutative]> {
  let summary = "elementwise addition with broadcasting";
  let description = [{
    `lhs + rhs` after broadcasting both to a common shape like numpy. On
    i1 (bool) tensors addition is logical or; integer addition wraps.

    ```mlir
    %y = kiln.add %x, %bias : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_SubOp : Kiln_BinaryOp<"sub", Kiln_NumericTensor> {
  let summary = "elementwise subtraction with broadcasting";
  let description = [{
    `lhs - rhs` with numpy broadcasting; integer subtraction wraps. Bool
    tensors cannot be subtracted (as in the runtime).

    ```mlir
    %d = kiln.sub %x, %m : (tensor<8x16xf32>, tensor<8x1xf32>) -> tensor<8x16xf32>
    ```
  }];
}

def Kiln_MulOp : Kiln_BinaryOp<"mul", Kiln_Tensor, [Commutative]> {
  let summary = "elementwise multiplication with broadcasting";
  let description = [{
    `lhs * rhs` with numpy broadcasting; on bool tensors, logical and.
    Multiplying by a splat constant 1 that does not change the shape folds
    away.

    ```mlir
    %y = kiln.mul %x, %s : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
    ```
  }];
  let hasFolder = 1;
}

def Kiln_DivOp : Kiln_BinaryOp<"div", Kiln_FloatTensor> {
  let summary = "elementwise true division with broadcasting";
  let description = [{
    `lhs / rhs` on floating tensors (the frontend casts integer operands to
    float32 first, as the runtime's true division does).

    ```mlir
    %y = kiln.div %x, %n : (tensor<4x?xf32>, tensor<f32>) -> tensor<4x?xf32>
    ```
  }];
}

def Kiln_PowOp : Kiln_BinaryOp<"pow", Kiln_Tensor> {
  let tensorMethod = 1;
  let summary = "elementwise power with broadcasting";
  let description = [{
    `lhs ^ rhs`. For integers the exponents must be non-negative.

    ```mlir
    %y = kiln.pow %x, %two : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
    ```
  }];
}

def Kiln_MaximumOp : Kiln_BinaryOp<"maximum", Kiln_Tensor, [Commutative]> {
  let tensorMethod = 1;
  let summary = "elementwise maximum with broadcasting (NaN propagates)";
  let description = [{
    ```mlir
    %y = kiln.maximum %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    ```
  }];
}

def Kiln_MinimumOp : Kiln_BinaryOp<"minimum", Kiln_Tensor, [Commutative]> {
  let tensorMethod = 1;
  let summary = "elementwise minimum with broadcasting (NaN propagates)";
  let description = [{
    ```mlir
    %y = kiln.minimum %a, %b : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
    ```
  }];
}

def Kiln_CmpOp : Kiln_Op<"cmp", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise comparison with broadcasting, giving bools";
  let description = [{
    Compares `lhs` and `rhs` (`lt`, `le`, `gt`, `ge`, `eq`, `ne`) after
    broadcasting; the result is an i1 tensor. Comparisons with NaN are false
    except `ne`.

    ```mlir
    %m = kiln.cmp lt, %x, %zero : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xi1>
    ```
  }];
  let arguments = (ins Kiln_CmpPredicate:$predicate, Kiln_Tensor:$lhs,
                       Kiln_Tensor:$rhs);
  let results = (outs Kiln_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)`
    `->` type($result)
  }];
}

def Kiln_WhereOp : Kiln_Op<"where", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::where($cond, $lhs, $rhs)";
  let summary = "elementwise select with broadcasting";
  let description = [{
    `cond ? lhs : rhs` elementwise; the three operands broadcast together.
    `lhs` and `rhs` share an element type, which the result has.

    ```mlir
    %y = kiln.where %mask, %x, %ninf
        : (tensor<1x1x?x?xi1>, tensor<?x?x?x?xf32>, tensor<f32>) -> tensor<?x?x?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_BoolTensor:$cond, Kiln_Tensor:$lhs,
                       Kiln_Tensor:$rhs);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise unary ops
//===----------------------------------------------------------------------===//

// Elementwise ops whose result is floating: integer and bool inputs compute
// in f32, as the runtime's do (kiln-materialize-promotions casts them);
// `floatOnly` ops refuse them, as torch does.
class Kiln_UnaryFloatOp<string mnemonic, string opSummary, bit floatOnly = 0>
    : Kiln_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultShape,
                                     InferTypeOpAdaptor, Kiln_PromotesToResult],
                                    !if(floatOnly, [Kiln_FloatInput], []))> {
  let cppCall = "kiln::" # mnemonic # "($input)";
  let traceWith = "traceUnary";
  let tensorMethod = 1;
  let summary = opSummary;
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_FloatTensor:$result);
  // The result type is inferred: the input's, f32 for integers.
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let description = !strconcat("Elementwise `", mnemonic, "`: ", opSummary, [{.
    An integer or bool input gives an f32 result.

    ```mlir
    %y = kiln.}], mnemonic, [{ %x : tensor<?x16xf32>
    ```
  }]);
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      return inferFloatResult(adaptor.getInput().getType(), inferred);
    }
  }];
}

class Kiln_UnaryOp<string mnemonic, string opSummary, list<Trait> traits = []>
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
                                             Kiln_NoBoolInput])> {
  let cppCall = "kiln::" # mnemonic # "($input)";
  let traceWith = "traceUnary";
  let tensorMethod = 1;
  let summary = opSummary;
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let description = !strconcat("Elementwise `", mnemonic, "`: ", opSummary, [{.

    ```mlir
    %y = kiln.}], mnemonic, [{ %x : tensor<?x16xf32>
    ```
  }]);
}

def Kiln_NegOp : Kiln_UnaryOp<"neg", "negation (integers wrap)">;
def Kiln_AbsOp : Kiln_UnaryOp<"abs", "absolute value">;
def Kiln_ReluOp : Kiln_UnaryOp<"relu",
                               "max(x, 0), NaN propagating">;
def Kiln_ExpOp : Kiln_UnaryFloatOp<"exp", "e to the x">;
def Kiln_LogOp : Kiln_UnaryFloatOp<"log", "natural logarithm">;
def Kiln_SqrtOp : Kiln_UnaryFloatOp<"sqrt", "square root">;
def Kiln_RsqrtOp : Kiln_UnaryFloatOp<"rsqrt",
                                "reciprocal square root, 1 / sqrt(x)">;
def Kiln_TanhOp : Kiln_UnaryFloatOp<"tanh", "hyperbolic tangent">;
def Kiln_SigmoidOp : Kiln_UnaryFloatOp<"sigmoid",
                                  "logistic function, 1 / (1 + exp(-x))">;
def Kiln_SiluOp : Kiln_UnaryFloatOp<"silu",
                               "x * sigmoid(x) (swish)", 1>;
def Kiln_SinOp : Kiln_UnaryFloatOp<"sin",
    "sine">;
def Kiln_CosOp : Kiln_UnaryFloatOp<"cos",
    "cosine">;
def Kiln_TanOp : Kiln_UnaryFloatOp<"tan",
    "tangent">;
def Kiln_AtanOp : Kiln_UnaryFloatOp<"atan",
    "arc tangent">;
def Kiln_ErfOp : Kiln_UnaryFloatOp<"erf",
    "error function">;
def Kiln_ErfcOp : Kiln_UnaryFloatOp<"erfc",
    "complementary error function, 1 - erf(x)">;
def Kiln_Log1pOp : Kiln_UnaryFloatOp<"log1p",
    "log(1 + x), accurate for small x">;
def Kiln_Expm1Op : Kiln_UnaryFloatOp<"expm1",
    "exp(x) - 1, accurate for small x">;
def Kiln_Log2Op : Kiln_UnaryFloatOp<"log2",
    "base-2 logarithm">;
def Kiln_Log10Op : Kiln_UnaryFloatOp<"log10",
    "base-10 logarithm">;
def Kiln_Exp2Op : Kiln_UnaryFloatOp<"exp2",
    "2 to the x">;
def Kiln_ReciprocalOp : Kiln_UnaryFloatOp<"reciprocal",
    "1 / x">;
def Kiln_SoftplusOp : Kiln_UnaryFloatOp<"softplus",
    "log(1 + exp(x)), x above 20 (torch's beta 1, threshold 20)", 1>;
def Kiln_MishOp : Kiln_UnaryFloatOp<"mish",
    "x * tanh(softplus(x))", 1>;
def Kiln_HardswishOp : Kiln_UnaryFloatOp<"hardswish",
    "x * min(max(x + 3, 0), 6) / 6", 1>;
def Kiln_HardsigmoidOp : Kiln_UnaryFloatOp<"hardsigmoid",
    "min(max(x + 3, 0), 6) / 6", 1>;
def Kiln_FloorOp : Kiln_UnaryOp<"floor",
    "rounding down (integers unchanged)">;
def Kiln_CeilOp : Kiln_UnaryOp<"ceil",
    "rounding up (integers unchanged)">;
def Kiln_RoundOp : Kiln_UnaryOp<"round",
    "rounding to nearest, halves to even (integers unchanged)">;
def Kiln_TruncOp : Kiln_UnaryOp<"trunc",
    "rounding toward zero (integers unchanged)">;
def Kiln_SquareOp : Kiln_UnaryOp<"square",
    "x * x (integers wrap)">;

def Kiln_DetachOp : Kiln_Op<"detach", [Pure, SameOperandsAndResultType]> {
  let cppCall = "$input.detach()";
  let summary = "the input's values, cut from autograd";
  let description = [{
    torch's `detach`: the input's values, through which no gradient flows
    back (a batch norm's running statistics, buffers in torch). Lowered as
    the input itself.

    ```mlir
    %d = kiln.detach %x : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Kiln_GeluOp : Kiln_Op<"gelu", [Pure, SameOperandsAndResultType,
                                   Kiln_FloatInput]> {
  let cppCall = "kiln::gelu($input, $approximate)";
  let summary = "Gaussian error linear unit";
  let description = [{
    `x * Phi(x)`: the exact erf form by default (torch's default), or the
    tanh approximation with `approximate tanh`.

    ```mlir
    %a = kiln.gelu %x : tensor<?x3072xf32>
    %b = kiln.gelu %x approximate tanh : tensor<?x3072xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input,
      DefaultValuedAttr<Kiln_GeluApproximation,
                        "::mlir::kiln::GeluApproximation::none">:$approximate);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input (`approximate` $approximate^)? attr-dict `:` type($input)
  }];
}

def Kiln_CastOp : Kiln_Op<"cast", [Pure, SameOperandsAndResultShape]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Converts each element as the runtime's `Tensor::to(DType)` does: float
    to integer truncates toward zero and saturates (NaN gives 0), anything
    to bool tests for non-zero. A cast to the same type folds away.

    ```mlir
    %f = kiln.cast %ids : tensor<?xi64> to tensor<?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Kiln_ReductionOp<string mnemonic, Type operandType, Type resultType,
                       string opSummary, bit widensIntegers = 0,
                       list<Trait> traits = [], string resultElement = "">
    : Kiln_Op<mnemonic, !listconcat(traits, [Pure, InferTypeOpAdaptor,
                                             DeclareOpInterfaceMethods<Kiln_DimsOpInterface>],
                                    !if(widensIntegers, [Kiln_PromotesToResult],
                                        []))> {
  let cppCall = "kiln::" # mnemonic # "($input, $dims, $keepdim)";
  let traceWith = "traceReduction";
  let tensorMethod = 1;
  let summary = opSummary;
  let description = !strconcat(opSummary, [{ over `dims` (sorted, distinct,
    non-negative; empty means every dim), keeping them as size 1 when
    `keepdim` is set.}], !if(widensIntegers, [{ Integer and bool inputs give
    an i64 result, as the runtime's do.}], !if(!empty(resultElement),
    [{ The result has the input's element type.}], [{ The result is i1.}])),
    [{

    ```mlir
    %s = kiln.}], mnemonic, [{ %x dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
    ```
  }]);
  let arguments = (ins operandType:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs resultType:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdim` $keepdim^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = !strconcat([{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      ::mlir::Type input = adaptor.getInput().getType();
      return inferReductionResult(loc, input, adaptor.getDims(),
                                  adaptor.getKeepdim(), }],
      !if(widensIntegers, "widenedIntegers(input)",
          !if(!empty(resultElement),
              "::mlir::cast<::mlir::ShapedType>(input).getElementType()",
              resultElement)), [{,
                                  inferred);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      if (hasOpenTypes(*this))
        return success();
      return verifyReductionDims(getOperation(), getInput().getType(), getDims());
    }
  }]);
}

def Kiln_SumOp : Kiln_ReductionOp<"sum", Kiln_Tensor, Kiln_NumericTensor, "Sum",
                                  1>;
def Kiln_MeanOp : Kiln_ReductionOp<"mean", Kiln_Tensor, Kiln_Tensor,
                                   "Arithmetic mean", 0, [Kiln_FloatInput]>;
def Kiln_AmaxOp : Kiln_ReductionOp<"amax", Kiln_NumericTensor,
                                   Kiln_NumericTensor,
                                   "Maximum (NaN propagating)">;
def Kiln_AminOp : Kiln_ReductionOp<"amin", Kiln_NumericTensor,
                                   Kiln_NumericTensor,
                                   "Minimum (NaN propagating)">;
def Kiln_ProdOp : Kiln_ReductionOp<"prod", Kiln_Tensor, Kiln_NumericTensor,
                                   "Product (wrapping on integers)", 1>;
// kiln-decompose-composites writes these with kiln.cmp and kiln.sum (a
// count of the nonzero or zero elements).
def Kiln_AnyOp : Kiln_ReductionOp<"any", Kiln_Tensor, Kiln_BoolTensor,
                                  "Whether some element is nonzero", 0, [],
                                  "::mlir::IntegerType::get(context, 1)">;
def Kiln_AllOp : Kiln_ReductionOp<"all", Kiln_Tensor, Kiln_BoolTensor,
                                  "Whether every element is nonzero", 0, [],
                                  "::mlir::IntegerType::get(context, 1)">;

class Kiln_ArgReductionOp<string mnemonic, string which>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor, Kiln_NoBoolInput,
                         DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let traceWith = "traceArgReduction";
  let tensorMethod = 1;
  let summary = "index of the first " # which;
  let description = !strconcat("The index of the first ", which, [{ along
    the one dim in `dims`, or of the flattened input when `dims` is empty,
    as i64 (kept as size 1 when `keepdim` is set). NaN counts as both the
    maximum and the minimum, as in torch; reducing an empty dim is an
    error.

    ```mlir
    %i = kiln.}], mnemonic, [{ %logits dims [1] : tensor<?x?xf32> -> tensor<?xi64>
    ```
  }]);
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs Kiln_TensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdim` $keepdim^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      return inferReductionResult(loc, adaptor.getInput().getType(),
                                  adaptor.getDims(), adaptor.getKeepdim(),
                                  ::mlir::IntegerType::get(context, 64),
                                  inferred);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      if (hasOpenTypes(*this))
        return success();
      if (getDims().size() > 1)
        return emitOpError("takes one dim or none (the flattened input)");
      return verifyReductionDims(getOperation(), getInput().getType(), getDims());
    }
  }];
}

def Kiln_ArgmaxOp : Kiln_ArgReductionOp<"argmax", "maximum">;
def Kiln_ArgminOp : Kiln_ArgReductionOp<"argmin", "minimum">;

//===----------------------------------------------------------------------===//
// Normalisations
//===----------------------------------------------------------------------===//

class Kiln_SoftmaxLikeOp<string mnemonic, string opSummary>
    : Kiln_Op<mnemonic, [Pure, SameOperandsAndResultType, Kiln_FloatInput,
                         DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::" # mnemonic # "($input, $dim)";
  let traceWith = "traceSoftmax";
  let tensorMethod = 1;
  let summary = opSummary;
  let description = !strconcat(opSummary, [{ along `dim` (non-negative).
    Kept whole rather than decomposed, so that lowering can use a stable
    max-subtracting form and a gradient rule stays simple.

    ```mlir
    %p = kiln.}], mnemonic, [{ %scores dim 3 : tensor<?x12x?x?xf32>
    ```
  }]);
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      if (hasOpenTypes(*this))
        return success();
      return verifyDimInRange(
          getOperation(), getDim(),
          ::mlir::cast<::mlir::RankedTensorType>(getInput().getType())
              .getRank(),
          "dim");
    }
  }];
}

def Kiln_SoftmaxOp : Kiln_SoftmaxLikeOp<"softmax", "Softmax">;
def Kiln_LogSoftmaxOp : Kiln_SoftmaxLikeOp<"log_softmax", "Log of the softmax">;

def Kiln_LayerNormOp : Kiln_Op<"layer_norm", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "result"]>, Kiln_FloatInput]> {
  let cppCall = "kiln::layer_norm($input, $weight, $bias, $eps_value|$eps)";
  let traceWith = "traceNorm";
  let summary = "layer normalisation over the trailing dims of the weight";
  let description = [{
    `(x - mean) / sqrt(var + eps) * weight + bias` where mean and the biased
    variance are taken over the last `rank(weight)` dims of `input`, whose
    sizes must equal the weight's. `bias`, when present, has the weight's
    type. An eps known only at run time (a module's member) is the `f64`
    operand `eps_value`, which then overrides the attribute.

    ```mlir
    %y = kiln.layer_norm %x, %g, %b {eps = 1.0e-05 : f64}
        : (tensor<?x?x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<?x?x768xf32>
    %z = kiln.layer_norm %x, %g eps_value %e {eps = 0.0 : f64}
        : (tensor<?x?x768xf32>, tensor<768xf32>, f64) -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_Tensor:$weight,
                       Optional<Kiln_Tensor>:$bias,
                       Optional<F64>:$eps_value, F64Attr:$eps);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`eps_value` $eps_value^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Kiln_RmsNormOp : Kiln_Op<"rms_norm", [Pure,
    AllTypesMatch<["input", "result"]>, Kiln_FloatInput]> {
  let cppCall = "kiln::rms_norm($input, $weight, $eps_value|$eps)";
  let traceWith = "traceNorm";
  let summary = "root-mean-square normalisation";
  let description = [{
    `x / sqrt(mean(x^2) + eps) * weight` over the last `rank(weight)` dims;
    `eps_value`, when present, is an eps known only at run time.

    ```mlir
    %y = kiln.rms_norm %x, %g {eps = 1.0e-06 : f64}
        : (tensor<?x4096xf32>, tensor<4096xf32>) -> tensor<?x4096xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_Tensor:$weight,
                       Optional<F64>:$eps_value, F64Attr:$eps);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`eps_value` $eps_value^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra and neural-network ops
//===----------------------------------------------------------------------===//

def Kiln_MatmulOp : Kiln_Op<"matmul", [Pure, InferTypeOpAdaptor,
                                       Kiln_PromotesToResult]> {
  let cppCall = "kiln::matmul($lhs, $rhs)";
  let traceWith = "traceProduct";
  let tensorMethod = 1;
  let summary = "matrix product with torch.matmul's rules";
  let description = [{
    1-d x 1-d is a dot product (0-d result), 2-d x 1-d a matrix-vector
    product, 1-d x 2-d a vector-matrix product, and otherwise a batched
    product whose batch dims broadcast, the last two dims multiplying.

    ```mlir
    %y = kiln.matmul %q, %kt
        : (tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$lhs, Kiln_NumericTensor:$rhs);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
}

def Kiln_BmmOp : Kiln_Op<"bmm", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::bmm($lhs, $rhs)";
  let summary = "batched product of [B, n, k] and [B, k, m]";
  let description = [{
    torch's `bmm`: both operands of rank 3 with equal batch sizes (no
    broadcasting, unlike matmul), promoted as matmul's. Its verifier checks
    what the types state; kiln-decompose-composites checks the batch sizes
    that are dynamic at run time (eager's error) and writes a kiln.matmul.

    ```mlir
    %y = kiln.bmm %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$lhs, Kiln_NumericTensor:$rhs);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
}

// A factor of the addmm family: a number as the source passes it, an
// integer or a float (an integer keeps integer tensors integer, as the
// runtime's Scalar does).
def Kiln_Factor : AnyAttrOf<[I64Attr, F64Attr]>;

class Kiln_ScaledProductOp<string mnemonic, int rank, string what>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::" # mnemonic # "($input, $lhs, $rhs, $beta, $alpha)";
  let summary = "beta * input + alpha * (" # what # ")";
  let description = !strconcat("torch's `", mnemonic, [{`: the product of
    `lhs` and `rhs` (each of rank }], !cast<string>(rank), [{, }], what, [{),
    scaled by `alpha`, plus `input` scaled by `beta`; `input` must broadcast
    to the product's shape (eager's error otherwise, checked at run time
    where the sizes are dynamic), and with `beta` 0 it is ignored, NaN
    included. Each step promotes as the runtime's ops do (an integer factor
    keeps integer tensors integer). kiln-decompose-composites writes it
    with matmul, mul and add.

    ```mlir
    %y = kiln.}], mnemonic, [{ %c, %a, %b {alpha = 5.000000e-01 : f64, beta = 1 : i64}
        : (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    ```
  }]);
  let arguments = (ins Kiln_NumericTensor:$input, Kiln_NumericTensor:$lhs,
                       Kiln_NumericTensor:$rhs, Kiln_Factor:$beta,
                       Kiln_Factor:$alpha);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $input `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return inferScaledProduct(loc, "}] # mnemonic # [{", }] # rank # [{,
                                adaptor.getInput(), adaptor.getLhs(),
                                adaptor.getRhs(), adaptor.getBeta(),
                                adaptor.getAlpha(), inferred);
    }
  }];
}

def Kiln_AddmmOp : Kiln_ScaledProductOp<"addmm", 2, "a matrix product">;
def Kiln_BaddbmmOp : Kiln_ScaledProductOp<"baddbmm", 3, "a batched product, as bmm's">;

def Kiln_LinearOp : Kiln_Op<"linear", [Pure, InferTypeOpAdaptor,
                                       Kiln_PromotesToResult]> {
  let cppCall = "kiln::linear($input, $weight, $bias)";
  let traceWith = "traceProduct";
  let summary = "x @ weight^T + bias";
  let description = [{
    `weight` is `[out, in]`; the input's last dim must be `in`; `bias`, when
    present, is `[out]`. The result is the input's shape with its last dim
    replaced by `out`.

    ```mlir
    %y = kiln.linear %x, %w, %b
        : (tensor<?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x3072xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$weight,
                       Optional<Kiln_FloatTensor>:$bias);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_ScaledDotProductAttentionOp : Kiln_Op<"scaled_dot_product_attention",
    [Pure, InferTypeOpAdaptor, AttrSizedOperandSegments]> {
  let cppCall = "kiln::scaled_dot_product_attention($query, $key, $value, $mask, 0.0, $is_causal, $scale)";
  let summary = "softmax(query key^T * scale + mask) value, fused";
  let description = [{
    torch's `scaled_dot_product_attention` at inference: `query` is
    `[..., L, E]`, `key` `[..., S, E]`, `value` `[..., S, Ev]` (ranks 2 to
    4; the batch dims broadcast) and the result `[..., L, Ev]`. `mask`,
    when present, broadcasts to `[..., L, S]`: `i1` (true attends) or the
    query's element type (added to the scores). `is_causal` attends key `j`
    from query `i` when `j <= i` and excludes `mask`. `scale`, when absent,
    is `1 / sqrt(E)`. A query that attends to no key gives zeros.

    On the CPU the op is one fused kernel of the runtime
    (kiln-attention-to-runtime); elsewhere (the GPU) it converts to one
    loop nest, a query row per iteration walking the keys with an online
    softmax (convert-kiln-to-linalg). Neither makes the `[..., L, S]`
    scores.

    ```mlir
    %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = true}
        : (tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>)
          -> tensor<?x12x?x64xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$query, Kiln_Tensor:$key,
                       Kiln_Tensor:$value, Optional<Kiln_Tensor>:$mask,
                       Optional<F64>:$scale, BoolAttr:$is_causal);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $mask^)? (`scale` $scale^)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Kiln_EmbeddingOp : Kiln_Op<"embedding", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::embedding($ids, $table)";
  let traceWith = "traceProduct";
  let summary = "rows of a table picked by integer ids";
  let description = [{
    The result is `ids.shape + [D]` for a `[V, D]` table; ids outside
    `[0, V)` are a run-time error, reported as the runtime reports it.

    ```mlir
    %e = kiln.embedding %ids, %wte
        : (tensor<?x?xi64>, tensor<50257x768xf32>) -> tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Kiln_IntTensor:$ids, Kiln_Tensor:$table);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $ids `,` $table attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_GatherOp : Kiln_Op<"gather", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::gather($input, $dim, $index)";
  let traceWith = "traceGather";
  let tensorMethod = 1;
  let traceMinArgs = 3;
  let traceMaxArgs = 3;
  let summary = "elements picked along a dim by integer indices (torch.gather)";
  let description = [{
    `result[i0, .., id, ..] = input[i0, .., index[i0, .., id, ..], ..]` with
    `id` at `dim` (non-negative): the result has the index's shape and the
    input's element type. The ranks agree; every other dim of the index is
    at most the input's (a run-time error otherwise), and indices outside
    `[0, input.size(dim))` are a run-time error, reported as the runtime
    reports it. index_select, flip, roll and pad are written with it.

    ```mlir
    %g = kiln.gather %x, %idx dim 1
        : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_IntTensor:$index,
                       I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` $dim attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_ScatterAddOp : Kiln_Op<"scatter_add", [Pure,
    AllTypesMatch<["input", "result"]>, Kiln_NoBoolInput,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::scatter_add($input, $dim, $index, $src)";
  let summary = "src added into a copy of input at integer indices "
                "(torch.scatter_add)";
  let description = [{
    `result = input`, then `result[i0, .., index[i0, .., id, ..], ..] +=
    src[i0, .., id, ..]` for every position of the index, `id` at `dim`
    (non-negative), in index order. The ranks agree; the index is at most
    src in every dim and at most the input outside `dim`, and indices
    outside `[0, input.size(dim))` are run-time errors, reported as the
    runtime reports them.

    ```mlir
    %y = kiln.scatter_add %x, %idx, %src dim 0
        : (tensor<?x?xf32>, tensor<?x?xi64>, tensor<?x?xf32>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_IntTensor:$index,
                       Kiln_Tensor:$src, I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `,` $src `dim` $dim attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

class Kiln_CumulativeOp<string mnemonic, string what>
    : Kiln_Op<mnemonic, [Pure, SameOperandsAndResultType,
                         DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::" # mnemonic # "($input, $dim)";
  let traceWith = "traceCumulative";
  let tensorMethod = 1;
  let traceMinArgs = 2;
  let traceMaxArgs = 3;
  let summary = "running " # what # " along a dim";
  let description = !strconcat("The running ", what, [{ along `dim`
    (non-negative): `result[.., j, ..]` combines `input[.., 0..j, ..]` in
    order. Floats accumulate in f64 and round each result, as the runtime
    does; integers wrap. Integers and bools scan as i64 (ATen's result
    type): refinement (kiln-refine-types) converts such an input first.

    ```mlir
    %c = kiln.}], mnemonic, [{ %x dim 1 : tensor<?x?xf32>
    ```
  }]);
  // (No i32 or i1: ATen scans them as i64, which refinement converts them
  // to.)
  let arguments = (ins Kiln_TensorOf<[F16, BF16, F32, F64, I64]>:$input,
                       I64Attr:$dim);
  let results = (outs Kiln_TensorOf<[F16, BF16, F32, F64, I64]>:$result);
  let assemblyFormat = "$input `dim` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      if (hasOpenTypes(*this))
        return success();
      return verifyDimInRange(getOperation(), getDim(),
                              ::std::max<int64_t>(
                                  getInput().getType().getRank(), 1),
                              "dim");
    }
  }];
}

def Kiln_CumsumOp : Kiln_CumulativeOp<"cumsum", "sum">;
def Kiln_CumprodOp : Kiln_CumulativeOp<"cumprod", "product">;

def Kiln_TopkOp : Kiln_Op<"topk", [Pure, InferTypeOpAdaptor, Kiln_NoBoolInput,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "std::get<1>(kiln::topk($input, $k, $dim, $largest))";
  let summary = "the indices of the k largest (smallest) elements along a "
                "dim (torch.topk)";
  let description = [{
    The i64 indices along `dim` (non-negative) of the `k` largest elements
    (smallest without `largest`), best first: NaN counts as the largest,
    and equal values come in index order, so the choice and order are
    unique and match the runtime's. The result has the input's shape with
    `k` at `dim`; `k` outside `[0, input.size(dim)]` is a run-time error.
    torch.topk's values are a `kiln.gather` of these indices.

    ```mlir
    %i = kiln.topk %logits, %k dim 1 largest : (tensor<?x?xf32>, index) -> tensor<?x?xi64>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Index:$k, I64Attr:$dim,
                       UnitAttr:$largest);
  let results = (outs Kiln_TensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $input `,` $k `dim` $dim (`largest` $largest^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Kiln_Conv2dOp : Kiln_Op<"conv2d", [Pure, InferTypeOpAdaptor,
                                       AttrSizedOperandSegments,
                                       Kiln_PromotesToResult]> {
  let summary = "2-d convolution, NCHW";
  let description = [{
    `input` is `[N, C, H, W]` (or one image `[C, H, W]`, whose result has
    no batch dim either: kiln-decompose-composites convolves it as a batch
    of one), `weight` `[O, C / groups, kH, kW]`, `bias`
    `[O]`; `strides`, `padding` and `dilation` hold `[h, w]` (strides and
    dilation at least 1, padding at least 0). With `groups` g the channels
    and the filters split into g groups, group i's filters convolving group
    i's channels. The output is `[N, O, (H + 2ph - dh (kH - 1) - 1) / sh + 1,
    (W + 2pw - dw (kW - 1) - 1) / sw + 1]`.

    A stride, padding, dilation or group count known only at run time (a
    module's member, say) is `kDynamic` in its attribute and an `index`
    operand in `params`, in the order sh, sw, ph, pw, dh, dw, groups; the
    lowering checks its range at run time.

    ```mlir
    %y = kiln.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
        : (tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<?x16x16x16xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$weight,
                       Optional<Kiln_FloatTensor>:$bias,
                       Variadic<Index>:$params,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`params` `[` $params^ `]`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Kiln_Pool2dOp : Kiln_Op<"pool2d", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-d max or average pooling, NCHW";
  let description = [{
    torch's `max_pool2d` (`kind = max`) and `avg_pool2d` (`kind = avg`) of
    `input` `[N, C, H, W]` (or one image `[C, H, W]`, pooled as a batch of
    one by kiln-decompose-composites): output `(oh, ow)` reduces the taps
    `(oh * sh - ph + i * dh, ow * sw - pw + j * dw)` for `i < kh`, `j < kw`
    that lie inside the input (`kernel`, `strides`, `padding`, `dilation`
    hold `[h, w]`; padding at most half the kernel). The output's size is
    ATen's `pooling_output_shape`: `(H + 2ph - dh (kh - 1) - 1) / sh + 1`,
    rounded up with `ceil_mode` as long as the last window starts inside
    the input or its left padding. A NaN in a window is its max. Average
    pooling divides by the window clipped to the padded input
    (`count_include_pad`) or to the input, or by `divisor`.

    `ceil_mode` and `count_include_pad` are 0 or 1. A window parameter or
    flag known only at run time is `kDynamic` in its attribute and an
    `index` operand in `params`, in the order kh, kw, sh, sw, ph, pw, dh,
    dw, ceil_mode, count_include_pad; the lowering checks its range at run
    time.

    ```mlir
    %y = kiln.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>,
        padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 0}
        : (tensor<?x16x?x?xf32>) -> tensor<?x16x?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_PoolKind:$kind, Kiln_FloatTensor:$input,
                       Variadic<Index>:$params,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       DefaultValuedAttr<I64Attr, "1">:$count_include_pad,
                       OptionalAttr<I64Attr>:$divisor);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $kind $input (`params` `[` $params^ `]`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Kiln_AdaptiveAvgPool2dOp : Kiln_Op<"adaptive_avg_pool2d",
                                       [Pure, InferTypeOpAdaptor]> {
  let summary = "2-d adaptive average pooling, NCHW";
  let description = [{
    torch's `adaptive_avg_pool2d` of `input` `[N, C, H, W]` (or one image
    `[C, H, W]`, pooled as a batch of one by kiln-decompose-composites) to
    `output_size` `[h, w]`: output `(oh, ow)` is the mean of input rows
    `[floor(oh * H / h), ceil((oh + 1) * H / h))` and the same columns of
    `W`. An output size known only at run time is `kDynamic` in the
    attribute and an `index` operand in `params`; the lowering checks it.

    ```mlir
    %y = kiln.adaptive_avg_pool2d %x {output_size = array<i64: 1, 1>}
        : (tensor<?x512x?x?xf32>) -> tensor<?x512x1x1xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Variadic<Index>:$params,
                       DenseI64ArrayAttr:$output_size);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`params` `[` $params^ `]`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// The gradients of the image ops (the backward graphs' own ops)
//===----------------------------------------------------------------------===//

def Kiln_Conv2dBackwardOp : Kiln_Op<"conv2d_backward", [Pure,
    AllTypesMatch<["input", "input_grad"]>,
    AllTypesMatch<["weight", "weight_grad"]>]> {
  let summary = "the gradients of a kiln.conv2d's input and weight";
  let description = [{
    The gradients of `kiln.conv2d %input, %weight` (same parameters, batched
    `[N, C, H, W]` input) given `grad_output`, the gradient of its result:
    ATen's `convolution_backward` (the input's is the transposed
    convolution of `grad_output`, the weight's the products of
    `grad_output` with the input's columns summed over the batch); the
    bias's is `grad_output` summed over all but its channels, a `kiln.sum`.
    kiln-differentiate builds it as conv2d's gradient. The CPU pipeline
    (kiln-image-ops-to-runtime) computes each result that is used with the
    runtime's `kiln::conv2d_backward`, the function eager autograd runs.

    ```mlir
    %gx, %gw = kiln.conv2d_backward %gy, %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>}
        : (tensor<?x16x?x?xf32>, tensor<?x3x?x?xf32>, tensor<16x3x3x3xf32>) -> (tensor<?x3x?x?xf32>, tensor<16x3x3x3xf32>)
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$grad_output, Kiln_FloatTensor:$input,
                       Kiln_FloatTensor:$weight, Variadic<Index>:$params,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Kiln_FloatTensor:$input_grad,
                      Kiln_FloatTensor:$weight_grad);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $weight (`params` `[` $params^ `]`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Kiln_Pool2dBackwardOp : Kiln_Op<"pool2d_backward", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "the gradient of a kiln.pool2d's input";
  let description = [{
    The gradient of `kiln.pool2d kind %input` (same parameters, batched
    `[N, C, H, W]` input) given `grad_output`, the gradient of its result:
    max pooling's goes to each window's first maximum (or first NaN), as
    eager's does; average pooling's is each window's share, spread over
    the window. kiln-differentiate builds it as pool2d's gradient; the CPU
    pipeline (kiln-image-ops-to-runtime) calls the runtime's
    `kiln::max_pool2d_backward` or `kiln::avg_pool2d_backward`, the
    functions eager autograd runs.

    ```mlir
    %gx = kiln.pool2d_backward max %gy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
        padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>}
        : (tensor<?x8x?x?xf32>, tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_PoolKind:$kind, Kiln_FloatTensor:$grad_output,
                       Kiln_FloatTensor:$input, Variadic<Index>:$params,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$padding, DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
                       DefaultValuedAttr<I64Attr, "1">:$count_include_pad,
                       OptionalAttr<I64Attr>:$divisor);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $kind $grad_output `,` $input (`params` `[` $params^ `]`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Kiln_AdaptiveAvgPool2dBackwardOp : Kiln_Op<"adaptive_avg_pool2d_backward",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let cppCall = "kiln::adaptive_avg_pool2d_backward($grad_output, $input)";
  let summary = "the gradient of a kiln.adaptive_avg_pool2d's input";
  let description = [{
    The gradient of `kiln.adaptive_avg_pool2d %input` (batched `[N, C, H,
    W]` input, the output size `grad_output`'s last two sizes) given
    `grad_output`: each window's share spread over its window.
    kiln-differentiate builds it; the CPU pipeline
    (kiln-image-ops-to-runtime) calls the runtime's
    `kiln::adaptive_avg_pool2d_backward`, the function eager autograd runs.

    ```mlir
    %gx = kiln.adaptive_avg_pool2d_backward %gy, %x
        : (tensor<?x8x1x1xf32>, tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$grad_output, Kiln_FloatTensor:$input);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $input attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_CatOp : Kiln_Op<"cat", [Pure, InferTypeOpAdaptor,
                                 Kiln_PromotesToResult,
                                 DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::cat($inputs, $dim)";
  let summary = "concatenation along a dim";
  let description = [{
    All inputs have the same rank and the same sizes except along `dim`,
    where the result's size is their sum.

    ```mlir
    %y = kiln.cat %a, %b dim 1 : (tensor<2x3xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` $dim attr-dict `:` functional-type($inputs, results)
  }];
}

def Kiln_StackOp : Kiln_Op<"stack", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::stack($inputs, $dim)";
  let traceWith = "traceStack";
  let tensorMethod = 1;
  let traceMinArgs = 1;
  let summary = "tensors of one shape stacked along a new dim";
  let description = [{
    torch's `stack`: the inputs (at least one, all of one shape: eager's
    error otherwise, checked at run time where sizes are dynamic) joined
    along a new dim `dim` (in [0, rank]; the source's negative dims count
    from the end of the result's), whose size is their number; their
    element types promote as cat's. kiln-decompose-composites writes it as
    kiln.unsqueeze of each and kiln.cat.

    ```mlir
    %y = kiln.stack %a, %b dim 0 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<2x?x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Kiln_Tensor>:$inputs, I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $inputs `dim` $dim attr-dict `:` functional-type($inputs, results)
  }];
}

def Kiln_CrossEntropyOp : Kiln_Op<"cross_entropy", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::cross_entropy($logits, $targets)";
  let traceWith = "traceProduct";
  let summary = "mean cross-entropy of logits against class ids";
  let description = [{
    `logits` is `[N, C]` (or `[C]`), `targets` `[N]` (or `[]`); the result is
    the 0-d mean of `-log_softmax(logits)[i, targets[i]]`.

    ```mlir
    %l = kiln.cross_entropy %logits, %t : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$logits, Kiln_IntTensor:$targets);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $logits `,` $targets attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Views and reshapes (value semantics: a graph never aliases)
//===----------------------------------------------------------------------===//

def Kiln_ReshapeOp : Kiln_Op<"reshape", [Pure, Kiln_ViewOfInput]> {
  let summary = "same elements, new shape";
  let description = [{
    The result type's static dims are the new sizes; each dynamic dim takes
    its size from one `index` operand, in order. The element counts must
    agree (checked at run time when dims are dynamic). A reshape of a
    reshape is one reshape, and a reshape to the input's static type folds.

    ```mlir
    %h = kiln.reshape %x [%b, %t] : tensor<?x768xf32> -> tensor<?x?x12x64xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Variadic<Index>:$sizes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input (` ` `[` $sizes^ `]`)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_TransposeOp : Kiln_Op<"transpose", [Pure, Kiln_ViewOfInput,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "$input.transpose($dim0, $dim1)";
  let summary = "swaps two dims";
  let description = [{
    A transpose of a transpose of the same dims folds to the input; the
    transpose of a product's matrices (its last two dims) canonicalizes to
    the product of the operands' transposes in the other order,
    `(a @ b)^T = b^T @ a^T`, which the lowering reads in place.

    ```mlir
    %t = kiln.transpose %k dims 2, 3 : tensor<?x12x?x64xf32> -> tensor<?x12x64x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$dim0, I64Attr:$dim1);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` $dim0 `,` $dim1 attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// Whether it swaps the last two dims of a ranked input (the matrices
    /// of a batch), its dims counted from 0 (closed types).
    bool swapsLastTwoDims();
  }];
}

def Kiln_PermuteOp : Kiln_Op<"permute", [Pure, Kiln_ViewOfInput,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "$input.permute($permutation)";
  let summary = "reorders the dims";
  let description = [{
    Result dim `i` is input dim `permutation[i]`. Two permutes in a row
    compose into one.

    ```mlir
    %p = kiln.permute %x [0, 2, 1, 3] : tensor<?x?x12x64xf32> -> tensor<?x12x?x64xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Kiln_SliceOp : Kiln_Op<"slice", [Pure, Kiln_ViewOfInput,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "$input.slice($dim, $start, $end, $step)";
  let summary = "every step-th element of a range along a dim";
  let description = [{
    Elements `start, start + step, ...` before `end` along `dim`, with Python
    semantics as in the runtime: negative `start`/`end` count from the end
    and `end` is clamped to the size. The result type gives the sliced size
    when it is known; other dims are unchanged.

    ```mlir
    %q = kiln.slice %qkv dim 2 [%c0 : %c768] : tensor<?x?x2304xf32> -> tensor<?x?x?xf32>
    %e = kiln.slice %x dim 0 [%c0 : %n step 2] : tensor<?xf32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$dim, Index:$start,
                       Index:$end, DefaultValuedAttr<I64Attr, "1">:$step);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim ` ` `[` $start `:` $end (`step` $step^)? `]` attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

class Kiln_SliceOfDimOp<string mnemonic, string summaryText>
    : Kiln_Op<mnemonic, [Pure, Kiln_ViewOfInput, InferTypeOpAdaptor,
                         DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let summary = summaryText;
  let traceWith = "traceNarrow";
  let tensorMethod = 1;
  let hasVerifier = 1;
  let results = (outs Kiln_Tensor:$result);
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      return inferSliceOfDim(loc, "}] # mnemonic # [{", adaptor.getInput(),
                             adaptor.getDim(), adaptor.getOperands()[1],
                             adaptor.getOperands().size() > 2
                                 ? adaptor.getOperands()[2]
                                 : ::mlir::Value(),
                             inferred);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      if (hasOpenTypes(*this))
        return success();
      return verifyDimInRange(
          getOperation(), getDim(),
          ::mlir::cast<::mlir::RankedTensorType>(getInput().getType())
              .getRank(),
          "dim");
    }
  }];
}

def Kiln_NarrowOp : Kiln_SliceOfDimOp<"narrow",
    "the elements [start, start + length) along a dim"> {
  let cppCall = "kiln::narrow($input, $dim, $start, $length)";
  let traceMinArgs = 4;
  let traceMaxArgs = 4;
  let description = [{
    torch's `narrow`: `length` elements of `dim` from `start` (counted from
    the end when negative), the range checked as eager checks it (at run
    time where the sizes are dynamic: the call then reruns eagerly and
    raises eager's error). The dim's size is `length` when it is a constant.
    kiln-decompose-composites writes it as a kiln.slice.

    ```mlir
    %y = kiln.narrow %x dim 1 start %s length %c2 : tensor<?x?xf32> -> tensor<?x2xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$dim, Index:$start,
                       Index:$length);
  let assemblyFormat = [{
    $input `dim` $dim `start` $start `length` $length attr-dict `:`
    type($input) `->` type($result)
  }];
}

def Kiln_SelectOp : Kiln_SliceOfDimOp<"select",
    "the slice at an index along a dim, that dim removed"> {
  let cppCall = "kiln::select($input, $dim, $index)";
  let traceMinArgs = 3;
  let traceMaxArgs = 3;
  let description = [{
    torch's `select`: the elements at `index` (counted from the end when
    negative) along `dim`, which the result drops; the index checked as
    eager checks it (at run time where the size is dynamic).
    kiln-decompose-composites writes it as a kiln.slice and a kiln.squeeze.

    ```mlir
    %y = kiln.select %x dim 0 index %i : tensor<?x?xf32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$dim, Index:$index);
  let assemblyFormat = [{
    $input `dim` $dim `index` $index attr-dict `:` type($input) `->`
    type($result)
  }];
}

def Kiln_UnsqueezeOp : Kiln_Op<"unsqueeze", [Pure, Kiln_ViewOfInput,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "$input.unsqueeze($dim)";
  let summary = "inserts a size-1 dim";
  let description = [{
    ```mlir
    %u = kiln.unsqueeze %x dim 0 : tensor<?x4xf32> -> tensor<1x?x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim attr-dict `:` type($input) `->` type($result)
  }];
}

def Kiln_SqueezeOp : Kiln_Op<"squeeze", [Pure, Kiln_ViewOfInput,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "$input.squeeze($dim)";
  let summary = "removes a dim of size 1";
  let description = [{
    The dim is of static size 1, or dynamic: then a shape check at run time
    requires it to be 1 (the runtime's squeeze of a larger dim is a no-op,
    which a graph of fixed ranks cannot be, so such a call runs eagerly).
    Squeezing the dim an unsqueeze inserted folds to the unsqueeze's input.

    ```mlir
    %s = kiln.squeeze %x dim 1 : tensor<?x1x4xf32> -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Kiln_ExpandOp : Kiln_Op<"expand", [Pure, Kiln_ViewOfInput]> {
  let summary = "broadcasts size-1 dims to a larger shape";
  let description = [{
    Like `Tensor::expand`: trailing dims align, an input dim of size 1 may
    become any size, other dims keep theirs; new leading dims may be added.
    Dynamic result dims take their sizes from the `index` operands.

    ```mlir
    %e = kiln.expand %b [%n] : tensor<1x4xf32> -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Variadic<Index>:$sizes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input (` ` `[` $sizes^ `]`)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Composites: runtime functions that kiln-decompose-composites writes with
// the ops above once their operands' types are known
//===----------------------------------------------------------------------===//

def Kiln_FlattenOp : Kiln_Op<"flatten", [Pure, Kiln_ViewOfInput,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "$input.flatten($start_dim, $end_dim)";
  let summary = "dims start_dim to end_dim merged into one (torch.flatten)";
  let description = [{
    The input's sizes with dims `start_dim` to `end_dim` (inclusive,
    non-negative once typed) multiplied into one; a 0-d input gives `[1]`.
    kiln-decompose-composites writes it as a `kiln.reshape`.

    ```mlir
    %y = kiln.flatten %x dims 1 to 2 : tensor<?x4x8xf32> -> tensor<?x32xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$start_dim,
                       I64Attr:$end_dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `dims` $start_dim `to` $end_dim attr-dict `:` type($input) `->`
    type($result)
  }];
}

def Kiln_UnflattenOp : Kiln_Op<"unflatten", [Pure, Kiln_ViewOfInput,
    InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "$input.unflatten($dim, $sizes)";
  let summary = "a dim split into several (torch.unflatten)";
  let description = [{
    The input's sizes with dim `dim` (non-negative once typed) replaced by
    `sizes`, one of which may be -1 (that dim's size over the product of
    the others). The sizes that are constants when the op is built are
    static dims of the result (a -1 or a size below it among them is
    refused as eager refuses it); that their product fits the dim's size is
    checked at run time, by the reshape kiln-decompose-composites writes
    it as.

    ```mlir
    %y = kiln.unflatten %x dim 1 sizes [%c12, %c64] : tensor<?x768xf32> -> tensor<?x12x64xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$dim,
                       Variadic<Index>:$sizes);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `dim` $dim `sizes` `[` $sizes `]` attr-dict `:` type($input) `->`
    type($result)
  }];
}

def Kiln_ReshapeAsOp : Kiln_Op<"reshape_as", [Pure, Kiln_ViewOfInput,
    InferTypeOpAdaptor]> {
  let cppCall = "$input.reshape_as($other)";
  let summary = "the input's elements in the other tensor's shape";
  let description = [{
    torch's `reshape_as`: the result has `other`'s shape and the input's
    element type; the element counts must agree (checked at run time, by
    the `kiln.reshape` to `other`'s sizes kiln-decompose-composites writes
    it as).

    ```mlir
    %y = kiln.reshape_as %x, %like : (tensor<?xf32>, tensor<?x4xf64>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_Tensor:$other);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $other attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_ExpandAsOp : Kiln_Op<"expand_as", [Pure, Kiln_ViewOfInput,
    InferTypeOpAdaptor]> {
  let cppCall = "$input.expand_as($other)";
  let summary = "the input broadcast to the other tensor's shape";
  let description = [{
    torch's `expand_as`: the result has `other`'s shape and the input's
    element type; each input dim (trailing dims aligned) is 1 or the
    other's size, and the input has no more dims than `other` (checked at
    run time where sizes are dynamic, by the `kiln.expand` to `other`'s
    sizes kiln-decompose-composites writes it as). An in-place op's result
    takes its tensor's shape through it (`t.add_(y)`: `y` broadcasts to
    `t`, never `t` to more).

    ```mlir
    %y = kiln.expand_as %x, %like : (tensor<?x1xf32>, tensor<?x4xf64>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_Tensor:$other);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $other attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_LogsumexpOp : Kiln_Op<"logsumexp", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::logsumexp($input, $dims, $keepdim)";
  let traceWith = "traceReduction";
  let tensorMethod = 1;
  let summary = "log of the sum of exponentials over dims";
  let description = [{
    `log(sum(exp(x - m), dims)) + m` over `dims` (sorted, distinct,
    non-negative; empty means every dim), keeping them as size 1 when
    `keepdim` is set, where `m` is the maximum over them taken as 0 where it
    is infinite (as ATen: a row of -inf gives -inf, a row holding +inf
    gives +inf). Floats keep their type; integers subtract their maximum
    exactly and give f32, as the runtime's; bools are
    refused as amax refuses them. kiln-decompose-composites writes it with
    amax, exp, sum and log.

    ```mlir
    %l = kiln.logsumexp %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Kiln_NumericTensor:$input, DenseI64ArrayAttr:$dims,
                       UnitAttr:$keepdim);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdim` $keepdim^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

def Kiln_NormOp : Kiln_Op<"norm", [Pure, InferTypeOpAdaptor, Kiln_FloatInput,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::norm($input, $p, $dims, $keepdim)";
  let traceWith = "traceVectorNorm";
  let tensorMethod = 1;
  let traceMinArgs = 1;
  let summary = "the p-norm over dims";
  let description = [{
    The p-norm of `input` over `dims` (sorted, distinct, non-negative; empty
    means every dim), keeping them as size 1 when `keepdim` is set, as
    torch's `norm` with a number `p`: `sum(|x|^p)^(1/p)`; `p = 1` the sum
    of magnitudes, `p = 0` the count of non-zero elements, `p = inf` (`-inf`)
    the largest (smallest) magnitude. Floating inputs only; the result has
    the input's type. kiln-decompose-composites writes it with abs, pow,
    sum and amax/amin, the root taken of 1 where the sum is 0 so that the
    gradient is eager's (NormBackward1: none for a zero vector).

    ```mlir
    %n = kiln.norm %x p 2.0 dims [1] : tensor<?x?xf32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, F64Attr:$p,
                       DenseI64ArrayAttr:$dims, UnitAttr:$keepdim);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `p` $p `dims` $dims (`keepdim` $keepdim^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      ::mlir::Type input = adaptor.getInput().getType();
      return inferReductionResult(
          loc, input, adaptor.getDims(), adaptor.getKeepdim(),
          ::mlir::cast<::mlir::ShapedType>(input).getElementType(), inferred);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      if (hasOpenTypes(*this))
        return success();
      return verifyReductionDims(getOperation(), getInput().getType(),
                                 getDims());
    }
  }];
}

class Kiln_VarianceOp<string mnemonic, string what>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor, Kiln_FloatInput,
                         DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::" # mnemonic #
                "($input, $dims, $correction_value|$correction, $keepdim)";
  let traceWith = "traceVariance";
  let tensorMethod = 1;
  let traceMinArgs = 1;
  let summary = what # " over dims";
  let description = !strconcat("The ", what, [{ of `input` over `dims`
    (sorted, distinct, non-negative; empty means every dim), keeping them as
    size 1 when `keepdim` is set: the sum of squared deviations from the
    mean divided by the count less `correction` (Bessel's 1 by default), as
    the runtime computes it. A correction known only at run time is the
    `index` operand `correction_value`, which then overrides the
    attribute. kiln-decompose-composites writes it with mean, sum and div.

    ```mlir
    %v = kiln.}], mnemonic, [{ %x dims [1] keepdim : tensor<?x?xf32> -> tensor<?x1xf32>
    %w = kiln.}], mnemonic, [{ %x dims [0] correction_value %c : tensor<?x?xf32> -> tensor<?xf32>
    ```
  }]);
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$dims,
                       Optional<Index>:$correction_value,
                       DefaultValuedAttr<I64Attr, "1">:$correction,
                       UnitAttr:$keepdim);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `dims` $dims (`keepdim` $keepdim^)?
    (`correction_value` $correction_value^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      ::mlir::Type input = adaptor.getInput().getType();
      return inferReductionResult(
          loc, input, adaptor.getDims(), adaptor.getKeepdim(),
          ::mlir::cast<::mlir::ShapedType>(input).getElementType(), inferred);
    }
    ::llvm::LogicalResult $cppClass::verify() {
      if (hasOpenTypes(*this))
        return success();
      return verifyReductionDims(getOperation(), getInput().getType(),
                                 getDims());
    }
  }];
}

def Kiln_VarOp : Kiln_VarianceOp<"var", "variance">;
def Kiln_StdOp : Kiln_VarianceOp<"std", "standard deviation">;

class Kiln_TriangleOp<string mnemonic, string what, string keeps>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::" # mnemonic # "($input, $diagonal)";
  let traceWith = "traceTriangle";
  let tensorMethod = 1;
  let traceMinArgs = 1;
  let summary = "the " # what # " triangle of the last two dims";
  let description = !strconcat([{The input with the elements of its last two
    dims (a batch of matrices) zeroed outside the }], what, [{ triangle: the
    element at row `i`, column `j` is kept where `j - i` }], keeps, [{
    `diagonal`, as torch's. The input needs at least two dims (eager's
    error otherwise); the result has its type. kiln-decompose-composites
    writes it with arange, cmp and where.

    ```mlir
    %y = kiln.}], mnemonic, [{ %x diagonal 1 : tensor<?x?xf32> -> tensor<?x?xf32>
    ```
  }]);
  let arguments = (ins Kiln_Tensor:$input,
                       DefaultValuedAttr<I64Attr, "0">:$diagonal);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input (`diagonal` $diagonal^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      // Named as the runtime names it: "tril", not "kiln.tril".
      return inferTriangle(
          loc, ::llvm::StringRef(getOperationName()).drop_front(5),
          adaptor.getOperands(), inferred);
    }
  }];
}

def Kiln_TrilOp : Kiln_TriangleOp<"tril", "lower", "at most">;
def Kiln_TriuOp : Kiln_TriangleOp<"triu", "upper", "at least">;

// A test of each element's value, giving bools: kiln-decompose-composites
// writes it with kiln.cmp against wrapped numbers (bools added as or,
// multiplied as and), as the runtime computes it.
class Kiln_ValueTestOp<string mnemonic, string opSummary>
    : Kiln_Op<mnemonic, [Pure, SameOperandsAndResultShape, InferTypeOpAdaptor]> {
  let cppCall = "kiln::" # mnemonic # "($input)";
  let traceWith = "traceUnary";
  let tensorMethod = 1;
  let summary = opSummary;
  let description = !strconcat("Elementwise `", mnemonic, "`: ", opSummary,
    [{, an i1 tensor of the input's shape; integer and bool inputs are
    compared as numbers.

    ```mlir
    %m = kiln.}], mnemonic, [{ %x : tensor<?x16xf32> -> tensor<?x16xi1>
    ```
  }]);
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      inferred.push_back(
          ::llvm::cast<::mlir::RankedTensorType>(adaptor.getInput().getType())
              .clone(::mlir::IntegerType::get(context, 1)));
      return success();
    }
  }];
}

def Kiln_IsnanOp : Kiln_ValueTestOp<"isnan", "whether x is NaN (x != x)">;
def Kiln_IsinfOp : Kiln_ValueTestOp<"isinf",
    "whether x is +inf or -inf">;
def Kiln_IsfiniteOp : Kiln_ValueTestOp<"isfinite",
    "whether x is neither NaN nor infinite">;
def Kiln_LogicalNotOp : Kiln_ValueTestOp<"logical_not", "whether x is 0">;

// The truth (nonzero) of two tensors of any element types combined, as
// bools of their broadcast shape: kiln-decompose-composites writes it with
// kiln.cmp (bools multiplied as and, added as or).
class Kiln_LogicalOp<string mnemonic, string opSummary>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::" # mnemonic # "($lhs, $rhs)";
  let traceWith = "traceBinary";
  let tensorMethod = 1;
  let summary = opSummary;
  let description = !strconcat("Elementwise `", mnemonic, "`: ", opSummary,
    [{, an i1 tensor of the operands' broadcast shape; any element types,
    compared with 0 as numbers.

    ```mlir
    %m = kiln.}], mnemonic, [{ %a, %b : (tensor<?x16xf32>, tensor<16xi1>) -> tensor<?x16xi1>
    ```
  }]);
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_BoolTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` `(` type($lhs) `,` type($rhs) `)` `->` type($result)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      return inferBroadcastResult(
          loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
          ::mlir::IntegerType::get(context, 1), inferred);
    }
  }];
}

def Kiln_LogicalAndOp : Kiln_LogicalOp<"logical_and",
    "whether both elements are nonzero">;
def Kiln_LogicalOrOp : Kiln_LogicalOp<"logical_or",
    "whether either element is nonzero">;

// An activation that passes positive floats and scales what is below
// zero by an f64 factor (a constant or a run-time value):
// kiln-decompose-composites writes it with kiln.cmp and kiln.where, the
// exponential taken of 0 where x is positive, so that its gradient is
// eager's (no inf * 0 where expm1 of a large x overflows).
class Kiln_BelowZeroOp<string mnemonic, string factor, string below>
    : Kiln_Op<mnemonic, [Pure, Kiln_FloatInput,
                         AllTypesMatch<["input", "result"]>]> {
  let cppCall = "kiln::" # mnemonic # "($input, $factor)";
  let summary = "x where x > 0, else " # below;
  let description = !strconcat("torch's `", mnemonic, "`: `x` where `x > 0`, ",
    "else `", below, "` with `", factor, "` the `factor`; floats only, ",
    [{the result has the input's type.

    ```mlir
    %y = kiln.}], mnemonic, [{ %x, %k : tensor<?x16xf32>
    ```
  }]);
  let arguments = (ins Kiln_Tensor:$input, F64:$factor);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input `,` $factor attr-dict `:` type($input)";
}

def Kiln_FlipOp : Kiln_Op<"flip", [Pure, AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::flip($input, $dims)";
  let summary = "the elements in reverse order along dims";
  let description = [{
    torch's `flip`: the input with the order of its elements reversed along
    each of `dims` (sorted, distinct, non-negative once the input's rank is
    known). kiln-decompose-composites writes it as a kiln.gather per dim,
    at positions `size - 1 - i`.

    ```mlir
    %y = kiln.flip %x dims [0, 2] : tensor<?x4x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input `dims` $dims attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Kiln_RollOp : Kiln_Op<"roll", [Pure, AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::roll($input, {$shift}, {$dim})";
  let summary = "the elements shifted cyclically along a dim";
  let description = [{
    torch's `roll` along one dim: element `i` of the result is element
    `(i - shift) mod size` of the input (a roll over several dims is one
    per dim). kiln-decompose-composites writes it as a kiln.gather, the
    shift reduced modulo the size at run time (any shift of an empty dim
    is none).

    ```mlir
    %y = kiln.roll %x shift -2 dim 1 : tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$shift, I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input `shift` $shift `dim` $dim attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Kiln_LeakyReluOp : Kiln_BelowZeroOp<"leaky_relu", "negative_slope",
                                        "negative_slope * x">;
def Kiln_EluOp : Kiln_BelowZeroOp<"elu", "alpha", "alpha * (exp(x) - 1)">;

def Kiln_MaskedFillOp : Kiln_Op<"masked_fill", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::masked_fill($input, $mask, $value)";
  let summary = "a number where a mask is set, the input elsewhere";
  let description = [{
    torch's `masked_fill`: `value` (0-d: a wrapped number or a tensor)
    converted to the input's element type where the bool `mask` is set,
    the input elsewhere. The mask broadcasts to the input's shape and not
    beyond it (eager's error; checked at run time where sizes are dynamic).
    The result has the input's type. kiln-decompose-composites writes it
    with kiln.cast and kiln.where.

    ```mlir
    %y = kiln.masked_fill %x, %m, %ninf
        : (tensor<?x?xf32>, tensor<1x?xi1>, tensor<f64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_BoolTensor:$mask,
                       Kiln_Tensor:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $mask `,` $value attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      return inferMaskedFill(loc, adaptor.getInput().getType(),
                             adaptor.getMask().getType(),
                             adaptor.getValue().getType(), inferred);
    }
  }];
}

def Kiln_BatchNormOp : Kiln_Op<"batch_norm", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "result"]>, Kiln_FloatInput]> {
  let cppCall = "kiln::batch_norm($input, $running_mean, $running_var, "
                "$weight, $bias, false, 0.1, $eps_value|$eps)";
  let summary = "batch normalisation with running statistics (inference)";
  let description = [{
    torch's `batch_norm` in evaluation mode over dim 1 of an input of rank
    2 or more: `(x - running_mean) / sqrt(running_var + eps) * weight +
    bias`, each of the statistics and parameters `[C]` (C the input's dim
    1; `weight` and `bias` optional), the statistics detached (buffers: no
    gradient reaches them), computed in the promoted type and converted to
    the input's. An eps known only at run time is the `f64` operand
    `eps_value`. kiln-decompose-composites writes it with the channels
    moved last, where `[C]` broadcasts, and checks at run time that each
    `[C]` operand matches the channels where its size is dynamic (eager's
    error).

    ```mlir
    %y = kiln.batch_norm %x, %mean, %var weight %w bias %b {eps = 1.0e-05 : f64}
        : (tensor<?x16x?x?xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>,
           tensor<16xf32>) -> tensor<?x16x?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_Tensor:$running_mean,
                       Kiln_Tensor:$running_var, Optional<Kiln_Tensor>:$weight,
                       Optional<Kiln_Tensor>:$bias, Optional<F64>:$eps_value,
                       F64Attr:$eps);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $running_mean `,` $running_var (`weight` $weight^)?
    (`bias` $bias^)? (`eps_value` $eps_value^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Kiln_GroupNormOp : Kiln_Op<"group_norm", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["input", "result"]>, Kiln_FloatInput]> {
  let cppCall = "kiln::group_norm($input, $groups, $weight, $bias, "
                "$eps_value|$eps)";
  let summary = "group normalisation over dim 1's groups and the rest";
  let description = [{
    torch's `group_norm` of an input `[N, C, ...]`: the C channels split
    into `groups` (which must divide C), each group normalised over its
    channels and the remaining dims, `(x - mean) / sqrt(var + eps)` with
    the biased variance, then scaled and shifted per channel by `weight`
    and `bias` `[C]` (each optional) and converted to the input's type.
    `instance_norm` is a group per channel. An eps known only at run time
    is the `f64` operand `eps_value`. kiln-decompose-composites writes it
    with each group's elements in a row; the groups, and the parameters'
    sizes where dynamic, are checked at run time (eager's errors).

    ```mlir
    %y = kiln.group_norm %x groups %g weight %w bias %b {eps = 1.0e-05 : f64}
        : (tensor<?x32x?x?xf32>, index, tensor<32xf32>, tensor<32xf32>)
          -> tensor<?x32x?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Index:$groups,
                       Optional<Kiln_Tensor>:$weight,
                       Optional<Kiln_Tensor>:$bias, Optional<F64>:$eps_value,
                       F64Attr:$eps);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `groups` $groups (`weight` $weight^)? (`bias` $bias^)?
    (`eps_value` $eps_value^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Kiln_ClampOp : Kiln_Op<"clamp", [Pure, InferTypeOpAdaptor,
                                     Kiln_PromotesToResult,
                                     AttrSizedOperandSegments]> {
  let cppCall = "kiln::clamp($input, kiln::abi::optionalScalar($min), "
                "kiln::abi::optionalScalar($max))";
  let summary = "the input limited to [min, max]";
  let description = [{
    torch's `clamp` with number bounds: `min` and `max` (at least one;
    0-d, wrapped numbers as the source passes them) promote with the input
    as the runtime's maximum and minimum do. NaN stays NaN; where `min >
    max`, every element is `max`. kiln-decompose-composites writes it with
    kiln.cmp and kiln.where so that the gradient is eager's
    (ClampBackward1): the input's only where `min < x < max` strictly, none
    at a bound or at NaN.

    ```mlir
    %y = kiln.clamp %x min %lo max %hi
        : (tensor<?x?xf32>, tensor<f64>, tensor<f64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Optional<Kiln_Tensor>:$min,
                       Optional<Kiln_Tensor>:$max);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input (`min` $min^)? (`max` $max^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      if (inferOpen(adaptor.getOperands(), inferred))
        return success();
      ::llvm::SmallVector<::mlir::Value> operands{adaptor.getInput()};
      for (::mlir::Value bound : {adaptor.getMin(), adaptor.getMax()})
        if (bound)
          operands.push_back(bound);
      return inferArithmeticResult(loc, getOperationName(), operands,
                                   inferred);
    }
  }];
}

def Kiln_LerpOp : Kiln_Op<"lerp", [Pure, Kiln_FloatInput, InferTypeOpAdaptor]> {
  let cppCall = "kiln::lerp($start, $end, $weight)";
  let summary = "linear interpolation from start to end";
  let description = [{
    torch's `lerp` with a number weight: `start + weight * (end - start)`
    where `weight < 0.5`, else `end - (end - start) * (1 - weight)` (from
    the nearer end, so that a weight of 1 gives `end` exactly), start and
    end broadcast together. Floats only, start and end of one element
    type, which the result has. kiln-decompose-composites writes it with
    the arithmetic ops, choosing the end when the weight is a constant.

    ```mlir
    %y = kiln.lerp %a, %b, %w : (tensor<?x8xf32>, tensor<8xf32>, f64) -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$start, Kiln_Tensor:$end, F64:$weight);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $start `,` $end `,` $weight attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, ::std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &inferred) {
      ::mlir::Value start = adaptor.getStart(), end = adaptor.getEnd();
      if (inferOpen(::mlir::ValueRange{start, end}, inferred))
        return success();
      ::mlir::Type e = ::llvm::cast<::mlir::ShapedType>(start.getType())
                           .getElementType();
      if (e != ::llvm::cast<::mlir::ShapedType>(end.getType()).getElementType())
        return emitOptionalError(
            loc, "lerp: start and end must have the same dtype, got ", e,
            " and ",
            ::llvm::cast<::mlir::ShapedType>(end.getType()).getElementType());
      return inferBroadcastResult(loc, {start.getType(), end.getType()}, e,
                                  inferred);
    }
  }];
}

// ATen's (0 < x) - (x < 0), which kiln-decompose-composites writes with
// kiln.cmp, kiln.cast and kiln.sub (its gradient is 0).
def Kiln_SignOp : Kiln_UnaryOp<"sign",
    "-1, 0 or 1 in x's element type (NaN and -0 give 0)">;

def Kiln_CastLikeOp : Kiln_Op<"cast_like", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "$input.to($like.dtype())";
  let summary = "conversion to another tensor's element type";
  let description = [{
    `input` converted as kiln.cast converts it, to the element type of
    `like`, whose shape does not matter: what the runtime's norms do to
    their weight and bias, and masked_fill to its value. It folds to its
    input when the element types agree, and kiln-decompose-composites
    writes it as kiln.cast.

    ```mlir
    %w = kiln.cast_like %g, %x : (tensor<768xf64>, tensor<?x768xf32>) -> tensor<768xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_Tensor:$like);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $like attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

class Kiln_RepeatLikeOp<string mnemonic, bit padsRepeats>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let cppCall = "$input." # mnemonic # "($repeats)";
  let traceWith = "traceRepeat";
  let tensorMethod = 1;
  let traceMinArgs = 2;
  let traceMaxArgs = 2;
  let summary = "the input tiled repeats[i] times along dim i";
  let description = !strconcat("torch's `", mnemonic, "`: the input tiled ",
    "repeats[i] times along dim i. ",
    !if(padsRepeats, "Fewer repeats than dims are padded with leading 1s.",
        "There is a repeat per dim at least."), [{ More repeats than dims
    add leading dims. kiln-decompose-composites writes it as a reshape to
    [1, s0, 1, s1, ...], a `kiln.where` broadcast against a [r0, 1, r1, 1,
    ...] mask and a reshape that multiplies each pair out.

    ```mlir
    %y = kiln.}], mnemonic, [{ %x [2, 3] : tensor<?x4xf32> -> tensor<?x12xf32>
    ```
  }]);
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input $repeats attr-dict `:` type($input) `->` type($result)
  }];
}

def Kiln_RepeatOp : Kiln_RepeatLikeOp<"repeat", 0>;
def Kiln_TileOp : Kiln_RepeatLikeOp<"tile", 1>;

def Kiln_RankOp : Kiln_Op<"rank", [Pure]> {
  let cppCall = "$input.dim()";
  let summary = "the number of dims";
  let description = [{
    `Tensor::dim()` as an `index` value: a constant once the input's rank is
    known (it folds, and kiln-decompose-composites writes it as one).

    ```mlir
    %r = kiln.rank %x : tensor<*x!kiln.open>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Index:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Kiln_NumelOp : Kiln_Op<"numel", [Pure]> {
  let cppCall = "$input.numel()";
  let summary = "the number of elements";
  let description = [{
    `Tensor::numel()` as an `index` value; kiln-decompose-composites writes
    it as the product of the sizes (a constant when they are static).

    ```mlir
    %n = kiln.numel %x : tensor<?x768xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Index:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Kiln_IndexSelectOp : Kiln_Op<"index_select", [Pure, InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "kiln::index_select($input, $dim, $index)";
  let summary = "the slices of a dim at a 1-d index (torch.index_select)";
  let description = [{
    The input's slices along `dim` (non-negative once typed) at each
    element of the integer `index` (1-d, or 0-d: one slice), in its order:
    the result has the input's shape with the index's element count at
    `dim`. Indices outside the dim are eager's error, checked at run time.
    kiln-decompose-composites writes it as a kiln.gather along the dim
    moved last, the index broadcast against the other dims.

    ```mlir
    %y = kiln.index_select %x, %i dim 0 : (tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, Kiln_IntTensor:$index,
                       I64Attr:$dim);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $index `dim` $dim attr-dict `:` functional-type(operands, results)
  }];
}

def Kiln_EinsumOp : Kiln_Op<"einsum", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::einsum($equation, $operands)";
  let summary = "an Einstein summation of one or two operands";
  let description = [{
    torch's `einsum` of one or two operands, with the plan eager follows
    (kiln/EinsumPlan.h): labels only one operand has and the output lacks
    summed out, each operand permuted to [batch, kept, contracted], one
    batched kiln.matmul of the kept and contracted dims flattened, the
    result unflattened and permuted to the output's order. `...` stands for
    broadcast batch dims, resolved once the operands' ranks are known.
    Contracted sizes that differ are eager's error (checked at run time
    where dynamic). kiln-decompose-composites writes it with kiln.sum,
    kiln.permute, kiln.reshape and kiln.matmul.

    ```mlir
    %y = kiln.einsum "bij,bjk->bik" %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
    ```
  }];
  let arguments = (ins StrAttr:$equation, Variadic<Kiln_Tensor>:$operands);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $equation $operands attr-dict `:` functional-type($operands, results)
  }];
}

// torch.nn.functional.interpolate of an [N, C, H, W] float image: to `sizes`
// (kiln.interpolate) or scaled by `scale` (kiln.interpolate_scaled: the
// sizes floor(H * scale), positions mapped back by 1 / scale, as torch
// does). `nearest` takes the source floor(o * H / h) computed in f32 as
// ATen does; `bilinear` weighs the two neighbours of (o + 0.5) * H / h - 0.5
// (o * (H - 1) / (h - 1) with `align_corners`), in f64. Only the batch may
// be empty; sizes below 1 and a scale not above 0 are eager's errors
// (checked at run time where not constant). kiln-decompose-composites
// writes it as rows then columns, each a kiln.index_select (bilinear: two,
// weighed).
class Kiln_InterpolateLikeOp<string mnemonic, dag size, string call,
                             string sizeFormat>
    : Kiln_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::interpolate($input, " # call #
                ", $mode, $align_corners)";
  let summary = "an image resampled to other sizes";
  let arguments = !con((ins Kiln_FloatTensor:$input), size,
                       (ins Kiln_InterpolateMode:$mode,
                            OptionalAttr<BoolAttr>:$align_corners));
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = "$input " # sizeFormat # [{ $mode attr-dict `:`
    functional-type(operands, results)
  }];
}

def Kiln_InterpolateOp : Kiln_InterpolateLikeOp<"interpolate",
    (ins Variadic<Index>:$sizes), "$sizes", "`sizes` `[` $sizes `]`"> {
  let description = [{
    The image resampled to `sizes` (h, w).

    ```mlir
    %y = kiln.interpolate %x sizes [%h, %c8] bilinear : (tensor<?x3x?x?xf32>, index, index) -> tensor<?x3x?x8xf32>
    ```
  }];
}

def Kiln_InterpolateScaledOp : Kiln_InterpolateLikeOp<"interpolate_scaled",
    (ins F64:$scale), "$scale", "`scale` $scale"> {
  let description = [{
    The image scaled by `scale` (both sizes floor(size * scale)).

    ```mlir
    %y = kiln.interpolate_scaled %x scale %f nearest : (tensor<?x3x?x?xf32>, f64) -> tensor<?x3x?x?xf32>
    ```
  }];
}

def Kiln_ConvTranspose2dOp : Kiln_Op<"conv_transpose2d", [Pure,
    InferTypeOpAdaptor, AttrSizedOperandSegments, Kiln_PromotesToResult]> {
  let summary = "2-d transposed convolution, NCHW (torch's conv_transpose2d)";
  let description = [{
    `input` is `[N, C, H, W]` (or one image `[C, H, W]`, whose result has
    no batch dim either), `weight` `[C, O / groups, kH, kW]`, `bias` `[O]`;
    `strides`, `padding`, `output_padding` and `dilation` hold `[h, w]`
    (strides and dilation at least 1, the paddings at least 0, each
    output_padding below its stride or its dilation). The output is `[N,
    O, (H - 1) sh - 2 ph + dh (kH - 1) + oph + 1, ...]`, the gradient of a
    kiln.conv2d's input.

    A parameter known only at run time (a module's member, say) is
    `kDynamic` in its attribute and an `index` operand in `params`, in the
    order sh, sw, ph, pw, oph, opw, groups, dh, dw (the runtime call's
    order). kiln-decompose-composites writes it as eager computes it: the
    input with stride - 1 zeros between its pixels, each side padded by
    dilation * (k - 1) - padding (cropped where negative) and the far side
    by output_padding more, convolved with stride 1 by the weight flipped,
    its in and out swapped within each group; eager's refusals are checked
    at run time where the types leave them open.

    ```mlir
    %y = kiln.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>,
        output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
        : (tensor<?x16x?x?xf32>, tensor<16x8x3x3xf32>, tensor<8xf32>) -> tensor<?x8x?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_FloatTensor:$input, Kiln_FloatTensor:$weight,
                       Optional<Kiln_FloatTensor>:$bias,
                       Variadic<Index>:$params,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DenseI64ArrayAttr:$dilation);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`params` `[` $params^ `]`)? attr-dict
    `:` functional-type(operands, results)
  }];
}

def Kiln_PadOp : Kiln_Op<"pad", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::pad($input, $pads, $mode, $value)";
  let summary = "trailing dims padded before and after (torch's pad)";
  let description = [{
    `pads` holds a (before, after) pair for each of the last dims, the
    last dim's first; a negative count crops. `constant` fills the new
    elements with `value` (an f64 or index number, converted to the input's
    element type), `reflect` mirrors the dim without repeating its edge
    (counts must be below the dim's size), `replicate` repeats the edge.
    Sizes that would become negative, and eager's other refusals, are
    errors (checked at run time where sizes are dynamic).
    kiln-decompose-composites writes each pair as a kiln.index_select of
    the source positions (for `constant`, of the input with one element of
    the value appended, picked where a position falls outside).

    ```mlir
    %y = kiln.pad %x [1, 2] reflect value %c0 : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, DenseI64ArrayAttr:$pads,
                       Kiln_PadMode:$mode, AnyTypeOf<[F64, Index]>:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input $pads $mode `value` $value attr-dict `:`
    functional-type(operands, results)
  }];
}

def Kiln_DropoutOp : Kiln_Op<"dropout", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let cppCall = "kiln::dropout($input, $p)";
  let summary = "dropout at inference: the input, p's range checked";
  let description = [{
    torch's `dropout` outside training: the input itself, with eager's
    check that the probability `p` lies in [0, 1] (a run-time error
    otherwise). Training mode draws a mask from a generator that is the
    program's state: the tracer leaves it to eager code (a graph break).
    kiln-decompose-composites writes it as the check and the input.

    ```mlir
    %y = kiln.dropout %x p %p : tensor<?x768xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, F64:$p);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "$input `p` $p attr-dict `:` type($input)";
}

def Kiln_FullLikeOp : Kiln_Op<"full_like", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::full_like($input, $value)";
  let summary = "a tensor of the input's shape and element type, one value";
  let description = [{
    torch's `full_like` (and `zeros_like`, `ones_like`, `empty_like`, whose
    value is 0 or 1): the input's shape and element type, every element
    `value` (an f64 or index number) converted as kiln.cast converts it.
    kiln-decompose-composites writes it as the converted value expanded to
    the input's sizes.

    ```mlir
    %z = kiln.full_like %x, %c0 : (tensor<?x4xf32>, index) -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, AnyTypeOf<[F64, Index]>:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $value attr-dict `:` functional-type(operands, results)
  }];
}

// Factories: kiln-decompose-composites writes them with kiln.arange,
// kiln.random and elementwise ops. Sizes that are constants when the op is
// built are static dims of the result; the others are checked at run time
// as eager checks them (the call then reruns eagerly and raises eager's
// error).

def Kiln_EyeOp : Kiln_Op<"eye", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::eye($rows, $cols, $dtype)";
  let summary = "the rows by cols identity";
  let description = [{
    torch's `eye`: a `[rows, cols]` matrix of element type `dtype`, ones on
    the main diagonal and zeros elsewhere (the source's `cols` of -1, "as
    many as the rows", is the tracer's to resolve: a negative size is
    eager's error). kiln-decompose-composites writes it as the comparison of
    a column and a row of kiln.arange.

    ```mlir
    %i = kiln.eye %n, %c4 dtype f32 : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Index:$rows, Index:$cols,
                       TypeAttrOf<Kiln_AnyElement>:$dtype);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = [{
    $rows `,` $cols `dtype` $dtype attr-dict `:` type($result)
  }];
}

def Kiln_OneHotOp : Kiln_Op<"one_hot", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::one_hot($ids, $classes)";
  let summary = "int64 ids as rows of the identity (torch's one_hot)";
  let description = [{
    The i64 `ids` as i64 one-hot rows of `classes` elements, a new last dim:
    ids outside `[0, classes)` and a negative `classes` are eager's errors
    (torch's -1, the count read from the ids, is the tracer's to refuse: it
    makes a size depend on values). kiln-decompose-composites writes it as a
    kiln.embedding of the ids into the identity, which checks their range.

    ```mlir
    %y = kiln.one_hot %ids classes %c10 : tensor<?xi64> -> tensor<?x10xi64>
    ```
  }];
  let arguments = (ins Kiln_IntTensor:$ids, Index:$classes);
  let results = (outs Kiln_TensorOf<[I64]>:$result);
  let assemblyFormat = [{
    $ids `classes` $classes attr-dict `:` type($ids) `->` type($result)
  }];
}

def Kiln_LinspaceOp : Kiln_Op<"linspace", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::linspace($start, $end, $steps, $dtype)";
  let summary = "steps values from start to end, evenly spaced";
  let description = [{
    torch's `linspace` in the floating `dtype`: the first half counted up
    from `start` and the second down from `end`, so that both ends are
    exact, as eager computes it; a negative `steps` is eager's error.
    kiln-decompose-composites writes it with kiln.arange, kiln.mul,
    kiln.add and kiln.where.

    ```mlir
    %t = kiln.linspace %a, %b, %n dtype f32 : tensor<?xf32>
    ```
  }];
  let arguments = (ins F64:$start, F64:$end, Index:$steps,
                       TypeAttrOf<Kiln_AnyElement>:$dtype);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $start `,` $end `,` $steps `dtype` $dtype attr-dict `:` type($result)
  }];
}

def Kiln_RandintOp : Kiln_Op<"randint", [Pure, InferTypeOpAdaptor]> {
  let cppCall = "kiln::randint($low, $high, $sizes, $seed, $dtype)";
  let summary = "integers uniform in [low, high), as kiln::randint";
  let description = [{
    `floor(u * (high - low)) + low` in `dtype` (numeric), `u` the f64
    kiln.random uniform draws of `seed` over `sizes`: the runtime's
    composition, so that compiled and eager draws agree element for element.
    `high <= low` is eager's error. kiln-decompose-composites writes it with
    kiln.random, kiln.floor and kiln.cast.

    ```mlir
    %t = kiln.randint %c0, %v, [%b, %c8] seed %s dtype i64 : tensor<?x8xi64>
    ```
  }];
  let arguments = (ins Index:$low, Index:$high, Variadic<Index>:$sizes,
                       Index:$seed, TypeAttrOf<Kiln_AnyElement>:$dtype);
  let results = (outs Kiln_NumericTensor:$result);
  let assemblyFormat = [{
    $low `,` $high `,` `[` $sizes `]` `seed` $seed `dtype` $dtype attr-dict
    `:` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Constants, scalars and sizes
//===----------------------------------------------------------------------===//

def Kiln_ConstantOp : Kiln_Op<"constant", [ConstantLike, Pure,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "a tensor constant";
  let description = [{
    ```mlir
    %c = kiln.constant dense<1.000000e+00> : tensor<f32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Kiln_FullOp : Kiln_Op<"full", [Pure]> {
  let summary = "a tensor filled with one value";
  let description = [{
    Like `kiln::full`: the result type gives the static sizes; dynamic dims
    take their sizes from the `index` operands. `value` has the result's
    element type.

    ```mlir
    %z = kiln.full [%n] {value = 0.000000e+00 : f32} : tensor<?x4xf32>
    ```
  }];
  let arguments = (ins Variadic<Index>:$sizes, TypedAttrInterface:$value);
  let results = (outs Kiln_Tensor:$result);
  let assemblyFormat = "(` ` `[` $sizes^ `]`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Kiln_RandomOp : Kiln_Op<"random", [Pure]> {
  let summary = "counter-based random numbers, as kiln::rand and kiln::randn";
  let description = [{
    Element `i` (row-major) is a pure function of `seed` and `i`, the same
    as the runtime's: `uniform` is the top 53 bits of SplitMix64(seed, i)
    as a double in [0, 1); `normal` pairs elements 2k and 2k + 1 as the
    Box-Muller cosine and sine of draws 2k and 2k + 1. Computed in f64,
    then converted to the result's element type. The result type gives the
    static sizes; dynamic dims take their sizes from the `index` operands.

    ```mlir
    %noise = kiln.random normal %seed [%b] : tensor<?x16xf32>
    ```
  }];
  let arguments = (ins Kiln_RandomDistribution:$distribution, Index:$seed,
                       Variadic<Index>:$sizes);
  let results = (outs Kiln_FloatTensor:$result);
  let assemblyFormat = [{
    $distribution $seed (` ` `[` $sizes^ `]`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Kiln_ArangeOp : Kiln_Op<"arange", [Pure]> {
  let summary = "start, start + step, ... below end";
  let description = [{
    An integer range, as `kiln::arange` of integers; `step` must not be 0.

    ```mlir
    %pos = kiln.arange %c0, %t, %c1 : tensor<?xi64>
    ```
  }];
  let arguments = (ins Index:$start, Index:$end, Index:$step);
  let results = (outs 1DTensorOf<[I32, I64]>:$result);
  let assemblyFormat = "$start `,` $end `,` $step attr-dict `:` type($result)";
}

def Kiln_FromScalarOp : Kiln_Op<"from_scalar", [Pure]> {
  let summary = "a 0-d tensor holding a scalar value";
  let description = [{
    Brings a host scalar computed in the graph (a float parameter, an
    `index` size) into tensor land, as torch wraps Python numbers.

    ```mlir
    %s = kiln.from_scalar %scale : f32 -> tensor<f32>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Kiln_AnyElement, Index]>:$scalar);
  let results = (outs 0DTensorOf<[F16, BF16, F32, F64, I1, I32, I64]>:$result);
  let assemblyFormat = "$scalar attr-dict `:` type($scalar) `->` type($result)";
  let hasVerifier = 1;
}

def Kiln_DimOp : Kiln_Op<"dim", [Pure, DeclareOpInterfaceMethods<Kiln_DimsOpInterface>]> {
  let cppCall = "$input.size($index)";
  let summary = "the size of one dim";
  let description = [{
    `Tensor::size(index)` as an `index` value; folds to a constant when the
    dim is static.

    ```mlir
    %t = kiln.dim %x, 1 : tensor<?x?x768xf32>
    ```
  }];
  let arguments = (ins Kiln_Tensor:$input, I64Attr:$index);
  let results = (outs Index:$result);
  let assemblyFormat = "$input `,` $index attr-dict `:` type($input)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Calls that stay opaque inside the graph
//===----------------------------------------------------------------------===//

def Kiln_OpaqueCallOp : Kiln_Op<"opaque_call",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "a call of an allow_in_graph function through a callback";
  let description = [{
    A function marked `KILN_ALLOW_IN_GRAPH()` is not traced: the graph calls
    it, by its mangled name, through the runtime's callback table, with the
    tensors given and receives the tensors it returns. It is opaque, so it is
    assumed to have effects and is never reordered or removed.

    ```mlir
    %y = kiln.opaque_call @_Z4clipRKN4kiln6TensorE(%x) : (tensor<?xf32>) -> tensor<?xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$operands);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
}

#endif // KILN_DIALECT_KILN_IR_KILNOPS_TD
