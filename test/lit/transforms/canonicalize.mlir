// --canonicalize on `ge` ops: clip(0, 6) becomes relu6, the data-movement ops
// (trans_data, reshape, flatten, transpose) of a readable constant fold into a constant of at
// most 2^16 elements (the folded values are written below), an elementwise op of readable
// constants folds when its result has at most 16 elements, and ge.identity is its input.
// RUN: ge-opt %s --split-input-file --canonicalize | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: ge-opt %s --split-input-file --canonicalize --print-debuginfo | filecheck %s --check-prefix=LOC

// ---- clip(0, 6) -> relu6 -------------------------------------------------------------------

// clip(0, 6) is relu6 (f32 and f16); the relu6 keeps the clip's attributes and location.
// Other bounds stay a clip.
// CHECK-LABEL: func.func @clip_to_relu6(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<1x2x2x2xf16>) -> (tensor<4xf32>, tensor<1x2x2x2xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[A:.*]] = ge.relu6 %[[X]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.relu6 %[[H]] : tensor<1x2x2x2xf16>
// CHECK-NEXT:    %[[C:.*]] = ge.clip %[[X]] min 0.000000e+00 max 5.000000e+00 : tensor<4xf32>
// CHECK-NEXT:    %[[D:.*]] = ge.clip %[[X]] min -1.000000e+00 max 6.000000e+00 : tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = ge.clip %[[X]] min 6.000000e+00 max 6.000000e+00 : tensor<4xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]] : tensor<4xf32>, tensor<1x2x2x2xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @clip_to_relu6(
// LOC-NEXT:    ge.relu6 {{.*}} loc("{{.*}}canonicalize.mlir":[[# @LINE + 3]]:3)
// LOC-NEXT:    ge.relu6 {{.*}} loc("{{.*}}canonicalize.mlir":[[# @LINE + 3]]:3)
func.func @clip_to_relu6(%x: tensor<4xf32>, %h: tensor<1x2x2x2xf16>) -> (tensor<4xf32>, tensor<1x2x2x2xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = ge.clip %x min 0.0 max 6.0 {stream.label = #stream.label<"1">} : tensor<4xf32>
  %b = ge.clip %h min 0.0 max 6.0 : tensor<1x2x2x2xf16>
  %c = ge.clip %x min 0.0 max 5.0 : tensor<4xf32>
  %d = ge.clip %x min -1.0 max 6.0 : tensor<4xf32>
  %e = ge.clip %x min 6.0 max 6.0 : tensor<4xf32>
  func.return %a, %b, %c, %d, %e : tensor<4xf32>, tensor<1x2x2x2xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// ---- Constant folding of data movement -------------------------------------------------------

// trans_data NCHW -> NC1HWC0 (c0 = 4) of a 1x3x1x2 constant: the folded constant holds the
// physical 1x1x1x2x4 array, lanes [c0, c1, c2, pad] per w: w = 0 -> [1, 3, 5, 0],
// w = 1 -> [2, 4, 6, 0].  NCHW -> NHWC of the same values: per w, [1, 3, 5] and [2, 4, 6].
// CHECK-LABEL: func.func @fold_trans_data_to_blocked(
// CHECK-SAME:  ) -> (tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>, tensor<1x3x1x2xf32, #ge.format<NHWC>>) {
// CHECK-NEXT:    %[[A:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00, 0.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x2x4xf32> -> tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]]]> : tensor<1x1x2x3xf32> -> tensor<1x3x1x2xf32, #ge.format<NHWC>>
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>, tensor<1x3x1x2xf32, #ge.format<NHWC>>
// CHECK-NEXT:  }
func.func @fold_trans_data_to_blocked() -> (tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>, tensor<1x3x1x2xf32, #ge.format<NHWC>>) {
  %c = ge.const dense<[[[[1.0, 2.0]], [[3.0, 4.0]], [[5.0, 6.0]]]]> : tensor<1x3x1x2xf32>
  %a = ge.trans_data %c : tensor<1x3x1x2xf32> -> tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
  %b = ge.trans_data %c : tensor<1x3x1x2xf32> -> tensor<1x3x1x2xf32, #ge.format<NHWC>>
  func.return %a, %b : tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>, tensor<1x3x1x2xf32, #ge.format<NHWC>>
}

// -----

// trans_data NC1HWC0 -> NCHW of a blocked constant gives the logical values back (the padding
// lane is dropped): physical [[1, 3, 5, 0], [2, 4, 6, 0]] -> logical [[[1, 2]], [[3, 4]], [[5, 6]]].
// CHECK-LABEL: func.func @fold_trans_data_to_nchw(
// CHECK-SAME:  ) -> tensor<1x3x1x2xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00]], {{\[\[}}3.000000e+00, 4.000000e+00]], {{\[\[}}5.000000e+00, 6.000000e+00]]]]> : tensor<1x3x1x2xf32>
// CHECK-NEXT:    func.return %[[A]] : tensor<1x3x1x2xf32>
// CHECK-NEXT:  }
func.func @fold_trans_data_to_nchw() -> tensor<1x3x1x2xf32> {
  %c = ge.const dense<[[[[[1.0, 3.0, 5.0, 0.0], [2.0, 4.0, 6.0, 0.0]]]]]> : tensor<1x1x1x2x4xf32> -> tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
  %a = ge.trans_data %c : tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>> -> tensor<1x3x1x2xf32>
  func.return %a : tensor<1x3x1x2xf32>
}

// -----

// reshape 6 -> 2x3 (row-major: [[1, 2, 3], [4, 5, 6]]).
// CHECK-LABEL: func.func @fold_reshape(
// CHECK-SAME:  ) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.const dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[A]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @fold_reshape() -> tensor<2x3xf32> {
  %c = ge.const dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %a = ge.reshape %c : tensor<6xf32> -> tensor<2x3xf32>
  func.return %a : tensor<2x3xf32>
}

// -----

// flatten with the default axis 1 (1x2x2x1 -> 1x4) and with axis 2 (1x2x2x1 -> 2x2), on an i8
// constant.
// CHECK-LABEL: func.func @fold_flatten(
// CHECK-SAME:  ) -> (tensor<1x4xf32>, tensor<2x2xi8>) {
// CHECK-NEXT:    %[[A:.*]] = ge.const dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]> : tensor<1x4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<{{\[\[}}-1, 2], [3, -4]]> : tensor<2x2xi8>
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<1x4xf32>, tensor<2x2xi8>
// CHECK-NEXT:  }
func.func @fold_flatten() -> (tensor<1x4xf32>, tensor<2x2xi8>) {
  %c = ge.const dense<[[[[1.0], [2.0]], [[3.0], [4.0]]]]> : tensor<1x2x2x1xf32>
  %a = ge.flatten %c : tensor<1x2x2x1xf32> -> tensor<1x4xf32>
  %i = ge.const dense<[[[[-1], [2]], [[3], [-4]]]]> : tensor<1x2x2x1xi8>
  %b = ge.flatten %i axis 2 : tensor<1x2x2x1xi8> -> tensor<2x2xi8>
  func.return %a, %b : tensor<1x4xf32>, tensor<2x2xi8>
}

// -----

// transpose perm [1, 0] of [[1, 2, 3], [4, 5, 6]] is [[1, 4], [2, 5], [3, 6]]; perm [2, 0, 1]
// of a 1x2x3 f16 constant [[[1, 2, 3], [4, 5, 6]]] is the 3x1x2 [[[1, 4]], [[2, 5]], [[3, 6]]].
// CHECK-LABEL: func.func @fold_transpose(
// CHECK-SAME:  ) -> (tensor<3x2xf32>, tensor<3x1x2xf16>) {
// CHECK-NEXT:    %[[A:.*]] = ge.const dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<{{\[\[\[}}1.000000e+00, 4.000000e+00]], {{\[\[}}2.000000e+00, 5.000000e+00]], {{\[\[}}3.000000e+00, 6.000000e+00]]]> : tensor<3x1x2xf16>
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<3x2xf32>, tensor<3x1x2xf16>
// CHECK-NEXT:  }
func.func @fold_transpose() -> (tensor<3x2xf32>, tensor<3x1x2xf16>) {
  %c = ge.const dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %a = ge.transpose %c perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %h = ge.const dense<[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]> : tensor<1x2x3xf16>
  %b = ge.transpose %h perm [2, 0, 1] : tensor<1x2x3xf16> -> tensor<3x1x2xf16>
  func.return %a, %b : tensor<3x2xf32>, tensor<3x1x2xf16>
}

// -----

// A chain folds step by step: reshape 6 -> 2x3, transpose -> 3x2, trans_data of its reshape to
// 1x3x1x2 into NC1HWC0; only the last constant remains.  Values: [[1, 4], [2, 5], [3, 6]] as
// channels c = 0..2 with w = 0, 1 -> lanes per w: [1, 2, 3, 0], [4, 5, 6, 0].
// CHECK-LABEL: func.func @fold_chain(
// CHECK-SAME:  ) -> tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>> {
// CHECK-NEXT:    %[[A:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x2x4xf32> -> tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
// CHECK-NEXT:    func.return %[[A]] : tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
// CHECK-NEXT:  }
func.func @fold_chain() -> tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>> {
  %c = ge.const dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %r = ge.reshape %c : tensor<6xf32> -> tensor<2x3xf32>
  %t = ge.transpose %r perm [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %q = ge.reshape %t : tensor<3x2xf32> -> tensor<1x3x1x2xf32>
  %d = ge.trans_data %q : tensor<1x3x1x2xf32> -> tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
  func.return %d : tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
}

// -----

// The limit: a result of exactly 2^16 = 65536 elements folds; one of 65537 elements does not
// (for reshape, flatten, transpose and trans_data alike).
// CHECK-LABEL: func.func @fold_limit(
// CHECK-SAME:  ) -> (tensor<256x256xf32>, tensor<65537x1xf32>, tensor<65537x1xf32>, tensor<1x65537xf32>, tensor<1x65537x1x1xf32, #ge.format<NHWC>>) {
// CHECK-NEXT:    %[[A:.*]] = ge.const dense<1.000000e+00> : tensor<256x256xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<1.000000e+00> : tensor<65537xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.reshape %[[C]] : tensor<65537xf32> -> tensor<65537x1xf32>
// CHECK-NEXT:    %[[F:.*]] = ge.flatten %[[B]] : tensor<65537x1xf32> -> tensor<65537x1xf32>
// CHECK-NEXT:    %[[T:.*]] = ge.transpose %[[B]] perm [1, 0] : tensor<65537x1xf32> -> tensor<1x65537xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.const dense<1.000000e+00> : tensor<1x65537x1x1xf32>
// CHECK-NEXT:    %[[D:.*]] = ge.trans_data %[[R]] : tensor<1x65537x1x1xf32> -> tensor<1x65537x1x1xf32, #ge.format<NHWC>>
// CHECK-NEXT:    func.return %[[A]], %[[B]], %[[F]], %[[T]], %[[D]] : tensor<256x256xf32>, tensor<65537x1xf32>, tensor<65537x1xf32>, tensor<1x65537xf32>, tensor<1x65537x1x1xf32, #ge.format<NHWC>>
// CHECK-NEXT:  }
func.func @fold_limit() -> (tensor<256x256xf32>, tensor<65537x1xf32>, tensor<65537x1xf32>, tensor<1x65537xf32>, tensor<1x65537x1x1xf32, #ge.format<NHWC>>) {
  %c0 = ge.const dense<1.0> : tensor<65536xf32>
  %a = ge.reshape %c0 : tensor<65536xf32> -> tensor<256x256xf32>
  %c = ge.const dense<1.0> : tensor<65537xf32>
  %b = ge.reshape %c : tensor<65537xf32> -> tensor<65537x1xf32>
  %f = ge.flatten %b : tensor<65537x1xf32> -> tensor<65537x1xf32>
  %t = ge.transpose %b perm [1, 0] : tensor<65537x1xf32> -> tensor<1x65537xf32>
  %r = ge.const dense<1.0> : tensor<1x65537x1x1xf32>
  %d = ge.trans_data %r : tensor<1x65537x1x1xf32> -> tensor<1x65537x1x1xf32, #ge.format<NHWC>>
  func.return %a, %b, %f, %t, %d : tensor<256x256xf32>, tensor<65537x1xf32>, tensor<65537x1xf32>, tensor<1x65537xf32>, tensor<1x65537x1x1xf32, #ge.format<NHWC>>
}

// -----

// An elided constant has no data to fold.
// CHECK-LABEL: func.func @no_fold_elided(
// CHECK-SAME:  ) -> (tensor<4x2xf32>, tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>) {
// CHECK-NEXT:    %[[E:.*]] = ge.const #ge.elided : tensor<8xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.reshape %[[E]] : tensor<8xf32> -> tensor<4x2xf32>
// CHECK-NEXT:    %[[F:.*]] = ge.const #ge.elided : tensor<1x3x1x2xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.trans_data %[[F]] : tensor<1x3x1x2xf32> -> tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<4x2xf32>, tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
// CHECK-NEXT:  }
func.func @no_fold_elided() -> (tensor<4x2xf32>, tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>) {
  %e = ge.const #ge.elided : tensor<8xf32>
  %a = ge.reshape %e : tensor<8xf32> -> tensor<4x2xf32>
  %f = ge.const #ge.elided : tensor<1x3x1x2xf32>
  %b = ge.trans_data %f : tensor<1x3x1x2xf32> -> tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
  func.return %a, %b : tensor<4x2xf32>, tensor<1x3x1x2xf32, #ge.format<NC1HWC0, c0 = 4>>
}

// -----

// A non-constant input does not fold.
// CHECK-LABEL: func.func @no_fold_argument(
// CHECK-SAME:  %[[X:.*]]: tensor<6xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.reshape %[[X]] : tensor<6xf32> -> tensor<2x3xf32>
// CHECK-NEXT:    func.return %[[A]] : tensor<2x3xf32>
// CHECK-NEXT:  }
func.func @no_fold_argument(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %a = ge.reshape %x : tensor<6xf32> -> tensor<2x3xf32>
  func.return %a : tensor<2x3xf32>
}

// -----

// ---- elementwise ops of constants, identity ---------------------------------------------

// An attention scale exported as arithmetic, 1 / sqrt(64), folds to one constant (it keeps
// the last op's name); f16 arithmetic rounds to f16.  A result of 17 elements stays an op.
// CHECK-LABEL: func.func @fold_scalars(
// CHECK-SAME:  %[[S:.*]]: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<2xf16>, tensor<17xf32>) {
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<1.250000e-01> : tensor<f32>
// CHECK-NEXT:    %[[Y:.*]] = ge.mul %[[S]], %[[C]] : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[H:.*]] = ge.const dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf16>
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<2.000000e+00> : tensor<17xf32>
// CHECK-NEXT:    %[[N:.*]] = ge.neg %[[W]] : tensor<17xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[H]], %[[N]] : tensor<1x2x4x4xf32>, tensor<2xf16>, tensor<17xf32>
// CHECK-NEXT:  }
func.func @fold_scalars(%s: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<2xf16>, tensor<17xf32>) {
  %d = ge.const dense<6.400000e+01> : tensor<f32>
  %r = ge.sqrt %d : tensor<f32>
  %one = ge.const dense<1.000000e+00> : tensor<f32>
  %c = ge.div %one, %r : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %y = ge.mul %s, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %a = ge.const dense<[3.0, -4.0]> : tensor<2xf16>
  %b = ge.const dense<0.5> : tensor<f16>
  %h = ge.mul %a, %b : (tensor<2xf16>, tensor<f16>) -> tensor<2xf16>
  %w = ge.const dense<2.0> : tensor<17xf32>
  %n = ge.neg %w : tensor<17xf32>
  func.return %y, %h, %n : tensor<1x2x4x4xf32>, tensor<2xf16>, tensor<17xf32>
}

// -----

// ge.identity is its input, whatever reads it (an op or the return).
// CHECK-LABEL: func.func @identity(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]], %[[X]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
func.func @identity(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %i = ge.identity %x : tensor<4xf32>
  %r = ge.relu %i : tensor<4xf32>
  %j = ge.identity %x : tensor<4xf32>
  func.return %r, %j : tensor<4xf32>, tensor<4xf32>
}
