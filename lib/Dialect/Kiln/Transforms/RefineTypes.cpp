//===- RefineTypes.cpp - A graph typed from its arguments' types ----------===//
//
// kiln-refine-types (Passes.td): the graph traced on open types is typed
// by inferring each op's results again, in order, from its operands' new
// types with the op's own InferTypeOpInterface, as TOSA's shape inference
// refines unranked tensors; each op is then verified on what it now has.
//
//===----------------------------------------------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::kiln {
#define GEN_PASS_DEF_KILNREFINETYPES
#include "kiln/Dialect/Kiln/Transforms/Passes.h.inc"
} // namespace mlir::kiln

using namespace mlir;
namespace k = mlir::kiln;

namespace {

/// 1 for a step-1 slice whose end is its start plus one, where the start
/// is not a constant (a constant range's width needs its dim's size): a
/// window of one, which may broadcast. Wider windows stay dynamic: a loop
/// over chunks often ends with a shorter one, whose call would then fail
/// its check and run eagerly.
std::optional<int64_t> widthOf(k::SliceOp slice) {
  if (slice.getStep() != 1 || matchPattern(slice.getStart(), m_Constant()))
    return std::nullopt;
  auto sum = slice.getEnd().getDefiningOp<arith::AddIOp>();
  if (!sum)
    return std::nullopt;
  Value other = sum.getLhs() == slice.getStart()   ? sum.getRhs()
                : sum.getRhs() == slice.getStart() ? sum.getLhs()
                                                   : Value();
  APInt c;
  if (!other || !matchPattern(other, m_ConstantInt(&c)) || c != 1)
    return std::nullopt;
  return 1;
}

/// The stated result type of one of the ops that state theirs, completed
/// from its input's type.
Type completeStated(Operation *op, Type stated) {
  Type input = op->getNumOperands() ? op->getOperand(0).getType() : Type();
  auto ranked = dyn_cast<RankedTensorType>(stated);
  auto in = dyn_cast_or_null<RankedTensorType>(input);
  return TypeSwitch<Operation *, Type>(op)
      // A cast keeps its input's shape.
      .Case([&](k::CastOp) -> Type {
        if (!in || ranked)
          return stated;
        return in.clone(cast<TensorType>(stated).getElementType());
      })
      // A slice keeps its input's type but for the sliced dim's size: 1
      // for [s, s + 1) (`x.slice(1, e, e + 1)`), which the conversion
      // checks at run time (a start past the size, or counted from the
      // end, makes it empty: the call then runs eagerly).
      .Case([&](k::SliceOp slice) -> Type {
        if (!in || ranked)
          return ranked && in ? ranked.clone(in.getElementType()) : stated;
        SmallVector<int64_t> shape(in.getShape());
        int64_t dim = slice.getDim();
        if (dim >= 0 && dim < in.getRank())
          shape[dim] = widthOf(slice).value_or(ShapedType::kDynamic);
        return in.clone(shape);
      })
      // Reshapes keep their input's element type.
      .Case<k::ReshapeOp, k::ExpandOp>([&](Operation *) -> Type {
        if (!ranked || !in)
          return stated;
        return ranked.clone(in.getElementType());
      })
      // An opaque call is assumed to give its first argument's rank and
      // element type (its adapter checks), a matrix of f32 without one.
      .Case([&](k::OpaqueCallOp) -> Type {
        if (!input)
          return RankedTensorType::get(
              {ShapedType::kDynamic, ShapedType::kDynamic},
              Float32Type::get(op->getContext()));
        if (!in)
          return stated;
        return RankedTensorType::get(
            SmallVector<int64_t>(in.getRank(), ShapedType::kDynamic),
            in.getElementType());
      })
      .Default([&](Operation *) { return stated; });
}

/// An expanded dim whose size is the input's aligned dim (`-1`, which the
/// source writes as `kiln.dim` of the input, counted from the end) takes
/// that size where it is static: the size operand goes.
void keepStaticSizes(k::ExpandOp op) {
  auto in = dyn_cast<RankedTensorType>(op.getInput().getType());
  auto out = dyn_cast<RankedTensorType>(op.getType());
  if (!in || !out)
    return;
  int64_t lead = out.getRank() - in.getRank();
  SmallVector<int64_t> shape(out.getShape());
  unsigned operand = 0;
  for (int64_t d = 0; d < out.getRank(); ++d) {
    if (!out.isDynamicDim(d))
      continue;
    if (operand >= op.getSizes().size())
      return; // the verifier names the missing size
    auto dim = op.getSizes()[operand].getDefiningOp<k::DimOp>();
    int64_t aligned = d - lead;
    if (dim && dim.getInput() == op.getInput() && aligned >= 0 &&
        static_cast<int64_t>(dim.getIndex()) == aligned &&
        !in.isDynamicDim(aligned)) {
      shape[d] = in.getDimSize(aligned);
      op.getSizesMutable().erase(operand);
      continue;
    }
    ++operand;
  }
  op.getResult().setType(out.clone(shape));
}

/// The two arms of a select of tensors (a host bool choosing between
/// values traced in both arms of an `if`) may know different sizes
/// statically: the result is what both promise, each arm cast to it.
LogicalResult joinArms(arith::SelectOp select) {
  auto t = dyn_cast<RankedTensorType>(select.getTrueValue().getType());
  auto f = dyn_cast<RankedTensorType>(select.getFalseValue().getType());
  if (!t || !f)
    return success();
  if (t.getRank() != f.getRank() || t.getElementType() != f.getElementType())
    return select.emitOpError("the arms give ")
           << t << " and " << f << ", which one variable cannot hold";
  SmallVector<int64_t> shape;
  for (auto [a, b] : llvm::zip_equal(t.getShape(), f.getShape()))
    shape.push_back(a == b ? a : ShapedType::kDynamic);
  auto joined = t.clone(shape);
  OpBuilder b(select);
  for (OpOperand *arm :
       {&select.getTrueValueMutable(), &select.getFalseValueMutable()})
    if (arm->get().getType() != joined)
      arm->set(tensor::CastOp::create(b, select.getLoc(), joined, arm->get()));
  select.getResult().setType(joined);
  return success();
}

/// A squeeze of a dim whose size is known and not 1 is, as in eager, the
/// tensor itself: a copy (kiln.cast to its own type; a graph's results are
/// never its inputs' buffers).
Operation *squeezeOfSize(k::SqueezeOp squeeze) {
  auto in = dyn_cast<RankedTensorType>(squeeze.getInput().getType());
  int64_t dim = squeeze.getDim();
  if (!in || dim < 0 || dim >= in.getRank() || in.isDynamicDim(dim) ||
      in.getDimSize(dim) == 1)
    return nullptr;
  OpBuilder b(squeeze);
  auto copy = k::CastOp::create(b, squeeze.getLoc(), in, squeeze.getInput());
  squeeze.getResult().replaceAllUsesWith(copy.getResult());
  squeeze.erase();
  return copy;
}

/// A scan of integers or bools scans them as i64 (ATen's result type).
void scanIntegersAsI64(Operation *scan) {
  auto in = dyn_cast<RankedTensorType>(scan->getOperand(0).getType());
  if (!in || isa<FloatType>(in.getElementType()) ||
      in.getElementType().isInteger(64))
    return;
  OpBuilder b(scan);
  scan->setOperand(0, k::CastOp::create(b, scan->getLoc(),
                                        in.clone(b.getI64Type()),
                                        scan->getOperand(0)));
}

} // namespace

LogicalResult mlir::kiln::inferResultTypes(InferTypeOpInterface op) {
  SmallVector<Type> types;
  if (failed(op.inferReturnTypes(op->getContext(), op->getLoc(),
                                 op->getOperands(), op->getRawDictionaryAttrs(),
                                 op->getPropertiesStorage(), op->getRegions(),
                                 types)))
    return failure();
  for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
    result.setType(type);
  return success();
}

FailureOr<Operation *> mlir::kiln::refineOp(Operation *op) {
  if (auto dims = dyn_cast<k::DimsOpInterface>(op))
    dims.normalizeDims();
  if (auto squeeze = dyn_cast<k::SqueezeOp>(op))
    if (Operation *copy = squeezeOfSize(squeeze))
      return copy;
  if (isa<k::CumsumOp, k::CumprodOp>(op))
    scanIntegersAsI64(op);
  if (auto select = dyn_cast<arith::SelectOp>(op);
      select && isa<TensorType>(select.getType())) {
    if (failed(joinArms(select)))
      return failure();
  } else if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    if (failed(inferResultTypes(infer)))
      return failure();
  } else {
    for (OpResult result : op->getResults())
      if (k::isOpenTensor(result.getType()))
        result.setType(completeStated(op, result.getType()));
    if (auto expand = dyn_cast<k::ExpandOp>(op))
      keepStaticSizes(expand);
  }
  for (Type t : op->getResultTypes())
    if (k::isOpenTensor(t))
      return op->emitOpError("cannot know its result type: ")
             << t << " stays open";
  return op;
}

namespace {

struct KilnRefineTypesPass
    : mlir::kiln::impl::KilnRefineTypesBase<KilnRefineTypesPass> {
  void runOnOperation() override {
    if (failed(k::refineTypes(getOperation())))
      signalPassFailure();
  }
};

} // namespace

LogicalResult mlir::kiln::refineTypes(func::FuncOp fn) {
  if (fn.isExternal())
    return success();
  Block &entry = fn.getBody().front();
  for (BlockArgument arg : entry.getArguments()) {
    auto stated =
        fn.getArgAttrOfType<TypeAttr>(arg.getArgNumber(), kTypeAttrName);
    if (!stated)
      continue;
    arg.setType(stated.getValue());
    fn.removeArgAttr(arg.getArgNumber(), kTypeAttrName);
  }
  for (BlockArgument arg : entry.getArguments())
    if (isOpenTensor(arg.getType()))
      return fn.emitOpError("argument ")
             << arg.getArgNumber() << " is open: give it a `" << kTypeAttrName
             << "`";
  Operation *terminator = entry.getTerminator();
  WalkResult walked = fn.getBody().walk([&](Operation *op) {
    if (op == terminator)
      return WalkResult::advance(); // verified with the function's type
    FailureOr<Operation *> refined = refineOp(op);
    if (failed(refined) ||
        failed(verify(*refined, /*verifyRecursively=*/false)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  fn.setType(FunctionType::get(fn.getContext(), entry.getArgumentTypes(),
                               terminator->getOperandTypes()));
  return verify(terminator, /*verifyRecursively=*/false);
}
