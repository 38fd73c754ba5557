// Tests that kiln-refine-types types a graph built on open types from its
// arguments' `kiln.type`s with the ops' own inference, and that an op that
// cannot take the types it is given fails with its own diagnostic.
// RUN: kiln-opt %s -split-input-file -kiln-refine-types -verify-diagnostics | FileCheck %s

// The ops accept open operands and infer open results; refined, the types
// are the ones the same ops infer on the typed inputs: an integer input of
// exp gives f32, a wrapped f64 number does not widen f32, a matmul's shape,
// a reduction's, a comparison's i1.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xi64>, %[[W:.*]]: tensor<4x8xf32>, %[[N:.*]]: f64) -> (tensor<?x8xf32>, tensor<?xf32>, tensor<?x8xi1>)
func.func @mlp(%x: tensor<*x!kiln.open> {kiln.type = tensor<?x4xi64>},
               %w: tensor<*x!kiln.open> {kiln.type = tensor<4x8xf32>},
               %n: f64)
    -> (tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>) {
  // CHECK: kiln.exp %[[X]] : tensor<?x4xi64>
  %e = kiln.exp %x : tensor<*x!kiln.open>
  // CHECK: kiln.matmul {{.*}} : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
  %m = kiln.matmul %e, %w : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  // CHECK: kiln.from_scalar %[[N]] : f64 -> tensor<f64>
  %s = kiln.from_scalar %n : f64 -> tensor<f64>
  // CHECK: kiln.mul {{.*}} : (tensor<?x8xf32>, tensor<f64>) -> tensor<?x8xf32>
  %y = kiln.mul %m, %s : (tensor<*x!kiln.open>, tensor<f64>) -> tensor<*x!kiln.open>
  // CHECK: kiln.sum {{.*}} dims [1] : tensor<?x8xf32> -> tensor<?xf32>
  %r = kiln.sum %y dims [1] : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  // CHECK: kiln.cmp gt, {{.*}} : (tensor<?x8xf32>, tensor<f64>) -> tensor<?x8xi1>
  %c = kiln.cmp gt, %y, %s : (tensor<*x!kiln.open>, tensor<f64>) -> tensor<*x!kiln.open>
  // CHECK: return {{.*}} : tensor<?x8xf32>, tensor<?xf32>, tensor<?x8xi1>
  return %y, %r, %c : tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>
}

// -----

// The ops that state their result type keep it and take the rest from
// their input: a cast its input's shape, a reshape its element type.
// CHECK-LABEL: func.func @stated
// CHECK-SAME: -> (tensor<2x3xf64>, tensor<?xf16>)
func.func @stated(%x: tensor<*x!kiln.open> {kiln.type = tensor<2x3xf16>},
                  %n: index)
    -> (tensor<*xf64>, tensor<?x!kiln.open>) {
  // CHECK: kiln.cast %{{.*}} : tensor<2x3xf16> to tensor<2x3xf64>
  %c = kiln.cast %x : tensor<*x!kiln.open> to tensor<*xf64>
  // CHECK: kiln.reshape {{.*}} -> tensor<?xf16>
  %r = kiln.reshape %x [%n] : tensor<*x!kiln.open> -> tensor<?x!kiln.open>
  return %c, %r : tensor<*xf64>, tensor<?x!kiln.open>
}

// -----

// The layer norm's weight may be open while its input is not (a constant
// input, an argument weight): nothing is checked until both are known, and
// then the element types must agree.
// CHECK-LABEL: func.func @norm
// CHECK: kiln.layer_norm {{.*}} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
func.func @norm(%w: tensor<*x!kiln.open> {kiln.type = tensor<8xf32>})
    -> tensor<2x8xf32> {
  %x = kiln.constant dense<1.0> : tensor<2x8xf32>
  %y = kiln.layer_norm %x, %w {eps = 1.0e-05 : f64} : (tensor<2x8xf32>, tensor<*x!kiln.open>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

func.func @norm_f64_weight(%w: tensor<*x!kiln.open> {kiln.type = tensor<8xf64>})
    -> tensor<2x8xf32> {
  %x = kiln.constant dense<1.0> : tensor<2x8xf32>
  // expected-error @+1 {{'kiln.layer_norm' op the weight's type 'tensor<8xf64>' differs in element type from the input's 'tensor<2x8xf32>'}}
  %y = kiln.layer_norm %x, %w {eps = 1.0e-05 : f64} : (tensor<2x8xf32>, tensor<*x!kiln.open>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// -----

// A block of the ops a model is made of, each inferring its result again.
// CHECK-LABEL: func.func @block
// CHECK-SAME: -> (tensor<?x?x16xf32>, tensor<?x16x16x16xf32>, tensor<?x?xf32>)
func.func @block(%ids: tensor<*x!kiln.open> {kiln.type = tensor<?x?xi64>},
                 %table: tensor<*x!kiln.open> {kiln.type = tensor<100x16xf32>},
                 %w: tensor<*x!kiln.open> {kiln.type = tensor<16x16xf32>},
                 %img: tensor<*x!kiln.open> {kiln.type = tensor<?x3x32x32xf32>},
                 %cw: tensor<*x!kiln.open> {kiln.type = tensor<16x3x3x3xf32>},
                 %mask: tensor<*x!kiln.open> {kiln.type = tensor<?x?xi1>})
    -> (tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>) {
  // CHECK: kiln.embedding {{.*}} -> tensor<?x?x16xf32>
  %x = kiln.embedding %ids, %table : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  // CHECK: kiln.layer_norm {{.*}} -> tensor<?x?x16xf32>
  %n = kiln.layer_norm %x, %table {eps = 1.0e-05 : f64} : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  // CHECK: kiln.linear {{.*}} -> tensor<?x?x16xf32>
  %q = kiln.linear %x, %w : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  // CHECK: kiln.transpose {{.*}} : tensor<?x?x16xf32> -> tensor<?x16x?xf32>
  %t = kiln.transpose %q dims 1, 2 : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  // CHECK: kiln.matmul {{.*}} -> tensor<?x?x?xf32>
  %s = kiln.matmul %q, %t : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  // CHECK: kiln.softmax {{.*}} : tensor<?x?x?xf32>
  %p = kiln.softmax %s dim 2 : tensor<*x!kiln.open>
  // CHECK: kiln.scaled_dot_product_attention {{.*}} -> tensor<?x?x16xf32>
  %a = kiln.scaled_dot_product_attention %q, %q, %q mask %mask {is_causal = false} : (tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  // CHECK: kiln.gelu {{.*}} : tensor<?x?x16xf32>
  %g = kiln.gelu %a approximate tanh : tensor<*x!kiln.open>
  // CHECK: kiln.conv2d {{.*}} -> tensor<?x16x16x16xf32>
  %c = kiln.conv2d %img, %cw {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  // CHECK: kiln.unsqueeze {{.*}} : tensor<?x?xi1> -> tensor<1x?x?xi1>
  %u = kiln.unsqueeze %mask dim 0 : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  // CHECK: kiln.where {{.*}} -> tensor<?x?x?xf32>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %m = kiln.where %u, %p, %zero : (tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<f32>) -> tensor<*x!kiln.open>
  // CHECK: kiln.dim {{.*}}, 1 : tensor<?x?x?xf32>
  %d = kiln.dim %m, 1 : tensor<*x!kiln.open>
  %c0 = arith.constant 0 : index
  // CHECK: kiln.slice {{.*}} : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %sl = kiln.slice %m dim 2 [%c0 : %d] : tensor<*x!kiln.open> -> tensor<?x?x?x!kiln.open>
  // CHECK: kiln.amax {{.*}} : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %r = kiln.amax %sl dims [2] : tensor<?x?x?x!kiln.open> -> tensor<*x!kiln.open>
  return %g, %c, %r : tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>
}

// -----

// Dims as the source wrote them, torch's negative ones counting from the
// end, are counted from 0 once the rank is known (a reduction's sorted and
// distinct).
// CHECK-LABEL: func.func @negative_dims
func.func @negative_dims(%x: tensor<*x!kiln.open> {kiln.type = tensor<2x3x4xf32>})
    -> (tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>, index) {
  // CHECK: kiln.softmax %{{.*}} dim 2 : tensor<2x3x4xf32>
  %s = kiln.softmax %x dim -1 : tensor<*x!kiln.open>
  // CHECK: kiln.sum %{{.*}} dims [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  %r = kiln.sum %s dims [-1, 0, 2] : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  // CHECK: kiln.transpose %{{.*}} dims 2, 1 : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %t = kiln.transpose %x dims -1, -2 : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  // CHECK: kiln.unsqueeze %{{.*}} dim 3 : tensor<2x3x4xf32> -> tensor<2x3x4x1xf32>
  %u = kiln.unsqueeze %x dim -1 : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  // CHECK: kiln.dim %{{.*}}, 1 : tensor<2x3x4xf32>
  %d = kiln.dim %x, -2 : tensor<*x!kiln.open>
  return %r, %t, %u, %d : tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>, index
}

// -----

// A dim out of range stays as written, for the verifier to name.
func.func @dim_out_of_range(%x: tensor<*x!kiln.open> {kiln.type = tensor<2x3xf32>})
    -> tensor<*x!kiln.open> {
  // expected-error @+1 {{dim -3 is out of range for rank 2}}
  %s = kiln.softmax %x dim -3 : tensor<*x!kiln.open>
  return %s : tensor<*x!kiln.open>
}

// -----

// Shapes the typed inputs cannot broadcast: the op's inference says why.
func.func @conflict(%a: tensor<*x!kiln.open> {kiln.type = tensor<2xf32>},
                    %b: tensor<*x!kiln.open> {kiln.type = tensor<3xf32>})
    -> tensor<*x!kiln.open> {
  // expected-error @+1 {{shapes [2] and [3] cannot be broadcast}}
  %0 = kiln.add %a, %b : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  return %0 : tensor<*x!kiln.open>
}

// -----

// expand_as takes the other tensor's shape and its input's element type; an
// input of higher rank than the other, or a dim that is neither 1 nor the
// other's, is refused (an in-place op whose result would not fit its
// tensor: `t.add_(y)` with y larger).
// CHECK-LABEL: func.func @expand_as
// CHECK: kiln.expand_as %{{.*}}, %{{.*}} : (tensor<?x1xi64>, tensor<?x4xf32>) -> tensor<?x4xi64>
func.func @expand_as(%a: tensor<*x!kiln.open> {kiln.type = tensor<?x1xi64>},
                     %b: tensor<*x!kiln.open> {kiln.type = tensor<?x4xf32>})
    -> tensor<*x!kiln.open> {
  %0 = kiln.expand_as %a, %b : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  return %0 : tensor<*x!kiln.open>
}

// -----

func.func @expand_as_lower(%a: tensor<*x!kiln.open> {kiln.type = tensor<2x?x4xf32>},
                           %b: tensor<*x!kiln.open> {kiln.type = tensor<?x4xf32>})
    -> tensor<*x!kiln.open> {
  // expected-error @+1 {{expand_as: cannot expand 'tensor<2x?x4xf32>' to the lower rank of 'tensor<?x4xf32>'}}
  %0 = kiln.expand_as %a, %b : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  return %0 : tensor<*x!kiln.open>
}

// -----

func.func @expand_as_size(%a: tensor<*x!kiln.open> {kiln.type = tensor<?x4xf32>},
                          %b: tensor<*x!kiln.open> {kiln.type = tensor<?x1xf32>})
    -> tensor<*x!kiln.open> {
  // expected-error @+1 {{expand_as: dim 1 of size 4 cannot be expanded to 1}}
  %0 = kiln.expand_as %a, %b : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  return %0 : tensor<*x!kiln.open>
}

// -----

// An op that refuses the typed input's element type, in eager's words.
func.func @float_only(%a: tensor<*x!kiln.open> {kiln.type = tensor<4xi64>})
    -> tensor<*x!kiln.open> {
  // expected-error @+1 {{not supported for dtype i64; convert with to(kiln::kFloat32) first}}
  %0 = kiln.mean %a dims [0] : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  return %0 : tensor<*x!kiln.open>
}

// -----

// An argument left open cannot be typed.
// expected-error @+1 {{argument 0 is open: give it a `kiln.type`}}
func.func @untyped(%a: tensor<*x!kiln.open>) -> tensor<*x!kiln.open> {
  %0 = kiln.exp %a : tensor<*x!kiln.open>
  return %0 : tensor<*x!kiln.open>
}

// -----

// What the source writes with torch's meaning takes the dialect's form: an
// expand's -1 (kiln.dim of the input's aligned dim, from the end) is static
// where that dim is; a slice keeps its input's type but the sliced dim; a
// squeeze of a dim of size 3 is a copy; a scan of bools scans i64; an
// opaque call gives its first argument's rank and element type.
// CHECK-LABEL: func.func @torch_forms
func.func @torch_forms(%x: tensor<*x!kiln.open> {kiln.type = tensor<1x4xf32>},
                       %b: tensor<*x!kiln.open> {kiln.type = tensor<?x3xi1>},
                       %n: index)
    -> (tensor<?x?x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>,
        tensor<*x!kiln.open>, tensor<*x!kiln.open>) {
  // CHECK: %[[E:.*]] = kiln.expand %{{.*}} [%{{.*}}] : tensor<1x4xf32> -> tensor<?x4xf32>
  %d = kiln.dim %x, -1 : tensor<*x!kiln.open>
  %e = kiln.expand %x [%n, %d] : tensor<*x!kiln.open> -> tensor<?x?x!kiln.open>
  // CHECK: kiln.slice %[[E]] dim 1 [%{{.*}} : %{{.*}}] : tensor<?x4xf32> -> tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %s = kiln.slice %e dim -1 [%c0 : %n] : tensor<?x?x!kiln.open> -> tensor<*x!kiln.open>
  // CHECK: %[[COPY:.*]] = kiln.cast %{{.*}} : tensor<?x3xi1> to tensor<?x3xi1>
  // CHECK-NOT: kiln.squeeze
  %q = kiln.squeeze %b dim 1 : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  // CHECK: %[[I64:.*]] = kiln.cast %[[COPY]] : tensor<?x3xi1> to tensor<?x3xi64>
  // CHECK: kiln.cumsum %[[I64]] dim 0 : tensor<?x3xi64>
  %c = kiln.cumsum %q dim 0 : tensor<*x!kiln.open>
  // CHECK: kiln.opaque_call @clip(%{{.*}}) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %o = kiln.opaque_call @clip(%s) : (tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  return %e, %s, %q, %c, %o : tensor<?x?x!kiln.open>, tensor<*x!kiln.open>,
      tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>
}
func.func private @clip(tensor<?x?xf32>) -> tensor<?x?xf32>

// -----

// The arms of a select of tensors are cast to what both promise.
// CHECK-LABEL: func.func @select_arms
func.func @select_arms(%p: i1,
                       %a: tensor<*x!kiln.open> {kiln.type = tensor<2x4xf32>},
                       %b: tensor<*x!kiln.open> {kiln.type = tensor<3x4xf32>})
    -> tensor<*x!kiln.open> {
  // CHECK: %[[A:.*]] = tensor.cast %{{.*}} : tensor<2x4xf32> to tensor<?x4xf32>
  // CHECK: %[[B:.*]] = tensor.cast %{{.*}} : tensor<3x4xf32> to tensor<?x4xf32>
  // CHECK: arith.select %{{.*}}, %[[A]], %[[B]] : tensor<?x4xf32>
  %s = arith.select %p, %a, %b : tensor<*x!kiln.open>
  return %s : tensor<*x!kiln.open>
}

// -----

// Arms of different ranks cannot be one variable.
func.func @select_ranks(%p: i1,
                        %a: tensor<*x!kiln.open> {kiln.type = tensor<4xf32>},
                        %b: tensor<*x!kiln.open> {kiln.type = tensor<3x4xf32>})
    -> tensor<*x!kiln.open> {
  // expected-error @+1 {{the arms give 'tensor<4xf32>' and 'tensor<3x4xf32>', which one variable cannot hold}}
  %s = arith.select %p, %a, %b : tensor<*x!kiln.open>
  return %s : tensor<*x!kiln.open>
}

// -----

// cast_like takes the other tensor's element type; a conv2d and a pool of
// one [C, H, W] image give one.
// CHECK-LABEL: func.func @like_and_unbatched
func.func @like_and_unbatched(%x: tensor<*x!kiln.open> {kiln.type = tensor<3x8x8xf32>},
                              %w: tensor<*x!kiln.open> {kiln.type = tensor<5x3x3x3xf64>})
    -> (tensor<*x!kiln.open>, tensor<*x!kiln.open>) {
  // CHECK: kiln.cast_like %{{.*}}, %{{.*}} : (tensor<5x3x3x3xf64>, tensor<3x8x8xf32>) -> tensor<5x3x3x3xf32>
  %wl = kiln.cast_like %w, %x : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  // CHECK: kiln.conv2d {{.*}} : (tensor<3x8x8xf32>, tensor<5x3x3x3xf32>) -> tensor<5x6x6xf32>
  %y = kiln.conv2d %x, %wl {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>}
      : (tensor<*x!kiln.open>, tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  // CHECK: kiln.pool2d max {{.*}} : (tensor<5x6x6xf32>) -> tensor<5x3x3xf32>
  %p = kiln.pool2d max %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
      padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>}
      : (tensor<*x!kiln.open>) -> tensor<*x!kiln.open>
  return %y, %p : tensor<*x!kiln.open>, tensor<*x!kiln.open>
}

// -----

// A slice [s, s + 1) is one wide (the conversion checks it at run time:
// test/Conversion/KilnToLinalg/data-movement.mlir); [s, s + 2), [s, s + n)
// and [0, 1) keep their width dynamic (the last's depends on the dim's
// size).
// CHECK-LABEL: func.func @known_width
// CHECK-SAME: -> (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>)
func.func @known_width(%x: tensor<*x!kiln.open> {kiln.type = tensor<?x?xf32>},
                       %s: index, %n: index)
    -> (tensor<*x!kiln.open>, tensor<*x!kiln.open>, tensor<*x!kiln.open>,
        tensor<*x!kiln.open>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = arith.addi %c1, %s : index
  // CHECK: kiln.slice %{{.*}} dim 1 [%{{.*}} : %{{.*}}] : tensor<?x?xf32> -> tensor<?x1xf32>
  %a = kiln.slice %x dim 1 [%s : %e] : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  %f = arith.addi %s, %n : index
  // CHECK: kiln.slice %{{.*}} dim 1 [%{{.*}} : %{{.*}}] : tensor<?x?xf32> -> tensor<?x?xf32>
  %b = kiln.slice %x dim 1 [%s : %f] : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  %c2 = arith.constant 2 : index
  %g = arith.addi %s, %c2 : index
  // CHECK: kiln.slice %{{.*}} dim 1 [%{{.*}} : %{{.*}}] : tensor<?x?xf32> -> tensor<?x?xf32>
  %w = kiln.slice %x dim 1 [%s : %g] : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  // CHECK: kiln.slice %{{.*}} dim 0 [%{{.*}} : %{{.*}}] : tensor<?x?xf32> -> tensor<?x?xf32>
  %c = kiln.slice %x dim 0 [%c0 : %c1] : tensor<*x!kiln.open> -> tensor<*x!kiln.open>
  return %a, %b, %w, %c : tensor<*x!kiln.open>, tensor<*x!kiln.open>,
      tensor<*x!kiln.open>, tensor<*x!kiln.open>
}
