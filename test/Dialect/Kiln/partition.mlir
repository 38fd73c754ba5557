// Tests kiln-differentiate{partition}: AOTAutograd's min-cut partition of
// each joint graph into @f_forward (f's results, then what the backward
// reads) and @f_backward (the saved values, then the results' gradients,
// then whether each gradient it returns is needed, marked kiln.gradient_need).
// A product is computed once and saved, the cheap ops after it computed
// again in the backward from it; an argument is saved as itself, never as
// a transpose of it (a view costs more to keep than its input); a size the
// backward needs of a tensor it does not keep is saved as a scalar, not
// the tensor; a result the backward reads is saved as the result. The values:
// test/e2e/gradients.mlir.
// RUN: kiln-opt %s -kiln-differentiate=partition -cse -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @mlp_forward
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[W1:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?xf32>, %[[W2:.*]]: tensor<?x?xf32>)
// CHECK-SAME: -> (tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK: %[[H:.*]] = kiln.matmul %[[X]], %[[W1]]
// CHECK: %[[A:.*]] = kiln.add %[[H]], %[[B]]
// CHECK: %[[G:.*]] = kiln.gelu %[[A]]
// CHECK: %[[Y:.*]] = kiln.matmul %[[G]], %[[W2]]
// CHECK-NOT: kiln.transpose
// CHECK: return %[[Y]], %[[H]]
// CHECK-LABEL: func.func @mlp_backward
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>, %[[W1:.*]]: tensor<?x?xf32>, %[[B:.*]]: tensor<?xf32>, %[[W2:.*]]: tensor<?x?xf32>, %[[H:.*]]: tensor<?x?xf32>, %[[DY:.*]]: tensor<?x?xf32>, %{{[^:]*}}: i64, %{{[^:]*}}: i64 {kiln.gradient_need = 0 : i64}, %{{[^:]*}}: i64 {kiln.gradient_need = 1 : i64}, %{{[^:]*}}: i64 {kiln.gradient_need = 2 : i64}, %{{[^:]*}}: i64 {kiln.gradient_need = 3 : i64})
// CHECK-SAME: -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>)
// CHECK: %[[A:.*]] = kiln.add %[[H]], %[[B]]
// CHECK: %[[G:.*]] = kiln.gelu %[[A]]
// CHECK-NOT: kiln.matmul %[[X]], %[[W1]]
// CHECK: return
func.func @mlp(%x: tensor<?x?xf32>, %w1: tensor<?x?xf32>, %b1: tensor<?xf32>, %w2: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %h = kiln.matmul %x, %w1 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %a = kiln.add %h, %b1 : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %g = kiln.gelu %a : tensor<?x?xf32>
  %y = kiln.matmul %g, %w2 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// mean's gradient needs x's sizes, not x: they are saved as scalars (an
// index comes back as an i64 and goes in as one).
// CHECK-LABEL: func.func @mean_forward
// CHECK-SAME: (%[[X:.*]]: tensor<?x?xf32>) -> (tensor<f32>, tensor<i64>, tensor<i64>)
// CHECK-DAG: %[[N0:.*]] = kiln.dim %[[X]], 0
// CHECK-DAG: %[[N1:.*]] = kiln.dim %[[X]], 1
// CHECK-DAG: %[[S0:.*]] = kiln.from_scalar %[[N0]] : index -> tensor<i64>
// CHECK-DAG: %[[S1:.*]] = kiln.from_scalar %[[N1]] : index -> tensor<i64>
// CHECK: return %{{.*}}, %[[S0]], %[[S1]]
// CHECK-LABEL: func.func @mean_backward
// CHECK-SAME: (%[[N0:.*]]: i64, %[[N1:.*]]: i64, %[[DY:.*]]: tensor<f32>, %{{[^:]*}}: i64, %{{[^:]*}}: i64 {kiln.gradient_need = 0 : i64}) -> tensor<?x?xf32>
// CHECK-DAG: arith.index_cast %[[N0]] : i64 to index
// CHECK-DAG: arith.index_cast %[[N1]] : i64 to index
// CHECK: %[[R:.*]] = kiln.reshape %[[DY]]
// CHECK: kiln.expand %[[R]]
func.func @mean(%x: tensor<?x?xf32>) -> tensor<f32> {
  %m = kiln.mean %x dims [0, 1] : tensor<?x?xf32> -> tensor<f32>
  return %m : tensor<f32>
}

// -----

// tanh's gradient reads its result, which the forward returns anyway: it
// is saved as the forward's result (not 1 - t*t, nor the sum, which would
// read x again), with x's sizes.
// CHECK-LABEL: func.func @rowsum_forward
// CHECK-SAME: -> (tensor<?xf32>, tensor<i64>, tensor<i64>)
// CHECK: %[[S:.*]] = kiln.sum
// CHECK: %[[T:.*]] = kiln.tanh %[[S]]
// CHECK-NOT: kiln.mul
// CHECK: return %[[T]], %{{.*}}, %{{.*}} :
// CHECK-LABEL: func.func @rowsum_backward
// CHECK-SAME: (%[[T:.*]]: tensor<?xf32>, %{{.*}}: i64, %{{.*}}: i64, %[[DY:.*]]: tensor<?xf32>, %{{[^:]*}}: i64, %{{[^:]*}}: i64 {kiln.gradient_need = 0 : i64})
// CHECK-NOT: kiln.sum
// CHECK: kiln.mul %[[T]], %[[T]]
func.func @rowsum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = kiln.sum %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %t = kiln.tanh %s : tensor<?xf32>
  return %t : tensor<?xf32>
}
