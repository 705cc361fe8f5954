// The tutorial's first pattern (docs/patterns.md, examples/patterns/matmul_bias.py), loaded as
// a plugin: add(matmul(a, b), bias) -> matmul(a, b) bias, for a constant bias of N values
// (N the matmul's last dim), in either operand order of the add.
// RUN: ge-opt --load-patterns=%examples/patterns/matmul_bias.py --fuse-matmul-bias %s --split-input-file | filecheck %s
// RUN: ge-opt --load-patterns=%examples/patterns/matmul_bias.py --fuse-matmul-bias %s --split-input-file --print-debuginfo | filecheck %s --check-prefix=LOC
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: ge-opt --load-patterns=%examples/patterns/matmul_bias.py -p fuse-matmul-bias %s --split-input-file | filecheck %s

// ---- It fuses ------------------------------------------------------------------------------

// The basic case: the add and the matmul go, the bias becomes the matmul's operand.  The new
// matmul's location fuses the matmul's and the add's.
// CHECK-LABEL: func.func @basic(
// CHECK-SAME:  %[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[A]], %[[B]] bias %[[C]] : tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @basic(
// LOC:         ge.const {{.*}} loc("{{.*}}patterns-matmul-bias.mlir":[[# @LINE + 4]]:3)
// LOC-NEXT:    ge.matmul {{.*}} loc(fused["{{.*}}patterns-matmul-bias.mlir":[[# @LINE + 4]]:3, "{{.*}}patterns-matmul-bias.mlir":[[# @LINE + 5]]:3])
// LOC-NEXT:    func.return
func.func @basic(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = ge.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y = ge.add %m, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// The other operand order: add(bias, matmul).
// CHECK-LABEL: func.func @bias_first(
// CHECK-SAME:  %[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[A]], %[[B]] bias %[[C]] : tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @bias_first(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = ge.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y = ge.add %c, %m : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// A batched matmul with transpose_b, in fp16: the transpose carries over, N is b's first dim.
// CHECK-LABEL: func.func @batched_transposed(
// CHECK-SAME:  %[[A:.*]]: tensor<2x5x4xf16>, %[[B:.*]]: tensor<3x4xf16>) -> tensor<2x5x3xf16> {
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[A]], %[[B]] bias %[[C]] transpose_b : tensor<2x5x4xf16>, tensor<3x4xf16>, tensor<3xf16> -> tensor<2x5x3xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x5x3xf16>
// CHECK-NEXT:  }
func.func @batched_transposed(%a: tensor<2x5x4xf16>, %b: tensor<3x4xf16>) -> tensor<2x5x3xf16> {
  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf16>
  %m = ge.matmul %a, %b transpose_b : tensor<2x5x4xf16>, tensor<3x4xf16> -> tensor<2x5x3xf16>
  %y = ge.add %m, %c : (tensor<2x5x3xf16>, tensor<3xf16>) -> tensor<2x5x3xf16>
  func.return %y : tensor<2x5x3xf16>
}

// -----

// Both ops on stream label "1": the new matmul keeps it, and fuses their locations.
// CHECK-LABEL: func.func @labelled(
// CHECK-SAME:  %[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[A]], %[[B]] bias %[[C]] {stream.label = #stream.label<"1", priority = 2, inner_parallel = true>} : tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @labelled(
// LOC:         ge.matmul {{.*}} loc(fused["{{.*}}patterns-matmul-bias.mlir":[[# @LINE + 4]]:3, "{{.*}}patterns-matmul-bias.mlir":[[# @LINE + 5]]:3])
// LOC-NEXT:    func.return
func.func @labelled(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = ge.matmul %a, %b {stream.label = #stream.label<"1", priority = 2>} : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y = ge.add %m, %c {stream.label = #stream.label<"1", priority = 2>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// ---- It must not fuse ------------------------------------------------------------------------

// The matmul's result has another use (here it is also returned): it must stay.
// CHECK-LABEL: func.func @two_uses(
// CHECK-SAME:  %[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[M:.*]] = ge.matmul %[[A]], %[[B]] : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.add %[[M]], %[[C]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[M]] : tensor<2x3xf32>, tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @two_uses(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = ge.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y = ge.add %m, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y, %m : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The matmul and the add carry different stream labels.
// CHECK-LABEL: func.func @different_labels(
// CHECK:         %[[M:.*]] = ge.matmul %{{.*}}, %{{.*}} {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.add %[[M]], %{{.*}} {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3xf32>
func.func @different_labels(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = ge.matmul %a, %b {stream.label = #stream.label<"1">} : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y = ge.add %m, %c {stream.label = #stream.label<"2">} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// Only one of them is labelled: different labels too.
// CHECK-LABEL: func.func @one_labelled(
// CHECK:         %[[M:.*]] = ge.matmul %{{.*}}, %{{.*}} : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.add %[[M]], %{{.*}} {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
func.func @one_labelled(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = ge.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y = ge.add %m, %c {stream.label = #stream.label<"1">} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// The bias is not a constant (a function argument).
// CHECK-LABEL: func.func @bias_not_constant(
// CHECK-SAME:  %[[A:.*]]: tensor<2x4xf32>, %[[B:.*]]: tensor<4x3xf32>, %[[C:.*]]: tensor<3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[M:.*]] = ge.matmul %[[A]], %[[B]] : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.add %[[M]], %[[C]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3xf32>
func.func @bias_not_constant(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>, %c: tensor<3xf32>) -> tensor<2x3xf32> {
  %m = ge.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y = ge.add %m, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}

// -----

// Biases of the wrong shape: one value broadcast over N (1), a row (1xN), a full matrix (MxN).
// CHECK-LABEL: func.func @bias_wrong_shape(
// CHECK-NEXT:    ge.const dense<1.000000e+00> : tensor<1xf32>
// CHECK-NEXT:    ge.const dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00]]> : tensor<1x3xf32>
// CHECK-NEXT:    ge.const dense<1.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT:    %[[M1:.*]] = ge.matmul
// CHECK-NEXT:    ge.add %[[M1]]
// CHECK-NEXT:    %[[M2:.*]] = ge.matmul
// CHECK-NEXT:    ge.add %[[M2]]
// CHECK-NEXT:    %[[M3:.*]] = ge.matmul
// CHECK-NEXT:    ge.add %[[M3]]
// CHECK-NEXT:    func.return
func.func @bias_wrong_shape(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %c1 = ge.const dense<1.0> : tensor<1xf32>
  %c2 = ge.const dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %c3 = ge.const dense<1.0> : tensor<2x3xf32>
  %m1 = ge.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y1 = ge.add %m1, %c1 : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  %m2 = ge.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y2 = ge.add %m2, %c2 : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %m3 = ge.matmul %a, %b : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  %y3 = ge.add %m3, %c3 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %y1, %y2, %y3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// The matmul has a bias already.
// CHECK-LABEL: func.func @has_bias(
// CHECK:         %[[M:.*]] = ge.matmul %{{.*}}, %{{.*}} bias %{{.*}} : tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.add %[[M]], %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3xf32>
func.func @has_bias(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %c = ge.const dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %m = ge.matmul %a, %b bias %c : tensor<2x4xf32>, tensor<4x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  %y = ge.add %m, %c : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  func.return %y : tensor<2x3xf32>
}
