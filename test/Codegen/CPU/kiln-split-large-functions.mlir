// A function of more than twice `ops` operations is cut, in order, into
// parts of about `ops`, each a private function (never inlined) called in
// its place: tensors read after a part are its results, what it reads from
// before it its arguments, and the arguments' dims and the empty tensors
// of those sizes are recomputed in each part that reads them, not passed
// (an empty tensor returned by a part could share its buffer with another
// result). A small function is left whole.
// RUN: kiln-opt %s --kiln-split-large-functions=ops=4 | FileCheck %s
// RUN: kiln-opt %s --kiln-split-large-functions=ops=1000 | FileCheck %s --check-prefix=WHOLE

// CHECK-LABEL: func.func private @chain_part0(
// CHECK-SAME: %[[X0:[a-z0-9]+]]: tensor<?xf32>) -> tensor<?xf32>
// CHECK-SAME: attributes {kiln.split, passthrough = ["noinline"]}
// CHECK: %[[D0:.*]] = tensor.dim %[[X0]]
// CHECK: %[[E0:.*]] = tensor.empty(%[[D0]])
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%[[X0]] : tensor<?xf32>) outs(%[[E0]] : tensor<?xf32>)
// CHECK: math.exp
// CHECK: return %[[A]]
// CHECK-LABEL: func.func private @chain_part1(
// CHECK-SAME: %[[A1:[a-z0-9]+]]: tensor<?xf32>, %[[X1:[a-z0-9]+]]: tensor<?xf32>) -> tensor<?xf32>
// CHECK: tensor.dim %[[X1]]
// CHECK: math.tanh
// CHECK: arith.addf
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<?xf32>) -> (tensor<?xf32>, i1) attributes {kiln.split}
// CHECK: %[[P0:.*]] = call @chain_part0(%[[X]])
// CHECK: %[[OK:.*]] = arith.cmpi sge
// CHECK: %[[P1:.*]] = call @chain_part1(%[[P0]], %[[X]])
// CHECK: return %[[P1]], %[[OK]]
// WHOLE-NOT: call
// WHOLE-NOT: kiln.split
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: tensor<?xf32>) -> (tensor<?xf32>, i1) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %ok = arith.cmpi sge, %d, %c4 : index
  %e0 = tensor.empty(%d) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e0 : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.exp %in : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty(%d) : tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e1 : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e0 : tensor<?xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %t = arith.addf %in, %in2 : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %c, %ok : tensor<?xf32>, i1
}
