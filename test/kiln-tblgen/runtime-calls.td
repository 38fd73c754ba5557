// RUN: kiln-tblgen -gen-kiln-runtime-calls %tblgen_includes %s | FileCheck %s
// RUN: not kiln-tblgen -gen-kiln-runtime-calls %tblgen_includes -DBAD_NAME %s 2>&1 | FileCheck %s --check-prefix=BAD-NAME

// Each kind of placeholder becomes the evaluator's (printer's) call for its
// kind of argument; ops without a cppCall get no case.

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnTypes.td"

def Test_NormOp : Kiln_Op<"test_norm"> {
  let arguments = (ins Kiln_FloatTensor:$input, Optional<Kiln_FloatTensor>:$bias,
                       Variadic<Kiln_Tensor>:$parts, Index:$size,
                       Optional<F64>:$eps_value, Optional<F64>:$scale,
                       F64Attr:$eps, DenseI64ArrayAttr:$dims, UnitAttr:$keepdim);
  let results = (outs Kiln_FloatTensor:$result);
  let cppCall = "kiln::test_norm($input, $bias, $parts, $size, $eps_value|$eps, $scale, $dims, $keepdim).to($input.dtype())";
}

def Test_NoCallOp : Kiln_Op<"test_no_call"> {
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
}

#ifdef BAD_NAME
def Test_BadOp : Kiln_Op<"test_bad"> {
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let cppCall = "kiln::bad($input, $missing)";
}
// BAD-NAME: error: cppCall names `$missing`, which is not an operand or attribute of kiln.test_bad that a runtime call can take
#endif

// CHECK-LABEL: #ifdef GET_KILN_RUNTIME_CALL_EVAL
// CHECK: bool evalRuntimeCall(::mlir::Operation *operation, Evaluator &eval)
// CHECK-NOT: NoCallOp
// CHECK: .Case([&](::mlir::kiln::NormOp o) {
// CHECK-NEXT: eval.set(o->getResult(0), ::kiln::test_norm(eval.tensor(o.getInput()), eval.tensor(o.getBias()), eval.tensors(o.getParts()), eval.index(o.getSize()), (o.getEpsValue() ? eval.real(o.getEpsValue()) : eval.attr(o.getEps())), eval.optionalReal(o.getScale()), eval.attr(o.getDims()), eval.attr(o.getKeepdim())).to(eval.tensor(o.getInput()).dtype()));
// CHECK-NOT: NoCallOp
// CHECK-LABEL: #ifdef GET_KILN_RUNTIME_CALL_PRINT
// CHECK: .Case([&](::mlir::kiln::NormOp o) {
// CHECK-NEXT: return std::string() + "kiln::test_norm(" + printer.tensor(o.getInput()) + ", " + printer.tensor(o.getBias()) + ", " + printer.tensors(o.getParts()) + ", " + printer.index(o.getSize()) + ", " + (o.getEpsValue() ? printer.real(o.getEpsValue()) : printer.attr(o.getEps())) + ", " + printer.optionalReal(o.getScale()) + ", " + printer.attr(o.getDims()) + ", " + printer.attr(o.getKeepdim()) + ").to(" + printer.tensor(o.getInput()) + ".dtype())";
// CHECK-NOT: NoCallOp
