// Tests that every kiln op parses, verifies and prints back (twice, to check
// that the printed form parses to the same IR), and that result types are
// inferred with broadcasting over dynamic dims.
// RUN: kiln-opt %s | kiln-opt | FileCheck %s

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%x: tensor<?x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>,
                       %m: tensor<?x1xi1>) -> tensor<?x4xf32> {
  // CHECK: kiln.add %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  %0 = kiln.add %x, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: kiln.sub
  %1 = kiln.sub %0, %s : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: kiln.mul
  %2 = kiln.mul %1, %1 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  // CHECK: kiln.div
  %3 = kiln.div %2, %s : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: kiln.pow
  %4 = kiln.pow %3, %s : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: kiln.maximum
  %5 = kiln.maximum %4, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: kiln.minimum
  %6 = kiln.minimum %5, %b : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  // CHECK: kiln.cmp lt, %{{.*}}, %{{.*}} : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xi1>
  %7 = kiln.cmp lt, %6, %s : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xi1>
  // CHECK: kiln.where %{{.*}} : (tensor<?x1xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %8 = kiln.where %m, %6, %s : (tensor<?x1xi1>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  // CHECK: kiln.detach %{{.*}} : tensor<?x4xf32>
  %d = kiln.detach %8 : tensor<?x4xf32>
  // CHECK: kiln.neg
  %9 = kiln.neg %d : tensor<?x4xf32>
  // CHECK: kiln.abs
  %10 = kiln.abs %9 : tensor<?x4xf32>
  // CHECK: kiln.relu
  %11 = kiln.relu %10 : tensor<?x4xf32>
  // CHECK: kiln.exp
  %12 = kiln.exp %11 : tensor<?x4xf32>
  // CHECK: kiln.log
  %13 = kiln.log %12 : tensor<?x4xf32>
  // CHECK: kiln.sqrt
  %14 = kiln.sqrt %13 : tensor<?x4xf32>
  // CHECK: kiln.rsqrt
  %15 = kiln.rsqrt %14 : tensor<?x4xf32>
  // CHECK: kiln.tanh
  %16 = kiln.tanh %15 : tensor<?x4xf32>
  // CHECK: kiln.sigmoid
  %17 = kiln.sigmoid %16 : tensor<?x4xf32>
  // CHECK: kiln.silu
  %18 = kiln.silu %17 : tensor<?x4xf32>
  // CHECK: kiln.gelu %{{.*}} : tensor<?x4xf32>
  %19 = kiln.gelu %18 : tensor<?x4xf32>
  // CHECK: kiln.gelu %{{.*}} approximate tanh : tensor<?x4xf32>
  %20 = kiln.gelu %19 approximate tanh : tensor<?x4xf32>
  // CHECK: kiln.cast %{{.*}} : tensor<?x4xi1> to tensor<?x4xf32>
  %21 = kiln.cast %7 : tensor<?x4xi1> to tensor<?x4xf32>
  %22 = kiln.add %20, %21 : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %22 : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @broadcast_inference
func.func @broadcast_inference(%a: tensor<?x1x5xf32>, %b: tensor<3x?x1xf32>,
                               %c: tensor<?xf32>, %d: tensor<7xf32>) {
  // CHECK: (tensor<?x1x5xf32>, tensor<3x?x1xf32>) -> tensor<3x?x5xf32>
  %0 = kiln.add %a, %b : (tensor<?x1x5xf32>, tensor<3x?x1xf32>) -> tensor<3x?x5xf32>
  // A dynamic dim broadcast against a static 7 must be 1 or 7: the result is 7.
  // CHECK: (tensor<?xf32>, tensor<7xf32>) -> tensor<7xf32>
  %1 = kiln.mul %c, %d : (tensor<?xf32>, tensor<7xf32>) -> tensor<7xf32>
  return
}

// CHECK-LABEL: func.func @reductions_and_norms
func.func @reductions_and_norms(%x: tensor<?x?x8xf32>, %w: tensor<8xf32>,
                                %i: tensor<3x4xi64>) {
  // CHECK: kiln.sum %{{.*}} dims [1] keepdim : tensor<?x?x8xf32> -> tensor<?x1x8xf32>
  %0 = kiln.sum %x dims [1] keepdim : tensor<?x?x8xf32> -> tensor<?x1x8xf32>
  // CHECK: kiln.mean %{{.*}} dims [0, 2] : tensor<?x?x8xf32> -> tensor<?xf32>
  %1 = kiln.mean %x dims [0, 2] : tensor<?x?x8xf32> -> tensor<?xf32>
  // CHECK: kiln.amax %{{.*}} dims [] : tensor<?x?x8xf32> -> tensor<f32>
  %2 = kiln.amax %x dims [] : tensor<?x?x8xf32> -> tensor<f32>
  // CHECK: kiln.amin %{{.*}} dims [1] : tensor<3x4xi64> -> tensor<3xi64>
  %3 = kiln.amin %i dims [1] : tensor<3x4xi64> -> tensor<3xi64>
  // CHECK: kiln.softmax %{{.*}} dim 2 : tensor<?x?x8xf32>
  %4 = kiln.softmax %x dim 2 : tensor<?x?x8xf32>
  // CHECK: kiln.log_softmax %{{.*}} dim 0 : tensor<?x?x8xf32>
  %5 = kiln.log_softmax %x dim 0 : tensor<?x?x8xf32>
  // CHECK: kiln.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {eps = 1.000000e-05 : f64}
  %6 = kiln.layer_norm %x, %w, %w {eps = 1.0e-05 : f64} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  // A bias whose size is static where the weight's is dynamic (a traced
  // graph's mix) is the weight's type up to that.
  // CHECK: kiln.layer_norm {{.*}} : (tensor<?x?x8xf32>, tensor<?xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %dw = tensor.cast %w : tensor<8xf32> to tensor<?xf32>
  %mixed = kiln.layer_norm %x, %dw, %w {eps = 1.0e-05 : f64} : (tensor<?x?x8xf32>, tensor<?xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  // CHECK: kiln.layer_norm %{{.*}}, %{{.*}} {eps = 1.000000e-05 : f64} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  %7 = kiln.layer_norm %x, %w {eps = 1.0e-05 : f64} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  // CHECK: kiln.rms_norm
  %8 = kiln.rms_norm %x, %w {eps = 1.0e-06 : f64} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return
}

// CHECK-LABEL: func.func @linear_algebra
func.func @linear_algebra(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x64x?xf32>,
                          %v: tensor<64xf32>, %m: tensor<5x64xf32>,
                          %x: tensor<?x768xf32>, %w: tensor<3072x768xf32>,
                          %b: tensor<3072xf32>, %ids: tensor<?x?xi64>,
                          %table: tensor<100x16xf32>, %img: tensor<?x3x32x32xf32>,
                          %cw: tensor<16x3x3x3xf32>, %cb: tensor<16xf32>,
                          %gw: tensor<6x1x3x3xf32>,
                          %logits: tensor<?x10xf32>, %t: tensor<?xi64>) {
  // CHECK: -> tensor<?x12x?x?xf32>
  %0 = kiln.matmul %q, %k : (tensor<?x12x?x64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?x?xf32>
  // CHECK: (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  %1 = kiln.matmul %v, %v : (tensor<64xf32>, tensor<64xf32>) -> tensor<f32>
  // CHECK: (tensor<5x64xf32>, tensor<64xf32>) -> tensor<5xf32>
  %2 = kiln.matmul %m, %v : (tensor<5x64xf32>, tensor<64xf32>) -> tensor<5xf32>
  // CHECK: (tensor<64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?xf32>
  %3 = kiln.matmul %v, %k : (tensor<64xf32>, tensor<?x12x64x?xf32>) -> tensor<?x12x?xf32>
  // CHECK: kiln.linear {{.*}} -> tensor<?x3072xf32>
  %4 = kiln.linear %x, %w, %b : (tensor<?x768xf32>, tensor<3072x768xf32>, tensor<3072xf32>) -> tensor<?x3072xf32>
  // CHECK: kiln.linear {{.*}} : (tensor<?x768xf32>, tensor<3072x768xf32>) -> tensor<?x3072xf32>
  %5 = kiln.linear %x, %w : (tensor<?x768xf32>, tensor<3072x768xf32>) -> tensor<?x3072xf32>
  // CHECK: kiln.embedding {{.*}} -> tensor<?x?x16xf32>
  %6 = kiln.embedding %ids, %table : (tensor<?x?xi64>, tensor<100x16xf32>) -> tensor<?x?x16xf32>
  // CHECK: kiln.gather {{.*}} dim 1 : (tensor<100x16xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  %g = kiln.gather %table, %ids dim 1 : (tensor<100x16xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  // CHECK: kiln.conv2d {{.*}} -> tensor<?x16x16x16xf32>
  %7 = kiln.conv2d %img, %cw, %cb {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<?x16x16x16xf32>
  // CHECK: kiln.conv2d {{.*}}dilation = array<i64: 2, 2>{{.*}}groups = 3 : i64{{.*}} -> tensor<?x6x28x28xf32>
  %dw = kiln.conv2d %img, %gw {padding = array<i64: 0, 0>, strides = array<i64: 1, 1>, dilation = array<i64: 2, 2>, groups = 3} : (tensor<?x3x32x32xf32>, tensor<6x1x3x3xf32>) -> tensor<?x6x28x28xf32>
  // CHECK: kiln.pool2d max {{.*}} -> tensor<?x3x16x16xf32>
  %mp = kiln.pool2d max %img {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x3x32x32xf32>) -> tensor<?x3x16x16xf32>
  // ATen's ceil_mode: (32 + 0 - 3 + 1) / 2 + 1 = 16 windows, the last
  // starting inside the input.
  // CHECK: kiln.pool2d avg {{.*}} -> tensor<?x3x16x16xf32>
  %ap = kiln.pool2d avg %img {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 0} : (tensor<?x3x32x32xf32>) -> tensor<?x3x16x16xf32>
  // CHECK: kiln.adaptive_avg_pool2d {{.*}} -> tensor<?x3x1x1xf32>
  %gp = kiln.adaptive_avg_pool2d %img {output_size = array<i64: 1, 1>} : (tensor<?x3x32x32xf32>) -> tensor<?x3x1x1xf32>
  // CHECK: kiln.conv2d_backward {{.*}} -> (tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>)
  %cgx, %cgw = kiln.conv2d_backward %7, %img, %cw {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<?x16x16x16xf32>, tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>) -> (tensor<?x3x32x32xf32>, tensor<16x3x3x3xf32>)
  // CHECK: kiln.pool2d_backward max {{.*}} -> tensor<?x3x32x32xf32>
  %mpg = kiln.pool2d_backward max %mp, %img {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<?x3x16x16xf32>, tensor<?x3x32x32xf32>) -> tensor<?x3x32x32xf32>
  // CHECK: kiln.adaptive_avg_pool2d_backward {{.*}} -> tensor<?x3x32x32xf32>
  %gpg = kiln.adaptive_avg_pool2d_backward %gp, %img : (tensor<?x3x1x1xf32>, tensor<?x3x32x32xf32>) -> tensor<?x3x32x32xf32>
  // CHECK: kiln.random normal %{{.*}} [%{{.*}}] : tensor<?x16xf32>
  %c7 = arith.constant 7 : index
  %noise = kiln.random normal %c7 [%c7] : tensor<?x16xf32>
  // CHECK: kiln.random uniform %{{.*}} : tensor<4x4xf64>
  %u = kiln.random uniform %c7 : tensor<4x4xf64>
  // CHECK: kiln.cat {{.*}} dim 0 : (tensor<5x64xf32>, tensor<5x64xf32>) -> tensor<10x64xf32>
  %8 = kiln.cat %m, %m dim 0 : (tensor<5x64xf32>, tensor<5x64xf32>) -> tensor<10x64xf32>
  // CHECK: kiln.cross_entropy {{.*}} -> tensor<f32>
  %9 = kiln.cross_entropy %logits, %t : (tensor<?x10xf32>, tensor<?xi64>) -> tensor<f32>
  return
}

// CHECK-LABEL: func.func @views
func.func @views(%x: tensor<?x768xf32>, %n: index, %m: index) -> tensor<?x?x12x64xf32> {
  // CHECK: kiln.reshape %{{.*}} [%{{.*}}, %{{.*}}] : tensor<?x768xf32> -> tensor<?x?x12x64xf32>
  %0 = kiln.reshape %x [%n, %m] : tensor<?x768xf32> -> tensor<?x?x12x64xf32>
  // CHECK: kiln.transpose %{{.*}} dims 1, 2 : tensor<?x?x12x64xf32> -> tensor<?x12x?x64xf32>
  %1 = kiln.transpose %0 dims 1, 2 : tensor<?x?x12x64xf32> -> tensor<?x12x?x64xf32>
  // CHECK: kiln.permute %{{.*}} [0, 2, 1, 3] : tensor<?x12x?x64xf32> -> tensor<?x?x12x64xf32>
  %2 = kiln.permute %1 [0, 2, 1, 3] : tensor<?x12x?x64xf32> -> tensor<?x?x12x64xf32>
  %c0 = arith.constant 0 : index
  // CHECK: kiln.slice %{{.*}} dim 1 [%{{.*}} : %{{.*}}] : tensor<?x768xf32> -> tensor<?x?xf32>
  %3 = kiln.slice %x dim 1 [%c0 : %n] : tensor<?x768xf32> -> tensor<?x?xf32>
  // CHECK: kiln.slice %{{.*}} dim 1 [%{{.*}} : %{{.*}} step 2] : tensor<?x768xf32> -> tensor<?x384xf32>
  %4 = kiln.slice %x dim 1 [%c0 : %n step 2] : tensor<?x768xf32> -> tensor<?x384xf32>
  // CHECK: kiln.unsqueeze %{{.*}} dim 0 : tensor<?x768xf32> -> tensor<1x?x768xf32>
  %5 = kiln.unsqueeze %x dim 0 : tensor<?x768xf32> -> tensor<1x?x768xf32>
  // CHECK: kiln.squeeze %{{.*}} dim 0 : tensor<1x?x768xf32> -> tensor<?x768xf32>
  %6 = kiln.squeeze %5 dim 0 : tensor<1x?x768xf32> -> tensor<?x768xf32>
  // CHECK: kiln.expand %{{.*}} [%{{.*}}] : tensor<1x?x768xf32> -> tensor<4x?x768xf32>
  %7 = kiln.expand %5 [%n] : tensor<1x?x768xf32> -> tensor<4x?x768xf32>
  return %2 : tensor<?x?x12x64xf32>
}

// CHECK-LABEL: func.func @constants_and_sizes
func.func @constants_and_sizes(%x: tensor<?x?xf32>, %s: f32) -> index {
  // CHECK: kiln.constant dense<1.000000e+00> : tensor<f32>
  %0 = kiln.constant dense<1.0> : tensor<f32>
  // CHECK: kiln.dim %{{.*}}, 1 : tensor<?x?xf32>
  %n = kiln.dim %x, 1 : tensor<?x?xf32>
  // CHECK: kiln.full [%{{.*}}] {value = 0.000000e+00 : f32} : tensor<?x4xf32>
  %1 = kiln.full [%n] {value = 0.0 : f32} : tensor<?x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: kiln.arange %{{.*}}, %{{.*}}, %{{.*}} : tensor<?xi64>
  %2 = kiln.arange %c0, %n, %c1 : tensor<?xi64>
  // CHECK: kiln.from_scalar %{{.*}} : f32 -> tensor<f32>
  %3 = kiln.from_scalar %s : f32 -> tensor<f32>
  // CHECK: kiln.from_scalar %{{.*}} : index -> tensor<i64>
  %4 = kiln.from_scalar %n : index -> tensor<i64>
  return %n : index
}

func.func private @clip(tensor<?xf32>) -> tensor<?xf32>

// CHECK-LABEL: func.func @opaque
func.func @opaque(%x: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: kiln.opaque_call @clip(%{{.*}}) : (tensor<?xf32>) -> tensor<?xf32>
  %0 = kiln.opaque_call @clip(%x) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// CHECK-LABEL: func.func @attention
// CHECK: kiln.scaled_dot_product_attention %arg0, %arg1, %arg2 {is_causal = true} {{.*}} -> tensor<?x12x?x32xf32>
// CHECK: kiln.scaled_dot_product_attention %arg0, %arg1, %arg2 mask %arg3 scale %arg4 {is_causal = false} {{.*}} -> tensor<?x12x?x32xf32>
func.func @attention(%q: tensor<?x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<?x12x?x32xf32>, %m: tensor<?x?xi1>, %s: f64) -> (tensor<?x12x?x32xf32>, tensor<?x12x?x32xf32>) {
  %a = kiln.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<?x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<?x12x?x32xf32>) -> tensor<?x12x?x32xf32>
  %b = kiln.scaled_dot_product_attention %q, %k, %v mask %m scale %s {is_causal = false} : (tensor<?x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<?x12x?x32xf32>, tensor<?x?xi1>, f64) -> tensor<?x12x?x32xf32>
  return %a, %b : tensor<?x12x?x32xf32>, tensor<?x12x?x32xf32>
}

// CHECK-LABEL: func.func @scans
func.func @scans(%x: tensor<?x8xf32>, %k: index, %i: tensor<?x8xi64>, %s: tensor<?x8xf32>, %n: tensor<5xi64>) -> (tensor<?x8xf32>, tensor<5xi64>, tensor<?x?xi64>, tensor<?x8xf32>) {
  // CHECK: kiln.cumsum {{.*}} dim 1 : tensor<?x8xf32>
  %0 = kiln.cumsum %x dim 1 : tensor<?x8xf32>
  // CHECK: kiln.cumprod {{.*}} dim 0 : tensor<5xi64>
  %1 = kiln.cumprod %n dim 0 : tensor<5xi64>
  // CHECK: kiln.topk {{.*}} dim 1 largest : (tensor<?x8xf32>, index) -> tensor<?x?xi64>
  %2 = kiln.topk %x, %k dim 1 largest : (tensor<?x8xf32>, index) -> tensor<?x?xi64>
  // CHECK: kiln.scatter_add {{.*}} dim 0 : (tensor<?x8xf32>, tensor<?x8xi64>, tensor<?x8xf32>) -> tensor<?x8xf32>
  %3 = kiln.scatter_add %x, %i, %s dim 0 : (tensor<?x8xf32>, tensor<?x8xi64>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0, %1, %2, %3 : tensor<?x8xf32>, tensor<5xi64>, tensor<?x?xi64>, tensor<?x8xf32>
}

// The elementwise ops compute in torch's result type: tensors with dims
// over 0-d tensors over wrapped numbers (kiln.from_scalar), by category.
// CHECK-LABEL: func.func @promotion
func.func @promotion(%i: tensor<?xi32>, %l: tensor<?xi64>, %h: tensor<?xf16>,
                     %bf: tensor<?xbf16>, %d0: tensor<f64>, %b: tensor<?xi1>,
                     %n: f64, %k: index)
    -> (tensor<?xi64>, tensor<?xf16>, tensor<?xf32>, tensor<?xf32>,
        tensor<?xf64>, tensor<?xf32>, tensor<?xi1>, tensor<?xf32>,
        tensor<i64>, tensor<?xi32>, tensor<?xf32>) {
  %wf = kiln.from_scalar %n : f64 -> tensor<f64>
  %wi = kiln.from_scalar %k : index -> tensor<i64>
  // CHECK: kiln.add {{.*}} : (tensor<?xi32>, tensor<?xi64>) -> tensor<?xi64>
  %0 = kiln.add %i, %l : (tensor<?xi32>, tensor<?xi64>) -> tensor<?xi64>
  // A wrapped float keeps a floating tensor's type...
  // CHECK: kiln.mul {{.*}} : (tensor<?xf16>, tensor<f64>) -> tensor<?xf16>
  %1 = kiln.mul %h, %wf : (tensor<?xf16>, tensor<f64>) -> tensor<?xf16>
  // ...and makes an integer one's f32, where a 0-d f64 tensor makes it f64.
  // CHECK: kiln.mul {{.*}} : (tensor<?xi32>, tensor<f64>) -> tensor<?xf32>
  %2 = kiln.mul %i, %wf : (tensor<?xi32>, tensor<f64>) -> tensor<?xf32>
  // CHECK: kiln.add {{.*}} : (tensor<?xf16>, tensor<?xbf16>) -> tensor<?xf32>
  %3 = kiln.add %h, %bf : (tensor<?xf16>, tensor<?xbf16>) -> tensor<?xf32>
  // CHECK: kiln.mul {{.*}} : (tensor<?xi32>, tensor<f64>) -> tensor<?xf64>
  %4 = kiln.mul %i, %d0 : (tensor<?xi32>, tensor<f64>) -> tensor<?xf64>
  // True division of integers gives f32; unary floating ops too.
  // CHECK: kiln.div {{.*}} : (tensor<?xi64>, tensor<i64>) -> tensor<?xf32>
  %5 = kiln.div %l, %wi : (tensor<?xi64>, tensor<i64>) -> tensor<?xf32>
  // CHECK: kiln.cmp gt, {{.*}} : (tensor<?xi32>, tensor<f64>) -> tensor<?xi1>
  %6 = kiln.cmp gt, %i, %wf : (tensor<?xi32>, tensor<f64>) -> tensor<?xi1>
  // CHECK: kiln.exp {{.*}} : tensor<?xi32>
  %7 = kiln.exp %i : tensor<?xi32>
  // sum widens integers and bools to i64.
  // CHECK: kiln.sum {{.*}} : tensor<?xi1> -> tensor<i64>
  %8 = kiln.sum %b dims [] : tensor<?xi1> -> tensor<i64>
  // A wrapped integer does not widen an integer tensor.
  // CHECK: kiln.where {{.*}} : (tensor<?xi1>, tensor<?xi32>, tensor<i64>) -> tensor<?xi32>
  %9 = kiln.where %b, %i, %wi : (tensor<?xi1>, tensor<?xi32>, tensor<i64>) -> tensor<?xi32>
  // CHECK: kiln.where {{.*}} : (tensor<?xi1>, tensor<?xi32>, tensor<f64>) -> tensor<?xf32>
  %10 = kiln.where %6, %i, %wf : (tensor<?xi1>, tensor<?xi32>, tensor<f64>) -> tensor<?xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
      : tensor<?xi64>, tensor<?xf16>, tensor<?xf32>, tensor<?xf32>,
        tensor<?xf64>, tensor<?xf32>, tensor<?xi1>, tensor<?xf32>,
        tensor<i64>, tensor<?xi32>, tensor<?xf32>
}

// Products and concatenations promote their operands too.
// CHECK-LABEL: func.func @promoting_products
func.func @promoting_products(%a: tensor<?x?xf32>, %b: tensor<?x?xf64>,
                              %w: tensor<4x?xf16>, %c: tensor<?x?xi64>)
    -> (tensor<?x?xf64>, tensor<?x4xf32>, tensor<?x?xf32>) {
  // CHECK: kiln.matmul {{.*}} -> tensor<?x?xf64>
  %0 = kiln.matmul %a, %b : (tensor<?x?xf32>, tensor<?x?xf64>) -> tensor<?x?xf64>
  // CHECK: kiln.linear {{.*}} -> tensor<?x4xf32>
  %1 = kiln.linear %a, %w : (tensor<?x?xf32>, tensor<4x?xf16>) -> tensor<?x4xf32>
  // CHECK: kiln.cat {{.*}} -> tensor<?x?xf32>
  %2 = kiln.cat %a, %c dim 0 : (tensor<?x?xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<?x?xf64>, tensor<?x4xf32>, tensor<?x?xf32>
}
