// Attention written out (matmul with the key transposed, a scalar scale,
// the causal triangle from arange, softmax over the keys, matmul with the
// values) becomes one kiln.scaled_dot_product_attention, marked to give NaN
// where a query attends to no key, as the softmax did; the triangle is its
// mask, marked as the triangle (the kernel runs causal where it fits),
// spelled as GPT-2 (where of arange) or Llama (masked_fill of tril(ones)
// == 0) writes it. Any other mask, or an intermediate something else
// reads (but for shape queries), leaves the ops as they are.
// RUN: kiln-opt %s --kiln-recognize-attention | FileCheck %s

// CHECK-LABEL: func.func @gpt2
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x?x?xf32>, %[[K:.*]]: tensor<?x?x?x?xf32>, %[[V:.*]]: tensor<?x?x?x?xf32>, %[[S:.*]]: f32)
// CHECK: %[[MASK:.*]] = kiln.cmp ge
// CHECK: %[[SCALE:.*]] = arith.extf %[[S]] : f32 to f64
// CHECK: %[[O:.*]] = kiln.scaled_dot_product_attention %[[Q]], %[[K]], %[[V]] mask %[[MASK]] scale %[[SCALE]] {is_causal = false, kiln.causal_mask, kiln.nan_when_unattended}
// CHECK-NOT: kiln.softmax
// CHECK-NOT: kiln.matmul
// CHECK: return %[[O]]
func.func @gpt2(%q: tensor<?x?x?x?xf32>, %k: tensor<?x?x?x?xf32>, %v: tensor<?x?x?x?xf32>, %s: f32) -> tensor<?x?x?x?xf32> {
  %kt = kiln.transpose %k dims 2, 3 : tensor<?x?x?x?xf32> -> tensor<?x?x?x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %st = kiln.from_scalar %s : f32 -> tensor<f32>
  %scaled = kiln.mul %att, %st : (tensor<?x?x?x?xf32>, tensor<f32>) -> tensor<?x?x?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = kiln.dim %q, 2 : tensor<?x?x?x?xf32>
  %ar = kiln.arange %c0, %t, %c1 : tensor<?xi64>
  %rows = kiln.unsqueeze %ar dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %cols = kiln.unsqueeze %ar dim 0 : tensor<?xi64> -> tensor<1x?xi64>
  %causal = kiln.cmp ge, %rows, %cols : (tensor<?x1xi64>, tensor<1x?xi64>) -> tensor<?x?xi1>
  %ninf = arith.constant 0xFF800000 : f32
  %ninft = kiln.from_scalar %ninf : f32 -> tensor<f32>
  %masked = kiln.where %causal, %scaled, %ninft : (tensor<?x?xi1>, tensor<?x?x?x?xf32>, tensor<f32>) -> tensor<?x?x?x?xf32>
  %p = kiln.softmax %masked dim 3 : tensor<?x?x?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %y : tensor<?x?x?x?xf32>
}

// No mask, divided by a constant: the scale is its reciprocal.
// CHECK-LABEL: func.func @divided
// CHECK: %[[D:.*]] = arith.constant 8.000000e+00 : f32
// CHECK: %[[DD:.*]] = arith.extf %[[D]] : f32 to f64
// CHECK: %[[R:.*]] = arith.divf %{{.*}}, %[[DD]] : f64
// CHECK: kiln.scaled_dot_product_attention %arg0, %arg1, %arg2 scale %[[R]] {is_causal = false, kiln.nan_when_unattended}
// CHECK-NOT: kiln.softmax
func.func @divided(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %kt = kiln.transpose %k dims 1, 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %d = kiln.constant dense<8.0> : tensor<f32>
  %scaled = kiln.div %att, %d : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %p = kiln.softmax %scaled dim 1 : tensor<?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// A mask of the caller's: a row it masks whole would give zeros fused and
// NaN written out, so it stays written out.
// CHECK-LABEL: func.func @caller_mask
// CHECK-NOT: scaled_dot_product_attention
// CHECK: kiln.softmax
func.func @caller_mask(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>, %m: tensor<?x?xi1>) -> tensor<?x?xf32> {
  %kt = kiln.transpose %k dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %ninf = kiln.constant dense<0xFF800000> : tensor<f32>
  %masked = kiln.where %m, %att, %ninf : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %p = kiln.softmax %masked dim 1 : tensor<?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// The probabilities are a result too: they must exist, so nothing changes.
// CHECK-LABEL: func.func @probabilities_read
// CHECK-NOT: scaled_dot_product_attention
// CHECK: kiln.softmax
func.func @probabilities_read(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %kt = kiln.transpose %k dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %p = kiln.softmax %att dim 1 : tensor<?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y, %p : tensor<?x?xf32>, tensor<?x?xf32>
}

// A softmax over the queries is no attention.
// CHECK-LABEL: func.func @wrong_dim
// CHECK-NOT: scaled_dot_product_attention
func.func @wrong_dim(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %kt = kiln.transpose %k dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %p = kiln.softmax %att dim 0 : tensor<?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// Self-attention of one tensor: q, k and v are one value, which the
// written-out ops read three times; it stays, they go.
// CHECK-LABEL: func.func @self
// CHECK: kiln.scaled_dot_product_attention %arg0, %arg0, %arg0 scale
// CHECK-NOT: kiln.matmul
// CHECK-NOT: kiln.mul
func.func @self(%x: tensor<?x?xf32>, %c: f32) -> tensor<?x?xf32> {
  %xt = kiln.transpose %x dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %att = kiln.matmul %x, %xt : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %ct = kiln.from_scalar %c : f32 -> tensor<f32>
  %scaled = kiln.mul %att, %ct : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %p = kiln.softmax %scaled dim 1 : tensor<?x?xf32>
  %y = kiln.matmul %p, %x : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// Llama's spelling as traced: masked_fill(tril(ones(T, T)) == 0, -inf)
// (tril: arange(S) - arange(T)[:, None] <= 0, then where(_, ones, 0)),
// a double scale made float, each result cast to its own type, and
// masked_fill's check reading the scores' and the masked scores' sizes.
// The triangle tril made is the mask; the sizes are read from q and k.
// CHECK-LABEL: func.func @llama
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?xf32>, %[[K:.*]]: tensor<?x?xf32>, %[[V:.*]]: tensor<?x?xf32>, %[[D:.*]]: f64)
// CHECK: %[[KEEP:.*]] = kiln.cmp le
// CHECK: %[[L:.*]] = kiln.dim %[[Q]], 0
// CHECK: %[[S:.*]] = kiln.dim %[[K]], 0
// CHECK: cf.assert
// CHECK: %[[F:.*]] = arith.truncf %[[D]] : f64 to f32
// CHECK: %[[W:.*]] = arith.extf %[[F]] : f32 to f64
// CHECK: %[[SCALE:.*]] = arith.divf %{{.*}}, %[[W]] : f64
// CHECK: kiln.scaled_dot_product_attention %[[Q]], %[[K]], %[[V]] mask %[[KEEP]] scale %[[SCALE]] {is_causal = false, kiln.causal_mask, kiln.nan_when_unattended}
// CHECK-NOT: kiln.softmax
// CHECK-NOT: kiln.where
func.func @llama(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>, %d: f64) -> tensor<?x?xf32> {
  %T = kiln.dim %q, 0 : tensor<?x?xf32>
  %kt = kiln.transpose %k dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %dt = kiln.from_scalar %d : f64 -> tensor<f64>
  %df = kiln.cast %dt : tensor<f64> to tensor<f32>
  %scores = kiln.div %att, %df : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %ones = kiln.full [%T, %T] {value = 1.000000e+00 : f32} : tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = kiln.arange %c0, %T, %c1 : tensor<?xi64>
  %rows = kiln.unsqueeze %r dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %cols = kiln.arange %c0, %T, %c1 : tensor<?xi64>
  %off = kiln.sub %cols, %rows : (tensor<?xi64>, tensor<?x1xi64>) -> tensor<?x?xi64>
  %z = kiln.from_scalar %c0 : index -> tensor<i64>
  %keep = kiln.cmp le, %off, %z : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
  %zf = kiln.cast %z : tensor<i64> to tensor<f32>
  %tril = kiln.where %keep, %ones, %zf : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %gone = kiln.cmp eq, %tril, %zf : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xi1>
  %ninf = arith.constant 0xFF800000 : f32
  %ninft = kiln.from_scalar %ninf : f32 -> tensor<f32>
  %filled = kiln.where %gone, %ninft, %scores : (tensor<?x?xi1>, tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %masked = kiln.cast %filled : tensor<?x?xf32> to tensor<?x?xf32>
  %m0 = kiln.dim %masked, 0 : tensor<?x?xf32>
  %s1 = kiln.dim %scores, 1 : tensor<?x?xf32>
  %fits = arith.cmpi eq, %m0, %s1 : index
  cf.assert %fits, "masked_fill: the mask does not broadcast to the tensor's shape"
  %p = kiln.softmax %masked dim 1 : tensor<?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// The same with tril as kiln-decompose-composites writes kiln.tril: its
// diagonal and its zero are 0-d kiln.full constants.
// CHECK-LABEL: func.func @llama_tril_op
// CHECK: %[[KEEP:.*]] = kiln.cmp le
// CHECK: kiln.scaled_dot_product_attention %{{.*}}, %{{.*}}, %{{.*}} mask %[[KEEP]] scale %{{.*}} {is_causal = false, kiln.causal_mask, kiln.nan_when_unattended}
// CHECK-NOT: kiln.softmax
func.func @llama_tril_op(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %T = kiln.dim %q, 0 : tensor<?x?xf32>
  %kt = kiln.transpose %k dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %scores = kiln.matmul %q, %kt : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %ones = kiln.full [%T, %T] {value = 1.000000e+00 : f32} : tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = kiln.arange %c0, %T, %c1 : tensor<?xi64>
  %rows = kiln.unsqueeze %r dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %cols = kiln.arange %c0, %T, %c1 : tensor<?xi64>
  %off = kiln.sub %cols, %rows : (tensor<?xi64>, tensor<?x1xi64>) -> tensor<?x?xi64>
  %diagonal = kiln.full {value = 0 : i64} : tensor<i64>
  %keep = kiln.cmp le, %off, %diagonal : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
  %zero = kiln.full {value = 0.000000e+00 : f32} : tensor<f32>
  %tril = kiln.where %keep, %ones, %zero : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %z = kiln.from_scalar %c0 : index -> tensor<i64>
  %gone = kiln.cmp eq, %tril, %z : (tensor<?x?xf32>, tensor<i64>) -> tensor<?x?xi1>
  %ninf = arith.constant 0xFF800000 : f32
  %ninft = kiln.from_scalar %ninf : f32 -> tensor<f32>
  %masked = kiln.where %gone, %ninft, %scores : (tensor<?x?xi1>, tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %p = kiln.softmax %masked dim 1 : tensor<?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// masked_fill(tril(ones) == 1, -inf) removes the triangle itself, not
// its complement: left written out.
// CHECK-LABEL: func.func @tril_is_one
// CHECK-NOT: scaled_dot_product_attention
func.func @tril_is_one(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %T = kiln.dim %q, 0 : tensor<?x?xf32>
  %kt = kiln.transpose %k dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %ones = kiln.full [%T, %T] {value = 1.000000e+00 : f32} : tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = kiln.arange %c0, %T, %c1 : tensor<?xi64>
  %rows = kiln.unsqueeze %r dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %cols = kiln.arange %c0, %T, %c1 : tensor<?xi64>
  %off = kiln.sub %cols, %rows : (tensor<?xi64>, tensor<?x1xi64>) -> tensor<?x?xi64>
  %z = kiln.from_scalar %c0 : index -> tensor<i64>
  %keep = kiln.cmp le, %off, %z : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
  %zf = kiln.cast %z : tensor<i64> to tensor<f32>
  %tril = kiln.where %keep, %ones, %zf : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %gone = kiln.cmp eq, %tril, %one : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xi1>
  %ninf = arith.constant 0xFF800000 : f32
  %ninft = kiln.from_scalar %ninf : f32 -> tensor<f32>
  %filled = kiln.where %gone, %ninft, %att : (tensor<?x?xi1>, tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %p = kiln.softmax %filled dim 1 : tensor<?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// The same spelling with the query scaled beforehand (no scale on the
// scores: the kernel's scale is 1, not the op's default 1/sqrt(E)) and
// masked_fill's check reading the raw scores: each shape query is
// answered once.
// CHECK-LABEL: func.func @llama_unscaled
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: kiln.scaled_dot_product_attention %arg0, %arg1, %arg2 mask %{{.*}} scale %[[ONE]]
// CHECK-NOT: kiln.softmax
func.func @llama_unscaled(%q: tensor<?x?xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %T = kiln.dim %q, 0 : tensor<?x?xf32>
  %kt = kiln.transpose %k dims 0, 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %att = kiln.matmul %q, %kt : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %scores = kiln.cast %att : tensor<?x?xf32> to tensor<?x?xf32>
  %ones = kiln.full [%T, %T] {value = 1.000000e+00 : f32} : tensor<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = kiln.arange %c0, %T, %c1 : tensor<?xi64>
  %rows = kiln.unsqueeze %r dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %cols = kiln.arange %c0, %T, %c1 : tensor<?xi64>
  %off = kiln.sub %cols, %rows : (tensor<?xi64>, tensor<?x1xi64>) -> tensor<?x?xi64>
  %z = kiln.from_scalar %c0 : index -> tensor<i64>
  %keep = kiln.cmp le, %off, %z : (tensor<?x?xi64>, tensor<i64>) -> tensor<?x?xi1>
  %zf = kiln.cast %z : tensor<i64> to tensor<f32>
  %tril = kiln.where %keep, %ones, %zf : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %gone = kiln.cmp eq, %tril, %zf : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xi1>
  %ninf = arith.constant 0xFF800000 : f32
  %ninft = kiln.from_scalar %ninf : f32 -> tensor<f32>
  %filled = kiln.where %gone, %ninft, %scores : (tensor<?x?xi1>, tensor<f32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %m0 = kiln.dim %filled, 0 : tensor<?x?xf32>
  %s0 = kiln.dim %scores, 0 : tensor<?x?xf32>
  %s1 = kiln.dim %att, 1 : tensor<?x?xf32>
  %n = arith.muli %s0, %s1 : index
  %fits = arith.cmpi eq, %m0, %n : index
  cf.assert %fits, "masked_fill: the mask does not broadcast to the tensor's shape"
  %p = kiln.softmax %filled dim 1 : tensor<?x?xf32>
  %y = kiln.matmul %p, %v : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// bfloat16 (a bfloat16 model's attention, or autocast's), its -inf a
// float scalar converted as the traced code converts it: the same op,
// which computes the scores and the softmax in float32.
// CHECK-LABEL: func.func @gpt2_bf16
// CHECK-SAME: (%[[Q:.*]]: tensor<?x?x?x?xbf16>, %[[K:.*]]: tensor<?x?x?x?xbf16>, %[[V:.*]]: tensor<?x?x?x?xbf16>, %[[S:.*]]: f32)
// CHECK: %[[MASK:.*]] = kiln.cmp ge
// CHECK: %[[SCALE:.*]] = arith.extf %[[S]] : f32 to f64
// CHECK: %[[O:.*]] = kiln.scaled_dot_product_attention %[[Q]], %[[K]], %[[V]] mask %[[MASK]] scale %[[SCALE]] {is_causal = false, kiln.causal_mask, kiln.nan_when_unattended} : {{.*}} -> tensor<?x?x?x?xbf16>
// CHECK-NOT: kiln.softmax
// CHECK: return %[[O]]
func.func @gpt2_bf16(%q: tensor<?x?x?x?xbf16>, %k: tensor<?x?x?x?xbf16>, %v: tensor<?x?x?x?xbf16>, %s: f32) -> tensor<?x?x?x?xbf16> {
  %kt = kiln.transpose %k dims 2, 3 : tensor<?x?x?x?xbf16> -> tensor<?x?x?x?xbf16>
  %att = kiln.matmul %q, %kt : (tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>) -> tensor<?x?x?x?xbf16>
  %st = kiln.from_scalar %s : f32 -> tensor<f32>
  %scaled = kiln.mul %att, %st : (tensor<?x?x?x?xbf16>, tensor<f32>) -> tensor<?x?x?x?xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = kiln.dim %q, 2 : tensor<?x?x?x?xbf16>
  %ar = kiln.arange %c0, %t, %c1 : tensor<?xi64>
  %rows = kiln.unsqueeze %ar dim 1 : tensor<?xi64> -> tensor<?x1xi64>
  %cols = kiln.unsqueeze %ar dim 0 : tensor<?xi64> -> tensor<1x?xi64>
  %causal = kiln.cmp ge, %rows, %cols : (tensor<?x1xi64>, tensor<1x?xi64>) -> tensor<?x?xi1>
  %ninf = arith.constant 0xFF800000 : f32
  %ninft = kiln.from_scalar %ninf : f32 -> tensor<f32>
  %ninfb = kiln.cast %ninft : tensor<f32> to tensor<bf16>
  %masked = kiln.where %causal, %scaled, %ninfb : (tensor<?x?xi1>, tensor<?x?x?x?xbf16>, tensor<bf16>) -> tensor<?x?x?x?xbf16>
  %p = kiln.softmax %masked dim 3 : tensor<?x?x?x?xbf16>
  %y = kiln.matmul %p, %v : (tensor<?x?x?x?xbf16>, tensor<?x?x?x?xbf16>) -> tensor<?x?x?x?xbf16>
  return %y : tensor<?x?x?x?xbf16>
}
