//===- KilnDialect.cpp - The kiln dialect ---------------------------------===//
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::kiln;

#include "kiln/Dialect/Kiln/IR/KilnDialect.cpp.inc"
#include "kiln/Dialect/Kiln/IR/KilnEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "kiln/Dialect/Kiln/IR/KilnTypes.cpp.inc"

bool mlir::kiln::isOpenTensor(Type t) {
  auto tensor = dyn_cast<TensorType>(t);
  if (!tensor)
    return false;
  Type e = tensor.getElementType();
  if (isa<OpenType>(e))
    return true;
  bool known = e.isF16() || e.isBF16() || e.isF32() || e.isF64() ||
               e.isInteger(1) || e.isInteger(32) || e.isInteger(64);
  return known && !tensor.hasRank();
}

bool mlir::kiln::anyOpen(TypeRange types) {
  return llvm::any_of(types, isOpenTensor);
}

TensorType mlir::kiln::openTensorType(MLIRContext *context) {
  return UnrankedTensorType::get(OpenType::get(context));
}

void KilnDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "kiln/Dialect/Kiln/IR/KilnTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kiln/Dialect/Kiln/IR/KilnOps.cpp.inc"
      >();
  attachGradients(*getContext());
}

Operation *KilnDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  // Sizes folded by kiln.dim are index constants; tensors are kiln.constant.
  if (isa<IndexType>(type))
    return arith::ConstantOp::create(builder, loc, type,
                                     cast<TypedAttr>(value));
  if (auto elements = dyn_cast<ElementsAttr>(value))
    if (elements.getType() == type)
      return ConstantOp::create(builder, loc, type, elements);
  return nullptr;
}
