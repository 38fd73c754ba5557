// RUN: kiln-tblgen -gen-kiln-traced-calls %tblgen_includes %s | FileCheck %s
// RUN: not kiln-tblgen -gen-kiln-traced-calls %tblgen_includes -DBAD_CALL %s 2>&1 | FileCheck %s --check-prefix=BAD-CALL

// An op that sets traceWith gets the tracer's entry for kiln::<mnemonic>,
// the template instantiated on its class, and whether the Tensor method of
// that name is the same call, and the argument counts it traces (any by
// default); ops without traceWith get none.

include "kiln/Dialect/Kiln/IR/KilnBase.td"
include "kiln/Dialect/Kiln/IR/KilnTypes.td"

def Test_CubeOp : Kiln_Op<"cube"> {
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let cppCall = "kiln::cube($input)";
  let traceWith = "traceUnary";
  let tensorMethod = 1;
}

def Test_HypotOp : Kiln_Op<"hypot"> {
  let arguments = (ins Kiln_Tensor:$lhs, Kiln_Tensor:$rhs);
  let results = (outs Kiln_Tensor:$result);
  let cppCall = "kiln::hypot($lhs, $rhs)";
  let traceWith = "traceBinary";
  let traceMinArgs = 2;
  let traceMaxArgs = 3;
}

def Test_UntracedOp : Kiln_Op<"untraced"> {
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let cppCall = "kiln::untraced($input)";
}

#ifdef BAD_CALL
def Test_MisnamedOp : Kiln_Op<"misnamed"> {
  let arguments = (ins Kiln_Tensor:$input);
  let results = (outs Kiln_Tensor:$result);
  let cppCall = "kiln::other($input)";
  let traceWith = "traceUnary";
}
// BAD-CALL: error: traceWith needs a cppCall of `kiln::misnamed(...)`
#endif

// CHECK-LABEL: #ifdef GET_KILN_TRACED_CALLS
// CHECK-NOT: untraced
// CHECK-DAG: {"cube", {&Tracer::traceUnary<::mlir::kiln::CubeOp>, true, 0, kAnyArgs}},
// CHECK-DAG: {"hypot", {&Tracer::traceBinary<::mlir::kiln::HypotOp>, false, 2, 3}},
// CHECK-NOT: untraced
// CHECK: #endif // GET_KILN_TRACED_CALLS
