//===- Outlining.h - Functions that outlined code moves into ----*- C++ -*-===//
#ifndef KILN_CODEGEN_CPU_OUTLINING_H
#define KILN_CODEGEN_CPU_OUTLINING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

#include <string>

namespace mlir::kiln {

/// A private function PARENT + suffix + N (the first N from `counter` that
/// names no symbol yet), before `parent`, with its entry block, that LLVM
/// may not inline back (llvm.func's passthrough, which func-to-llvm carries
/// over): what is outlined into it is to stay a function of its own.
inline func::FuncOp createOutlinedFunction(OpBuilder &b, SymbolTable &symbols,
                                           func::FuncOp parent,
                                           StringRef suffix, int64_t &counter,
                                           FunctionType type) {
  std::string name;
  do
    name = (parent.getSymName() + suffix + std::to_string(counter++)).str();
  while (symbols.lookup(name));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(parent);
  auto fn = func::FuncOp::create(b, parent.getLoc(), name, type);
  fn.setPrivate();
  fn->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline")}));
  symbols.insert(fn);
  fn.addEntryBlock();
  return fn;
}

} // namespace mlir::kiln

#endif
