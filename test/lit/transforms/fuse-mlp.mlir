// --fuse-mlp (transforms/fuse_mlp.py): silu(gate) * up -> ge.swi_glu (two projections of
// one x by constant weights merged into one matmul, or the two halves of one tensor), the
// router's softmax/sigmoid -> topk -> renormalisation -> ge.moe_gating_top_k, and stacked
// experts -> ge.grouped_matmul; then the cases each pattern must leave alone.  The
// RMS-norm patterns of the pass are pinned in patterns-rms-norm.mlir.
// RUN: ge-opt --fuse-mlp %s --split-input-file | filecheck %s

// Two projections of one x by constant weights (the up one transpose_b, transposed at
// compile time), the mul either way round: one matmul on [wg | wu], then ge.swi_glu.
// CHECK-LABEL: func.func @matmul_swi_glu(
// CHECK-SAME:  %x: tensor<3x2xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:    %y = ge.const dense<{{\[\[}}1.000000e+00, 2.000000e+00, 5.000000e+00, 7.000000e+00], [3.000000e+00, 4.000000e+00, 6.000000e+00, 8.000000e+00{{\]\]}}> : tensor<2x4xf32>
// CHECK-NEXT:    %y_1 = ge.matmul %x, %y : tensor<3x2xf32>, tensor<2x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    %y_2 = ge.swi_glu %y_1 dim 1 : tensor<3x4xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %y_2 : tensor<3x2xf32>
// CHECK-NEXT:  }
func.func @matmul_swi_glu(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wg = ge.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wu = ge.const dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %g = ge.matmul %x, %wg : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %u = ge.matmul %x, %wu transpose_b : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %s = ge.silu %g : tensor<3x2xf32>
  %y = ge.mul %u, %s : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// A batched x [B, S, K] by 2-D weights, on a stream label (kept).
// CHECK-LABEL: func.func @matmul_swi_glu_batched(
// CHECK-SAME:  %x: tensor<2x3x2xf32>) -> tensor<2x3x1xf32> {
// CHECK-NEXT:    %y = ge.const dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00{{\]\]}}> : tensor<2x2xf32> {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>}
// CHECK-NEXT:    %y_1 = ge.matmul %x, %y {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<2x3x2xf32>, tensor<2x2xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT:    %y_2 = ge.swi_glu %y_1 dim 2 {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<2x3x2xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT:    func.return %y_2 : tensor<2x3x1xf32>
// CHECK-NEXT:  }
func.func @matmul_swi_glu_batched(%x: tensor<2x3x2xf32>) -> tensor<2x3x1xf32> {
  %wg = ge.const dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %wu = ge.const dense<[[3.0], [4.0]]> : tensor<2x1xf32>
  %g = ge.matmul %x, %wg {stream.label = #stream.label<"1">} : tensor<2x3x2xf32>, tensor<2x1xf32> -> tensor<2x3x1xf32>
  %u = ge.matmul %x, %wu {stream.label = #stream.label<"1">} : tensor<2x3x2xf32>, tensor<2x1xf32> -> tensor<2x3x1xf32>
  %s = ge.silu %g {stream.label = #stream.label<"1">} : tensor<2x3x1xf32>
  %y = ge.mul %s, %u {stream.label = #stream.label<"1">} : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  func.return %y : tensor<2x3x1xf32>
}

// -----

// As Hugging Face's linear layers export an x [B, S, K]: flattened, projected, reshaped
// back; the fused matmul reads x itself.
// CHECK-LABEL: func.func @flat_matmul_swi_glu(
// CHECK-SAME:  %x: tensor<1x3x2xf32>) -> tensor<1x3x1xf32> {
// CHECK-NEXT:    %y = ge.const dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00{{\]\]}}> : tensor<2x2xf32>
// CHECK-NEXT:    %y_1 = ge.matmul %x, %y : tensor<1x3x2xf32>, tensor<2x2xf32> -> tensor<1x3x2xf32>
// CHECK-NEXT:    %y_2 = ge.swi_glu %y_1 dim 2 : tensor<1x3x2xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT:    func.return %y_2 : tensor<1x3x1xf32>
// CHECK-NEXT:  }
func.func @flat_matmul_swi_glu(%x: tensor<1x3x2xf32>) -> tensor<1x3x1xf32> {
  %wg = ge.const dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %wu = ge.const dense<[[3.0], [4.0]]> : tensor<2x1xf32>
  %a = ge.reshape %x : tensor<1x3x2xf32> -> tensor<3x2xf32>
  %g = ge.matmul %a, %wg : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  %gr = ge.reshape %g : tensor<3x1xf32> -> tensor<1x3x1xf32>
  %b = ge.reshape %x : tensor<1x3x2xf32> -> tensor<3x2xf32>
  %u = ge.matmul %b, %wu : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  %ur = ge.reshape %u : tensor<3x1xf32> -> tensor<1x3x1xf32>
  %s = ge.silu %gr : tensor<1x3x1xf32>
  %y = ge.mul %s, %ur : (tensor<1x3x1xf32>, tensor<1x3x1xf32>) -> tensor<1x3x1xf32>
  func.return %y : tensor<1x3x1xf32>
}

// -----

// The two halves of one tensor (a merged gate/up projection cut in two).
// CHECK-LABEL: func.func @slice_swi_glu(
// CHECK-SAME:  %x: tensor<3x8xf32>) -> tensor<3x4xf32> {
// CHECK-NEXT:    %y = ge.swi_glu %x dim 1 : tensor<3x8xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    func.return %y : tensor<3x4xf32>
// CHECK-NEXT:  }
func.func @slice_swi_glu(%x: tensor<3x8xf32>) -> tensor<3x4xf32> {
  %a = ge.slice %x starts [0] ends [4] axes [1] steps [1] : tensor<3x8xf32> -> tensor<3x4xf32>
  %b = ge.slice %x starts [4] ends [9223372036854775807] axes [1] steps [1] : tensor<3x8xf32> -> tensor<3x4xf32>
  %s = ge.silu %a : tensor<3x4xf32>
  %y = ge.mul %s, %b : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %y : tensor<3x4xf32>
}

// -----

// Mixtral's router: softmax, top 2, renormalised.
// CHECK-LABEL: func.func @gating_renorm(
// CHECK-SAME:  %l: tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>) {
// CHECK-NEXT:    %w, %i = ge.moe_gating_top_k %l k 2 renorm : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
// CHECK-NEXT:    func.return %w, %i : tensor<8x2xf32>, tensor<8x2xi64>
// CHECK-NEXT:  }
func.func @gating_renorm(%l: tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>) {
  %p = ge.softmax %l axis 1 : tensor<8x4xf32>
  %w, %i = ge.topk %p k 2 axis 1 largest sorted : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
  %s = ge.reduce_sum %w axes [1] keepdims : tensor<8x2xf32> -> tensor<8x1xf32>
  %n = ge.div %w, %s : (tensor<8x2xf32>, tensor<8x1xf32>) -> tensor<8x2xf32>
  func.return %n, %i : tensor<8x2xf32>, tensor<8x2xi64>
}

// -----

// Without the renormalisation; a sigmoid router (DeepSeek-V3's norm).
// CHECK-LABEL: func.func @gating(
// CHECK-SAME:  %l: tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x1xf32>, tensor<8x1xi64>) {
// CHECK-NEXT:    %w, %i = ge.moe_gating_top_k %l k 2 : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
// CHECK-NEXT:    %v, %j = ge.moe_gating_top_k %l k 1 norm "sigmoid" : tensor<8x4xf32> -> tensor<8x1xf32>, tensor<8x1xi64>
// CHECK-NEXT:    func.return %w, %i, %v, %j : tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x1xf32>, tensor<8x1xi64>
// CHECK-NEXT:  }
func.func @gating(%l: tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x1xf32>, tensor<8x1xi64>) {
  %p = ge.softmax %l axis 1 : tensor<8x4xf32>
  %w, %i = ge.topk %p k 2 axis 1 largest sorted : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
  %q = ge.sigmoid %l : tensor<8x4xf32>
  %v, %j = ge.topk %q k 1 axis 1 largest sorted : tensor<8x4xf32> -> tensor<8x1xf32>, tensor<8x1xi64>
  func.return %w, %i, %v, %j : tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x1xf32>, tensor<8x1xi64>
}

// -----

// Experts on one x, stacked (reshape to 1xTxN, concat): one grouped matmul on x broadcast.
// CHECK-LABEL: func.func @grouped_same_x(
// CHECK-SAME:  %x: tensor<3x2xf32>) -> tensor<2x3x1xf32> {
// CHECK-NEXT:    %s = ge.const dense<{{\[\[}}[1.000000e+00], [2.000000e+00{{\]\]}}, {{\[\[}}3.000000e+00], [4.000000e+00{{\]\]}}]> : tensor<2x2x1xf32>
// CHECK-NEXT:    %s_1 = ge.reshape %x : tensor<3x2xf32> -> tensor<1x3x2xf32>
// CHECK-NEXT:    %s_2 = ge.expand %s_1 : tensor<1x3x2xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT:    %s_3 = ge.grouped_matmul %s_2, %s : tensor<2x3x2xf32>, tensor<2x2x1xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT:    func.return %s_3 : tensor<2x3x1xf32>
// CHECK-NEXT:  }
func.func @grouped_same_x(%x: tensor<3x2xf32>) -> tensor<2x3x1xf32> {
  %w0 = ge.const dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %w1 = ge.const dense<[[3.0], [4.0]]> : tensor<2x1xf32>
  %y0 = ge.matmul %x, %w0 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  %y1 = ge.matmul %x, %w1 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  %r0 = ge.reshape %y0 : tensor<3x1xf32> -> tensor<1x3x1xf32>
  %r1 = ge.reshape %y1 : tensor<3x1xf32> -> tensor<1x3x1xf32>
  %s = ge.concat %r0, %r1 axis 0 : tensor<1x3x1xf32>, tensor<1x3x1xf32> -> tensor<2x3x1xf32>
  func.return %s : tensor<2x3x1xf32>
}

// -----

// Experts on their own inputs, stacked as ATen's stack writes it (concat, then reshape).
// CHECK-LABEL: func.func @grouped_stack(
// CHECK-SAME:  %a: tensor<3x2xf32>, %b: tensor<3x2xf32>) -> tensor<2x3x1xf32> {
// CHECK-NEXT:    %s = ge.const dense<{{\[\[}}[1.000000e+00], [2.000000e+00{{\]\]}}, {{\[\[}}3.000000e+00], [4.000000e+00{{\]\]}}]> : tensor<2x2x1xf32>
// CHECK-NEXT:    %s_1 = ge.reshape %a : tensor<3x2xf32> -> tensor<1x3x2xf32>
// CHECK-NEXT:    %s_2 = ge.reshape %b : tensor<3x2xf32> -> tensor<1x3x2xf32>
// CHECK-NEXT:    %s_3 = ge.concat %s_1, %s_2 axis 0 : tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT:    %s_4 = ge.grouped_matmul %s_3, %s : tensor<2x3x2xf32>, tensor<2x2x1xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT:    func.return %s_4 : tensor<2x3x1xf32>
// CHECK-NEXT:  }
func.func @grouped_stack(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>) -> tensor<2x3x1xf32> {
  %w0 = ge.const dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %w1 = ge.const dense<[[3.0, 4.0]]> : tensor<1x2xf32>
  %y0 = ge.matmul %a, %w0 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  %y1 = ge.matmul %b, %w1 transpose_b : tensor<3x2xf32>, tensor<1x2xf32> -> tensor<3x1xf32>
  %c = ge.concat %y0, %y1 axis 0 : tensor<3x1xf32>, tensor<3x1xf32> -> tensor<6x1xf32>
  %s = ge.reshape %c : tensor<6x1xf32> -> tensor<2x3x1xf32>
  func.return %s : tensor<2x3x1xf32>
}

// -----

// A stack of swi_glus is the swi_glu of the stack.
// CHECK-LABEL: func.func @stacked_swi_glu(
// CHECK-SAME:  %a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<2x3x2xf32> {
// CHECK-NEXT:    %s = ge.reshape %a : tensor<3x4xf32> -> tensor<1x3x4xf32>
// CHECK-NEXT:    %s_1 = ge.reshape %b : tensor<3x4xf32> -> tensor<1x3x4xf32>
// CHECK-NEXT:    %s_2 = ge.concat %s, %s_1 axis 0 : tensor<1x3x4xf32>, tensor<1x3x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT:    %s_3 = ge.swi_glu %s_2 dim 2 : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
// CHECK-NEXT:    func.return %s_3 : tensor<2x3x2xf32>
// CHECK-NEXT:  }
func.func @stacked_swi_glu(%a: tensor<3x4xf32>, %b: tensor<3x4xf32>) -> tensor<2x3x2xf32> {
  %g0 = ge.swi_glu %a dim 1 : tensor<3x4xf32> -> tensor<3x2xf32>
  %g1 = ge.swi_glu %b dim 1 : tensor<3x4xf32> -> tensor<3x2xf32>
  %r0 = ge.reshape %g0 : tensor<3x2xf32> -> tensor<1x3x2xf32>
  %r1 = ge.reshape %g1 : tensor<3x2xf32> -> tensor<1x3x2xf32>
  %s = ge.concat %r0, %r1 axis 0 : tensor<1x3x2xf32>, tensor<1x3x2xf32> -> tensor<2x3x2xf32>
  func.return %s : tensor<2x3x2xf32>
}

// -----

// A weight that is not a constant.
// CHECK-LABEL: func.func @no_weight_arg(
// CHECK-SAME:  %x: tensor<3x2xf32>, %wu: tensor<2x2xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:    %wg = ge.const dense<1.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %g = ge.matmul %x, %wg : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %u = ge.matmul %x, %wu : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %s = ge.silu %g : tensor<3x2xf32>
// CHECK-NEXT:    %y = ge.mul %s, %u : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %y : tensor<3x2xf32>
// CHECK-NEXT:  }
func.func @no_weight_arg(%x: tensor<3x2xf32>, %wu: tensor<2x2xf32>) -> tensor<3x2xf32> {
  %wg = ge.const dense<1.0> : tensor<2x2xf32>
  %g = ge.matmul %x, %wg : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %u = ge.matmul %x, %wu : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %s = ge.silu %g : tensor<3x2xf32>
  %y = ge.mul %s, %u : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// Projections of two different inputs.
// CHECK-LABEL: func.func @no_other_x(
// CHECK-SAME:  %x: tensor<3x2xf32>, %z: tensor<3x2xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:    %wg = ge.const dense<1.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %wu = ge.const dense<2.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %g = ge.matmul %x, %wg : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %u = ge.matmul %z, %wu : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %s = ge.silu %g : tensor<3x2xf32>
// CHECK-NEXT:    %y = ge.mul %s, %u : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %y : tensor<3x2xf32>
// CHECK-NEXT:  }
func.func @no_other_x(%x: tensor<3x2xf32>, %z: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wg = ge.const dense<1.0> : tensor<2x2xf32>
  %wu = ge.const dense<2.0> : tensor<2x2xf32>
  %g = ge.matmul %x, %wg : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %u = ge.matmul %z, %wu : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %s = ge.silu %g : tensor<3x2xf32>
  %y = ge.mul %s, %u : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// The gate projection has a second use.
// CHECK-LABEL: func.func @no_second_use(
// CHECK-SAME:  %x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
// CHECK-NEXT:    %wg = ge.const dense<1.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %wu = ge.const dense<2.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %g = ge.matmul %x, %wg : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %u = ge.matmul %x, %wu : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %s = ge.silu %g : tensor<3x2xf32>
// CHECK-NEXT:    %y = ge.mul %s, %u : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %y, %g : tensor<3x2xf32>, tensor<3x2xf32>
// CHECK-NEXT:  }
func.func @no_second_use(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %wg = ge.const dense<1.0> : tensor<2x2xf32>
  %wu = ge.const dense<2.0> : tensor<2x2xf32>
  %g = ge.matmul %x, %wg : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %u = ge.matmul %x, %wu : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %s = ge.silu %g : tensor<3x2xf32>
  %y = ge.mul %s, %u : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %y, %g : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// A projection with a bias.
// CHECK-LABEL: func.func @no_bias(
// CHECK-SAME:  %x: tensor<3x2xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:    %wg = ge.const dense<1.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %wu = ge.const dense<2.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %c = ge.const dense<3.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %g = ge.matmul %x, %wg bias %c : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %u = ge.matmul %x, %wu : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %s = ge.silu %g : tensor<3x2xf32>
// CHECK-NEXT:    %y = ge.mul %s, %u : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %y : tensor<3x2xf32>
// CHECK-NEXT:  }
func.func @no_bias(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wg = ge.const dense<1.0> : tensor<2x2xf32>
  %wu = ge.const dense<2.0> : tensor<2x2xf32>
  %c = ge.const dense<3.0> : tensor<2xf32>
  %g = ge.matmul %x, %wg bias %c : tensor<3x2xf32>, tensor<2x2xf32>, tensor<2xf32> -> tensor<3x2xf32>
  %u = ge.matmul %x, %wu : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %s = ge.silu %g : tensor<3x2xf32>
  %y = ge.mul %s, %u : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// The projections on different stream labels.
// CHECK-LABEL: func.func @no_labels(
// CHECK-SAME:  %x: tensor<3x2xf32>) -> tensor<3x2xf32> {
// CHECK-NEXT:    %wg = ge.const dense<1.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %wu = ge.const dense<2.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %g = ge.matmul %x, %wg {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %u = ge.matmul %x, %wu {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT:    %s = ge.silu %g {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<3x2xf32>
// CHECK-NEXT:    %y = ge.mul %s, %u {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    func.return %y : tensor<3x2xf32>
// CHECK-NEXT:  }
func.func @no_labels(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wg = ge.const dense<1.0> : tensor<2x2xf32>
  %wu = ge.const dense<2.0> : tensor<2x2xf32>
  %g = ge.matmul %x, %wg {stream.label = #stream.label<"1">} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %u = ge.matmul %x, %wu {stream.label = #stream.label<"2">} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %s = ge.silu %g {stream.label = #stream.label<"1">} : tensor<3x2xf32>
  %y = ge.mul %s, %u {stream.label = #stream.label<"1">} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// Slices that are not the two halves (the second starts one too late).
// CHECK-LABEL: func.func @no_halves(
// CHECK-SAME:  %x: tensor<3x8xf32>) -> tensor<3x3xf32> {
// CHECK-NEXT:    %a = ge.slice %x starts [0] ends [3] axes [1] steps [1] : tensor<3x8xf32> -> tensor<3x3xf32>
// CHECK-NEXT:    %b = ge.slice %x starts [5] ends [8] axes [1] steps [1] : tensor<3x8xf32> -> tensor<3x3xf32>
// CHECK-NEXT:    %s = ge.silu %a : tensor<3x3xf32>
// CHECK-NEXT:    %y = ge.mul %s, %b : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT:    func.return %y : tensor<3x3xf32>
// CHECK-NEXT:  }
func.func @no_halves(%x: tensor<3x8xf32>) -> tensor<3x3xf32> {
  %a = ge.slice %x starts [0] ends [3] axes [1] steps [1] : tensor<3x8xf32> -> tensor<3x3xf32>
  %b = ge.slice %x starts [5] ends [8] axes [1] steps [1] : tensor<3x8xf32> -> tensor<3x3xf32>
  %s = ge.silu %a : tensor<3x3xf32>
  %y = ge.mul %s, %b : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  func.return %y : tensor<3x3xf32>
}

// -----

// The k smallest, and a softmax over another axis than the top k's: no gating.
// CHECK-LABEL: func.func @no_gating(
// CHECK-SAME:  %l: tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32>, tensor<8x2xi64>) {
// CHECK-NEXT:    %p = ge.softmax %l axis 1 : tensor<8x4xf32>
// CHECK-NEXT:    %w, %i = ge.topk %p k 2 axis 1 sorted : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
// CHECK-NEXT:    %q = ge.softmax %l axis 0 : tensor<8x4xf32>
// CHECK-NEXT:    %v, %j = ge.topk %q k 2 axis 1 largest sorted : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
// CHECK-NEXT:    func.return %w, %i, %v, %j : tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32>, tensor<8x2xi64>
// CHECK-NEXT:  }
func.func @no_gating(%l: tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32>, tensor<8x2xi64>) {
  %p = ge.softmax %l axis 1 : tensor<8x4xf32>
  %w, %i = ge.topk %p k 2 axis 1 sorted : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
  %q = ge.softmax %l axis 0 : tensor<8x4xf32>
  %v, %j = ge.topk %q k 2 axis 1 largest sorted : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
  func.return %w, %i, %v, %j : tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32>, tensor<8x2xi64>
}

// -----

// The top-k weights have a third use: the gating fuses, the renormalisation stays.
// CHECK-LABEL: func.func @no_renorm(
// CHECK-SAME:  %l: tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32>) {
// CHECK-NEXT:    %w, %i = ge.moe_gating_top_k %l k 2 : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
// CHECK-NEXT:    %s = ge.reduce_sum %w axes [1] keepdims : tensor<8x2xf32> -> tensor<8x1xf32>
// CHECK-NEXT:    %n = ge.div %w, %s : (tensor<8x2xf32>, tensor<8x1xf32>) -> tensor<8x2xf32>
// CHECK-NEXT:    func.return %n, %i, %w : tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32>
// CHECK-NEXT:  }
func.func @no_renorm(%l: tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32>) {
  %p = ge.softmax %l axis 1 : tensor<8x4xf32>
  %w, %i = ge.topk %p k 2 axis 1 largest sorted : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
  %s = ge.reduce_sum %w axes [1] keepdims : tensor<8x2xf32> -> tensor<8x1xf32>
  %n = ge.div %w, %s : (tensor<8x2xf32>, tensor<8x1xf32>) -> tensor<8x2xf32>
  func.return %n, %i, %w : tensor<8x2xf32>, tensor<8x2xi64>, tensor<8x2xf32>
}

// -----

// An expert whose weight is not a constant, and a stack whose matmul has another use.
// CHECK-LABEL: func.func @no_grouping(
// CHECK-SAME:  %x: tensor<3x2xf32>, %w1: tensor<2x1xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x1xf32>, tensor<3x1xf32>) {
// CHECK-NEXT:    %w0 = ge.const dense<1.000000e+00> : tensor<2x1xf32>
// CHECK-NEXT:    %y0 = ge.matmul %x, %w0 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
// CHECK-NEXT:    %y1 = ge.matmul %x, %w1 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
// CHECK-NEXT:    %r0 = ge.reshape %y0 : tensor<3x1xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT:    %r1 = ge.reshape %y1 : tensor<3x1xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT:    %s = ge.concat %r0, %r1 axis 0 : tensor<1x3x1xf32>, tensor<1x3x1xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT:    %y2 = ge.matmul %x, %w0 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
// CHECK-NEXT:    %y3 = ge.matmul %x, %w0 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
// CHECK-NEXT:    %r2 = ge.reshape %y2 : tensor<3x1xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT:    %r3 = ge.reshape %y3 : tensor<3x1xf32> -> tensor<1x3x1xf32>
// CHECK-NEXT:    %t = ge.concat %r2, %r3 axis 0 : tensor<1x3x1xf32>, tensor<1x3x1xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT:    func.return %s, %t, %y3 : tensor<2x3x1xf32>, tensor<2x3x1xf32>, tensor<3x1xf32>
// CHECK-NEXT:  }
func.func @no_grouping(%x: tensor<3x2xf32>, %w1: tensor<2x1xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x1xf32>, tensor<3x1xf32>) {
  %w0 = ge.const dense<1.0> : tensor<2x1xf32>
  %y0 = ge.matmul %x, %w0 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  %y1 = ge.matmul %x, %w1 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  %r0 = ge.reshape %y0 : tensor<3x1xf32> -> tensor<1x3x1xf32>
  %r1 = ge.reshape %y1 : tensor<3x1xf32> -> tensor<1x3x1xf32>
  %s = ge.concat %r0, %r1 axis 0 : tensor<1x3x1xf32>, tensor<1x3x1xf32> -> tensor<2x3x1xf32>
  %y2 = ge.matmul %x, %w0 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  %y3 = ge.matmul %x, %w0 : tensor<3x2xf32>, tensor<2x1xf32> -> tensor<3x1xf32>
  %r2 = ge.reshape %y2 : tensor<3x1xf32> -> tensor<1x3x1xf32>
  %r3 = ge.reshape %y3 : tensor<3x1xf32> -> tensor<1x3x1xf32>
  %t = ge.concat %r2, %r3 axis 0 : tensor<1x3x1xf32>, tensor<1x3x1xf32> -> tensor<2x3x1xf32>
  func.return %s, %t, %y3 : tensor<2x3x1xf32>, tensor<2x3x1xf32>, tensor<3x1xf32>
}
