// Tests that kiln-decompose-composites writes each composite op with the
// ops that compute it, static sizes kept static and dynamic ones computed
// from kiln.dim, and that the composites' inference types them.
// RUN: kiln-opt %s -kiln-decompose-composites | FileCheck %s

// CHECK-LABEL: func.func @flatten
func.func @flatten(%x: tensor<?x4x?xf32>, %s: tensor<f32>)
    -> (tensor<?x?xf32>, tensor<?x4x?xf32>, tensor<1xf32>) {
  // CHECK: %[[B:.*]] = kiln.dim %[[X:.*]], 0 : tensor<?x4x?xf32>
  // CHECK: %[[D1:.*]] = kiln.dim %[[X]], 1
  // CHECK: %[[M1:.*]] = arith.muli %{{.*}}, %[[D1]]
  // CHECK: %[[D2:.*]] = kiln.dim %[[X]], 2
  // CHECK: %[[M2:.*]] = arith.muli %[[M1]], %[[D2]]
  // CHECK: kiln.reshape %[[X]] [%[[B]], %[[M2]]] : tensor<?x4x?xf32> -> tensor<?x?xf32>
  %0 = kiln.flatten %x dims 1 to 2 : tensor<?x4x?xf32> -> tensor<?x?xf32>
  // One dim flattened is a reshape to the same sizes.
  // CHECK: kiln.reshape %[[X]] [%{{.*}}, %{{.*}}] : tensor<?x4x?xf32> -> tensor<?x4x?xf32>
  %1 = kiln.flatten %x dims 1 to 1 : tensor<?x4x?xf32> -> tensor<?x4x?xf32>
  // A 0-d tensor flattens to [1].
  // CHECK: kiln.reshape %{{.*}} : tensor<f32> -> tensor<1xf32>
  %2 = kiln.flatten %s dims 0 to 0 : tensor<f32> -> tensor<1xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?x4x?xf32>, tensor<1xf32>
}

// CHECK-LABEL: func.func @unflatten
func.func @unflatten(%x: tensor<?x768xf32>, %h: index)
    -> (tensor<?x12x64xf32>, tensor<?x?x64xf32>) {
  %c12 = arith.constant 12 : index
  %c64 = arith.constant 64 : index
  %m1 = arith.constant -1 : index
  // Constant sizes are static dims.
  // CHECK: kiln.reshape %{{.*}} [%{{.*}}] : tensor<?x768xf32> -> tensor<?x12x64xf32>
  %0 = kiln.unflatten %x dim 1 sizes [%c12, %c64] : tensor<?x768xf32> -> tensor<?x12x64xf32>
  // -1 is the dim's size over the others' product (1 where it is 0).
  // CHECK: %[[N:.*]] = kiln.dim %{{.*}}, 1 : tensor<?x768xf32>
  // CHECK: %[[Q:.*]] = arith.divsi %[[N]], %{{.*}} : index
  // CHECK: kiln.reshape %{{.*}} [%{{.*}}, %[[Q]]] : tensor<?x768xf32> -> tensor<?x?x64xf32>
  %1 = kiln.unflatten %x dim 1 sizes [%m1, %c64] : tensor<?x768xf32> -> tensor<?x?x64xf32>
  return %0, %1 : tensor<?x12x64xf32>, tensor<?x?x64xf32>
}

// CHECK-LABEL: func.func @reshape_as
func.func @reshape_as(%x: tensor<?xf32>, %like: tensor<?x4xf64>) -> tensor<?x4xf32> {
  // CHECK: %[[R:.*]] = kiln.dim %{{.*}}, 0 : tensor<?x4xf64>
  // CHECK: kiln.reshape %{{.*}} [%[[R]]] : tensor<?xf32> -> tensor<?x4xf32>
  %0 = kiln.reshape_as %x, %like : (tensor<?xf32>, tensor<?x4xf64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @expand_as
func.func @expand_as(%x: tensor<?x1xf32>, %like: tensor<?x4xf64>) -> tensor<?x4xf32> {
  // CHECK: %[[R:.*]] = kiln.dim %{{.*}}, 0 : tensor<?x4xf64>
  // CHECK: kiln.expand %{{.*}} [%[[R]]] : tensor<?x1xf32> -> tensor<?x4xf32>
  %0 = kiln.expand_as %x, %like : (tensor<?x1xf32>, tensor<?x4xf64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @repeat_and_tile
func.func @repeat_and_tile(%x: tensor<?x4xf32>)
    -> (tensor<3x?x8xf32>, tensor<?x12xf32>) {
  // [s0, s1] as [1, 1, 1, s0, 1, s1] against a [3, 1, 1, 1, 2, 1] mask.
  // CHECK: %[[P:.*]] = kiln.reshape %{{.*}} [%{{.*}}] : tensor<?x4xf32> -> tensor<1x1x1x?x1x4xf32>
  // CHECK: %[[M:.*]] = kiln.full {value = true} : tensor<3x1x1x1x2x1xi1>
  // CHECK: %[[W:.*]] = kiln.where %[[M]], %[[P]], %[[P]]
  // CHECK: kiln.reshape %[[W]] [%{{.*}}] : tensor<3x1x1x?x2x4xf32> -> tensor<3x?x8xf32>
  %0 = kiln.repeat %x [3, 1, 2] : tensor<?x4xf32> -> tensor<3x?x8xf32>
  // tile pads fewer repeats with leading 1s.
  // CHECK: kiln.reshape %{{.*}} : tensor<1x?x3x4xf32> -> tensor<?x12xf32>
  %1 = kiln.tile %x [3] : tensor<?x4xf32> -> tensor<?x12xf32>
  return %0, %1 : tensor<3x?x8xf32>, tensor<?x12xf32>
}

// CHECK-LABEL: func.func @rank_and_numel
func.func @rank_and_numel(%x: tensor<?x4x?xf32>, %s: tensor<2x3xi64>)
    -> (index, index, index) {
  // CHECK-DAG: %[[R:.*]] = arith.constant 3 : index
  %r = kiln.rank %x : tensor<?x4x?xf32>
  // The static sizes folded together, the dynamic ones multiplied in.
  // CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
  // CHECK: %[[D0:.*]] = kiln.dim %{{.*}}, 0
  // CHECK: %[[N0:.*]] = arith.muli %[[C4]], %[[D0]]
  // CHECK: %[[D2:.*]] = kiln.dim %{{.*}}, 2
  // CHECK: %[[N:.*]] = arith.muli %[[N0]], %[[D2]]
  %n = kiln.numel %x : tensor<?x4x?xf32>
  // CHECK: %[[C6:.*]] = arith.constant 6 : index
  %m = kiln.numel %s : tensor<2x3xi64>
  // CHECK: return %[[R]], %[[N]], %[[C6]]
  return %r, %n, %m : index, index, index
}

// -----

// cast_like: a cast to the other tensor's element type.
// CHECK-LABEL: func.func @cast_like
// CHECK: %[[C:.*]] = kiln.cast %arg0 : tensor<4xf64> to tensor<4xf32>
// CHECK: return %[[C]]
func.func @cast_like(%w: tensor<4xf64>, %x: tensor<?x4xf32>) -> tensor<4xf32> {
  %0 = kiln.cast_like %w, %x : (tensor<4xf64>, tensor<?x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A conv2d or pool of one [C, H, W] image: of a batch of one, the batch
// dim dropped again.
// CHECK-LABEL: func.func @unbatched
// CHECK: %[[B:.*]] = kiln.unsqueeze %arg0 dim 0 : tensor<3x?x?xf32> -> tensor<1x3x?x?xf32>
// CHECK: %[[Y:.*]] = kiln.conv2d %[[B]], %arg1 {{.*}} -> tensor<1x5x?x?xf32>
// CHECK: %[[S:.*]] = kiln.squeeze %[[Y]] dim 0 : tensor<1x5x?x?xf32> -> tensor<5x?x?xf32>
// CHECK: %[[B2:.*]] = kiln.unsqueeze %[[S]] dim 0
// CHECK: %[[P:.*]] = kiln.adaptive_avg_pool2d %[[B2]] {{.*}} -> tensor<1x5x1x1xf32>
// CHECK: %[[S2:.*]] = kiln.squeeze %[[P]] dim 0 : tensor<1x5x1x1xf32> -> tensor<5x1x1xf32>
// CHECK: return %[[S2]]
func.func @unbatched(%x: tensor<3x?x?xf32>, %w: tensor<5x3x3x3xf32>) -> tensor<5x1x1xf32> {
  %y = kiln.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>}
      : (tensor<3x?x?xf32>, tensor<5x3x3x3xf32>) -> tensor<5x?x?xf32>
  %p = kiln.adaptive_avg_pool2d %y {output_size = array<i64: 1, 1>}
      : (tensor<5x?x?xf32>) -> tensor<5x1x1xf32>
  return %p : tensor<5x1x1xf32>
}

// -----

// logsumexp: log(sum(exp(x - m))) + m, m the maximum taken as 0 where it
// is infinite; integers subtract their maximum exactly, exp giving f32.
// CHECK-LABEL: func.func @logsumexp
// CHECK: %[[M:.*]] = kiln.amax %arg0 dims [1] keepdim
// CHECK: %[[A:.*]] = kiln.abs %[[M]]
// CHECK: %[[INF:.*]] = kiln.full {value = 0x7F800000 : f32}
// CHECK: %[[I:.*]] = kiln.cmp eq, %[[A]], %[[INF]]
// CHECK: %[[ZERO:.*]] = kiln.full {value = 0.000000e+00 : f32}
// CHECK: %[[F:.*]] = kiln.where %[[I]], %[[ZERO]], %[[M]]
// CHECK: %[[D:.*]] = kiln.sub %arg0, %[[F]]
// CHECK: %[[E:.*]] = kiln.exp %[[D]]
// CHECK: %[[S:.*]] = kiln.sum %[[E]] dims [1] :
// CHECK: %[[L:.*]] = kiln.log %[[S]]
// CHECK: %[[M2:.*]] = kiln.amax %arg0 dims [1] :
// CHECK: %[[F2:.*]] = kiln.where %{{.*}}, %{{.*}}, %[[M2]]
// CHECK: %[[R:.*]] = kiln.add %[[L]], %[[F2]]
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @logsumexp_int
// CHECK: %[[IM:.*]] = kiln.amax %arg0 dims [1] keepdim : tensor<?x4xi64> -> tensor<?x1xi64>
// CHECK-NOT: kiln.where
// CHECK: %[[ID:.*]] = kiln.sub %arg0, %[[IM]] : (tensor<?x4xi64>, tensor<?x1xi64>) -> tensor<?x4xi64>
// CHECK: %[[IE:.*]] = kiln.exp %[[ID]] : tensor<?x4xi64>
// CHECK-NEXT: %[[IS:.*]] = kiln.sum %[[IE]] dims [1] : tensor<?x4xf32> -> tensor<?xf32>
// CHECK: %[[IL:.*]] = kiln.log %[[IS]]
// CHECK: %[[IM2:.*]] = kiln.amax %arg0 dims [1] : tensor<?x4xi64> -> tensor<?xi64>
// CHECK: kiln.add %[[IL]], %[[IM2]] : (tensor<?xf32>, tensor<?xi64>) -> tensor<?xf32>
func.func @logsumexp(%x: tensor<?x4xf32>) -> tensor<?xf32> {
  %0 = kiln.logsumexp %x dims [1] : tensor<?x4xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
func.func @logsumexp_int(%x: tensor<?x4xi64>) -> tensor<?xf32> {
  %0 = kiln.logsumexp %x dims [1] : tensor<?x4xi64> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// var: the squared deviations from the mean summed over the dims, divided
// by the count of reduced elements less the correction (a wrapped i64);
// std its square root, taken of 1 where the variance is 0 and 0 given
// there (the same values; eager's zero gradient when differentiated).
// CHECK-LABEL: func.func @variance
// CHECK: %[[MEAN:.*]] = kiln.mean %arg0 dims [1] keepdim
// CHECK: %[[D:.*]] = kiln.sub %arg0, %[[MEAN]]
// CHECK: %[[SQ:.*]] = kiln.mul %[[D]], %[[D]]
// CHECK: %[[S:.*]] = kiln.sum %[[SQ]] dims [1] :
// CHECK: %[[N0:.*]] = kiln.dim %arg0, 0
// CHECK: %[[ONES:.*]] = kiln.full [%[[N0]]] {value = 1.000000e+00 : f32} : tensor<?x5xf32>
// CHECK: %[[COUNT:.*]] = kiln.sum %[[ONES]] dims [1] :
// CHECK: %[[C:.*]] = arith.constant 1 : i64
// CHECK: %[[W:.*]] = kiln.from_scalar %[[C]] : i64 -> tensor<i64>
// CHECK: %[[DEN:.*]] = kiln.sub %[[COUNT]], %[[W]]
// CHECK: %[[V:.*]] = kiln.div %[[S]], %[[DEN]]
// CHECK: %[[C2:.*]] = arith.index_cast %arg1 : index to i64
// CHECK: kiln.from_scalar %[[C2]]
// CHECK: %[[V2:.*]] = kiln.div
// CHECK: %[[ZERO:.*]] = kiln.cmp eq, %[[V2]], %{{.*}}
// CHECK: %[[SAFE:.*]] = kiln.where %[[ZERO]], %{{.*}}, %[[V2]]
// CHECK: %[[ROOT:.*]] = kiln.sqrt %[[SAFE]]
// CHECK: %[[STD:.*]] = kiln.where %[[ZERO]], %{{.*}}, %[[ROOT]]
// CHECK: return %[[V]], %[[STD]]
func.func @variance(%x: tensor<?x5xf32>, %c: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = kiln.var %x dims [1] : tensor<?x5xf32> -> tensor<?xf32>
  %1 = kiln.std %x dims [1] correction_value %c : tensor<?x5xf32> -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// norm: p = 2 the root of the sum of squares, any other p the sum of
// |x|^p to the 1/p (each root taken of 1 where the sum is 0, and 0 given
// there), p = 1 the sum of magnitudes, p = 0 the count of non-zeros, p =
// +-inf the largest (smallest) magnitude.
// CHECK-LABEL: func.func @norm
// CHECK-NOT: kiln.abs
// CHECK: %[[SQ:.*]] = kiln.mul %arg0, %arg0
// CHECK: %[[S:.*]] = kiln.sum %[[SQ]] dims [1] :
// CHECK: %[[Z:.*]] = kiln.cmp eq, %[[S]], %{{.*}}
// CHECK: %[[SAFE:.*]] = kiln.where %[[Z]], %{{.*}}, %[[S]]
// CHECK: %[[R:.*]] = kiln.sqrt %[[SAFE]]
// CHECK: %[[N2:.*]] = kiln.where %[[Z]], %{{.*}}, %[[R]]
// CHECK: %[[A1:.*]] = kiln.abs %arg0
// CHECK: %[[N1:.*]] = kiln.sum %[[A1]] dims [0] keepdim
// CHECK: %[[A3:.*]] = kiln.abs %arg0
// CHECK: %[[P3:.*]] = kiln.pow %[[A3]], %{{.*}}
// CHECK: %[[S3:.*]] = kiln.sum %[[P3]] dims [1] :
// CHECK: kiln.pow %{{.*}}, %{{.*}}
// CHECK-NOT: kiln.abs
// CHECK: %[[NZ:.*]] = kiln.cmp ne, %arg0, %{{.*}}
// CHECK: %[[F:.*]] = kiln.cast %[[NZ]] : tensor<?x5xi1> to tensor<?x5xf32>
// CHECK: %[[N0:.*]] = kiln.sum %[[F]] dims [] :
// CHECK: %[[AI:.*]] = kiln.abs %arg0
// CHECK: %[[NI:.*]] = kiln.amax %[[AI]] dims [1] :
// CHECK: %[[AM:.*]] = kiln.abs %arg0
// CHECK: %[[NM:.*]] = kiln.amin %[[AM]] dims [1] :
// CHECK: return %[[N2]], %[[N1]], %{{.*}}, %[[N0]], %[[NI]], %[[NM]]
func.func @norm(%x: tensor<?x5xf32>) -> (tensor<?xf32>, tensor<1x5xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>) {
  %0 = kiln.norm %x p 2.0 dims [1] : tensor<?x5xf32> -> tensor<?xf32>
  %1 = kiln.norm %x p 1.0 dims [0] keepdim : tensor<?x5xf32> -> tensor<1x5xf32>
  %2 = kiln.norm %x p 3.0 dims [1] : tensor<?x5xf32> -> tensor<?xf32>
  %3 = kiln.norm %x p 0.0 dims [] : tensor<?x5xf32> -> tensor<f32>
  %4 = kiln.norm %x p 0x7FF0000000000000 dims [1] : tensor<?x5xf32> -> tensor<?xf32>
  %5 = kiln.norm %x p 0xFFF0000000000000 dims [1] : tensor<?x5xf32> -> tensor<?xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?xf32>, tensor<1x5xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>
}

// bmm: a matmul, the batch sizes checked equal at run time where either is
// dynamic (matmul would broadcast a batch of 1); addmm: the input's dims
// that may not broadcast checked, the product scaled by alpha (an integer
// factor stays an integer) and the input by beta; beta 0 drops the input
// (its sizes still checked), factors of 1 multiply nothing.
// CHECK-LABEL: func.func @products
// CHECK: %[[B0:.*]] = kiln.dim %arg0, 0
// CHECK: %[[B1:.*]] = kiln.dim %arg1, 0
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[B0]], %[[B1]]
// CHECK: cf.assert %[[EQ]], "bmm: batch sizes differ"
// CHECK: %[[P:.*]] = kiln.matmul %arg0, %arg1
// CHECK-NOT: kiln.mul
// CHECK: %[[M:.*]] = kiln.matmul %arg3, %arg4
// CHECK: %[[S:.*]] = kiln.dim %arg2, 0
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[S]], %{{.*}}
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[S]], %{{.*}}
// CHECK: %[[OK:.*]] = arith.ori %[[ONE]], %[[SAME]]
// CHECK: cf.assert %[[OK]], "addmm: input does not broadcast to the product's shape"
// CHECK: %[[TWO:.*]] = arith.constant 2 : i64
// CHECK: %[[W:.*]] = kiln.from_scalar %[[TWO]] : i64 -> tensor<i64>
// CHECK: %[[SC:.*]] = kiln.mul %[[M]], %[[W]]
// CHECK: %[[A:.*]] = kiln.add %arg2, %[[SC]]
// CHECK: %[[M2:.*]] = kiln.matmul %arg3, %arg4
// CHECK: cf.assert
// CHECK-NOT: kiln.add
// CHECK: return %[[P]], %[[A]], %[[M2]]
func.func @products(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?xi64>, %m: tensor<?x?xi64>, %n: tensor<?x?xi64>) -> (tensor<?x?x?xf32>, tensor<?x?xi64>, tensor<?x?xi64>) {
  %0 = kiln.bmm %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %1 = kiln.addmm %c, %m, %n {alpha = 2 : i64, beta = 1 : i64} : (tensor<?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  %2 = kiln.addmm %c, %m, %n {alpha = 1 : i64, beta = 0.0 : f64} : (tensor<?xi64>, tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  return %0, %1, %2 : tensor<?x?x?xf32>, tensor<?x?xi64>, tensor<?x?xi64>
}

// A float factor makes an integer product float32, as the runtime's
// Scalar does.
// CHECK-LABEL: func.func @float_factor
// CHECK: %[[M:.*]] = kiln.matmul %arg1, %arg2 : (tensor<3x4xi64>, tensor<4x5xi64>) -> tensor<3x5xi64>
// CHECK-NOT: cf.assert
// CHECK: %[[SC:.*]] = kiln.mul %[[M]], %{{.*}} : (tensor<3x5xi64>, tensor<f64>) -> tensor<3x5xf32>
// CHECK: kiln.add %arg0, %[[SC]] : (tensor<5xi64>, tensor<3x5xf32>) -> tensor<3x5xf32>
func.func @float_factor(%c: tensor<5xi64>, %m: tensor<3x4xi64>, %n: tensor<4x5xi64>) -> tensor<3x5xf32> {
  %0 = kiln.addmm %c, %m, %n {alpha = 0.5 : f64, beta = 1 : i64} : (tensor<5xi64>, tensor<3x4xi64>, tensor<4x5xi64>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// narrow and select: a slice from the start counted from the end when
// negative, the range checked as eager checks it; select's slice of 1
// squeezed; a constant length gives a static size.
// CHECK-LABEL: func.func @slices
// CHECK: %[[N:.*]] = kiln.dim %arg0, 1
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %arg1, %{{.*}}
// CHECK: %[[WRAP:.*]] = arith.addi %arg1, %[[N]]
// CHECK: %[[FROM:.*]] = arith.select %[[NEG]], %[[WRAP]], %arg1
// CHECK: %[[END:.*]] = arith.addi %[[FROM]], %{{.*}}
// CHECK: cf.assert %{{.*}}, "narrow: start or length out of range"
// CHECK: %[[NS:.*]] = kiln.slice %arg0 dim 1 [%[[FROM]] : %[[END]]] : tensor<4x?xf32> -> tensor<4x2xf32>
// CHECK: kiln.dim %arg0, 0
// CHECK: cf.assert %{{.*}}, "select: index out of range"
// CHECK: %[[SS:.*]] = kiln.slice %arg0 dim 0 [%{{.*}} : %{{.*}}] : tensor<4x?xf32> -> tensor<1x?xf32>
// CHECK: %[[SQ:.*]] = kiln.squeeze %[[SS]] dim 0 : tensor<1x?xf32> -> tensor<?xf32>
// CHECK: return %[[NS]], %[[SQ]]
func.func @slices(%x: tensor<4x?xf32>, %s: index) -> (tensor<4x2xf32>, tensor<?xf32>) {
  %c2 = arith.constant 2 : index
  %0 = kiln.narrow %x dim 1 start %s length %c2 : tensor<4x?xf32> -> tensor<4x2xf32>
  %1 = kiln.select %x dim 0 index %s : tensor<4x?xf32> -> tensor<?xf32>
  return %0, %1 : tensor<4x2xf32>, tensor<?xf32>
}

// stack: each input unsqueezed at the dim, then their cat.
// CHECK-LABEL: func.func @stack
// CHECK: %[[A:.*]] = kiln.unsqueeze %arg0 dim 1 : tensor<?x3xf32> -> tensor<?x1x3xf32>
// CHECK: %[[B:.*]] = kiln.unsqueeze %arg1 dim 1 : tensor<?x3xf32> -> tensor<?x1x3xf32>
// CHECK: %[[C:.*]] = kiln.cat %[[A]], %[[B]] dim 1
// CHECK: return %[[C]]
func.func @stack(%a: tensor<?x3xf32>, %b: tensor<?x3xf32>) -> tensor<?x2x3xf32> {
  %0 = kiln.stack %a, %b dim 1 : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x2x3xf32>
  return %0 : tensor<?x2x3xf32>
}

// tril and triu: x where the column less the row is at most (tril) or at
// least (triu) the diagonal, a zero of x's type elsewhere.
// CHECK-LABEL: func.func @triangles
// CHECK: %[[R:.*]] = kiln.dim %arg0, 1 : tensor<2x?x4xf32>
// CHECK: %[[RA:.*]] = kiln.arange %{{.*}}, %[[R]], %{{.*}} : tensor<?xi64>
// CHECK: %[[ROWS:.*]] = kiln.unsqueeze %[[RA]] dim 1 : tensor<?xi64> -> tensor<?x1xi64>
// CHECK: %[[C:.*]] = kiln.dim %arg0, 2 : tensor<2x?x4xf32>
// CHECK: %[[CA:.*]] = kiln.arange %{{.*}}, %[[C]], %{{.*}} : tensor<?xi64>
// CHECK: %[[OFF:.*]] = kiln.sub %[[CA]], %[[ROWS]]
// CHECK: %[[D:.*]] = kiln.full {value = 1 : i64} : tensor<i64>
// CHECK: %[[KEEP:.*]] = kiln.cmp le, %[[OFF]], %[[D]]
// CHECK: %[[Z:.*]] = kiln.full {value = 0.000000e+00 : f32} : tensor<f32>
// CHECK: kiln.where %[[KEEP]], %arg0, %[[Z]] : (tensor<?x?xi1>, tensor<2x?x4xf32>, tensor<f32>) -> tensor<2x?x4xf32>
// CHECK: kiln.full {value = -1 : i64}
// CHECK: %[[KEEPU:.*]] = kiln.cmp ge,
// CHECK: %[[F:.*]] = kiln.full {value = false} : tensor<i1>
// CHECK: kiln.where %[[KEEPU]], %arg1, %[[F]] : (tensor<?x?xi1>, tensor<?x?xi1>, tensor<i1>) -> tensor<?x?xi1>
// CHECK-NOT: kiln.tril
// CHECK-NOT: kiln.triu
func.func @triangles(%x: tensor<2x?x4xf32>, %b: tensor<?x?xi1>) -> (tensor<2x?x4xf32>, tensor<?x?xi1>) {
  %0 = kiln.tril %x diagonal 1 : tensor<2x?x4xf32> -> tensor<2x?x4xf32>
  %1 = kiln.triu %b diagonal -1 : tensor<?x?xi1> -> tensor<?x?xi1>
  return %0, %1 : tensor<2x?x4xf32>, tensor<?x?xi1>
}

// CHECK-LABEL: func.func @value_tests
func.func @value_tests(%x: tensor<?x4xf32>, %n: tensor<3xi64>)
    -> (tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<3xi1>, tensor<?x4xf32>) {
  // CHECK: kiln.cmp ne, %[[X:[^,]*]], %[[X]] : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
  %0 = kiln.isnan %x : tensor<?x4xf32> -> tensor<?x4xi1>
  // Against wrapped f64 numbers, as the runtime's Scalars; bools added as or.
  // CHECK: %[[INF:.*]] = kiln.from_scalar %{{.*}} : f64 -> tensor<f64>
  // CHECK: %[[P:.*]] = kiln.cmp eq, %[[X]], %[[INF]]
  // CHECK: %[[N:.*]] = kiln.cmp eq, %[[X]], %{{.*}}
  // CHECK: kiln.add %[[P]], %[[N]] : (tensor<?x4xi1>, tensor<?x4xi1>) -> tensor<?x4xi1>
  %1 = kiln.isinf %x : tensor<?x4xf32> -> tensor<?x4xi1>
  // ... and multiplied as and.
  // CHECK: kiln.cmp eq, %[[X]], %[[X]]
  // CHECK: kiln.cmp ne
  // CHECK: kiln.cmp ne
  // CHECK: kiln.mul
  // CHECK: kiln.mul
  %2 = kiln.isfinite %x : tensor<?x4xf32> -> tensor<?x4xi1>
  // CHECK: kiln.cmp eq, %{{.*}}, %{{.*}} : (tensor<3xi64>, tensor<f64>) -> tensor<3xi1>
  %3 = kiln.logical_not %n : tensor<3xi64> -> tensor<3xi1>
  // CHECK: %[[GT:.*]] = kiln.cmp gt, %[[X]]
  // CHECK: %[[G:.*]] = kiln.cast %[[GT]] : tensor<?x4xi1> to tensor<?x4xf32>
  // CHECK: %[[LT:.*]] = kiln.cmp lt, %[[X]]
  // CHECK: %[[L:.*]] = kiln.cast %[[LT]] : tensor<?x4xi1> to tensor<?x4xf32>
  // CHECK: kiln.sub %[[G]], %[[L]]
  %4 = kiln.sign %x : tensor<?x4xf32>
  // CHECK-NOT: kiln.isnan
  // CHECK-NOT: kiln.sign
  return %0, %1, %2, %3, %4 : tensor<?x4xi1>, tensor<?x4xi1>, tensor<?x4xi1>, tensor<3xi1>, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @logical
func.func @logical(%x: tensor<?x4xf32>, %n: tensor<4xi64>, %b: tensor<?x1xi1>)
    -> (tensor<?x4xi1>, tensor<?x4xi1>) {
  // Each operand compared with a wrapped 0, the bools multiplied as and ...
  // CHECK: %[[Z:.*]] = kiln.from_scalar %{{.*}} : f64 -> tensor<f64>
  // CHECK: %[[L:.*]] = kiln.cmp ne, %[[X:[^,]*]], %[[Z]] : (tensor<?x4xf32>, tensor<f64>) -> tensor<?x4xi1>
  // CHECK: %[[R:.*]] = kiln.cmp ne, %[[N:[^,]*]], %{{.*}} : (tensor<4xi64>, tensor<f64>) -> tensor<4xi1>
  // CHECK: kiln.mul %[[L]], %[[R]] : (tensor<?x4xi1>, tensor<4xi1>) -> tensor<?x4xi1>
  %0 = kiln.logical_and %x, %n : (tensor<?x4xf32>, tensor<4xi64>) -> tensor<?x4xi1>
  // ... and added as or, broadcasting.
  // CHECK: %[[L2:.*]] = kiln.cmp ne, %[[N]], %{{.*}}
  // CHECK: %[[R2:.*]] = kiln.cmp ne, %{{.*}}, %{{.*}} : (tensor<?x1xi1>, tensor<f64>) -> tensor<?x1xi1>
  // CHECK: kiln.add %[[L2]], %[[R2]] : (tensor<4xi1>, tensor<?x1xi1>) -> tensor<?x4xi1>
  %1 = kiln.logical_or %n, %b : (tensor<4xi64>, tensor<?x1xi1>) -> tensor<?x4xi1>
  // CHECK-NOT: kiln.logical_
  return %0, %1 : tensor<?x4xi1>, tensor<?x4xi1>
}

// CHECK-LABEL: func.func @quantifiers
func.func @quantifiers(%x: tensor<?x4xf32>) -> (tensor<i1>, tensor<?x1xi1>) {
  // any: a count of the nonzero elements above 0.
  // CHECK: %[[NZ:.*]] = kiln.cmp ne, %[[X:[^,]*]], %{{.*}} : (tensor<?x4xf32>, tensor<f64>) -> tensor<?x4xi1>
  // CHECK: %[[C:.*]] = kiln.sum %[[NZ]] dims [] : tensor<?x4xi1> -> tensor<i64>
  // CHECK: kiln.cmp gt, %[[C]], %{{.*}} : (tensor<i64>, tensor<f64>) -> tensor<i1>
  %0 = kiln.any %x dims [] : tensor<?x4xf32> -> tensor<i1>
  // all: no zero element, the dims kept.
  // CHECK: %[[Z:.*]] = kiln.cmp eq, %[[X]], %{{.*}}
  // CHECK: %[[C2:.*]] = kiln.sum %[[Z]] dims [1] keepdim : tensor<?x4xi1> -> tensor<?x1xi64>
  // CHECK: kiln.cmp eq, %[[C2]], %{{.*}} : (tensor<?x1xi64>, tensor<f64>) -> tensor<?x1xi1>
  %1 = kiln.all %x dims [1] keepdim : tensor<?x4xf32> -> tensor<?x1xi1>
  // CHECK-NOT: kiln.any
  // CHECK-NOT: kiln.all
  return %0, %1 : tensor<i1>, tensor<?x1xi1>
}

// CHECK-LABEL: func.func @flip_roll
func.func @flip_roll(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  // flip: positions size - 1 - i (as static as the dim), placed along the
  // dim, expanded to x's shape and gathered.
  // CHECK: %[[S:.*]] = kiln.dim %[[X:[^,]*]], 1 : tensor<?x4xf32>
  // CHECK: %[[LAST:.*]] = arith.subi %[[S]], %{{.*}} : index
  // CHECK: %[[L:.*]] = kiln.from_scalar %[[LAST]] : index -> tensor<i64>
  // CHECK: %[[P:.*]] = kiln.arange %{{.*}}, %[[S]], %{{.*}} : tensor<?xi64>
  // CHECK: %[[AT:.*]] = kiln.sub %[[L]], %[[P]] : (tensor<i64>, tensor<?xi64>) -> tensor<?xi64>
  // CHECK: %[[AT4:.*]] = kiln.cast %[[AT]] : tensor<?xi64> to tensor<4xi64>
  // CHECK: %[[PL:.*]] = kiln.reshape %[[AT4]] : tensor<4xi64> -> tensor<1x4xi64>
  // CHECK: %[[N:.*]] = kiln.dim %[[X]], 0
  // CHECK: %[[I:.*]] = kiln.expand %[[PL]] [%[[N]]] : tensor<1x4xi64> -> tensor<?x4xi64>
  // CHECK: kiln.gather %[[X]], %[[I]] dim 1 : (tensor<?x4xf32>, tensor<?x4xi64>) -> tensor<?x4xf32>
  %0 = kiln.flip %x dims [1] : tensor<?x4xf32>
  // roll: the shift reduced modulo the size at run time, positions past
  // the end wrapped.
  // CHECK: %[[S0:.*]] = kiln.dim %[[X]], 0
  // CHECK: arith.maxsi %[[S0]]
  // CHECK: arith.remsi
  // CHECK: arith.remsi
  // CHECK: %[[F:.*]] = kiln.add
  // CHECK: %[[PAST:.*]] = kiln.cmp ge, %[[F]]
  // CHECK: %[[BACK:.*]] = kiln.sub %[[F]]
  // CHECK: kiln.where %[[PAST]], %[[BACK]], %[[F]]
  // CHECK: kiln.gather %[[X]], %{{.*}} dim 0
  %1 = kiln.roll %x shift -3 dim 0 : tensor<?x4xf32>
  // CHECK-NOT: kiln.flip
  // CHECK-NOT: kiln.roll
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @below_zero
func.func @below_zero(%x: tensor<?x4xf32>, %k: f64)
    -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  // CHECK: %[[K:.*]] = kiln.from_scalar %{{.*}} : f64 -> tensor<f64>
  // CHECK: %[[Z:.*]] = kiln.from_scalar %{{.*}} : f64 -> tensor<f64>
  // CHECK: %[[P:.*]] = kiln.cmp gt, %[[X:[^,]*]], %[[Z]]
  // CHECK: %[[B:.*]] = kiln.mul %[[X]], %[[K]]
  // CHECK: kiln.where %[[P]], %[[X]], %[[B]]
  %0 = kiln.leaky_relu %x, %k : tensor<?x4xf32>
  // elu's exponential is of 0 where x is positive.
  // CHECK: %[[K2:.*]] = kiln.from_scalar
  // CHECK: %[[Z2:.*]] = kiln.from_scalar
  // CHECK: %[[P2:.*]] = kiln.cmp gt, %[[X]], %[[Z2]]
  // CHECK: %[[E:.*]] = kiln.where %[[P2]], %[[Z2]], %[[X]]
  // CHECK: %[[M:.*]] = kiln.expm1 %[[E]]
  // CHECK: %[[B2:.*]] = kiln.mul %[[M]], %[[K2]]
  // CHECK: kiln.where %[[P2]], %[[X]], %[[B2]]
  %1 = kiln.elu %x, %k : tensor<?x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @masked_fill
func.func @masked_fill(%x: tensor<?x4xf32>, %m: tensor<?x1xi1>, %v: tensor<f64>)
    -> tensor<?x4xf32> {
  // A float value as it is; only the dynamic dim is checked.
  // CHECK: %[[Y:.*]] = kiln.where %{{.*}}, %{{.*}}, %[[X:[^ ]*]] : (tensor<?x1xi1>, tensor<f64>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: %[[A:.*]] = kiln.dim %[[Y]], 0
  // CHECK: %[[B:.*]] = kiln.dim %[[X]], 0
  // CHECK: %[[OK:.*]] = arith.cmpi eq, %[[A]], %[[B]]
  // CHECK-NEXT: cf.assert %[[OK]], "masked_fill: the mask does not broadcast to the tensor's shape"
  // CHECK-NOT: cf.assert
  %0 = kiln.masked_fill %x, %m, %v : (tensor<?x4xf32>, tensor<?x1xi1>, tensor<f64>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @masked_fill_ints
func.func @masked_fill_ints(%x: tensor<3xi64>, %m: tensor<3xi1>, %v: tensor<f64>)
    -> tensor<3xi64> {
  // A float value into integers is converted first; static sizes need no check.
  // CHECK: %[[V:.*]] = kiln.cast %{{.*}} : tensor<f64> to tensor<i64>
  // CHECK: kiln.where %{{.*}}, %[[V]], %{{.*}} : (tensor<3xi1>, tensor<i64>, tensor<3xi64>) -> tensor<3xi64>
  // CHECK-NOT: cf.assert
  %0 = kiln.masked_fill %x, %m, %v : (tensor<3xi64>, tensor<3xi1>, tensor<f64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// CHECK-LABEL: func.func @batch_norm
func.func @batch_norm(%x: tensor<?x?x8xf32>, %m: tensor<?xf32>, %v: tensor<?xf32>, %w: tensor<?xf32>, %e: f64)
    -> tensor<?x?x8xf32> {
  // The statistics' sizes checked against the channels (dynamic here), the
  // channels moved last, the statistics detached, the result moved back.
  // CHECK: kiln.dim %[[M:[^,]*]], 0
  // CHECK: kiln.dim %[[X:[^,]*]], 1
  // CHECK: arith.cmpi eq
  // CHECK: cf.assert {{.*}}, "batch_norm: statistics and parameters must have shape [C] (the input's dim 1)"
  // CHECK: %[[VD:.*]] = kiln.detach %[[V:[^ ]*]]
  // CHECK: %[[VE:.*]] = kiln.add %[[VD]]
  // CHECK: %[[T:.*]] = kiln.transpose %[[X]] dims 1, 2
  // CHECK: %[[MD:.*]] = kiln.detach %[[M]]
  // CHECK: %[[D:.*]] = kiln.sub %[[T]], %[[MD]]
  // CHECK: %[[R:.*]] = kiln.rsqrt %[[VE]]
  // CHECK: %[[N:.*]] = kiln.mul %[[D]], %[[R]]
  // CHECK: %[[S:.*]] = kiln.mul %[[N]], %[[W:[^ ]*]]
  // CHECK: kiln.transpose %[[S]] dims 1, 2
  // CHECK-NOT: kiln.batch_norm
  %0 = kiln.batch_norm %x, %m, %v weight %w eps_value %e {eps = 0.0 : f64} : (tensor<?x?x8xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, f64) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @group_norm
func.func @group_norm(%x: tensor<?x?x8xf32>, %g: index, %w: tensor<?xf32>)
    -> tensor<?x?x8xf32> {
  // Each group's elements in a row, centred and scaled by the variance's
  // root, back to x's shape, then the weight with the channels last; the
  // groups and the weight's size checked at run time.
  // CHECK: %[[ROWS:.*]] = kiln.reshape %[[X:[^ ]*]] [{{.*}}] : tensor<?x?x8xf32> -> tensor<?x?x?xf32>
  // CHECK: %[[M:.*]] = kiln.mean %[[ROWS]] dims [2] keepdim
  // CHECK: %[[C:.*]] = kiln.sub %[[ROWS]], %[[M]]
  // CHECK: kiln.rsqrt
  // CHECK: %[[Y:.*]] = kiln.reshape %{{.*}} [{{.*}}] : tensor<?x?x?xf32> -> tensor<?x?x8xf32>
  // CHECK: %[[T:.*]] = kiln.transpose %[[Y]] dims 1, 2
  // CHECK: %[[S:.*]] = kiln.mul %[[T]], %[[W:[^ ]*]]
  // CHECK: kiln.transpose %[[S]] dims 1, 2
  // CHECK: cf.assert {{.*}}, "group_norm: the groups must divide the channels, and weight and bias have shape [C] (the input's dim 1)"
  // CHECK-NOT: kiln.group_norm
  %0 = kiln.group_norm %x groups %g weight %w {eps = 1.0e-05 : f64} : (tensor<?x?x8xf32>, index, tensor<?xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// CHECK-LABEL: func.func @clamp
func.func @clamp(%x: tensor<?x4xf32>, %lo: tensor<f64>, %hi: tensor<f64>)
    -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  // Both bounds: min(lo, hi) outside (x * 0 at NaN), the upper one where x
  // is below it, each test strict.
  // CHECK: %[[B:.*]] = kiln.minimum %[[LO:[^,]*]], %[[HI:[^ ]*]] :
  // CHECK: %[[NAN:.*]] = kiln.cmp ne, %[[X:[^,]*]], %[[X]]
  // CHECK: %[[Z:.*]] = kiln.mul %[[X]]
  // CHECK: %[[OUT:.*]] = kiln.where %[[NAN]], %[[Z]], %[[B]]
  // CHECK: %[[LT:.*]] = kiln.cmp lt, %[[X]], %[[HI]]
  // CHECK: %[[BELOW:.*]] = kiln.where %[[LT]], %[[X]], %[[HI]]
  // CHECK: %[[IN:.*]] = kiln.cmp lt, %[[LO]], %[[X]]
  // CHECK: kiln.where %[[IN]], %[[BELOW]], %[[OUT]]
  %0 = kiln.clamp %x min %lo max %hi : (tensor<?x4xf32>, tensor<f64>, tensor<f64>) -> tensor<?x4xf32>
  // max alone: x where below it, else max (or NaN).
  // CHECK: %[[NAN2:.*]] = kiln.cmp ne, %[[X]], %[[X]]
  // CHECK: %[[OUT2:.*]] = kiln.where %[[NAN2]], %{{.*}}, %[[HI]]
  // CHECK: %[[LT2:.*]] = kiln.cmp lt, %[[X]], %[[HI]]
  // CHECK: kiln.where %[[LT2]], %[[X]], %[[OUT2]]
  // CHECK-NOT: kiln.clamp
  %1 = kiln.clamp %x max %hi : (tensor<?x4xf32>, tensor<f64>) -> tensor<?x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @lerp
func.func @lerp(%a: tensor<?x4xf32>, %b: tensor<4xf32>, %w: f64)
    -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  // A run-time weight computes both ends and selects.
  // CHECK: %[[D:.*]] = kiln.sub %[[B:[^,]*]], %[[A:[^ ]*]] : (tensor<4xf32>, tensor<?x4xf32>)
  // CHECK: %[[NEAR:.*]] = arith.cmpf olt
  // CHECK: %[[S:.*]] = kiln.add %[[A]]
  // CHECK: arith.subf
  // CHECK: %[[E:.*]] = kiln.sub %[[B]]
  // CHECK: arith.select %[[NEAR]], %[[S]], %[[E]]
  %0 = kiln.lerp %a, %b, %w : (tensor<?x4xf32>, tensor<4xf32>, f64) -> tensor<?x4xf32>
  // A constant one takes its end only.
  // CHECK: %[[D2:.*]] = kiln.sub %[[B]], %[[A]]
  // CHECK-NEXT: arith.constant 1.000000e+00
  // CHECK-NEXT: arith.subf
  // CHECK-NEXT: kiln.from_scalar
  // CHECK-NEXT: kiln.mul %[[D2]]
  // CHECK-NEXT: kiln.sub %[[B]]
  // CHECK-NOT: arith.select
  %c = arith.constant 0.75 : f64
  %1 = kiln.lerp %a, %b, %c : (tensor<?x4xf32>, tensor<4xf32>, f64) -> tensor<?x4xf32>
  return %0, %1 : tensor<?x4xf32>, tensor<?x4xf32>
}

// eye: a column of positions compared with a row of them, the sizes checked
// non-negative at run time; a constant size is a static dim.
// CHECK-LABEL: func.func @eye
// CHECK: cf.assert %{{.*}}, "eye: sizes must be non-negative"
// CHECK: %[[R:.*]] = kiln.arange %{{.*}}, %arg0, %{{.*}} : tensor<?xi64>
// CHECK: %[[COL:.*]] = kiln.unsqueeze %[[R]] dim 1 : tensor<?xi64> -> tensor<?x1xi64>
// CHECK: %[[C:.*]] = kiln.arange %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xi64>
// CHECK: %[[EQ:.*]] = kiln.cmp eq, %[[COL]], %[[C]]
// CHECK: %[[Y:.*]] = kiln.cast %[[EQ]] : tensor<?x?xi1> to tensor<?x4xbf16>
// CHECK: return %[[Y]]
func.func @eye(%n: index) -> tensor<?x4xbf16> {
  %c4 = arith.constant 4 : index
  %0 = kiln.eye %n, %c4 dtype bf16 : tensor<?x4xbf16>
  return %0 : tensor<?x4xbf16>
}

// one_hot: the ids' rows of the int64 identity, through kiln.embedding
// (which checks their range).
// CHECK-LABEL: func.func @one_hot
// CHECK: cf.assert %{{.*}}, "one_hot: num_classes must be -1 or non-negative"
// CHECK: %[[T:.*]] = kiln.cast %{{.*}} : tensor<?x?xi1> to tensor<?x?xi64>
// CHECK: %[[Y:.*]] = kiln.embedding %arg0, %[[T]] : (tensor<?x3xi64>, tensor<?x?xi64>) -> tensor<?x3x?xi64>
// CHECK: return %[[Y]]
func.func @one_hot(%ids: tensor<?x3xi64>, %c: index) -> tensor<?x3x?xi64> {
  %0 = kiln.one_hot %ids classes %c : tensor<?x3xi64> -> tensor<?x3x?xi64>
  return %0 : tensor<?x3x?xi64>
}

// linspace: positions in the dtype, counted up from start below the middle
// and down from end from it.
// CHECK-LABEL: func.func @linspace
// CHECK: cf.assert %{{.*}}, "linspace: the number of steps must be non-negative"
// CHECK: %[[STEP:.*]] = arith.select
// CHECK: %[[I:.*]] = kiln.cast %{{.*}} : tensor<?xi64> to tensor<?xf32>
// CHECK: %[[UP:.*]] = kiln.add
// CHECK: %[[DOWN:.*]] = kiln.add
// CHECK: %[[LT:.*]] = kiln.cmp lt, %[[I]]
// CHECK: %[[Y:.*]] = kiln.where %[[LT]], %[[UP]], %[[DOWN]]
// CHECK: return %[[Y]]
func.func @linspace(%a: f64, %b: f64, %n: index) -> tensor<?xf32> {
  %0 = kiln.linspace %a, %b, %n dtype f32 : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// randint: the f64 uniform draws scaled to the span, floored, shifted by
// low and converted; high > low checked at run time.
// CHECK-LABEL: func.func @randint
// CHECK: cf.assert %{{.*}}, "randint: high must be greater than low"
// CHECK: %[[U:.*]] = kiln.random uniform %arg2 [%arg1] : tensor<?x8xf64>
// CHECK: %[[S:.*]] = kiln.mul %[[U]]
// CHECK: %[[F:.*]] = kiln.floor %[[S]]
// CHECK: %[[P:.*]] = kiln.add %[[F]]
// CHECK: %[[Y:.*]] = kiln.cast %[[P]] : tensor<?x8xf64> to tensor<?x8xi32>
// CHECK: return %[[Y]]
func.func @randint(%low: index, %b: index, %seed: index) -> tensor<?x8xi32> {
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %0 = kiln.randint %low, %c9, [%b, %c8] seed %seed dtype i32 : tensor<?x8xi32>
  return %0 : tensor<?x8xi32>
}

// index_select: the index placed along the dim and expanded to the
// input's other sizes, then gathered (the gather checks the values).
// CHECK-LABEL: func.func @index_select
// CHECK-NOT: cf.assert
// CHECK: %[[I:.*]] = kiln.cast %arg1 : tensor<?xi32> to tensor<?xi64>
// CHECK: %[[P:.*]] = kiln.reshape %[[I]] [%{{.*}}] : tensor<?xi64> -> tensor<1x?xi64>
// CHECK: %[[N:.*]] = kiln.dim %[[P]], 1
// CHECK: %[[AT:.*]] = kiln.expand %[[P]] [%[[N]]] : tensor<1x?xi64> -> tensor<3x?xi64>
// CHECK: %[[G:.*]] = kiln.gather %arg0, %[[AT]] dim 1
// CHECK: return %[[G]]
func.func @index_select(%x: tensor<3x?xf32>, %i: tensor<?xi32>) -> tensor<3x?xf32> {
  %0 = kiln.index_select %x, %i dim 1 : (tensor<3x?xf32>, tensor<?xi32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// pad: the last dim's pair first; reflect mirrors the source positions,
// constant puts the value where they fall outside the dim, a pair of zeros
// leaves its dim alone. Static sizes need no run-time check.
// CHECK-LABEL: func.func @pad
// CHECK-NOT: cf.assert
// CHECK: kiln.abs
// CHECK: %[[R:.*]] = kiln.gather %arg0, %{{.*}} dim 1
// CHECK: %[[RC:.*]] = kiln.cast %[[R]] : tensor<4x?xf32> to tensor<4x7xf32>
// CHECK-NOT: dim 1
// CHECK: %[[V:.*]] = kiln.from_scalar %arg1 : f64 -> tensor<f64>
// CHECK: %[[FILL:.*]] = kiln.cast %[[V]] : tensor<f64> to tensor<f32>
// CHECK: %[[SLAB:.*]] = kiln.expand %[[FILL]] : tensor<f32> -> tensor<1x7xf32>
// CHECK: %[[EXT:.*]] = kiln.cat %[[RC]], %[[SLAB]] dim 0 : (tensor<4x7xf32>, tensor<1x7xf32>) -> tensor<5x7xf32>
// CHECK: %[[IN:.*]] = kiln.mul
// CHECK: %[[AT:.*]] = kiln.where %[[IN]], %{{.*}}, %{{.*}} : (tensor<?xi1>, tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
// CHECK: %[[PICK:.*]] = kiln.gather %[[EXT]], %{{.*}} dim 0
// CHECK: %[[Y:.*]] = kiln.cast %[[PICK]] : tensor<?x7xf32> to tensor<6x7xf32>
// CHECK: return %[[Y]]
func.func @pad(%x: tensor<4x5xf32>, %v: f64) -> tensor<6x7xf32> {
  %0 = kiln.pad %x [1, 1] reflect value %v : (tensor<4x5xf32>, f64) -> tensor<4x7xf32>
  %1 = kiln.pad %0 [0, 0, 2, 0] constant value %v : (tensor<4x7xf32>, f64) -> tensor<6x7xf32>
  return %1 : tensor<6x7xf32>
}

// dropout at inference: p's range asserted, the input returned; full_like:
// the value converted to the element type and expanded to the input's
// sizes.
// CHECK-LABEL: func.func @like_and_dropout
// CHECK: cf.assert %{{.*}}, "dropout: probability has to be between 0 and 1"
// CHECK: %[[V:.*]] = kiln.from_scalar %arg2 : f64 -> tensor<f64>
// CHECK: %[[E:.*]] = kiln.cast %[[V]] : tensor<f64> to tensor<bf16>
// CHECK: %[[N:.*]] = kiln.dim %arg0, 0
// CHECK: %[[F:.*]] = kiln.expand %[[E]] [%[[N]]] : tensor<bf16> -> tensor<?x3xbf16>
// CHECK: return %arg0, %[[F]]
func.func @like_and_dropout(%x: tensor<?x3xbf16>, %p: f64, %v: f64) -> (tensor<?x3xbf16>, tensor<?x3xbf16>) {
  %0 = kiln.dropout %x p %p : tensor<?x3xbf16>
  %1 = kiln.full_like %x, %v : (tensor<?x3xbf16>, f64) -> tensor<?x3xbf16>
  return %0, %1 : tensor<?x3xbf16>, tensor<?x3xbf16>
}

// einsum: each operand summed and permuted as the plan says, reshaped to
// [batch, M, K] and [batch, K, N], one matmul, the product reshaped and
// permuted to the output's order; a contracted size the types leave
// dynamic is checked at run time.
// CHECK-LABEL: func.func @einsum
// CHECK: %[[SA:.*]] = kiln.sum %arg0 dims [2] : tensor<?x?x4xf32> -> tensor<?x?xf32>
// CHECK: %[[A:.*]] = kiln.permute %[[SA]] [1, 0] : tensor<?x?xf32> -> tensor<?x?xf32>
// CHECK: %[[SB:.*]] = kiln.sum %arg1 dims [2] : tensor<?x5x3xf32> -> tensor<?x5xf32>
// CHECK: %[[B:.*]] = kiln.permute %[[SB]] [0, 1] : tensor<?x5xf32> -> tensor<?x5xf32>
// CHECK: cf.assert %{{.*}}, "einsum: a contracted subscript has different sizes in the operands"
// CHECK: %[[RA:.*]] = kiln.reshape %[[A]]
// CHECK: %[[RB:.*]] = kiln.reshape %[[B]]
// CHECK: %[[P:.*]] = kiln.matmul %[[RA]], %[[RB]]
// CHECK: %[[R:.*]] = kiln.reshape %[[P]]
// CHECK: %[[Y:.*]] = kiln.permute %[[R]] [1, 0]
// CHECK: %[[C:.*]] = kiln.cast %[[Y]] : tensor<?x?xf32> to tensor<5x?xf32>
// CHECK: return %[[C]]
func.func @einsum(%a: tensor<?x?x4xf32>, %b: tensor<?x5x3xf32>) -> tensor<5x?xf32> {
  %0 = kiln.einsum "tic,tjx->ji" %a, %b : (tensor<?x?x4xf32>, tensor<?x5x3xf32>) -> tensor<5x?xf32>
  return %0 : tensor<5x?xf32>
}

// interpolate: rows, then columns, each an index_select (a gather) at the
// source positions; bilinear weighs two neighbours; constant sizes and a
// static image need no run-time check.
// CHECK-LABEL: func.func @resample
// CHECK-NOT: cf.assert
// CHECK: kiln.floor
// CHECK: kiln.gather %arg0, %{{.*}} dim 2
// CHECK: kiln.gather %{{.*}}, %{{.*}} dim 3
// CHECK: %[[Y:.*]] = kiln.cast %{{.*}} : tensor<2x3x?x?xf64> to tensor<2x3x6x2xf32>
// CHECK: return %[[Y]]
func.func @resample(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x6x2xf32> {
  %c6 = arith.constant 6 : index
  %c2 = arith.constant 2 : index
  %0 = kiln.interpolate %x sizes [%c6, %c2] bilinear : (tensor<2x3x4x5xf32>, index, index) -> tensor<2x3x6x2xf32>
  return %0 : tensor<2x3x6x2xf32>
}

// -----

// conv_transpose2d as eager computes it: along each dim the pixels and a
// slab of stride - 1 zeros concatenated along a new dim, merged and the
// trailing zeros cut; padded by gathering from the input with one zero
// appended; then a conv2d with stride 1 of the weight flipped (two
// gathers) and regrouped. Run-time parameters are checked, then computed
// clamped into their ranges (the checks report after the graph has run):
// groups within [1, channels], the stride at least 1.
// CHECK-LABEL: func.func @conv_transpose
// CHECK: cf.assert %{{.*}}, "conv_transpose2d: the parameters, the channels, the weight or the bias do not agree, or the output is empty"
// CHECK: %[[Z:.*]] = kiln.full {value = 0.000000e+00 : f32} : tensor<f32>
// CHECK: %[[GAPS:.*]] = kiln.expand %[[Z]] [{{.*}}] : tensor<f32> -> tensor<?x4x?x1x5xf32>
// CHECK: %[[PIX:.*]] = kiln.unsqueeze %arg0 dim 3
// CHECK: %[[SP:.*]] = kiln.cat %[[PIX]], %[[GAPS]] dim 3 : {{.*}} -> tensor<?x4x?x2x5xf32>
// CHECK: %[[M:.*]] = kiln.reshape %[[SP]] {{.*}} -> tensor<?x4x?x5xf32>
// CHECK: %[[CUT:.*]] = kiln.slice %[[M]] dim 2
// CHECK: %[[EXT:.*]] = kiln.cat %[[CUT]], %{{.*}} dim 2
// CHECK: kiln.gather %[[EXT]], %{{.*}} dim 2
// CHECK: kiln.slice %{{.*}} dim 3 [%{{.*}} : %{{.*}}] : tensor<?x4x?x10xf32> -> tensor<?x4x?x9xf32>
// CHECK: %[[HW:.*]] = kiln.gather %{{.*}}, %{{.*}} dim 3
// CHECK: %[[F1:.*]] = kiln.gather %arg1, %{{.*}} dim 2 : (tensor<4x3x3x3xf32>, tensor<4x3x3x3xi64>) -> tensor<4x3x3x3xf32>
// CHECK: %[[F2:.*]] = kiln.gather %[[F1]], %{{.*}} dim 3
// CHECK: %[[G:.*]] = kiln.reshape %[[F2]] : tensor<4x3x3x3xf32> -> tensor<1x4x3x3x3xf32>
// CHECK: %[[T:.*]] = kiln.transpose %[[G]] dims 1, 2 : tensor<1x4x3x3x3xf32> -> tensor<1x3x4x3x3xf32>
// CHECK: %[[WC:.*]] = kiln.reshape %[[T]] : tensor<1x3x4x3x3xf32> -> tensor<3x4x3x3xf32>
// CHECK: %[[Y:.*]] = kiln.conv2d %[[HW]], %[[WC]], %arg2 {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}
// CHECK: kiln.cast %[[Y]] : tensor<?x3x?x?xf32> to tensor<?x3x?x10xf32>
// CHECK: kiln.unsqueeze %arg3 dim 0 : tensor<4x?x?xf32> -> tensor<1x4x?x?xf32>
// CHECK: arith.cmpi sge, %arg4
// CHECK: arith.cmpi sge, %arg5
// CHECK: cf.assert
// CHECK: %[[G0:.*]] = arith.maxsi %arg5
// CHECK: %[[G1:.*]] = arith.minsi %[[G0]], %{{.*}} : index
// CHECK: %[[S:.*]] = arith.maxsi %arg4
// CHECK: arith.muli %{{.*}}, %[[S]]
// CHECK: kiln.conv2d %{{.*}}, %{{.*}} params[%[[G1]]] {groups = -9223372036854775808 : i64
// CHECK: kiln.squeeze %{{.*}} dim 0 : tensor<1x?x?x?xf32> -> tensor<?x?x?xf32>
// CHECK-NOT: kiln.conv_transpose2d
func.func @conv_transpose(%x: tensor<?x4x?x5xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<3xf32>, %img: tensor<4x?x?xf32>, %s: index, %g: index) -> (tensor<?x3x?x10xf32>, tensor<?x?x?xf32>) {
  %0 = kiln.conv_transpose2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<?x4x?x5xf32>, tensor<4x3x3x3xf32>, tensor<3xf32>) -> tensor<?x3x?x10xf32>
  %1 = kiln.conv_transpose2d %img, %w params [%s, %g] {strides = array<i64: -9223372036854775808, 1>, padding = array<i64: 0, 0>, output_padding = array<i64: 0, 0>, groups = -9223372036854775808, dilation = array<i64: 1, 1>}
      : (tensor<4x?x?xf32>, tensor<4x3x3x3xf32>, index, index) -> tensor<?x?x?xf32>
  return %0, %1 : tensor<?x3x?x10xf32>, tensor<?x?x?xf32>
}
