// Tests the lowering of kiln.scaled_dot_product_attention to one loop nest
// (the GPU pipeline's; the CPU's calls the runtime's kernel first): an
// scf.forall over the query rows whose body walks the keys with an online
// softmax, the scores never in a tensor. Static head dims up to 128 keep
// the query row and the output row in registers (scalars carried by the
// key loop); dynamic ones read the query in the dot product and accumulate
// in the result's row. test/e2e/attention.mlir runs both through
// test/e2e/cuda/emulated.test against eager.
// RUN: kiln-opt %s -split-input-file -convert-kiln-to-linalg -canonicalize -cse | FileCheck %s

// Causal, head dim 8: the row's 8 query elements loaded once, the key loop
// stops at the diagonal (min(S, i + 1)) and carries 8 accumulators, m and
// l; batch dims broadcast by reading min(b, size - 1); the row is written
// once at the end.
// CHECK-LABEL: func.func @registers
// CHECK: cf.assert {{.*}} "scaled_dot_product_attention: key and value differ in dim -2 (the number of keys)"
// CHECK: cf.assert {{.*}} "scaled_dot_product_attention: the batch dims of query, key and value do not broadcast"
// CHECK: scf.forall (%[[B:.*]], %[[H:.*]], %[[I:.*]]) in
// CHECK: %[[QB:.*]] = arith.minui %[[B]]
// CHECK-COUNT-8: tensor.extract %arg0[%[[QB]], %[[H]], %[[I]], %{{.*}}]
// CHECK: %[[N:.*]] = arith.addi %[[I]], %c1
// CHECK: %[[KEYS:.*]] = arith.minui %{{.*}}, %[[N]]
// CHECK: scf.for %{{.*}} = %c0 to %[[KEYS]] step %c1 iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK-NOT: tensor.insert
// CHECK: arith.cmpf une
// CHECK: scf.if
// CHECK: arith.maximumf
// CHECK-COUNT-2: math.exp
// CHECK: arith.cmpf une, %{{.*}}, %cst
// CHECK-COUNT-8: tensor.insert
// CHECK: tensor.parallel_insert_slice
func.func @registers(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}

// -----

// Dynamic head dims, a bool mask: the dot product is a loop, the output
// row a tensor (zeroed, rescaled per key, divided by l); the mask is read
// at min(index, size - 1) (a size-1 dim broadcasts), -inf where false;
// keys with a -inf score change nothing. A mask with an empty dim walks
// no key; a row that attended to nothing gives zeros (l == 0), a NaN l NaN.
// CHECK-LABEL: func.func @rows
// CHECK: cf.assert {{.*}} "scaled_dot_product_attention: query and key differ in the last dim"
// CHECK: cf.assert {{.*}} "scaled_dot_product_attention: attn_mask does not broadcast to the scores' shape"
// CHECK: %[[KEYS:.*]] = arith.select %{{.*}}, %c0, %{{.*}} : index
// CHECK: scf.forall
// CHECK: scf.for {{.*}} -> (tensor<?xf32>)
// CHECK: scf.for %[[J:.*]] = %c0 to %[[KEYS]] {{.*}} -> (tensor<?xf32>, f32, f32)
// CHECK: scf.for {{.*}} -> (f32)
// CHECK: %[[MJ:.*]] = arith.minui %[[J]]
// CHECK: %[[M:.*]] = tensor.extract %arg3[%{{.*}}, %[[MJ]]]
// CHECK: %[[S:.*]] = arith.select %[[M]], %{{.*}}, %cst
// CHECK: arith.cmpf une, %[[S]], %cst
// CHECK: scf.if {{.*}} -> (tensor<?xf32>, f32, f32)
// CHECK: scf.for {{.*}} -> (tensor<?xf32>)
// CHECK: %[[L:.*]] = arith.cmpf une
// CHECK: arith.select %[[L]]
// CHECK-NOT: scaled_dot_product_attention
func.func @rows(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>, %m: tensor<?x?xi1>) -> tensor<?x?xf32> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v mask %m {is_causal = false} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi1>) -> tensor<?x?xf32>
  return %o : tensor<?x?xf32>
}

// -----

// float16 accumulates in float32 (the given scale truncated to it), the
// float mask added; marked kiln.nan_when_unattended (a softmax written
// out), a row's output is o / l whatever l is; then one truncation to
// float16.
// CHECK-LABEL: func.func @half
// CHECK: arith.truncf %arg4 : f64 to f32
// CHECK: scf.forall {{.*}} -> (tensor<?x?x8xf32>)
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: scf.for
// CHECK: %[[MF:.*]] = tensor.extract %arg3
// CHECK: %[[MV:.*]] = arith.extf %[[MF]] : f16 to f32
// CHECK: arith.addf %{{.*}}, %[[MV]] : f32
// CHECK: %[[INV:.*]] = arith.divf %cst{{.*}}, %{{.*}}#9 : f32
// CHECK-NOT: arith.cmpf ogt
// CHECK: arith.mulf %{{.*}}, %[[INV]]
// CHECK: linalg.generic
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @half(%q: tensor<?x?x8xf16>, %k: tensor<?x?x8xf16>, %v: tensor<?x?x8xf16>, %m: tensor<?x?xf16>, %s: f64) -> tensor<?x?x8xf16> {
  %o = kiln.scaled_dot_product_attention %q, %k, %v mask %m scale %s {is_causal = false, kiln.nan_when_unattended} : (tensor<?x?x8xf16>, tensor<?x?x8xf16>, tensor<?x?x8xf16>, tensor<?x?xf16>, f64) -> tensor<?x?x8xf16>
  return %o : tensor<?x?x8xf16>
}
