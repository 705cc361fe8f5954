// --fuse: the legality rules.  Each case shows a pattern that must NOT fire and pins the whole
// function, which keeps its unfused ops; a few cases show what a rule keeps (the shared stream
// label, a constant shared with another op, a wait_tensor before the conv).
//
// The first case is an assigned module, which --fuse refuses with a located error.  Without
// flags ge-opt prints it on stderr, goes on with the other cases and exits 1 (as mlir-opt), so
// the cases are checked with --verify-diagnostics, which prints that error on stdout (before
// the modules, which are printed at the end) and exits 0; the upstream check blanks that line.
// RUN: ge-opt %s --split-input-file --fuse --verify-diagnostics | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: not ge-opt %s --split-input-file --fuse 2>&1 >/dev/null | filecheck %s --check-prefix=ASSIGNED

// ---- An assigned module (ops with stream.id) is refused --------------------------------------
// ASSIGNED-NOT: {{\n}}
// ASSIGNED: {{^}}{{.*}}fuse-legality.mlir:[[# @LINE + 6]]:3: error: 'ge.const' op is assigned to a stream: --fuse rewrites graphs before stream assignment; run it before --assign-streams{{$}}
// ASSIGNED-NOT: {{.}}
// CHECK-NOT: {{\n}}
// CHECK: {{^}}{{.*}}fuse-legality.mlir:[[# @LINE + 3]]:3: error: 'ge.const' op is assigned to a stream: --fuse rewrites graphs before stream assignment; run it before --assign-streams{{$}}
// CHECK-NEXT: // -----
func.func @assigned(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32> {stream.id = #stream.id<0>}
  %c = ge.conv2d %x, %w {stream.id = #stream.id<0>} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.relu %c {stream.id = #stream.id<0>} : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// ---- The conv's result has another user ------------------------------------------------------

// batch_norm: the conv's result is also used by a relu (which cannot fuse either).
// CHECK-LABEL: func.func @bn_conv_has_other_user(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[C]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[R]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_conv_has_other_user(%x: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %r = ge.relu %c : tensor<1x2x2x2xf32>
  func.return %y, %r : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// An activation: the conv's result is also used by a mul with a non-constant.
// CHECK-LABEL: func.func @relu_conv_has_other_user(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[Z:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[C]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[C]], %[[Z]] : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[R]], %[[M]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @relu_conv_has_other_user(%x: tensor<1x2x2x2xf32>, %z: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %r = ge.relu %c : tensor<1x2x2x2xf32>
  %m = ge.mul %c, %z : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %r, %m : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A residual add, a constant scale and a constant shift: the conv's result has three users.
// CHECK-LABEL: func.func @residual_scale_shift_conv_has_other_users(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[Z:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[T:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.add %[[C]], %[[Z]] : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[C]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[S:.*]] = ge.add %[[C]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[A]], %[[M]], %[[S]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @residual_scale_shift_conv_has_other_users(%x: tensor<1x2x2x2xf32>, %z: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %t = ge.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %a = ge.add %c, %z : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %m = ge.mul %c, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %s = ge.add %c, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %a, %m, %s : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Both operands of the add are the same conv result (two uses).
// CHECK-LABEL: func.func @residual_same_conv_twice(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.add %[[C]], %[[C]] : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @residual_same_conv_twice(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %c, %c : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// ---- The conv's result is a function result ---------------------------------------------------

// CHECK-LABEL: func.func @bn_conv_is_function_result(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[C]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_conv_is_function_result(%x: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y, %c : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @relu_conv_is_function_result(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.relu %[[C]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[C]], %[[Y]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @relu_conv_is_function_result(%x: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.relu %c : tensor<1x2x2x2xf32>
  func.return %c, %y : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// ---- A parameter, the weight or the bias is not a constant (batch_norm, scale, shift) -------
// Only the folding patterns read constants; fuse.mlir @fusion_without_constant_weights shows
// activation and residual fusion without them.

// gamma (scale) is a function argument.
// CHECK-LABEL: func.func @bn_gamma_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[G:.*]]: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[G]], %[[P]], %[[P]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_gamma_not_constant(%x: tensor<1x2x2x2xf32>, %gamma: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %gamma, %p, %p, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// beta (offset) is a function argument.
// CHECK-LABEL: func.func @bn_beta_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[BETA:.*]]: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[P]], %[[BETA]], %[[P]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_beta_not_constant(%x: tensor<1x2x2x2xf32>, %beta: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %p, %beta, %p, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The mean is a function argument.
// CHECK-LABEL: func.func @bn_mean_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[MEAN:.*]]: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[P]], %[[P]], %[[MEAN]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_mean_not_constant(%x: tensor<1x2x2x2xf32>, %mean: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %p, %p, %mean, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The variance is a function argument.
// CHECK-LABEL: func.func @bn_variance_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[VAR:.*]]: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[P]], %[[P]], %[[P]], %[[VAR]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_variance_not_constant(%x: tensor<1x2x2x2xf32>, %var: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %p, %p, %p, %var : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The conv's weight is a function argument.
// CHECK-LABEL: func.func @bn_weight_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[W:.*]]: tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_weight_not_constant(%x: tensor<1x2x2x2xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The conv's bias is a function argument.
// CHECK-LABEL: func.func @bn_bias_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[B:.*]]: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_bias_not_constant(%x: tensor<1x2x2x2xf32>, %b: tensor<2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %p, %p, %p, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A batch_norm parameter whose data was elided is not readable.
// CHECK-LABEL: func.func @bn_parameter_elided(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[E:.*]] = ge.const #ge.elided : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[P]], %[[P]], %[[P]], %[[E]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_parameter_elided(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %e = ge.const #ge.elided : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %p, %p, %p, %e : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The scale folds into the weight, which is a function argument here.
// CHECK-LABEL: func.func @scale_weight_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[W:.*]]: tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[S:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.mul %[[C]], %[[S]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @scale_weight_not_constant(%x: tensor<1x2x2x2xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
  %s = ge.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.mul %c, %s : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The shift folds into the bias, which is a function argument here (and the add is not a
// residual add: its operands' shapes differ).  A weight argument blocks the shift too (the
// folding patterns need both the weight and the bias as constants).
// CHECK-LABEL: func.func @shift_bias_or_weight_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[B:.*]]: tensor<2xf32>, %[[V:.*]]: tensor<2x2x1x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[T:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y1:.*]] = ge.add %[[C1]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %[[X]], %[[V]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y2:.*]] = ge.add %[[C2]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_bias_or_weight_not_constant(%x: tensor<1x2x2x2xf32>, %b: tensor<2xf32>, %v: tensor<2x2x1x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %t = ge.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %c1 = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y1 = ge.add %c1, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %v : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y2 = ge.add %c2, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y1, %y2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// The shift's per-channel addend is a function argument: not folded, and not a residual
// either (its shape differs from the conv's).
// CHECK-LABEL: func.func @shift_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[T:.*]]: tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.add %[[C]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_not_constant(%x: tensor<1x2x2x2xf32>, %t: tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %c, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The scale is a function argument.
// CHECK-LABEL: func.func @scale_not_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[S:.*]]: tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.mul %[[C]], %[[S]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @scale_not_constant(%x: tensor<1x2x2x2xf32>, %s: tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.mul %c, %s : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// ---- Constants that are not per-channel, and shapes that differ -------------------------------

// tensor<2xf32> broadcasts along W, not C; tensor<1x1x2x1xf32> is per row (H).
// CHECK-LABEL: func.func @shift_scale_not_per_channel(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[T:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[S:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00], [2.000000e+00]]]]> : tensor<1x1x2x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.add %[[C1]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[C2]], %[[S]] : (tensor<1x2x2x2xf32>, tensor<1x1x2x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[A]], %[[M]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_scale_not_per_channel(%x: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %t = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %s = ge.const dense<[[[[1.0], [2.0]]]]> : tensor<1x1x2x1xf32>
  %c1 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %a = ge.add %c1, %t : (tensor<1x2x2x2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %m = ge.mul %c2, %s : (tensor<1x2x2x2xf32>, tensor<1x1x2x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %a, %m : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A residual add needs identical shapes: a broadcast residual (1x2x1x1), and a conv result
// that the add broadcasts up (1x2x1x1 -> 1x2x2x2), are not fused.
// CHECK-LABEL: func.func @residual_shapes_differ(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x1x1xf32>, %[[Z:.*]]: tensor<1x2x1x1xf32>, %[[Q:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[A1:.*]] = ge.add %[[C1]], %[[R]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %[[Z]], %[[W]] : tensor<1x2x1x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[A2:.*]] = ge.add %[[C2]], %[[Q]] : (tensor<1x2x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[A1]], %[[A2]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @residual_shapes_differ(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x1x1xf32>, %z: tensor<1x2x1x1xf32>, %q: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c1 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %a1 = ge.add %c1, %r : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %z, %w : tensor<1x2x1x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x1x1xf32>
  %a2 = ge.add %c2, %q : (tensor<1x2x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %a1, %a2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// ---- What a fused conv with an activation (or a residual) can no longer absorb ----------------

// After relu: a second relu, a batch_norm, a scale, a shift and a residual add all stay.
// CHECK-LABEL: func.func @after_activation(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[T:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[F1:.*]] = ge.fused_conv2d %[[X]], %[[W]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y1:.*]] = ge.relu %[[F1]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[F2:.*]] = ge.fused_conv2d %[[X]], %[[W]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y2:.*]] = ge.batch_norm %[[F2]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[F3:.*]] = ge.fused_conv2d %[[X]], %[[W]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y3:.*]] = ge.mul %[[F3]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[F4:.*]] = ge.fused_conv2d %[[X]], %[[W]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y4:.*]] = ge.add %[[F4]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[F5:.*]] = ge.fused_conv2d %[[X]], %[[W]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y5:.*]] = ge.add %[[F5]], %[[R]] : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]], %[[Y3]], %[[Y4]], %[[Y5]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @after_activation(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %t = ge.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %c1 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %r1 = ge.relu %c1 : tensor<1x2x2x2xf32>
  %y1 = ge.relu %r1 : tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %r2 = ge.relu %c2 : tensor<1x2x2x2xf32>
  %y2 = ge.batch_norm %r2, %p, %p, %p, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %c3 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %r3 = ge.relu %c3 : tensor<1x2x2x2xf32>
  %y3 = ge.mul %r3, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c4 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %r4 = ge.relu %c4 : tensor<1x2x2x2xf32>
  %y4 = ge.add %r4, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c5 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %r5 = ge.relu %c5 : tensor<1x2x2x2xf32>
  %y5 = ge.add %r5, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y1, %y2, %y3, %y4, %y5 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// After a residual add: a batch_norm, a scale and a second residual add stay (they would
// scale or add to the residual too).
// CHECK-LABEL: func.func @after_residual(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>, %[[Q:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[T:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[F1:.*]] = ge.fused_conv2d %[[X]], %[[W]] residual %[[R]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y1:.*]] = ge.batch_norm %[[F1]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[F2:.*]] = ge.fused_conv2d %[[X]], %[[W]] residual %[[R]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y2:.*]] = ge.mul %[[F2]], %[[T]] : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[F3:.*]] = ge.fused_conv2d %[[X]], %[[W]] residual %[[R]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y3:.*]] = ge.add %[[F3]], %[[Q]] : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]], %[[Y3]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @after_residual(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>, %q: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %t = ge.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %c1 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %a1 = ge.add %c1, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y1 = ge.batch_norm %a1, %p, %p, %p, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %a2 = ge.add %c2, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y2 = ge.mul %a2, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c3 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %a3 = ge.add %c3, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y3 = ge.add %a3, %q : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y1, %y2, %y3 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// After a residual add, t - (conv + b + r) stays: it would be conv(x, -W) + (t - b) - r, and
// the residual cannot change sign.  (conv + r) - t folds (fuse.mlir, @shift_sub_after_residual.)
// CHECK-LABEL: func.func @rsub_after_residual(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[T:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[F:.*]] = ge.fused_conv2d %[[X]], %[[W]] residual %[[R]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.sub %[[T]], %[[F]] : (tensor<1x2x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @rsub_after_residual(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %t = ge.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %a = ge.add %c, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.sub %t, %a : (tensor<1x2x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// clip with bounds other than (0, 6) is not an activation of the fused conv.
// CHECK-LABEL: func.func @clip_other_bounds(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y1:.*]] = ge.clip %[[C1]] min 0.000000e+00 max 5.000000e+00 : tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y2:.*]] = ge.clip %[[C2]] min -1.000000e+00 max 6.000000e+00 : tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @clip_other_bounds(%x: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c1 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y1 = ge.clip %c1 min 0.0 max 5.0 : tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y2 = ge.clip %c2 min -1.0 max 6.0 : tensor<1x2x2x2xf32>
  func.return %y1, %y2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// ---- Stream labels -------------------------------------------------------------------------

// The conv and the batch_norm have different labels.
// CHECK-LABEL: func.func @bn_labels_differ(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[P]], %[[P]], %[[P]], %[[P]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_labels_differ(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w {stream.label = #stream.label<"1">} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %p, %p, %p, %p {stream.label = #stream.label<"2">} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Only one of the two ops is labelled: a relu on the main stream after a labelled conv, and a
// labelled add after an unlabelled conv.
// CHECK-LABEL: func.func @label_on_one_op_only(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %[[X]], %[[W]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y1:.*]] = ge.relu %[[C1]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y2:.*]] = ge.add %[[C2]], %[[R]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @label_on_one_op_only(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c1 = ge.conv2d %x, %w {stream.label = #stream.label<"1">} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y1 = ge.relu %c1 : tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y2 = ge.add %c2, %r {stream.label = #stream.label<"1">} : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y1, %y2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Matched ops with the same label fuse, and the fused conv keeps the label (here conv + BN +
// relu on stream "s1"; the BN fold gives s = [2, 2] / sqrt([4, 4]) = [1, 1], W' = W,
// b' = -[1, 2] + [0.5, 0.5] = [-0.5, -1.5]).
// CHECK-LABEL: func.func @same_label_kept(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[-5.000000e-01, -1.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation relu {stream.label = #stream.label<"s1", priority = 2, inner_parallel = false>} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @same_label_kept(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %gamma = ge.const dense<2.0> : tensor<2xf32>
  %beta = ge.const dense<0.5> : tensor<2xf32>
  %mean = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %var = ge.const dense<4.0> : tensor<2xf32>
  %c = ge.conv2d %x, %w {stream.label = #stream.label<"s1", priority = 2, inner_parallel = false>} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %bn = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 0.0 {stream.label = #stream.label<"s1", priority = 2, inner_parallel = false>} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.relu %bn {stream.label = #stream.label<"s1", priority = 2, inner_parallel = false>} : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// ---- A stream.wait_tensor between the matched ops ----------------------------------------------

// conv -> wait_tensor -> batch_norm, and conv -> wait_tensor -> relu: the consumer waits for
// another value, so the conv cannot absorb it.
// CHECK-LABEL: func.func @wait_tensor_between(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[D:.*]]: tensor<4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[P:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[V1:.*]] = stream.wait_tensor %[[C1]] after %[[D]] : tensor<1x2x2x2xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[Y1:.*]] = ge.batch_norm %[[V1]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[V2:.*]] = stream.wait_tensor %[[C2]] after %[[D]] : tensor<1x2x2x2xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[Y2:.*]] = ge.relu %[[V2]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @wait_tensor_between(%x: tensor<1x2x2x2xf32>, %d: tensor<4xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %p = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c1 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %v1 = stream.wait_tensor %c1 after %d : tensor<1x2x2x2xf32>, tensor<4xf32>
  %y1 = ge.batch_norm %v1, %p, %p, %p, %p : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %v2 = stream.wait_tensor %c2 after %d : tensor<1x2x2x2xf32>, tensor<4xf32>
  %y2 = ge.relu %v2 : tensor<1x2x2x2xf32>
  func.return %y1, %y2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A wait_tensor that depends on the conv's result is another user of it: the residual add
// after the conv does not fuse.
// CHECK-LABEL: func.func @wait_tensor_after_conv(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[V:.*]] = stream.wait_tensor %[[R]] after %[[C]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.add %[[C]], %[[V]] : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[V]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @wait_tensor_after_conv(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %v = stream.wait_tensor %r after %c : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
  %y = ge.add %c, %v : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y, %v : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A wait_tensor before the conv (on its input) is not between the matched ops: conv + relu
// fuse, after the wait.
// CHECK-LABEL: func.func @wait_tensor_before_conv(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[D:.*]]: tensor<4xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[V:.*]] = stream.wait_tensor %[[X]] after %[[D]] : tensor<1x2x2x2xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[V]], %[[W]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @wait_tensor_before_conv(%x: tensor<1x2x2x2xf32>, %d: tensor<4xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %v = stream.wait_tensor %x after %d : tensor<1x2x2x2xf32>, tensor<4xf32>
  %c = ge.conv2d %v, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.relu %c : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// ---- Folding precision: a folded value that f16 cannot hold is refused --------------------------

// A weight overflows: s = [4096, 1] / sqrt([0.0625, 1]) = [16384, 1]; W' = 8 * 16384 = 131072
// is beyond f16's 65504.
// CHECK-LABEL: func.func @f16_bn_weight_overflow(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}8.000000e+00]]], {{\[\[\[}}1.000000e+00]]]]> : tensor<2x1x1x1xf16>
// CHECK-NEXT:    %[[G:.*]] = ge.const dense<[4.096000e+03, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Z:.*]] = ge.const dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[V:.*]] = ge.const dense<[6.250000e-02, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x1x1xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[G]], %[[Z]], %[[Z]], %[[V]] epsilon 0.000000e+00 : (tensor<1x2x1x1xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x1xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x1x1xf16>
// CHECK-NEXT:  }
func.func @f16_bn_weight_overflow(%x: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
  %w = ge.const dense<[[[[8.0]]], [[[1.0]]]]> : tensor<2x1x1x1xf16>
  %gamma = ge.const dense<[4096.0, 1.0]> : tensor<2xf32>
  %zero = ge.const dense<0.0> : tensor<2xf32>
  %var = ge.const dense<[0.0625, 1.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x1x1xf16>
  %y = ge.batch_norm %c, %gamma, %zero, %zero, %var epsilon 0.0 : (tensor<1x2x1x1xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x1xf16>
  func.return %y : tensor<1x2x1x1xf16>
}

// -----

// The bias overflows: s = [16384, 1] as above, W' = [16384, 1] fits, but
// b' = -[8, 0] * s = [-131072, 0] does not.
// CHECK-LABEL: func.func @f16_bn_bias_overflow(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x1x1x1xf16>
// CHECK-NEXT:    %[[G:.*]] = ge.const dense<[4.096000e+03, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Z:.*]] = ge.const dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[M:.*]] = ge.const dense<[8.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[V:.*]] = ge.const dense<[6.250000e-02, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x1x1xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[G]], %[[Z]], %[[M]], %[[V]] epsilon 0.000000e+00 : (tensor<1x2x1x1xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x1xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x1x1xf16>
// CHECK-NEXT:  }
func.func @f16_bn_bias_overflow(%x: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
  %w = ge.const dense<1.0> : tensor<2x1x1x1xf16>
  %gamma = ge.const dense<[4096.0, 1.0]> : tensor<2xf32>
  %zero = ge.const dense<0.0> : tensor<2xf32>
  %mean = ge.const dense<[8.0, 0.0]> : tensor<2xf32>
  %var = ge.const dense<[0.0625, 1.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x1x1xf16>
  %y = ge.batch_norm %c, %gamma, %zero, %mean, %var epsilon 0.0 : (tensor<1x2x1x1xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x1xf16>
  func.return %y : tensor<1x2x1x1xf16>
}

// -----

// A nonzero weight rounds to zero: s = [2^-16, 1]; W' = 2^-10 * 2^-16 = 2^-26, below half of
// f16's smallest subnormal (2^-24).
// CHECK-LABEL: func.func @f16_bn_weight_underflow(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}9.765620e-04]]], {{\[\[\[}}1.000000e+00]]]]> : tensor<2x1x1x1xf16>
// CHECK-NEXT:    %[[G:.*]] = ge.const dense<[1.52587891e-05, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Z:.*]] = ge.const dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[V:.*]] = ge.const dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x1x1xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.batch_norm %[[C]], %[[G]], %[[Z]], %[[Z]], %[[V]] epsilon 0.000000e+00 : (tensor<1x2x1x1xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x1xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x1x1xf16>
// CHECK-NEXT:  }
func.func @f16_bn_weight_underflow(%x: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
  %w = ge.const dense<[[[[9.765625e-04]]], [[[1.0]]]]> : tensor<2x1x1x1xf16>
  %gamma = ge.const dense<[1.52587890625e-05, 1.0]> : tensor<2xf32>
  %zero = ge.const dense<0.0> : tensor<2xf32>
  %var = ge.const dense<1.0> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x1x1xf16>
  %y = ge.batch_norm %c, %gamma, %zero, %zero, %var epsilon 0.0 : (tensor<1x2x1x1xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x1xf16>
  func.return %y : tensor<1x2x1x1xf16>
}

// -----

// A constant scale overflows (W' = 2 * 65504) and another underflows (W' = 2^-14 * 2^-12 =
// 2^-26); a constant shift overflows (b' = 65504 + 65504).  (The addend has another shape
// than the conv's result, so that the add is not fused as a residual either.)
// CHECK-LABEL: func.func @f16_scale_shift_refused(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x1xf16>) -> (tensor<1x2x2x1xf16>, tensor<1x2x2x1xf16>, tensor<1x2x2x1xf16>) {
// CHECK-NEXT:    %[[W1:.*]] = ge.const dense<2.000000e+00> : tensor<2x2x1x1xf16>
// CHECK-NEXT:    %[[S1:.*]] = ge.const dense<{{\[\[\[\[}}6.550400e+04]], {{\[\[}}1.000000e+00]]]]> : tensor<1x2x1x1xf16>
// CHECK-NEXT:    %[[W2:.*]] = ge.const dense<6.103520e-05> : tensor<2x2x1x1xf16>
// CHECK-NEXT:    %[[S2:.*]] = ge.const dense<{{\[\[\[\[}}2.441410e-04]], {{\[\[}}1.000000e+00]]]]> : tensor<1x2x1x1xf16>
// CHECK-NEXT:    %[[B3:.*]] = ge.const dense<[6.550400e+04, 0.000000e+00]> : tensor<2xf16>
// CHECK-NEXT:    %[[T3:.*]] = ge.const dense<{{\[\[\[\[}}6.550400e+04]], {{\[\[}}0.000000e+00]]]]> : tensor<1x2x1x1xf16>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %[[X]], %[[W1]] : tensor<1x2x2x1xf16>, tensor<2x2x1x1xf16> -> tensor<1x2x2x1xf16>
// CHECK-NEXT:    %[[Y1:.*]] = ge.mul %[[C1]], %[[S1]] : (tensor<1x2x2x1xf16>, tensor<1x2x1x1xf16>) -> tensor<1x2x2x1xf16>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %[[X]], %[[W2]] : tensor<1x2x2x1xf16>, tensor<2x2x1x1xf16> -> tensor<1x2x2x1xf16>
// CHECK-NEXT:    %[[Y2:.*]] = ge.mul %[[C2]], %[[S2]] : (tensor<1x2x2x1xf16>, tensor<1x2x1x1xf16>) -> tensor<1x2x2x1xf16>
// CHECK-NEXT:    %[[C3:.*]] = ge.conv2d %[[X]], %[[W1]] bias %[[B3]] : tensor<1x2x2x1xf16>, tensor<2x2x1x1xf16>, tensor<2xf16> -> tensor<1x2x2x1xf16>
// CHECK-NEXT:    %[[Y3:.*]] = ge.add %[[C3]], %[[T3]] : (tensor<1x2x2x1xf16>, tensor<1x2x1x1xf16>) -> tensor<1x2x2x1xf16>
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]], %[[Y3]] : tensor<1x2x2x1xf16>, tensor<1x2x2x1xf16>, tensor<1x2x2x1xf16>
// CHECK-NEXT:  }
func.func @f16_scale_shift_refused(%x: tensor<1x2x2x1xf16>) -> (tensor<1x2x2x1xf16>, tensor<1x2x2x1xf16>, tensor<1x2x2x1xf16>) {
  %w1 = ge.const dense<2.0> : tensor<2x2x1x1xf16>
  %s1 = ge.const dense<[[[[65504.0]], [[1.0]]]]> : tensor<1x2x1x1xf16>
  %w2 = ge.const dense<6.103515625e-05> : tensor<2x2x1x1xf16>
  %s2 = ge.const dense<[[[[2.44140625e-04]], [[1.0]]]]> : tensor<1x2x1x1xf16>
  %b3 = ge.const dense<[65504.0, 0.0]> : tensor<2xf16>
  %t3 = ge.const dense<[[[[65504.0]], [[0.0]]]]> : tensor<1x2x1x1xf16>
  %c1 = ge.conv2d %x, %w1 : tensor<1x2x2x1xf16>, tensor<2x2x1x1xf16> -> tensor<1x2x2x1xf16>
  %y1 = ge.mul %c1, %s1 : (tensor<1x2x2x1xf16>, tensor<1x2x1x1xf16>) -> tensor<1x2x2x1xf16>
  %c2 = ge.conv2d %x, %w2 : tensor<1x2x2x1xf16>, tensor<2x2x1x1xf16> -> tensor<1x2x2x1xf16>
  %y2 = ge.mul %c2, %s2 : (tensor<1x2x2x1xf16>, tensor<1x2x1x1xf16>) -> tensor<1x2x2x1xf16>
  %c3 = ge.conv2d %x, %w1 bias %b3 : tensor<1x2x2x1xf16>, tensor<2x2x1x1xf16>, tensor<2xf16> -> tensor<1x2x2x1xf16>
  %y3 = ge.add %c3, %t3 : (tensor<1x2x2x1xf16>, tensor<1x2x1x1xf16>) -> tensor<1x2x2x1xf16>
  func.return %y1, %y2, %y3 : tensor<1x2x2x1xf16>, tensor<1x2x2x1xf16>, tensor<1x2x2x1xf16>
}

// -----

// In f32 too, a fold that is not finite is refused: W' = 3e38 * 2 overflows f32.
// CHECK-LABEL: func.func @f32_scale_overflow(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<3.000000e+38> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[S:.*]] = ge.const dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}1.000000e+00]]]]> : tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x2x1x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.mul %[[C]], %[[S]] : (tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x1x1xf32>
// CHECK-NEXT:  }
func.func @f32_scale_overflow(%x: tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32> {
  %w = ge.const dense<3.0e38> : tensor<2x2x1x1xf32>
  %s = ge.const dense<[[[[2.0]], [[1.0]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x1x1xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x1x1xf32>
  %y = ge.mul %c, %s : (tensor<1x2x1x1xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
  func.return %y : tensor<1x2x1x1xf32>
}

// -----

// ---- Shared constants are never changed ------------------------------------------------------

// The weight is shared with a second conv (and with a relu): the fold makes a new constant,
// W' = [1, 2] * [2, 2] = [2, 4], and the others keep using the original [1, 2].
// CHECK-LABEL: func.func @shared_weight(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00]]], {{\[\[\[}}2.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[W2:.*]] = ge.const dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}4.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[B2:.*]] = ge.const dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W2]] bias %[[B2]] : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[W]] : tensor<2x1x1x1xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[C2]], %[[R]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>
// CHECK-NEXT:  }
func.func @shared_weight(%x: tensor<1x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>) {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = ge.const dense<2.0> : tensor<2xf32>
  %zero = ge.const dense<0.0> : tensor<2xf32>
  %var = ge.const dense<1.0> : tensor<2xf32>
  %c1 = ge.conv2d %x, %w : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c1, %gamma, %zero, %zero, %var epsilon 0.0 : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %w : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %r = ge.relu %w : tensor<2x1x1x1xf32>
  func.return %y, %c2, %r : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32>
}

// -----

// One weight, two convs, two different batch_norms: each conv gets its own folded weight,
// [1, 2] * [2, 2] = [2, 4] and [1, 2] * [0.5, -1] = [0.5, -2].
// CHECK-LABEL: func.func @shared_weight_two_bns(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W1:.*]] = ge.const dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}4.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[B1:.*]] = ge.const dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[Y1:.*]] = ge.fused_conv2d %[[X]], %[[W1]] bias %[[B1]] : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[W2:.*]] = ge.const dense<{{\[\[\[\[}}5.000000e-01]]], {{\[\[\[}}-2.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[B2:.*]] = ge.const dense<0.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[Y2:.*]] = ge.fused_conv2d %[[X]], %[[W2]] bias %[[B2]] : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shared_weight_two_bns(%x: tensor<1x1x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %g1 = ge.const dense<2.0> : tensor<2xf32>
  %g2 = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
  %zero = ge.const dense<0.0> : tensor<2xf32>
  %var = ge.const dense<1.0> : tensor<2xf32>
  %c1 = ge.conv2d %x, %w : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %y1 = ge.batch_norm %c1, %g1, %zero, %zero, %var epsilon 0.0 : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %w : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %y2 = ge.batch_norm %c2, %g2, %zero, %zero, %var epsilon 0.0 : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y1, %y2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A bias shared by two convs: the shift folds into a new bias [1, 2] + [1, 1] = [2, 3] for the
// first; the second keeps [1, 2].
// CHECK-LABEL: func.func @shared_bias(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[B1:.*]] = ge.const dense<[2.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y1:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B1]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[C2:.*]] = ge.conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y1]], %[[C2]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shared_bias(%x: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %t = ge.const dense<1.0> : tensor<1x2x1x1xf32>
  %c1 = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y1 = ge.add %c1, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  func.return %y1, %c2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Elementwise ops on rank-0 and rank-1 values with a constant have no channel dimension:
// nothing to fold, and no conv; the pass leaves them (it once read a channel dim that does
// not exist).
// CHECK-LABEL: func.func @rank0_and_rank1_constants(
// CHECK:         ge.add
// CHECK:         ge.mul
// CHECK:         ge.sub
func.func @rank0_and_rank1_constants(%x: tensor<4xf32>, %s: tensor<f32>) -> (tensor<4xf32>, tensor<f32>, tensor<4xf32>) {
  %k = ge.const dense<2.0> : tensor<4xf32>
  %k0 = ge.const dense<2.0> : tensor<f32>
  %a = ge.add %x, %k : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %m = ge.mul %s, %k0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %b = ge.sub %k, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %a, %m, %b : tensor<4xf32>, tensor<f32>, tensor<4xf32>
}
