//===- KilnOps.h - The kiln dialect's operations ----------------*- C++ -*-===//
#ifndef KILN_DIALECT_KILN_IR_KILNOPS_H
#define KILN_DIALECT_KILN_IR_KILNOPS_H

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kiln/Dialect/Kiln/IR/KilnEnums.h.inc"

namespace mlir::kiln {

namespace trait {
/// Kiln_PromotesToResult (KilnBase.td): an elementwise op that computes in
/// its result's element type, its tensor operands converted to it first.
template <typename ConcreteType>
class PromotesToResult
    : public mlir::OpTrait::TraitBase<ConcreteType, PromotesToResult> {};

/// Kiln_ViewOfInput (KilnBase.td): a view of operand 0.
template <typename ConcreteType>
class ViewOfInput : public mlir::OpTrait::TraitBase<ConcreteType, ViewOfInput> {
};

/// Eager's refusal of an op on an input (operand 0) of element types it is
/// not defined on: all but floating ones (floatOnly) or bools.
LogicalResult verifyInputElementType(Operation *op, bool floatOnly);

/// Kiln_FloatInput (KilnBase.td).
template <typename ConcreteType>
class FloatInput : public mlir::OpTrait::TraitBase<ConcreteType, FloatInput> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyInputElementType(op, /*floatOnly=*/true);
  }
};

/// Kiln_NoBoolInput (KilnBase.td).
template <typename ConcreteType>
class NoBoolInput : public mlir::OpTrait::TraitBase<ConcreteType, NoBoolInput> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyInputElementType(op, /*floatOnly=*/false);
  }
};
} // namespace trait

/// An op on an open operand infers an open result (tensor<*x!kiln.open>):
/// its type waits for kiln-refine-types. Returns whether it did.
bool inferOpen(ValueRange operands, SmallVectorImpl<Type> &inferred);

/// kiln.masked_fill's result: the input's type, where the mask broadcasts
/// to its shape (static sizes that cannot are eager's error) and the value
/// is 0-d.
LogicalResult inferMaskedFill(std::optional<Location> loc, Type input,
                              Type mask, Type value,
                              SmallVectorImpl<Type> &inferred);

/// kiln.narrow's (`length` given) and kiln.select's result: the input's
/// type with `dim` sized `length` (static when a constant) or dropped;
/// constant ranges that eager refuses are refused.
LogicalResult inferSliceOfDim(std::optional<Location> loc, StringRef name,
                              Value input, int64_t dim, Value start,
                              Value length, SmallVectorImpl<Type> &inferred);

/// The value of a factor of the addmm family (an integer or a float).
double factorValue(Attribute factor);

/// kiln.addmm's and kiln.baddbmm's result (`name`, operands of rank
/// `rank`): beta * input + alpha * (lhs @ rhs) in the product's shape,
/// each step promoted as the runtime's ops promote (beta 0: the scaled
/// product alone); an input that cannot broadcast to it is refused.
LogicalResult inferScaledProduct(std::optional<Location> loc, StringRef name,
                                 int64_t rank, Value input, Value lhs,
                                 Value rhs, Attribute beta, Attribute alpha,
                                 SmallVectorImpl<Type> &inferred);

/// Eager's refusal of an op on elements of type e ("not supported for
/// dtype i64; convert with to(kiln::kFloat32) first").
std::string unsupportedDTypeMessage(Type e);

/// Whether op has an open operand or result: its verifier checks nothing
/// until the graph is typed (kiln-refine-types).
bool hasOpenTypes(Operation *op);

/// Dim `dim` of a tensor of rank `rank` counted from 0 (a negative one
/// counts from the end); one out of range stays as written, for the
/// verifier to name.
int64_t countDim(int64_t dim, int64_t rank);

/// Rewrites op's dim attributes (`dim`, `dims`, `dim0`, `dim1`,
/// `permutation`, `index`, `start_dim`, `end_dim`) written from the end
/// (negative) as counted from 0 for a tensor of rank `rank`; `dims` sorted and
/// made distinct. A dim out of range stays as written (DimsOpInterface).
void normalizeDimAttrs(Operation *op, int64_t rank);

/// The numpy broadcast of the operands' shapes, as a ranked tensor of
/// elementType (the first operand's when null). A dynamic dim broadcast
/// against a static size > 1 takes that size; against 1 or ? it stays ?.
LogicalResult inferBroadcastResult(std::optional<Location> loc,
                                   ArrayRef<Type> operandTypes,
                                   Type elementType,
                                   SmallVectorImpl<Type> &inferred);

/// Shape of a reduction over dims (all dims when empty), elements of
/// elementType.
/// tril and triu: the input's type, which needs two dims at least (eager's
/// words, `op` its name).
LogicalResult inferTriangle(std::optional<Location> loc, StringRef op,
                            ValueRange operands,
                            SmallVectorImpl<Type> &inferred);
LogicalResult inferReductionResult(std::optional<Location> loc, Type input,
                                   ArrayRef<int64_t> dims, bool keepdim,
                                   Type elementType,
                                   SmallVectorImpl<Type> &inferred);

/// The element type the runtime computes an elementwise op on `operands`
/// in: torch's result_type, where tensors with dims outrank 0-d tensors,
/// which outrank wrapped numbers (the 0-d results of kiln.from_scalar), each
/// only by category (bool < integer < floating) unless it is the highest
/// present; within a category the wider type wins (f16 with bf16: f32), and
/// a wrapped number that raises the category gives its default type (i64,
/// f32).
Type promotedElementType(ValueRange operands);

/// The result of an elementwise arithmetic op (kiln.add, ...) named
/// opName: the operands' broadcast shape in their promoted element type,
/// true division's floating (f32 for integers); subtracting bools is
/// refused with the runtime's message.
LogicalResult inferArithmeticResult(std::optional<Location> loc,
                                    StringRef opName, ValueRange operands,
                                    SmallVectorImpl<Type> &inferred);

/// input's shape with a floating element type: its own, or f32 for
/// integers and bools (the unary floating ops).
LogicalResult inferFloatResult(Type input, SmallVectorImpl<Type> &inferred);

/// What sum and prod give for input's elements: i64 for integers and
/// bools, the input's floating type otherwise.
Type widenedIntegers(Type input);

/// dims sorted, distinct and within [0, rank).
LogicalResult verifyReductionDims(Operation *op, Type input,
                                  ArrayRef<int64_t> dims);

/// 0 <= dim < rank, with what the dim is called in the message.
LogicalResult verifyDimInRange(Operation *op, int64_t dim, int64_t rank,
                               StringRef name);

} // namespace mlir::kiln

#include "kiln/Dialect/Kiln/IR/KilnInterfaces.h.inc"

#define GET_OP_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnOps.h.inc"

namespace mlir::kiln {
/// Attaches each differentiable op's GradientOpInterface (KilnGradients.cpp);
/// the kiln dialect does when it loads.
void attachGradients(MLIRContext &context);

/// Whether values of type t take gradients: ranked tensors of a
/// floating-point element type (not integers, bools or index sizes).
bool takesGradient(Type t);

/// The sizes of x's dynamic dims, in order (kiln.dim of each): what a
/// tensor of x's shape is built with (kiln.full, kiln.reshape, kiln.expand).
SmallVector<Value> dynamicSizesOf(OpBuilder &b, Location loc, Value x);
} // namespace mlir::kiln

#endif
