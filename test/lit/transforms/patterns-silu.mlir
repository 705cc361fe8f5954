// The tutorial's second pattern (docs/patterns.md, examples/patterns/silu.py), loaded as a
// plugin: x * sigmoid(x) -> ge.silu(x), in both operand orders of the mul.
//
// The first case is an assigned module, which the pattern pass refuses with a located error;
// as in fuse-legality.mlir, --verify-diagnostics prints it on stdout and goes on.
// RUN: ge-opt --load-patterns=%examples/patterns/silu.py --fuse-silu %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: ge-opt --load-patterns=%examples/patterns/silu.py --fuse-silu %s --split-input-file --verify-diagnostics --print-debuginfo | filecheck %s --check-prefix=LOC
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: not ge-opt --load-patterns=%examples/patterns/silu.py --fuse-silu %s --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=ASSIGNED

// ---- An assigned module (ops with stream.id) is refused --------------------------------------
// ASSIGNED-NOT: {{\n}}
// ASSIGNED: {{^}}{{.*}}patterns-silu.mlir:[[# @LINE + 6]]:3: error: 'ge.sigmoid' op is assigned to a stream: --fuse-silu rewrites graphs before stream assignment; run it before --assign-streams{{$}}
// ASSIGNED-NOT: {{.}}
// CHECK-NOT: {{\n}}
// CHECK: {{^}}{{.*}}patterns-silu.mlir:[[# @LINE + 3]]:3: error: 'ge.sigmoid' op is assigned to a stream: --fuse-silu rewrites graphs before stream assignment; run it before --assign-streams{{$}}
// CHECK-NEXT: // -----
func.func @assigned(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = ge.sigmoid %x {stream.id = #stream.id<0>} : tensor<2x3xf32>
  %y = ge.mul %x, %s {stream.id = #stream.id<0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// ---- It fuses ------------------------------------------------------------------------------

// mul(x, sigmoid(x)): one ge.silu, located at both ops.
// CHECK-LABEL: func.func @x_times_sigmoid(
// CHECK-SAME:  %[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.silu %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @x_times_sigmoid(
// LOC:         ge.silu {{.*}} loc(fused["{{.*}}patterns-silu.mlir":[[# @LINE + 3]]:3, "{{.*}}patterns-silu.mlir":[[# @LINE + 4]]:3])
// LOC-NEXT:    func.return
func.func @x_times_sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = ge.sigmoid %x : tensor<2x3xf32>
  %y = ge.mul %x, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// mul(sigmoid(x), x), in fp16 on an NCHW activation.
// CHECK-LABEL: func.func @sigmoid_times_x(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x2x2xf16>) -> tensor<1x4x2x2xf16> {
// CHECK-NEXT:    %[[Y:.*]] = ge.silu %[[X]] : tensor<1x4x2x2xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x2x2xf16>
// CHECK-NEXT:  }
func.func @sigmoid_times_x(%x: tensor<1x4x2x2xf16>) -> tensor<1x4x2x2xf16> {
  %s = ge.sigmoid %x : tensor<1x4x2x2xf16>
  %y = ge.mul %s, %x : (tensor<1x4x2x2xf16>, tensor<1x4x2x2xf16>) -> tensor<1x4x2x2xf16>
  func.return %y : tensor<1x4x2x2xf16>
}

// -----

// Both ops on stream label "1": the silu keeps it.  Two silus in a row both fuse.
// CHECK-LABEL: func.func @labelled(
// CHECK-SAME:  %[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.silu %[[X]] {stream.label = #stream.label<"1", priority = 1, inner_parallel = false>} : tensor<2x3xf32>
// CHECK-NEXT:    %[[Z:.*]] = ge.silu %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Z]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @labelled(
// LOC:         ge.silu {{.*}} loc(fused["{{.*}}patterns-silu.mlir":[[# @LINE + 4]]:3, "{{.*}}patterns-silu.mlir":[[# @LINE + 5]]:3])
// LOC-NEXT:    ge.silu {{.*}} loc(fused["{{.*}}patterns-silu.mlir":[[# @LINE + 5]]:3, "{{.*}}patterns-silu.mlir":[[# @LINE + 6]]:3])
// LOC-NEXT:    func.return
func.func @labelled(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = ge.sigmoid %x {stream.label = #stream.label<"1", priority = 1, inner_parallel = false>} : tensor<2x3xf32>
  %y = ge.mul %s, %x {stream.label = #stream.label<"1", priority = 1, inner_parallel = false>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = ge.sigmoid %y : tensor<2x3xf32>
  %z = ge.mul %y, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %z : tensor<2x3xf32>
}

// -----

// ---- It must not fuse ------------------------------------------------------------------------

// The sigmoid has another use.
// CHECK-LABEL: func.func @sigmoid_two_uses(
// CHECK-SAME:  %[[X:.*]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
// CHECK-NEXT:    %[[S:.*]] = ge.sigmoid %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.mul %[[X]], %[[S]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[S]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @sigmoid_two_uses(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = ge.sigmoid %x : tensor<2x3xf32>
  %y = ge.mul %x, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y, %s : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The sigmoid and the mul carry different stream labels.
// CHECK-LABEL: func.func @different_labels(
// CHECK-SAME:  %[[X:.*]]: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[S:.*]] = ge.sigmoid %[[X]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.mul %[[S]], %[[X]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3xf32>
func.func @different_labels(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = ge.sigmoid %x {stream.label = #stream.label<"1">} : tensor<2x3xf32>
  %y = ge.mul %s, %x {stream.label = #stream.label<"2">} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// y * sigmoid(x) with y != x, and sigmoid(x) * sigmoid(x).
// CHECK-LABEL: func.func @other_operand(
// CHECK-SAME:  %[[X:.*]]: tensor<2x3xf32>, %[[Z:.*]]: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
// CHECK-NEXT:    %[[S:.*]] = ge.sigmoid %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.mul %[[Z]], %[[S]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = ge.sigmoid %[[X]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[W:.*]] = ge.mul %[[T]], %[[T]] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[W]] : tensor<2x3xf32>, tensor<2x3xf32>
func.func @other_operand(%x: tensor<2x3xf32>, %z: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %s = ge.sigmoid %x : tensor<2x3xf32>
  %y = ge.mul %z, %s : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = ge.sigmoid %x : tensor<2x3xf32>
  %w = ge.mul %t, %t : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y, %w : tensor<2x3xf32>, tensor<2x3xf32>
}
