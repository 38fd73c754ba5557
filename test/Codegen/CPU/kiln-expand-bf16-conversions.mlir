// bf16 conversions become integer code on their bits (no __truncsfbf2 call
// for LLVM to emit); float maxima and minima stay as they are, so that
// LLVM's vectorizer still sees a row maximum as a reduction (upstream's
// arith-expand, which this pass replaced, turned them into compares and
// selects, and softmax's row maximum ran one element at a time).
// RUN: kiln-opt %s --kiln-expand-bf16-conversions | FileCheck %s

// CHECK-LABEL: func.func @conversions
// CHECK-NOT: arith.extf
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: arith.shli
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
func.func @conversions(%x: bf16, %y: f32) -> (f32, bf16) {
  %0 = arith.extf %x : bf16 to f32
  %1 = arith.truncf %y : f32 to bf16
  return %0, %1 : f32, bf16
}

// CHECK-LABEL: func.func @extrema
// CHECK: arith.maxnumf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.minnumf
// CHECK-NOT: arith.cmpf
// CHECK-NOT: arith.select
func.func @extrema(%a: f32, %b: f32) -> (f32, f32, f32, f32) {
  %0 = arith.maxnumf %a, %b : f32
  %1 = arith.maximumf %a, %b : f32
  %2 = arith.minimumf %a, %b : f32
  %3 = arith.minnumf %a, %b : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}
