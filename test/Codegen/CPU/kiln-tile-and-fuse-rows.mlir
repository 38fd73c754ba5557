// Tests that the end of a chain is tiled by rows into an scf.forall (one
// index of each leading dim before the rows: [1, rows, C] tiles of a
// [B, T, C] chain) and that its producers, a row reduction included, are
// fused into the tile, while products (a BLAS call) stay whole before it.
// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(kiln-tile-and-fuse-rows{rows=4},canonicalize))' | FileCheck %s

// softmax-like: e = exp(x - max(x)) per row, then e / sum(e).
// CHECK-LABEL: func.func @rows
// CHECK-NOT: linalg.generic
// CHECK: scf.forall (%[[I:.*]]) = (0) to (%{{.*}}) step (4)
// CHECK: tensor.extract_slice %arg0[%[[I]], 0]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.maximumf %acc, %in : f32
    linalg.yield %0 : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty(%n, %m) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<?x?xf32>, tensor<?xf32>) outs(%e1 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.subf %a, %b : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// linear then an epilogue over [B, T, N]: tiles of [1, 4, N], the
// contraction left whole before the loop.
// CHECK-LABEL: func.func @epilogue
// CHECK: %[[Y:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: scf.forall (%[[B:.*]], %[[T:.*]]) = (0, 0) to (%{{.*}}, %{{.*}}) step (1, 4)
// CHECK: tensor.extract_slice %[[Y]][%[[B]], %[[T]], 0] [1, %{{.*}}, 8]
// CHECK: math.tanh
// CHECK-NOT: arith.mulf
// CHECK: scf.forall.in_parallel
#x3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w2 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#y3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @epilogue(%x: tensor<?x?x16xf32>, %w: tensor<8x16xf32>) -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : tensor<?x?x16xf32>
  %t = tensor.dim %x, %c1 : tensor<?x?x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%b, %t) : tensor<?x?x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %y = linalg.generic {indexing_maps = [#x3, #w2, #y3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x?x16xf32>, tensor<8x16xf32>) outs(%init : tensor<?x?x8xf32>) {
  ^bb0(%a: f32, %v: f32, %acc: f32):
    %0 = arith.mulf %a, %v : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<?x?x8xf32>
  %o = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y : tensor<?x?x8xf32>) outs(%e : tensor<?x?x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = math.tanh %a : f32
    linalg.yield %0 : f32
  } -> tensor<?x?x8xf32>
  return %o : tensor<?x?x8xf32>
}

// A convolution whose result is read only through a slice (no linalg op
// reads it) is a product, not the end of a chain: it stays whole, one
// runtime call for the batch, instead of one per tile of 4 outputs.
// CHECK-LABEL: func.func @conv_through_slice
// CHECK-NOT: scf.forall
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<?x?x?x?xf32>
// CHECK-NOT: scf.forall
// CHECK: tensor.extract_slice
func.func @conv_through_slice(%x: tensor<?x?x?x?xf32>, %w: tensor<?x?x?x?xf32>, %init: tensor<?x?x?x?xf32>, %n: index) -> tensor<?x?x?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %filled = linalg.fill ins(%zero : f32) outs(%init : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) outs(%filled : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %d1 = tensor.dim %y, %c1 : tensor<?x?x?x?xf32>
  %d2 = tensor.dim %y, %c2 : tensor<?x?x?x?xf32>
  %d3 = tensor.dim %y, %c3 : tensor<?x?x?x?xf32>
  %s = tensor.extract_slice %y[0, 0, 0, 0] [%n, %d1, %d2, %d3] [1, 1, 1, 1] : tensor<?x?x?x?xf32> to tensor<?x?x?x?xf32>
  return %s : tensor<?x?x?x?xf32>
}

// A chain that ends in a tensor of static size 0 (a slice from 1 of a
// size-1 dim, a differential tester's find) computes nothing: it is left
// untiled, as is a producer read only through a slice of size 0 (SCF's
// tile size computation had crashed kiln compile on them); the producer's
// own chain is tiled.
// CHECK-LABEL: func.func @empty
// CHECK: scf.forall
// CHECK: scf.forall.in_parallel
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [%{{.*}}, 0] [1, 1] : tensor<?x1xi64> to tensor<?x0xi64>
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %{{.*}} : tensor<?x0xi64>, tensor<?x0xi64>)
// CHECK: return
#e3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#e2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#e = affine_map<(d0, d1) -> (d0, d1)>
func.func @empty(%x: tensor<?x1x?xi64>) -> tensor<?x0xi64> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0 : i64
  %n = tensor.dim %x, %c0 : tensor<?x1x?xi64>
  %e0 = tensor.empty(%n) : tensor<?x1xi64>
  %init = linalg.fill ins(%zero : i64) outs(%e0 : tensor<?x1xi64>) -> tensor<?x1xi64>
  %sum = linalg.generic {indexing_maps = [#e3, #e2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<?x1x?xi64>) outs(%init : tensor<?x1xi64>) {
  ^bb0(%in: i64, %acc: i64):
    %s = arith.addi %acc, %in : i64
    linalg.yield %s : i64
  } -> tensor<?x1xi64>
  %slice = tensor.extract_slice %sum[0, 0] [%n, 0] [1, 1] : tensor<?x1xi64> to tensor<?x0xi64>
  %e1 = tensor.empty(%n) : tensor<?x0xi64>
  %y = linalg.generic {indexing_maps = [#e, #e, #e], iterator_types = ["parallel", "parallel"]} ins(%slice, %slice : tensor<?x0xi64>, tensor<?x0xi64>) outs(%e1 : tensor<?x0xi64>) {
  ^bb0(%a: i64, %b: i64, %o: i64):
    %s = arith.addi %a, %b : i64
    linalg.yield %s : i64
  } -> tensor<?x0xi64>
  return %y : tensor<?x0xi64>
}
