// Diagnostics of the `ge` dialect: at least one case per verifier rule and per parse error of
// its attributes, each pinned with its exact message and location (line numbers are those of
// the whole file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s
//
// Without the diagnostics flags, as in mlir-opt, each case's error goes to stderr in its place,
// the next cases go on, and the exit code is 1.

// ---- Encodings: parse errors of #ge.format and #ge.external --------------------------------

// An unknown format name.
// CHECK: invalid.mlir:[[# @LINE + 1]]:62: error: unknown format 'NCWH', expected one of NHWC, NC1HWC0, FRACTAL_Z, FRACTAL_NZ{{$}}
func.func @format_unknown(%x: tensor<1x4x2x2xf16, #ge.format<NCWH>>) {
  func.return
}

// -----

// c0 = 0.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:76: error: c0 must be one of 4, 8, 16, 32, 64, got 0{{$}}
func.func @format_c0_zero(%x: tensor<1x4x2x2xf16, #ge.format<NC1HWC0, c0 = 0>>) {
  func.return
}

// -----

// A negative c0 is not an integer literal the format accepts.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:80: error: c0 must be one of 4, 8, 16, 32, 64, got -8{{$}}
func.func @format_c0_negative(%x: tensor<1x4x2x2xf16, #ge.format<NC1HWC0, c0 = -8>>) {
  func.return
}

// -----

// groups = 1 is the default and is never written.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:85: error: groups = 1 is the default and must be omitted{{$}}
func.func @format_groups_one(%x: tensor<4x4x3x3xf16, #ge.format<FRACTAL_Z, groups = 1>>) {
  func.return
}

// -----

// An unknown parameter.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:81: error: unknown format parameter 'n0', expected c0 or groups{{$}}
func.func @format_unknown_parameter(%x: tensor<1x4x2x2xf16, #ge.format<NC1HWC0, n0 = 16>>) {
  func.return
}

// -----

// No format name.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:60: error: identifier expected (a format name){{$}}
func.func @format_empty(%x: tensor<1x4x2x2xf16, #ge.format<>>) {
  func.return
}

// -----

// The external data file must be a string literal.
func.func @external_path_not_string() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:30: error: string literal expected (the external data file){{$}}
  %0 = ge.const #ge.external<w.bin, offset = 0, length = 8> : tensor<2xf32>
  func.return
}

// -----

// offset comes before length.
func.func @external_order() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:39: error: Expected 'offset'{{$}}
  %0 = ge.const #ge.external<"w.bin", length = 8, offset = 0> : tensor<2xf32>
  func.return
}

// -----

// A negative offset.
func.func @external_negative_offset() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:48: error: Expected integer literal{{$}}
  %0 = ge.const #ge.external<"w.bin", offset = -8, length = 8> : tensor<2xf32>
  func.return
}

// -----

// An offset beyond a 64-bit integer (it would print as text no parser reads back).
func.func @external_huge_offset() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:48: error: integer value too large{{$}}
  %0 = ge.const #ge.external<"w.bin", offset = 99999999999999999999999999, length = 8> : tensor<2xf32>
  func.return
}

// -----

// A C0 beyond a 64-bit integer.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:76: error: integer value too large{{$}}
func.func @format_huge_c0(%x: tensor<1x4x2x2xf16, #ge.format<NC1HWC0, c0 = 18446744073709551616>>) {
  func.return
}

// -----

// An unknown activation of a fused conv.
func.func @fused_unknown_activation(%x: tensor<1x3x5x5xf32>, %w: tensor<2x3x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:42: error: Expected `none`, `relu`, `relu6`, `leaky_relu`, or `sigmoid`.{{$}}
  %y = ge.fused_conv2d %x, %w activation tanh : tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x3x3xf32>
  func.return
}

// -----

// ---- Tensor types of ge ops (verify_tensor_type) --------------------------------------------

// Dynamic shapes are not supported.
func.func @type_dynamic(%x: tensor<?x4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op operand 'input' must have a static shape, got tensor<?x4xf32>{{$}}
  %y = ge.relu %x : tensor<?x4xf32>
  func.return
}

// -----

// An element type without a numpy equivalent.
func.func @type_element(%x: tensor<4xbf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op operand 'input' has unsupported element type bf16{{$}}
  %y = ge.relu %x : tensor<4xbf16>
  func.return
}

// -----

// Formats exist only on rank-4 tensors (operand).
func.func @type_format_rank_operand(%x: tensor<4xf16, #ge.format<NHWC>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.sigmoid' op operand 'input': format NHWC needs a rank-4 tensor, got rank 1{{$}}
  %y = ge.sigmoid %x : tensor<4xf16, #ge.format<NHWC>>
  func.return
}

// -----

// Formats exist only on rank-4 tensors (result).
func.func @type_format_rank_result(%x: tensor<2x2x2xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op result: format NC1HWC0 needs a rank-4 tensor, got rank 3{{$}}
  %y = ge.trans_data %x : tensor<2x2x2xf16> -> tensor<2x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// The default c0 (16 for f16) must be omitted.
func.func @type_default_c0_f16(%x: tensor<1x4x2x2xf16, #ge.format<NC1HWC0, c0 = 16>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op operand 'input': c0 = 16 is the default for f16 and must be omitted{{$}}
  %y = ge.relu %x : tensor<1x4x2x2xf16, #ge.format<NC1HWC0, c0 = 16>>
  func.return
}

// -----

// The default c0 (32 for 1-byte types) must be omitted.
func.func @type_default_c0_i8(%x: tensor<1x4x2x2xi8>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op result: c0 = 32 is the default for i8 and must be omitted{{$}}
  %y = ge.trans_data %x : tensor<1x4x2x2xi8> -> tensor<1x4x2x2xi8, #ge.format<NC1HWC0, c0 = 32>>
  func.return
}

// -----

// The default c0 of f32 is 16 too.
func.func @type_default_c0_f32(%w: tensor<4x4x1x1xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op result: c0 = 16 is the default for f32 and must be omitted{{$}}
  %y = ge.trans_data %w : tensor<4x4x1x1xf32> -> tensor<4x4x1x1xf32, #ge.format<FRACTAL_Z, c0 = 16>>
  func.return
}

// -----

// An encoding that is not #ge.format.
func.func @type_foreign_encoding(%x: tensor<4xf32, "dense">) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op operand 'input' has an encoding that is not #ge.format: "dense"{{$}}
  %y = ge.relu %x : tensor<4xf32, "dense">
  func.return
}

// -----

// A non-tensor type, in the generic form (the IRDL constraint of the op rejects it).
func.func @type_not_tensor(%x: memref<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.add' op operand 'lhs' at position 0 does not verify: memref<4xf32> should be of base attribute tensor{{$}}
  %y = "ge.add"(%x, %x) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
  func.return
}

// -----

// ---- ge.const -------------------------------------------------------------------------------

// The value's element type differs from the result's.
func.func @const_element_type() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has element type i32, expected f32 (the result's){{$}}
  %0 = ge.const dense<[1, 2]> : tensor<2xi32> -> tensor<2xf32>
  func.return
}

// -----

// The value's shape differs from the (unencoded) result's.
func.func @const_shape() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has shape [2], expected the physical shape [3] of tensor<3xf32>{{$}}
  %0 = ge.const dense<[1.0, 2.0]> : tensor<2xf32> -> tensor<3xf32>
  func.return
}

// -----

// An encoded constant written with the logical shape instead of the physical one.
func.func @const_logical_shape() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has shape [1, 17, 2, 2], expected the physical shape [1, 2, 2, 2, 16] of tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>{{$}}
  %0 = ge.const dense<0.0> : tensor<1x17x2x2xf16> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// A physical shape that is wrong (C1 = ceil(17 / 16) = 2).
func.func @const_physical_shape() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has shape [1, 1, 2, 2, 16], expected the physical shape [1, 2, 2, 2, 16] of tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>{{$}}
  %0 = ge.const dense<0.0> : tensor<1x1x2x2x16xf16> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// The physical shape of an f32 NC1HWC0 value with c0 = 8.
func.func @const_physical_shape_c0() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has shape [1, 1, 1, 1, 16], expected the physical shape [1, 1, 1, 1, 8] of tensor<1x3x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>{{$}}
  %0 = ge.const dense<0.0> : tensor<1x1x1x1x16xf32> -> tensor<1x3x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>
  func.return
}

// -----

// The physical shape of a FRACTAL_Z weight: [C1*H*W, ceil(O/16), 16, C0].
func.func @const_physical_shape_fractal_z() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has shape [1, 1, 16, 16], expected the physical shape [9, 1, 16, 16] of tensor<2x3x3x3xf16, #ge.format<FRACTAL_Z>>{{$}}
  %0 = ge.const dense<0.0> : tensor<1x1x16x16xf16> -> tensor<2x3x3x3xf16, #ge.format<FRACTAL_Z>>
  func.return
}

// -----

// The value of an encoded type must have no encoding itself.
func.func @const_encoded_value() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value must be a dense tensor without encoding{{$}}
  %0 = ge.const dense<1.0> : tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// A vector value.
func.func @const_vector_value() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value must be a dense tensor without encoding{{$}}
  %0 = ge.const dense<1.0> : vector<2xf32> -> tensor<2xf32>
  func.return
}

// -----

// Padding lanes of an NC1HWC0 constant must be zero (a splat of 1.0 fills them).
func.func @const_padding_nc1hwc0() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has nonzero padding lanes: every lane beyond the logical shape [1, 3, 1, 1] of the NC1HWC0 constant must be zero{{$}}
  %0 = ge.const dense<1.0> : tensor<1x1x1x1x16xf16> -> tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// Padding lanes of a FRACTAL_Z constant must be zero.
func.func @const_padding_fractal_z() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has nonzero padding lanes: every lane beyond the logical shape [2, 3, 1, 1] of the FRACTAL_Z constant must be zero{{$}}
  %0 = ge.const dense<1.0> : tensor<1x1x16x16xf16> -> tensor<2x3x1x1xf16, #ge.format<FRACTAL_Z>>
  func.return
}

// -----

// External data of the wrong length (the physical array 1x2x1x1x16xf16 has 64 bytes).
func.func @const_external_length() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op external data has length 34, expected 64 bytes for the physical shape [1, 2, 1, 1, 16] of tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>{{$}}
  %0 = ge.const #ge.external<"w.bin", offset = 0, length = 34> : tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// The result type follows the tensor type rules too.
func.func @const_result_type() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op result: format NHWC needs a rank-4 tensor, got rank 1{{$}}
  %0 = ge.const #ge.elided : tensor<4xf32, #ge.format<NHWC>>
  func.return
}

// -----

// ---- ge.conv2d --------------------------------------------------------------------------------

// strides has 2 elements.
func.func @conv_strides_length(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op strides must be 2 positive integers, got [1]{{$}}
  %y = ge.conv2d %x, %w strides [1] : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// strides are positive.
func.func @conv_strides_zero(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op strides must be 2 positive integers, got [0, 1]{{$}}
  %y = ge.conv2d %x, %w strides [0, 1] : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// dilations has 2 elements.
func.func @conv_dilations_length(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op dilations must be 2 positive integers, got [1, 1, 1]{{$}}
  %y = ge.conv2d %x, %w dilations [1, 1, 1] : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// dilations are positive.
func.func @conv_dilations_zero(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op dilations must be 2 positive integers, got [1, 0]{{$}}
  %y = ge.conv2d %x, %w dilations [1, 0] : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// pads has 4 elements [top, bottom, left, right].
func.func @conv_pads_length(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op pads must be 4 non-negative integers [top, bottom, left, right], got [1, 1]{{$}}
  %y = ge.conv2d %x, %w pads [1, 1] : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x4x4xf32>
  func.return
}

// -----

// pads are non-negative.
func.func @conv_pads_negative(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op pads must be 4 non-negative integers [top, bottom, left, right], got [0, 0, -1, 0]{{$}}
  %y = ge.conv2d %x, %w pads [0, 0, -1, 0] : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// groups is positive.
func.func @conv_groups_zero(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op groups must be positive, got 0{{$}}
  %y = ge.conv2d %x, %w groups 0 : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// A quantised (int8) convolution is out of scope.
func.func @conv_int8_input(%x: tensor<1x4x4x4xi8>, %w: tensor<2x4x3x3xi8>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'input' is i8: a quantised convolution is out of scope (only f16 and f32 are supported){{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xi8>, tensor<2x4x3x3xi8> -> tensor<1x2x2x2xi8>
  func.return
}

// -----

// ... also when only the filter is 8-bit.
func.func @conv_int8_filter(%x: tensor<1x4x4x4xf16>, %w: tensor<2x4x3x3xui8>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' is ui8: a quantised convolution is out of scope (only f16 and f32 are supported){{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xf16>, tensor<2x4x3x3xui8> -> tensor<1x2x2x2xf16>
  func.return
}

// -----

// Other non-float element types.
func.func @conv_i32(%x: tensor<1x4x4x4xi32>, %w: tensor<2x4x3x3xi32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'input' must be f16 or f32, got i32{{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xi32>, tensor<2x4x3x3xi32> -> tensor<1x2x2x2xi32>
  func.return
}

// -----

// Input and filter element types differ.
func.func @conv_dtype_mismatch(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' has element type f16, expected f32 (the input's){{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf16> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// The input has rank 4.
func.func @conv_input_rank(%x: tensor<4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'input' must have rank 4 (NCHW), got tensor<4x4x4xf32>{{$}}
  %y = ge.conv2d %x, %w : tensor<4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// The filter has rank 4.
func.func @conv_filter_rank(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x9xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' must have rank 4 (OIHW), got tensor<2x4x9xf32>{{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xf32>, tensor<2x4x9xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// The input is NCHW, NHWC or NC1HWC0.
func.func @conv_input_format(%x: tensor<1x4x4x4xf16, #ge.format<FRACTAL_Z>>, %w: tensor<2x4x3x3xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'input' has format FRACTAL_Z, expected NCHW, NHWC or NC1HWC0{{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xf16, #ge.format<FRACTAL_Z>>, tensor<2x4x3x3xf16> -> tensor<1x2x2x2xf16>
  func.return
}

// -----

// The filter is OIHW or FRACTAL_Z.
func.func @conv_filter_format(%x: tensor<1x4x4x4xf16>, %w: tensor<2x4x3x3xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' has format NC1HWC0, expected OIHW or FRACTAL_Z{{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xf16>, tensor<2x4x3x3xf16, #ge.format<NC1HWC0>> -> tensor<1x2x2x2xf16>
  func.return
}

// -----

// A grouped FRACTAL_Z filter on an ungrouped conv.
func.func @conv_fractal_z_groups(%x: tensor<1x4x4x4xf16>, %w: tensor<2x4x3x3xf16, #ge.format<FRACTAL_Z, groups = 2>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' is FRACTAL_Z with groups = 2, expected groups = 1 (the op's){{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xf16>, tensor<2x4x3x3xf16, #ge.format<FRACTAL_Z, groups = 2>> -> tensor<1x2x2x2xf16>
  func.return
}

// -----

// An ungrouped FRACTAL_Z filter on a grouped conv.
func.func @conv_fractal_z_no_groups(%x: tensor<1x4x4x4xf16>, %w: tensor<2x2x3x3xf16, #ge.format<FRACTAL_Z>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' is FRACTAL_Z with groups = 1, expected groups = 2 (the op's){{$}}
  %y = ge.conv2d %x, %w groups 2 : tensor<1x4x4x4xf16>, tensor<2x2x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x2x2x2xf16>
  func.return
}

// -----

// Filter input channels != input channels.
func.func @conv_channels(%x: tensor<1x4x4x4xf32>, %w: tensor<2x3x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' has 3 input channels per group, expected 4 (input channels 4 / groups 1){{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// Filter input channels != input channels / groups.
func.func @conv_channels_groups(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' has 4 input channels per group, expected 2 (input channels 4 / groups 2){{$}}
  %y = ge.conv2d %x, %w groups 2 : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// Input channels not a multiple of groups.
func.func @conv_channels_indivisible(%x: tensor<1x3x4x4xf32>, %w: tensor<2x1x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'input' has 3 channels, not a multiple of groups = 2{{$}}
  %y = ge.conv2d %x, %w groups 2 : tensor<1x3x4x4xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// Output channels not a multiple of groups.
func.func @conv_out_channels_groups(%x: tensor<1x4x4x4xf32>, %w: tensor<3x2x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' has 3 output channels, not a multiple of groups = 2{{$}}
  %y = ge.conv2d %x, %w groups 2 : tensor<1x4x4x4xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x2x2xf32>
  func.return
}

// -----

// The kernel does not fit the padded input.
func.func @conv_kernel_too_large(%x: tensor<1x4x2x2xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op the kernel 3x3 (dilated extent 3x3) does not fit the padded input 2x2{{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x2x2xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x1x1xf32>
  func.return
}

// -----

// The dilated kernel (extent 5x5) does not fit the 4x4 input.
func.func @conv_dilated_kernel_too_large(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op the kernel 3x3 (dilated extent 5x5) does not fit the padded input 4x4{{$}}
  %y = ge.conv2d %x, %w dilations [2, 2] : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x1x1xf32>
  func.return
}

// -----

// The result shape: (8 + 1 + 1 - 3) / 2 + 1 = 4.
func.func @conv_result_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op result has shape [1, 6, 8, 8], expected [1, 6, 4, 4]{{$}}
  %y = ge.conv2d %x, %w strides [2, 2] pads [1, 1, 1, 1] groups 2 : tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32> -> tensor<1x6x8x8xf32>
  func.return
}

// -----

// The result element type.
func.func @conv_result_dtype(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op result has element type f16, expected f32{{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf16>
  func.return
}

// -----

// The result format.
func.func @conv_result_format(%x: tensor<1x4x4x4xf16>, %w: tensor<2x4x3x3xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op result has format FRACTAL_Z, expected NCHW, NHWC or NC1HWC0{{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x4x4xf16>, tensor<2x4x3x3xf16> -> tensor<1x2x2x2xf16, #ge.format<FRACTAL_Z>>
  func.return
}

// -----

// The bias has one value per output channel.
func.func @conv_bias_shape(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'bias' has type tensor<4xf32>, expected tensor<2xf32>{{$}}
  %y = ge.conv2d %x, %w bias %b : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32>, tensor<4xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// The bias has the input's element type.
func.func @conv_bias_dtype(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<2xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'bias' has type tensor<2xf16>, expected tensor<2xf32>{{$}}
  %y = ge.conv2d %x, %w bias %b : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32>, tensor<2xf16> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// A property of the wrong type (generic form).
func.func @conv_strides_i32(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op Expected attribute i64 but got i32{{$}}
  %y = "ge.conv2d"(%x, %w) <{strides = array<i32: 1, 1>}> : (tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// ---- ge.fused_conv2d --------------------------------------------------------------------------

// leaky_relu needs an alpha.
func.func @fused_leaky_relu_no_alpha(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.fused_conv2d' op activation leaky_relu needs an alpha{{$}}
  %y = ge.fused_conv2d %x, %w activation leaky_relu : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// alpha with another activation.
func.func @fused_alpha_relu(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.fused_conv2d' op alpha is only meaningful for leaky_relu, not relu{{$}}
  %y = ge.fused_conv2d %x, %w activation relu alpha 0.1 : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// alpha without an activation.
func.func @fused_alpha_none(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.fused_conv2d' op alpha is only meaningful for leaky_relu, not none{{$}}
  %y = ge.fused_conv2d %x, %w alpha 0.1 : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// The residual has the result's type (generic form: the custom form does not print it).
func.func @fused_residual_shape(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<2xf32>, %r: tensor<1x2x4x4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.fused_conv2d' op result 'output' at position 0 does not verify: attribute tensor<1x2x4x4xf32> expected from variable 'T', but got tensor<1x2x2x2xf32>{{$}}
  %y = "ge.fused_conv2d"(%x, %w, %b, %r) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32>, tensor<2xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// The residual has the result's element type.
func.func @fused_residual_dtype(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<2xf32>, %r: tensor<1x2x2x2xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.fused_conv2d' op result 'output' at position 0 does not verify: attribute tensor<1x2x2x2xf16> expected from variable 'T', but got tensor<1x2x2x2xf32>{{$}}
  %y = "ge.fused_conv2d"(%x, %w, %b, %r) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32>, tensor<2xf32>, tensor<1x2x2x2xf16>) -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// The residual has the result's format.
func.func @fused_residual_format(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>, %b: tensor<2xf32>, %r: tensor<1x2x2x2xf32, #ge.format<NHWC>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.fused_conv2d' op result 'output' at position 0 does not verify: attribute tensor<1x2x2x2xf32, #ge.format<NHWC>> expected from variable 'T', but got tensor<1x2x2x2xf32>{{$}}
  %y = "ge.fused_conv2d"(%x, %w, %b, %r) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32>, tensor<2xf32>, tensor<1x2x2x2xf32, #ge.format<NHWC>>) -> tensor<1x2x2x2xf32>
  func.return
}

// -----

// The conv rules apply to the fused conv too.
func.func @fused_conv_rules(%x: tensor<1x4x4x4xf32>, %w: tensor<2x4x3x3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.fused_conv2d' op result has shape [1, 2, 4, 4], expected [1, 2, 2, 2]{{$}}
  %y = ge.fused_conv2d %x, %w activation relu : tensor<1x4x4x4xf32>, tensor<2x4x3x3xf32> -> tensor<1x2x4x4xf32>
  func.return
}

// -----

// ---- ge.batch_norm ----------------------------------------------------------------------------

// An integer input.
func.func @bn_int_input(%x: tensor<1x4x2x2xi8>, %p: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.batch_norm %x, %p, %p, %p, %p : (tensor<1x4x2x2xi8>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xi8>
  func.return
}

// -----

// The input has rank 4.
func.func @bn_rank(%x: tensor<2x4xf32>, %p: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op operand 'input' must have rank 4, got tensor<2x4xf32>{{$}}
  %y = ge.batch_norm %x, %p, %p, %p, %p : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// The input is NCHW, NHWC or NC1HWC0.
func.func @bn_format(%x: tensor<4x4x1x1xf16, #ge.format<FRACTAL_Z>>, %p: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op operand 'input' has format FRACTAL_Z, expected NCHW, NHWC or NC1HWC0{{$}}
  %y = ge.batch_norm %x, %p, %p, %p, %p : (tensor<4x4x1x1xf16, #ge.format<FRACTAL_Z>>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4x4x1x1xf16, #ge.format<FRACTAL_Z>>
  func.return
}

// -----

// A parameter with the wrong number of channels.
func.func @bn_scale_shape(%x: tensor<1x4x2x2xf32>, %s: tensor<3xf32>, %p: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op operand 'scale' has type tensor<3xf32>, expected tensor<4xf32> (one value per channel){{$}}
  %y = ge.batch_norm %x, %s, %p, %p, %p : (tensor<1x4x2x2xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  func.return
}

// -----

// A parameter of rank 2.
func.func @bn_mean_rank(%x: tensor<1x4x2x2xf16>, %m: tensor<1x4xf16>, %p: tensor<4xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op operand 'mean' has type tensor<1x4xf16>, expected tensor<4xf16> or tensor<4xf32> (one value per channel){{$}}
  %y = ge.batch_norm %x, %p, %p, %m, %p : (tensor<1x4x2x2xf16>, tensor<4xf16>, tensor<4xf16>, tensor<1x4xf16>, tensor<4xf16>) -> tensor<1x4x2x2xf16>
  func.return
}

// -----

// f16 parameters for an f32 input.
func.func @bn_variance_dtype(%x: tensor<1x4x2x2xf32>, %p: tensor<4xf32>, %v: tensor<4xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op operand 'variance' has type tensor<4xf16>, expected tensor<4xf32> (one value per channel){{$}}
  %y = ge.batch_norm %x, %p, %p, %p, %v : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) -> tensor<1x4x2x2xf32>
  func.return
}

// -----

// Parameters of an NC1HWC0 input are per logical channel (17, not 2 x 16).
func.func @bn_offset_nc1hwc0(%x: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %o: tensor<32xf16>, %p: tensor<17xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op operand 'offset' has type tensor<32xf16>, expected tensor<17xf16> or tensor<17xf32> (one value per channel){{$}}
  %y = ge.batch_norm %x, %p, %o, %p, %p : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<17xf16>, tensor<32xf16>, tensor<17xf16>, tensor<17xf16>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// A negative epsilon.
func.func @bn_epsilon_negative(%x: tensor<1x4x2x2xf32>, %p: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op epsilon must be non-negative, got -0.001{{$}}
  %y = ge.batch_norm %x, %p, %p, %p, %p epsilon -1.0e-03 : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  func.return
}

// -----

// The result has the input's type.
func.func @bn_result_type(%x: tensor<1x4x2x2xf32>, %p: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op result has type tensor<1x4x2x2xf16>, expected tensor<1x4x2x2xf32> (the input's){{$}}
  %y = ge.batch_norm %x, %p, %p, %p, %p : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf16>
  func.return
}

// -----

// ... including its format.
func.func @bn_result_format(%x: tensor<1x4x2x2xf32>, %p: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op result has type tensor<1x4x2x2xf32, #ge.format<NHWC>>, expected tensor<1x4x2x2xf32> (the input's){{$}}
  %y = ge.batch_norm %x, %p, %p, %p, %p : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32, #ge.format<NHWC>>
  func.return
}

// -----

// ---- Unary ops --------------------------------------------------------------------------------

// sigmoid is float only.
func.func @sigmoid_i8(%x: tensor<4xi8>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.sigmoid' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.sigmoid %x : tensor<4xi8>
  func.return
}

// -----

// relu accepts 8-bit integers, but not i32.
func.func @relu_i32(%x: tensor<4xi32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op operand 'input' must be f16, f32, i8 or ui8, got i32{{$}}
  %y = ge.relu %x : tensor<4xi32>
  func.return
}

// -----

// relu6 is float only.
func.func @relu6_ui8(%x: tensor<4xui8>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu6' op operand 'input' must be f16 or f32, got ui8{{$}}
  %y = ge.relu6 %x : tensor<4xui8>
  func.return
}

// -----

// leaky_relu is float only.
func.func @leaky_relu_i8(%x: tensor<4xi8>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.leaky_relu' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.leaky_relu %x alpha 0.2 : tensor<4xi8>
  func.return
}

// -----

// clip is float only.
func.func @clip_i8(%x: tensor<4xi8>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.clip' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.clip %x min 0.0 max 6.0 : tensor<4xi8>
  func.return
}

// -----

// clip with min > max.
func.func @clip_min_gt_max(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.clip' op min must not exceed max, got min = 6, max = 0{{$}}
  %y = ge.clip %x min 6.0 max 0.0 : tensor<4xf32>
  func.return
}

// -----

// The result type of a unary op is its input's (generic form).
func.func @relu_result_type(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op result 'output' at position 0 does not verify: attribute tensor<4xf32> expected from variable 'T', but got tensor<4xf16>{{$}}
  %y = "ge.relu"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  func.return
}

// -----

// ---- Binary ops -------------------------------------------------------------------------------

// Element types differ.
func.func @add_dtype(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.add' op operand 'rhs' has element type f16, expected f32 (the lhs's){{$}}
  %y = ge.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  func.return
}

// -----

// i32 arithmetic is not supported.
func.func @mul_i32(%a: tensor<4xi32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.mul' op operand 'lhs' must be f16, f32, i8 or ui8, got i32{{$}}
  %y = ge.mul %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return
}

// -----

// Shapes that do not broadcast.
func.func @sub_broadcast(%a: tensor<2x4xf32>, %b: tensor<3xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.sub' op operands have shapes [2, 4] and [3], which do not broadcast{{$}}
  %y = ge.sub %a, %b : (tensor<2x4xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  func.return
}

// -----

// The result shape is the broadcast shape.
func.func @add_result_shape(%a: tensor<4x1xf16>, %b: tensor<1x5xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.add' op result has type tensor<4x1xf16>, expected shape [4, 5] and element type f16{{$}}
  %y = ge.add %a, %b : (tensor<4x1xf16>, tensor<1x5xf16>) -> tensor<4x1xf16>
  func.return
}

// -----

// The result element type is the operands'.
func.func @mul_result_dtype(%a: tensor<4xi8>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.mul' op result has type tensor<4xui8>, expected shape [4] and element type i8{{$}}
  %y = ge.mul %a, %a : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xui8>
  func.return
}

// -----

// A rank-4 lhs has the result's format.
func.func @add_lhs_format(%a: tensor<1x4x2x2xf32, #ge.format<NHWC>>, %b: tensor<1x4x2x2xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.add' op operand 'lhs' has layout #ge.format<NHWC>, expected NCHW (the result's){{$}}
  %y = ge.add %a, %b : (tensor<1x4x2x2xf32, #ge.format<NHWC>>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  func.return
}

// -----

// A rank-4 rhs has the result's format.
func.func @sub_rhs_format(%a: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %b: tensor<1x17x1x1xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.sub' op operand 'rhs' has layout NCHW, expected #ge.format<NC1HWC0> (the result's){{$}}
  %y = ge.sub %a, %b : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x17x1x1xf16>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// Same format, different encoding (c0) of result and operands.
func.func @mul_result_encoding(%a: tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.mul' op operand 'lhs' has layout #ge.format<NC1HWC0, c0 = 8>, expected #ge.format<NC1HWC0> (the result's){{$}}
  %y = ge.mul %a, %a : (tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>) -> tensor<1x4x2x2xf32, #ge.format<NC1HWC0>>
  func.return
}

// -----

// ---- ge.trans_data ----------------------------------------------------------------------------

// The logical shape stays.
func.func @trans_data_shape(%x: tensor<1x4x2x2xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op result has shape [1, 4, 2, 3], expected [1, 4, 2, 2] (the input's logical shape){{$}}
  %y = ge.trans_data %x : tensor<1x4x2x2xf32> -> tensor<1x4x2x3xf32, #ge.format<NHWC>>
  func.return
}

// -----

// The element type stays.
func.func @trans_data_dtype(%x: tensor<1x4x2x2xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op result has element type f16, expected f32{{$}}
  %y = ge.trans_data %x : tensor<1x4x2x2xf32> -> tensor<1x4x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// The format changes.
func.func @trans_data_same_format(%x: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op result has the input's format NC1HWC0: trans_data must change it{{$}}
  %y = ge.trans_data %x : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// NCHW to NCHW.
func.func @trans_data_same_default(%x: tensor<1x4x2x2xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op result has the input's format NCHW: trans_data must change it{{$}}
  %y = ge.trans_data %x : tensor<1x4x2x2xf32> -> tensor<1x4x2x2xf32>
  func.return
}

// -----

// NC1HWC0 -> FRACTAL_Z is not supported.
func.func @trans_data_nc1hwc0_to_fractal_z(%x: tensor<4x4x1x1xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op trans_data between NC1HWC0 and FRACTAL_Z is not supported{{$}}
  %y = ge.trans_data %x : tensor<4x4x1x1xf16, #ge.format<NC1HWC0>> -> tensor<4x4x1x1xf16, #ge.format<FRACTAL_Z>>
  func.return
}

// -----

// FRACTAL_Z -> NC1HWC0 is not supported.
func.func @trans_data_fractal_z_to_nc1hwc0(%x: tensor<4x4x1x1xf16, #ge.format<FRACTAL_Z>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op trans_data between NC1HWC0 and FRACTAL_Z is not supported{{$}}
  %y = ge.trans_data %x : tensor<4x4x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<4x4x1x1xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// ---- Rules added after review ------------------------------------------------------------------

// An explicit default format is rejected where the type is parsed.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:67: error: explicit default format NCHW is not allowed: write the tensor type without an encoding{{$}}
func.func @format_explicit_nchw(%x: tensor<1x4x2x2xf32, #ge.format<NCHW>>) {
  func.return
}

// -----

// ND is the default of other ranks and is never written either.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:61: error: explicit default format ND is not allowed: write the tensor type without an encoding{{$}}
func.func @format_explicit_nd(%x: tensor<4x4xf32, #ge.format<ND>>) {
  func.return
}

// -----

// c0 only exists on C0-blocked formats.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:64: error: c0 is only meaningful for NC1HWC0, FRACTAL_Z and FRACTAL_NZ, not NHWC{{$}}
func.func @format_c0_on_nhwc(%x: tensor<1x4x2x2xf32, #ge.format<NHWC, c0 = 8>>) {
  func.return
}

// -----

// c0 is a power of two the cube supports.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:75: error: c0 must be one of 4, 8, 16, 32, 64, got 12{{$}}
func.func @format_c0_odd(%x: tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 12>>) {
  func.return
}

// -----

// groups only exists on FRACTAL_Z.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:71: error: groups is only meaningful for FRACTAL_Z, not NC1HWC0{{$}}
func.func @format_groups_on_nc1hwc0(%x: tensor<1x4x2x2xf32, #ge.format<NC1HWC0, groups = 2>>) {
  func.return
}

// -----

// groups = 0.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:65: error: groups must be positive, got 0{{$}}
func.func @format_groups_zero(%x: tensor<4x4x2x2xf32, #ge.format<FRACTAL_Z, groups = 0>>) {
  func.return
}

// -----

// A parameter given twice.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:80: error: format parameter 'c0' is given twice{{$}}
func.func @format_c0_twice(%x: tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8, c0 = 4>>) {
  func.return
}

// -----

// FRACTAL_Z groups must divide the output channels.
func.func @fractal_z_groups_do_not_divide(%x: tensor<3x1x1x1xf16>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op result: FRACTAL_Z with groups = 2 needs output channels (dim 0) divisible by 2, got 3{{$}}
  %y = ge.trans_data %x : tensor<3x1x1x1xf16> -> tensor<3x1x1x1xf16, #ge.format<FRACTAL_Z, groups = 2>>
  func.return
}

// -----

// The operands of an elementwise op share the result's encoding, c0 included.
func.func @add_rhs_c0(%a: tensor<1x4x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>, %b: tensor<1x4x1x1xf32, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.add' op operand 'rhs' has layout #ge.format<NC1HWC0>, expected #ge.format<NC1HWC0, c0 = 8> (the result's){{$}}
  %y = ge.add %a, %b : (tensor<1x4x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<1x4x1x1xf32, #ge.format<NC1HWC0>>) -> tensor<1x4x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>
  func.return
}

// -----

// A conv's C0-blocked input, filter and result agree on c0.
func.func @conv_c0_mismatch(%x: tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, %w: tensor<4x4x1x1xf32, #ge.format<FRACTAL_Z>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'filter' has c0 = 16, expected c0 = 8 (the input's){{$}}
  %y = ge.conv2d %x, %w : tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<4x4x1x1xf32, #ge.format<FRACTAL_Z>> -> tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
  func.return
}

// -----

// Input channels must be a multiple of groups.
func.func @conv_channels_not_multiple_of_groups(%x: tensor<1x3x4x4xf32>, %w: tensor<4x1x1x1xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.conv2d' op operand 'input' has 3 channels, not a multiple of groups = 2{{$}}
  %y = ge.conv2d %x, %w groups 2 : tensor<1x3x4x4xf32>, tensor<4x1x1x1xf32> -> tensor<1x4x4x4xf32>
  func.return
}

// -----

// The residual has the result's type (encoding included).
func.func @fused_residual_c0(%x: tensor<1x4x2x2xf32>, %w: tensor<4x4x1x1xf32>, %r: tensor<1x4x2x2xf32, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.fused_conv2d' op result 'output' at position 0 does not verify: attribute tensor<1x4x2x2xf32, #ge.format<NC1HWC0>> expected from variable 'T', but got tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>{{$}}
  %y = "ge.fused_conv2d"(%x, %w, %r) <{operandSegmentSizes = array<i32: 1, 1, 0, 1>}> : (tensor<1x4x2x2xf32>, tensor<4x4x1x1xf32>, tensor<1x4x2x2xf32, #ge.format<NC1HWC0>>) -> tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
  func.return
}

// -----

// Float attributes are finite (NaN and infinities print in a form that does not parse back).
func.func @batch_norm_nan_epsilon(%x: tensor<1x4x2x2xf32>, %p: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.batch_norm' op epsilon must be finite, got nan{{$}}
  %y = "ge.batch_norm"(%x, %p, %p, %p, %p) <{epsilon = 0x7FC00000 : f32}> : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  func.return
}

// -----

func.func @leaky_relu_inf_alpha(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.leaky_relu' op alpha must be finite, got inf{{$}}
  %y = "ge.leaky_relu"(%x) <{alpha = 0x7F800000 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @clip_nan_min(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.clip' op min must be finite, got nan{{$}}
  %y = "ge.clip"(%x) <{min = 0x7FC00000 : f32, max = 6.0 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

// #ge.elided has no parameters.
func.func @elided_with_parameters() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:27: error: Expected ':'{{$}}
  %y = ge.const #ge.elided<1> : tensor<1xf32>
  func.return
}

// -----

// A custom-form op whose type is not a ranked tensor.
func.func @relu_unranked(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: tensor<*xf32> should be of base attribute tensor{{$}}
  %y = ge.relu %x : tensor<*xf32>
  func.return
}

// -----

// NC1HWC0 stores channels in C0 lanes: a same-rank operand must not broadcast along C.
func.func @nc1hwc0_broadcast_channels(%a: tensor<1x1x4x4xf32, #ge.format<NC1HWC0>>, %b: tensor<1x16x4x4xf32, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.mul' op operand 'lhs' broadcasts along dim 1, which NC1HWC0 stores in blocks: broadcast it in the default layout (ND/NCHW) first{{$}}
  %y = ge.mul %a, %b : (tensor<1x1x4x4xf32, #ge.format<NC1HWC0>>, tensor<1x16x4x4xf32, #ge.format<NC1HWC0>>) -> tensor<1x16x4x4xf32, #ge.format<NC1HWC0>>
  func.return
}

// -----

// Every case failed: no IR is printed.
// CHECK-NOT: {{ge\.|func\.}}
