// Round-trip tests of every op of the `ge` dialect: the custom form prints exactly as checked
// below, reparses to the same IR (custom and generic), and the generic form is valid upstream
// MLIR.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// (the upstream check of this RUN line is in test/lit/upstream/dialects.test)
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// ge.const with inline dense values: lists of several element types, hex (printed back as a
// list when small), a discardable attribute.
// CHECK-LABEL: func.func @const_inline(
// CHECK-SAME:  ) -> tensor<2xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.const dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.const dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.const dense<[1, -2, 127]> : tensor<3xi8>
// CHECK-NEXT:    %[[V3:.*]] = ge.const dense<[0, 255]> : tensor<2xui8>
// CHECK-NEXT:    %[[V4:.*]] = ge.const dense<[7, 8]> : tensor<2xi32>
// CHECK-NEXT:    %[[V5:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[V6:.*]] = ge.const dense<2.500000e-01> : tensor<1x4x1x1xf32> {note = "bias"}
// CHECK-NEXT:    func.return %[[V0]] : tensor<2xf32>
// CHECK-NEXT:  }
func.func @const_inline() -> tensor<2xf32> {
  %0 = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
  %1 = ge.const dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf16>
  %2 = ge.const dense<[1, -2, 127]> : tensor<3xi8>
  %3 = ge.const dense<[0, 255]> : tensor<2xui8>
  %4 = ge.const dense<[7, 8]> : tensor<2xi32>
  %5 = ge.const dense<"0x0000803F00000040"> : tensor<2xf32>
  %6 = ge.const dense<0.25> : tensor<1x4x1x1xf32> {note = "bias"}
  func.return %0 : tensor<2xf32>
}

// -----

// Splat constants, including a rank-0 one.
// CHECK-LABEL: func.func @const_splat(
// CHECK-SAME:  ) -> tensor<1x4x8x8xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.const dense<1.500000e+00> : tensor<1x4x8x8xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.const dense<-3> : tensor<16xi8>
// CHECK-NEXT:    %[[V2:.*]] = ge.const dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x8x8xf16>
// CHECK-NEXT:  }
func.func @const_splat() -> tensor<1x4x8x8xf16> {
  %0 = ge.const dense<1.5> : tensor<1x4x8x8xf16>
  %1 = ge.const dense<-3> : tensor<16xi8>
  %2 = ge.const dense<0.0> : tensor<f32>
  func.return %0 : tensor<1x4x8x8xf16>
}

// -----

// An encoded result type: the value has the physical shape (printed after `:`), the logical
// type follows `->`.  NC1HWC0 (f16 default c0; f32 with c0 = 8, padding lanes zero), NHWC,
// FRACTAL_Z (zero, and a splat of 16x16x1x1 which has no padding lanes), grouped FRACTAL_Z.
// CHECK-LABEL: func.func @const_encoded(
// CHECK-SAME:  ) -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[V0:.*]] = ge.const dense<0.000000e+00> : tensor<1x2x8x8x16xf16> -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x1x8xf32> -> tensor<1x3x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const dense<2.000000e+00> : tensor<1x1x1x1x16xf16> -> tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.const dense<{{\[\[\[\[}}1, 2], [3, 4], [5, 6]]]]> : tensor<1x1x3x2xi8> -> tensor<1x2x1x3xi8, #ge.format<NHWC>>
// CHECK-NEXT:    %[[V4:.*]] = ge.const dense<0.000000e+00> : tensor<18x1x16x16xf16> -> tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V5:.*]] = ge.const dense<0.000000e+00> : tensor<9x1x16x16xf16> -> tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>>
// CHECK-NEXT:    %[[V6:.*]] = ge.const dense<1.000000e+00> : tensor<1x1x16x16xf16> -> tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "const_encoded",
// GENERIC-SAME:   function_type = () -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>}> ({
// GENERIC-NEXT:    %[[V0:.*]] = "ge.const"() <{value = dense<0.000000e+00> : tensor<1x2x8x8x16xf16>}> : () -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.const"() <{value = dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x1x8xf32>}> : () -> tensor<1x3x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.const"() <{value = dense<2.000000e+00> : tensor<1x1x1x1x16xf16>}> : () -> tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.const"() <{value = dense<{{\[\[\[\[}}1, 2], [3, 4], [5, 6]]]]> : tensor<1x1x3x2xi8>}> : () -> tensor<1x2x1x3xi8, #ge.format<NHWC>>
// GENERIC-NEXT:    %[[V4:.*]] = "ge.const"() <{value = dense<0.000000e+00> : tensor<18x1x16x16xf16>}> : () -> tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
// GENERIC-NEXT:    %[[V5:.*]] = "ge.const"() <{value = dense<0.000000e+00> : tensor<9x1x16x16xf16>}> : () -> tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>>
// GENERIC-NEXT:    %[[V6:.*]] = "ge.const"() <{value = dense<1.000000e+00> : tensor<1x1x16x16xf16>}> : () -> tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @const_encoded() -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>> {
  %0 = ge.const dense<0.0> : tensor<1x2x8x8x16xf16> -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
  %1 = ge.const dense<[[[[[1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]]]> : tensor<1x1x1x1x8xf32> -> tensor<1x3x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>
  %2 = ge.const dense<2.0> : tensor<1x1x1x1x16xf16> -> tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
  %3 = ge.const dense<[[[[1, 2], [3, 4], [5, 6]]]]> : tensor<1x1x3x2xi8> -> tensor<1x2x1x3xi8, #ge.format<NHWC>>
  %4 = ge.const dense<0.0> : tensor<18x1x16x16xf16> -> tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
  %5 = ge.const dense<0.0> : tensor<9x1x16x16xf16> -> tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>>
  %6 = ge.const dense<1.0> : tensor<1x1x16x16xf16> -> tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
  func.return %0 : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
}

// -----

// External data: length is the byte size of the physical array (here 1x2x1x1x16xf16 = 64 bytes).
// CHECK-LABEL: func.func @const_external(
// CHECK-SAME:  ) -> tensor<4xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.const #ge.external<"model.weights", offset = 0, length = 16> : tensor<4xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.external<"/abs/dir/w.bin", offset = 4096, length = 64> : tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const #ge.external<"model.weights", offset = 16, length = 8> : tensor<2xf32> {note = "ext"}
// CHECK-NEXT:    func.return %[[V0]] : tensor<4xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "const_external",
// GENERIC-SAME:   function_type = () -> tensor<4xf32>}> ({
// GENERIC-NEXT:    %[[V0:.*]] = "ge.const"() <{value = #ge.external<"model.weights", offset = 0, length = 16>}> : () -> tensor<4xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.const"() <{value = #ge.external<"/abs/dir/w.bin", offset = 4096, length = 64>}> : () -> tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.const"() <{value = #ge.external<"model.weights", offset = 16, length = 8>}> {note = "ext"} : () -> tensor<2xf32>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<4xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @const_external() -> tensor<4xf32> {
  %0 = ge.const #ge.external<"model.weights", offset = 0, length = 16> : tensor<4xf32>
  %1 = ge.const #ge.external<"/abs/dir/w.bin", offset = 4096, length = 64> : tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>
  %2 = ge.const #ge.external<"model.weights", offset = 16, length = 8> : tensor<2xf32> {note = "ext"}
  func.return %0 : tensor<4xf32>
}

// -----

// Elided data parses and verifies (any length).
// CHECK-LABEL: func.func @const_elided(
// CHECK-SAME:  ) -> tensor<64x64x3x3xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.const #ge.elided : tensor<64x64x3x3xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<64x64x3x3xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "const_elided",
// GENERIC-SAME:   function_type = () -> tensor<64x64x3x3xf32>}> ({
// GENERIC-NEXT:    %[[V0:.*]] = "ge.const"() <{value = #ge.elided}> : () -> tensor<64x64x3x3xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.const"() <{value = #ge.elided}> : () -> tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<64x64x3x3xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @const_elided() -> tensor<64x64x3x3xf32> {
  %0 = ge.const #ge.elided : tensor<64x64x3x3xf32>
  %1 = ge.const #ge.elided : tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
  func.return %0 : tensor<64x64x3x3xf32>
}

// -----

// ge.conv2d without bias and with every attribute at its default.
// CHECK-LABEL: func.func @conv2d_plain(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x5x5xf32>, %[[W:.*]]: tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x3x3xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "conv2d_plain",
// GENERIC-SAME:   function_type = (tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32>}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: tensor<1x3x5x5xf32>, %[[W:.*]]: tensor<2x3x3x3xf32>):
// GENERIC-NEXT:    %[[Y:.*]] = "ge.conv2d"(%[[X]], %[[W]]) <{strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32>
// GENERIC-NEXT:    "func.return"(%[[Y]]) : (tensor<1x2x3x3xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @conv2d_plain(%x: tensor<1x3x5x5xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %y = ge.conv2d %x, %w : tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// ge.conv2d with a bias (f16).
// CHECK-LABEL: func.func @conv2d_bias(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x5x5xf16>, %[[W:.*]]: tensor<2x3x3x3xf16>, %[[B:.*]]: tensor<2xf16>) -> tensor<1x2x3x3xf16> {
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x3x3xf16>
// CHECK-NEXT:  }
func.func @conv2d_bias(%x: tensor<1x3x5x5xf16>, %w: tensor<2x3x3x3xf16>, %b: tensor<2xf16>) -> tensor<1x2x3x3xf16> {
  %y = ge.conv2d %x, %w bias %b : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
  func.return %y : tensor<1x2x3x3xf16>
}

// -----

// Every attribute: strides, pads [top, bottom, left, right], dilations, groups.
// H: (7 + 1 + 0 - 2*(3-1) - 1) / 2 + 1 = 2; W: (6 + 2 + 1 - 1*(3-1) - 1) / 1 + 1 = 7.
// CHECK-LABEL: func.func @conv2d_all_attrs(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x7x6xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>, %[[B:.*]]: tensor<4xf32>) -> tensor<1x4x2x7xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[W]] bias %[[B]] strides [2, 1] pads [1, 0, 2, 1] dilations [2, 1] groups 2 : tensor<1x4x7x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32> -> tensor<1x4x2x7xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x2x7xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "conv2d_all_attrs",
// GENERIC-SAME:   function_type = (tensor<1x4x7x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x2x7xf32>}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: tensor<1x4x7x6xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>, %[[B:.*]]: tensor<4xf32>):
// GENERIC-NEXT:    %[[Y:.*]] = "ge.conv2d"(%[[X]], %[[W]], %[[B]]) <{strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 2, 1>, dilations = array<i64: 2, 1>, groups = 2 : i64}> : (tensor<1x4x7x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x2x7xf32>
// GENERIC-NEXT:    "func.return"(%[[Y]]) : (tensor<1x4x2x7xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @conv2d_all_attrs(%x: tensor<1x4x7x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x2x7xf32> {
  %y = ge.conv2d %x, %w bias %b strides [2, 1] pads [1, 0, 2, 1] dilations [2, 1] groups 2 : tensor<1x4x7x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32> -> tensor<1x4x2x7xf32>
  func.return %y : tensor<1x4x2x7xf32>
}

// -----

// Attributes written with their default values are not printed.
// CHECK-LABEL: func.func @conv2d_explicit_defaults(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x5x5xf32>, %[[W:.*]]: tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x3x3xf32>
// CHECK-NEXT:  }
func.func @conv2d_explicit_defaults(%x: tensor<1x3x5x5xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %y = ge.conv2d %x, %w strides [1, 1] pads [0, 0, 0, 0] dilations [1, 1] groups 1 : tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32> -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// NC1HWC0 input and result, FRACTAL_Z filter (f16, default c0).
// CHECK-LABEL: func.func @conv2d_nc1hwc0(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, %[[W:.*]]: tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, %[[B:.*]]: tensor<8xf16>) -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, tensor<8xf16> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @conv2d_nc1hwc0(%x: tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, %w: tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, %b: tensor<8xf16>) -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>> {
  %y = ge.conv2d %x, %w bias %b : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, tensor<8xf16> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
  func.return %y : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
}

// -----

// f32 with c0 = 8 on both the NC1HWC0 input and the FRACTAL_Z filter.
// CHECK-LABEL: func.func @conv2d_c0_8(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>, %[[W:.*]]: tensor<4x4x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8>>) -> tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>> {
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<4x4x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8>> -> tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>
// CHECK-NEXT:  }
func.func @conv2d_c0_8(%x: tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>, %w: tensor<4x4x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8>>) -> tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>> {
  %y = ge.conv2d %x, %w : tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<4x4x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8>> -> tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>
  func.return %y : tensor<1x4x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>
}

// -----

// Grouped conv: the FRACTAL_Z filter carries groups = 2, as the op does.
// CHECK-LABEL: func.func @conv2d_grouped_fractal_z(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x5x5xf16, #ge.format<NC1HWC0>>, %[[W:.*]]: tensor<4x2x3x3xf16, #ge.format<FRACTAL_Z, groups = 2>>) -> tensor<1x4x3x3xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[W]] groups 2 : tensor<1x4x5x5xf16, #ge.format<NC1HWC0>>, tensor<4x2x3x3xf16, #ge.format<FRACTAL_Z, groups = 2>> -> tensor<1x4x3x3xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x3x3xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @conv2d_grouped_fractal_z(%x: tensor<1x4x5x5xf16, #ge.format<NC1HWC0>>, %w: tensor<4x2x3x3xf16, #ge.format<FRACTAL_Z, groups = 2>>) -> tensor<1x4x3x3xf16, #ge.format<NC1HWC0>> {
  %y = ge.conv2d %x, %w groups 2 : tensor<1x4x5x5xf16, #ge.format<NC1HWC0>>, tensor<4x2x3x3xf16, #ge.format<FRACTAL_Z, groups = 2>> -> tensor<1x4x3x3xf16, #ge.format<NC1HWC0>>
  func.return %y : tensor<1x4x3x3xf16, #ge.format<NC1HWC0>>
}

// -----

// Depthwise conv (groups == input channels) with a grouped FRACTAL_Z filter.
// CHECK-LABEL: func.func @conv2d_depthwise(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, %[[W:.*]]: tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>>) -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[W]] pads [1, 1, 1, 1] groups 16 : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @conv2d_depthwise(%x: tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, %w: tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>>) -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> {
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] groups 16 : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
  func.return %y : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
}

// -----

// NHWC input and result.
// CHECK-LABEL: func.func @conv2d_nhwc(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x4x4xf32, #ge.format<NHWC>>, %[[W:.*]]: tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32, #ge.format<NHWC>> {
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[W]] : tensor<1x3x4x4xf32, #ge.format<NHWC>>, tensor<2x3x1x1xf32> -> tensor<1x2x4x4xf32, #ge.format<NHWC>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x4x4xf32, #ge.format<NHWC>>
// CHECK-NEXT:  }
func.func @conv2d_nhwc(%x: tensor<1x3x4x4xf32, #ge.format<NHWC>>, %w: tensor<2x3x1x1xf32>) -> tensor<1x2x4x4xf32, #ge.format<NHWC>> {
  %y = ge.conv2d %x, %w : tensor<1x3x4x4xf32, #ge.format<NHWC>>, tensor<2x3x1x1xf32> -> tensor<1x2x4x4xf32, #ge.format<NHWC>>
  func.return %y : tensor<1x2x4x4xf32, #ge.format<NHWC>>
}

// -----

// ge.fused_conv2d with a bias and relu.
// CHECK-LABEL: func.func @fused_bias_relu(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x5x5xf32>, %[[W:.*]]: tensor<2x3x3x3xf32>, %[[B:.*]]: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation relu : tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>, tensor<2xf32> -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x3x3xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "fused_bias_relu",
// GENERIC-SAME:   function_type = (tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: tensor<1x3x5x5xf32>, %[[W:.*]]: tensor<2x3x3x3xf32>, %[[B:.*]]: tensor<2xf32>):
// GENERIC-NEXT:    %[[Y:.*]] = "ge.fused_conv2d"(%[[X]], %[[W]], %[[B]]) <{activation = #ge<activation relu>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
// GENERIC-NEXT:    "func.return"(%[[Y]]) : (tensor<1x2x3x3xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @fused_bias_relu(%x: tensor<1x3x5x5xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x3x3xf32> {
  %y = ge.fused_conv2d %x, %w bias %b activation relu : tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>, tensor<2xf32> -> tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// ge.fused_conv2d with a bias and a residual.
// CHECK-LABEL: func.func @fused_bias_residual(
// CHECK-SAME:  %[[X:.*]]: tensor<1x8x8x8xf32>, %[[W:.*]]: tensor<8x8x3x3xf32>, %[[B:.*]]: tensor<8xf32>, %[[R:.*]]: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] residual %[[R]] activation relu pads [1, 1, 1, 1] : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x8x8x8xf32>
// CHECK-NEXT:  }
func.func @fused_bias_residual(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8x3x3xf32>, %b: tensor<8xf32>, %r: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %y = ge.fused_conv2d %x, %w bias %b residual %r activation relu pads [1, 1, 1, 1] : tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32> -> tensor<1x8x8x8xf32>
  func.return %y : tensor<1x8x8x8xf32>
}

// -----

// Each activation; `activation none` is the default and is not printed; alpha goes with
// leaky_relu only.
// CHECK-LABEL: func.func @fused_activations(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x5x5xf16>, %[[W:.*]]: tensor<2x3x3x3xf16>, %[[B:.*]]: tensor<2xf16>) -> tensor<1x2x3x3xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation relu : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation relu6 : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
// CHECK-NEXT:    %[[V3:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation leaky_relu alpha 2.000000e-01 : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
// CHECK-NEXT:    %[[V4:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation sigmoid : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
// CHECK-NEXT:    %[[V5:.*]] = ge.fused_conv2d %[[X]], %[[W]] : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16> -> tensor<1x2x3x3xf16>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x2x3x3xf16>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "fused_activations",
// GENERIC-SAME:   function_type = (tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: tensor<1x3x5x5xf16>, %[[W:.*]]: tensor<2x3x3x3xf16>, %[[B:.*]]: tensor<2xf16>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.fused_conv2d"(%[[X]], %[[W]], %[[B]]) <{activation = #ge<activation none>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.fused_conv2d"(%[[X]], %[[W]], %[[B]]) <{activation = #ge<activation relu>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.fused_conv2d"(%[[X]], %[[W]], %[[B]]) <{activation = #ge<activation relu6>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.fused_conv2d"(%[[X]], %[[W]], %[[B]]) <{activation = #ge<activation leaky_relu>, alpha = 2.000000e-01 : f32, operandSegmentSizes = array<i32: 1, 1, 1, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>
// GENERIC-NEXT:    %[[V4:.*]] = "ge.fused_conv2d"(%[[X]], %[[W]], %[[B]]) <{activation = #ge<activation sigmoid>, operandSegmentSizes = array<i32: 1, 1, 1, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64}> : (tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16>) -> tensor<1x2x3x3xf16>
// GENERIC-NEXT:    %[[V5:.*]] = "ge.fused_conv2d"(%[[X]], %[[W]]) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64, activation = #ge<activation none>}> : (tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>) -> tensor<1x2x3x3xf16>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<1x2x3x3xf16>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @fused_activations(%x: tensor<1x3x5x5xf16>, %w: tensor<2x3x3x3xf16>, %b: tensor<2xf16>) -> tensor<1x2x3x3xf16> {
  %0 = ge.fused_conv2d %x, %w bias %b activation none : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
  %1 = ge.fused_conv2d %x, %w bias %b activation relu : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
  %2 = ge.fused_conv2d %x, %w bias %b activation relu6 : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
  %3 = ge.fused_conv2d %x, %w bias %b activation leaky_relu alpha 0.2 : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
  %4 = ge.fused_conv2d %x, %w bias %b activation sigmoid : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16>, tensor<2xf16> -> tensor<1x2x3x3xf16>
  %5 = ge.fused_conv2d %x, %w : tensor<1x3x5x5xf16>, tensor<2x3x3x3xf16> -> tensor<1x2x3x3xf16>
  func.return %0 : tensor<1x2x3x3xf16>
}

// -----

// ge.fused_conv2d with every operand and attribute.
// CHECK-LABEL: func.func @fused_all_attrs(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x7x6xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>, %[[B:.*]]: tensor<4xf32>, %[[R:.*]]: tensor<1x4x2x7xf32>) -> tensor<1x4x2x7xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] residual %[[R]] activation leaky_relu alpha 1.000000e-01 strides [2, 1] pads [1, 0, 2, 1] dilations [2, 1] groups 2 : tensor<1x4x7x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32> -> tensor<1x4x2x7xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x2x7xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "fused_all_attrs",
// GENERIC-SAME:   function_type = (tensor<1x4x7x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>, tensor<1x4x2x7xf32>) -> tensor<1x4x2x7xf32>}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: tensor<1x4x7x6xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>, %[[B:.*]]: tensor<4xf32>, %[[R:.*]]: tensor<1x4x2x7xf32>):
// GENERIC-NEXT:    %[[Y:.*]] = "ge.fused_conv2d"(%[[X]], %[[W]], %[[B]], %[[R]]) <{activation = #ge<activation leaky_relu>, alpha = 1.000000e-01 : f32, strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 2, 1>, dilations = array<i64: 2, 1>, groups = 2 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (tensor<1x4x7x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>, tensor<1x4x2x7xf32>) -> tensor<1x4x2x7xf32>
// GENERIC-NEXT:    "func.return"(%[[Y]]) : (tensor<1x4x2x7xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @fused_all_attrs(%x: tensor<1x4x7x6xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<4xf32>, %r: tensor<1x4x2x7xf32>) -> tensor<1x4x2x7xf32> {
  %y = ge.fused_conv2d %x, %w bias %b residual %r activation leaky_relu alpha 0.1 strides [2, 1] pads [1, 0, 2, 1] dilations [2, 1] groups 2 : tensor<1x4x7x6xf32>, tensor<4x2x3x3xf32>, tensor<4xf32> -> tensor<1x4x2x7xf32>
  func.return %y : tensor<1x4x2x7xf32>
}

// -----

// ge.fused_conv2d in NC1HWC0 with a FRACTAL_Z filter and an NC1HWC0 residual.
// CHECK-LABEL: func.func @fused_nc1hwc0(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, %[[W:.*]]: tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, %[[B:.*]]: tensor<8xf16>, %[[R:.*]]: tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] residual %[[R]] activation sigmoid : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, tensor<8xf16> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @fused_nc1hwc0(%x: tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, %w: tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, %b: tensor<8xf16>, %r: tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>> {
  %y = ge.fused_conv2d %x, %w bias %b residual %r activation sigmoid : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, tensor<8xf16> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
  func.return %y : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
}

// -----

// ge.batch_norm without epsilon (default 1e-5, not printed), with epsilon, with epsilon = 0.
// CHECK-LABEL: func.func @batch_norm(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x2x2xf32>, %[[S:.*]]: tensor<4xf32>, %[[O:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.batch_norm %[[X]], %[[S]], %[[O]], %[[M]], %[[V]] : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.batch_norm %[[X]], %[[S]], %[[O]], %[[M]], %[[V]] epsilon 1.000000e-03 : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.batch_norm %[[X]], %[[S]], %[[O]], %[[M]], %[[V]] epsilon 0.000000e+00 : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "batch_norm",
// GENERIC-SAME:   function_type = (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: tensor<1x4x2x2xf32>, %[[S:.*]]: tensor<4xf32>, %[[O:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.batch_norm"(%[[X]], %[[S]], %[[O]], %[[M]], %[[V]]) <{epsilon = 1.000000e-05 : f32}> : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.batch_norm"(%[[X]], %[[S]], %[[O]], %[[M]], %[[V]]) <{epsilon = 1.000000e-03 : f32}> : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.batch_norm"(%[[X]], %[[S]], %[[O]], %[[M]], %[[V]]) <{epsilon = 0.000000e+00 : f32}> : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<1x4x2x2xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @batch_norm(%x: tensor<1x4x2x2xf32>, %s: tensor<4xf32>, %o: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  %0 = ge.batch_norm %x, %s, %o, %m, %v : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  %1 = ge.batch_norm %x, %s, %o, %m, %v epsilon 1.0e-03 : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  %2 = ge.batch_norm %x, %s, %o, %m, %v epsilon 0.0 : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  func.return %0 : tensor<1x4x2x2xf32>
}

// -----

// f16 input with f32 parameters, and with f16 parameters.
// CHECK-LABEL: func.func @batch_norm_f16(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x2x2xf16>, %[[S:.*]]: tensor<4xf32>, %[[O:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>, %[[H:.*]]: tensor<4xf16>) -> tensor<1x4x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.batch_norm %[[X]], %[[S]], %[[O]], %[[M]], %[[V]] epsilon 1.000000e-03 : (tensor<1x4x2x2xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.batch_norm %[[X]], %[[H]], %[[H]], %[[H]], %[[H]] : (tensor<1x4x2x2xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<1x4x2x2xf16>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x2x2xf16>
// CHECK-NEXT:  }
func.func @batch_norm_f16(%x: tensor<1x4x2x2xf16>, %s: tensor<4xf32>, %o: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>, %h: tensor<4xf16>) -> tensor<1x4x2x2xf16> {
  %0 = ge.batch_norm %x, %s, %o, %m, %v epsilon 1.0e-03 : (tensor<1x4x2x2xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf16>
  %1 = ge.batch_norm %x, %h, %h, %h, %h : (tensor<1x4x2x2xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) -> tensor<1x4x2x2xf16>
  func.return %0 : tensor<1x4x2x2xf16>
}

// -----

// NC1HWC0 and NHWC inputs (C = 17: parameters are per logical channel).
// CHECK-LABEL: func.func @batch_norm_formats(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %[[N:.*]]: tensor<1x17x2x2xf16, #ge.format<NHWC>>, %[[P:.*]]: tensor<17xf32>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[V0:.*]] = ge.batch_norm %[[X]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<17xf32>, tensor<17xf32>, tensor<17xf32>, tensor<17xf32>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.batch_norm %[[N]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x17x2x2xf16, #ge.format<NHWC>>, tensor<17xf32>, tensor<17xf32>, tensor<17xf32>, tensor<17xf32>) -> tensor<1x17x2x2xf16, #ge.format<NHWC>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @batch_norm_formats(%x: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %n: tensor<1x17x2x2xf16, #ge.format<NHWC>>, %p: tensor<17xf32>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> {
  %0 = ge.batch_norm %x, %p, %p, %p, %p : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<17xf32>, tensor<17xf32>, tensor<17xf32>, tensor<17xf32>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  %1 = ge.batch_norm %n, %p, %p, %p, %p : (tensor<1x17x2x2xf16, #ge.format<NHWC>>, tensor<17xf32>, tensor<17xf32>, tensor<17xf32>, tensor<17xf32>) -> tensor<1x17x2x2xf16, #ge.format<NHWC>>
  func.return %0 : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
}

// -----

// ge.relu on f32, f16, i8, ui8 and an NC1HWC0 value.
// CHECK-LABEL: func.func @relu(
// CHECK-SAME:  %[[A:.*]]: tensor<1x4x2x2xf32>, %[[B:.*]]: tensor<3xf16>, %[[C:.*]]: tensor<2x2xi8>, %[[D:.*]]: tensor<4xui8>, %[[E:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x4x2x2xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.relu %[[A]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.relu %[[B]] : tensor<3xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.relu %[[C]] : tensor<2x2xi8>
// CHECK-NEXT:    %[[V3:.*]] = ge.relu %[[D]] : tensor<4xui8>
// CHECK-NEXT:    %[[V4:.*]] = ge.relu %[[E]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:  }
func.func @relu(%a: tensor<1x4x2x2xf32>, %b: tensor<3xf16>, %c: tensor<2x2xi8>, %d: tensor<4xui8>, %e: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x4x2x2xf32> {
  %0 = ge.relu %a : tensor<1x4x2x2xf32>
  %1 = ge.relu %b : tensor<3xf16>
  %2 = ge.relu %c : tensor<2x2xi8>
  %3 = ge.relu %d : tensor<4xui8>
  %4 = ge.relu %e : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return %0 : tensor<1x4x2x2xf32>
}

// -----

// ge.relu6.
// CHECK-LABEL: func.func @relu6(
// CHECK-SAME:  %[[A:.*]]: tensor<1x4x2x2xf16>, %[[B:.*]]: tensor<5xf32>) -> tensor<1x4x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.relu6 %[[A]] : tensor<1x4x2x2xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.relu6 %[[B]] : tensor<5xf32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x2x2xf16>
// CHECK-NEXT:  }
func.func @relu6(%a: tensor<1x4x2x2xf16>, %b: tensor<5xf32>) -> tensor<1x4x2x2xf16> {
  %0 = ge.relu6 %a : tensor<1x4x2x2xf16>
  %1 = ge.relu6 %b : tensor<5xf32>
  func.return %0 : tensor<1x4x2x2xf16>
}

// -----

// ge.leaky_relu without alpha, with alpha, and with alpha = 0.01 (the default, not printed).
// CHECK-LABEL: func.func @leaky_relu(
// CHECK-SAME:  %[[A:.*]]: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.leaky_relu %[[A]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.leaky_relu %[[A]] alpha 2.000000e-01 : tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.leaky_relu %[[A]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "leaky_relu",
// GENERIC-SAME:   function_type = (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>}> ({
// GENERIC-NEXT:    ^bb0(%[[A:.*]]: tensor<1x4x2x2xf32>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.leaky_relu"(%[[A]]) <{alpha = 1.000000e-02 : f32}> : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.leaky_relu"(%[[A]]) <{alpha = 2.000000e-01 : f32}> : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.leaky_relu"(%[[A]]) <{alpha = 1.000000e-02 : f32}> : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<1x4x2x2xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @leaky_relu(%a: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %0 = ge.leaky_relu %a : tensor<1x4x2x2xf32>
  %1 = ge.leaky_relu %a alpha 0.2 : tensor<1x4x2x2xf32>
  %2 = ge.leaky_relu %a alpha 0.01 : tensor<1x4x2x2xf32>
  func.return %0 : tensor<1x4x2x2xf32>
}

// -----

// ge.sigmoid, plain and NC1HWC0.
// CHECK-LABEL: func.func @sigmoid(
// CHECK-SAME:  %[[A:.*]]: tensor<1x4x2x2xf32>, %[[B:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x4x2x2xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.sigmoid %[[A]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.sigmoid %[[B]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:  }
func.func @sigmoid(%a: tensor<1x4x2x2xf32>, %b: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x4x2x2xf32> {
  %0 = ge.sigmoid %a : tensor<1x4x2x2xf32>
  %1 = ge.sigmoid %b : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return %0 : tensor<1x4x2x2xf32>
}

// -----

// ge.clip, including min == max.
// CHECK-LABEL: func.func @clip(
// CHECK-SAME:  %[[A:.*]]: tensor<1x4x2x2xf32>, %[[B:.*]]: tensor<3xf16>) -> tensor<1x4x2x2xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.clip %[[A]] min 0.000000e+00 max 6.000000e+00 : tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.clip %[[B]] min -1.500000e+00 max 1.500000e+00 : tensor<3xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.clip %[[A]] min 2.000000e+00 max 2.000000e+00 : tensor<1x4x2x2xf32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "clip",
// GENERIC-SAME:   function_type = (tensor<1x4x2x2xf32>, tensor<3xf16>) -> tensor<1x4x2x2xf32>}> ({
// GENERIC-NEXT:    ^bb0(%[[A:.*]]: tensor<1x4x2x2xf32>, %[[B:.*]]: tensor<3xf16>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.clip"(%[[A]]) <{min = 0.000000e+00 : f32, max = 6.000000e+00 : f32}> : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.clip"(%[[B]]) <{min = -1.500000e+00 : f32, max = 1.500000e+00 : f32}> : (tensor<3xf16>) -> tensor<3xf16>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.clip"(%[[A]]) <{min = 2.000000e+00 : f32, max = 2.000000e+00 : f32}> : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<1x4x2x2xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @clip(%a: tensor<1x4x2x2xf32>, %b: tensor<3xf16>) -> tensor<1x4x2x2xf32> {
  %0 = ge.clip %a min 0.0 max 6.0 : tensor<1x4x2x2xf32>
  %1 = ge.clip %b min -1.5 max 1.5 : tensor<3xf16>
  %2 = ge.clip %a min 2.0 max 2.0 : tensor<1x4x2x2xf32>
  func.return %0 : tensor<1x4x2x2xf32>
}

// -----

// ge.add/sub/mul: same shapes, a 1x4x1x1 operand broadcast on either side, a lower-rank
// operand broadcast on either side.
// CHECK-LABEL: func.func @binary(
// CHECK-SAME:  %[[A:.*]]: tensor<1x4x2x2xf32>, %[[B:.*]]: tensor<1x4x1x1xf32>, %[[C:.*]]: tensor<2xf32>) -> tensor<1x4x2x2xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.add %[[A]], %[[A]] : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.sub %[[A]], %[[B]] : (tensor<1x4x2x2xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.mul %[[B]], %[[A]] : (tensor<1x4x1x1xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.add %[[A]], %[[C]] : (tensor<1x4x2x2xf32>, tensor<2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    %[[V4:.*]] = ge.mul %[[C]], %[[A]] : (tensor<2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x2x2xf32>
// CHECK-NEXT:  }
func.func @binary(%a: tensor<1x4x2x2xf32>, %b: tensor<1x4x1x1xf32>, %c: tensor<2xf32>) -> tensor<1x4x2x2xf32> {
  %0 = ge.add %a, %a : (tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %1 = ge.sub %a, %b : (tensor<1x4x2x2xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x2x2xf32>
  %2 = ge.mul %b, %a : (tensor<1x4x1x1xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %3 = ge.add %a, %c : (tensor<1x4x2x2xf32>, tensor<2xf32>) -> tensor<1x4x2x2xf32>
  %4 = ge.mul %c, %a : (tensor<2xf32>, tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  func.return %0 : tensor<1x4x2x2xf32>
}

// -----

// Both operands broadcast (4x1 and 1x5), and a rank-0 operand.
// CHECK-LABEL: func.func @binary_broadcast_both(
// CHECK-SAME:  %[[A:.*]]: tensor<4x1xf16>, %[[B:.*]]: tensor<1x5xf16>, %[[S:.*]]: tensor<f16>) -> tensor<4x5xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.add %[[A]], %[[B]] : (tensor<4x1xf16>, tensor<1x5xf16>) -> tensor<4x5xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.sub %[[V0]], %[[S]] : (tensor<4x5xf16>, tensor<f16>) -> tensor<4x5xf16>
// CHECK-NEXT:    func.return %[[V1]] : tensor<4x5xf16>
// CHECK-NEXT:  }
func.func @binary_broadcast_both(%a: tensor<4x1xf16>, %b: tensor<1x5xf16>, %s: tensor<f16>) -> tensor<4x5xf16> {
  %0 = ge.add %a, %b : (tensor<4x1xf16>, tensor<1x5xf16>) -> tensor<4x5xf16>
  %1 = ge.sub %0, %s : (tensor<4x5xf16>, tensor<f16>) -> tensor<4x5xf16>
  func.return %1 : tensor<4x5xf16>
}

// -----

// i8 and ui8 elementwise arithmetic (saturating).
// CHECK-LABEL: func.func @binary_int8(
// CHECK-SAME:  %[[A:.*]]: tensor<2x3xi8>, %[[B:.*]]: tensor<3xi8>, %[[C:.*]]: tensor<4xui8>) -> tensor<2x3xi8> {
// CHECK-NEXT:    %[[V0:.*]] = ge.add %[[A]], %[[B]] : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2x3xi8>
// CHECK-NEXT:    %[[V1:.*]] = ge.sub %[[A]], %[[A]] : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2x3xi8>
// CHECK-NEXT:    %[[V2:.*]] = ge.mul %[[C]], %[[C]] : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
// CHECK-NEXT:    func.return %[[V0]] : tensor<2x3xi8>
// CHECK-NEXT:  }
func.func @binary_int8(%a: tensor<2x3xi8>, %b: tensor<3xi8>, %c: tensor<4xui8>) -> tensor<2x3xi8> {
  %0 = ge.add %a, %b : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2x3xi8>
  %1 = ge.sub %a, %a : (tensor<2x3xi8>, tensor<2x3xi8>) -> tensor<2x3xi8>
  %2 = ge.mul %c, %c : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  func.return %0 : tensor<2x3xi8>
}

// -----

// NC1HWC0 operands and result; a lower-rank operand without encoding broadcasts into it.
// CHECK-LABEL: func.func @binary_nc1hwc0(
// CHECK-SAME:  %[[A:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %[[B:.*]]: tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>, %[[C:.*]]: tensor<2xf16>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[V0:.*]] = ge.add %[[A]], %[[B]] : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.mul %[[V0]], %[[C]] : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<2xf16>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[V1]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @binary_nc1hwc0(%a: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %b: tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>, %c: tensor<2xf16>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> {
  %0 = ge.add %a, %b : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  %1 = ge.mul %0, %c : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<2xf16>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return %1 : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
}

// -----

// ge.trans_data NCHW -> NHWC -> NCHW.
// CHECK-LABEL: func.func @trans_data_nhwc(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32, #ge.format<NHWC>>
// CHECK-NEXT:    %[[V1:.*]] = ge.trans_data %[[V0]] : tensor<1x3x2x2xf32, #ge.format<NHWC>> -> tensor<1x3x2x2xf32>
// CHECK-NEXT:    func.return %[[V1]] : tensor<1x3x2x2xf32>
// CHECK-NEXT:  }
func.func @trans_data_nhwc(%x: tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %0 = ge.trans_data %x : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32, #ge.format<NHWC>>
  %1 = ge.trans_data %0 : tensor<1x3x2x2xf32, #ge.format<NHWC>> -> tensor<1x3x2x2xf32>
  func.return %1 : tensor<1x3x2x2xf32>
}

// -----

// NCHW <-> NC1HWC0: f16 default c0, f32 with c0 = 8 and with the default c0 (16), a c0 change,
// i8 default c0 (32), i8 with c0 = 16, ui8.
// CHECK-LABEL: func.func @trans_data_nc1hwc0(
// CHECK-SAME:  %[[H:.*]]: tensor<1x17x2x2xf16>, %[[F:.*]]: tensor<1x3x2x2xf32>, %[[I:.*]]: tensor<1x33x1x1xi8>, %[[U:.*]]: tensor<1x5x1x1xui8>) -> tensor<1x17x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[H]] : tensor<1x17x2x2xf16> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.trans_data %[[V0]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[F]] : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[F]] : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V4:.*]] = ge.trans_data %[[V2]] : tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V5:.*]] = ge.trans_data %[[I]] : tensor<1x33x1x1xi8> -> tensor<1x33x1x1xi8, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V6:.*]] = ge.trans_data %[[I]] : tensor<1x33x1x1xi8> -> tensor<1x33x1x1xi8, #ge.format<NC1HWC0, c0 = 16>>
// CHECK-NEXT:    %[[V7:.*]] = ge.trans_data %[[U]] : tensor<1x5x1x1xui8> -> tensor<1x5x1x1xui8, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[V1]] : tensor<1x17x2x2xf16>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "trans_data_nc1hwc0",
// GENERIC-SAME:   function_type = (tensor<1x17x2x2xf16>, tensor<1x3x2x2xf32>, tensor<1x33x1x1xi8>, tensor<1x5x1x1xui8>) -> tensor<1x17x2x2xf16>}> ({
// GENERIC-NEXT:    ^bb0(%[[H:.*]]: tensor<1x17x2x2xf16>, %[[F:.*]]: tensor<1x3x2x2xf32>, %[[I:.*]]: tensor<1x33x1x1xi8>, %[[U:.*]]: tensor<1x5x1x1xui8>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.trans_data"(%[[H]]) : (tensor<1x17x2x2xf16>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.trans_data"(%[[V0]]) : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x2x2xf16>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.trans_data"(%[[F]]) : (tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.trans_data"(%[[F]]) : (tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V4:.*]] = "ge.trans_data"(%[[V2]]) : (tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>) -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V5:.*]] = "ge.trans_data"(%[[I]]) : (tensor<1x33x1x1xi8>) -> tensor<1x33x1x1xi8, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V6:.*]] = "ge.trans_data"(%[[I]]) : (tensor<1x33x1x1xi8>) -> tensor<1x33x1x1xi8, #ge.format<NC1HWC0, c0 = 16>>
// GENERIC-NEXT:    %[[V7:.*]] = "ge.trans_data"(%[[U]]) : (tensor<1x5x1x1xui8>) -> tensor<1x5x1x1xui8, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    "func.return"(%[[V1]]) : (tensor<1x17x2x2xf16>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @trans_data_nc1hwc0(%h: tensor<1x17x2x2xf16>, %f: tensor<1x3x2x2xf32>, %i: tensor<1x33x1x1xi8>, %u: tensor<1x5x1x1xui8>) -> tensor<1x17x2x2xf16> {
  %0 = ge.trans_data %h : tensor<1x17x2x2xf16> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  %1 = ge.trans_data %0 : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf16>
  %2 = ge.trans_data %f : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
  %3 = ge.trans_data %f : tensor<1x3x2x2xf32> -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0>>
  %4 = ge.trans_data %2 : tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0>>
  %5 = ge.trans_data %i : tensor<1x33x1x1xi8> -> tensor<1x33x1x1xi8, #ge.format<NC1HWC0>>
  %6 = ge.trans_data %i : tensor<1x33x1x1xi8> -> tensor<1x33x1x1xi8, #ge.format<NC1HWC0, c0 = 16>>
  %7 = ge.trans_data %u : tensor<1x5x1x1xui8> -> tensor<1x5x1x1xui8, #ge.format<NC1HWC0>>
  func.return %1 : tensor<1x17x2x2xf16>
}

// -----

// NHWC <-> NC1HWC0.
// CHECK-LABEL: func.func @trans_data_nhwc_nc1hwc0(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x2x2xf16, #ge.format<NHWC>>) -> tensor<1x17x2x2xf16, #ge.format<NHWC>> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x2x2xf16, #ge.format<NHWC>> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.trans_data %[[V0]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf16, #ge.format<NHWC>>
// CHECK-NEXT:    func.return %[[V1]] : tensor<1x17x2x2xf16, #ge.format<NHWC>>
// CHECK-NEXT:  }
func.func @trans_data_nhwc_nc1hwc0(%x: tensor<1x17x2x2xf16, #ge.format<NHWC>>) -> tensor<1x17x2x2xf16, #ge.format<NHWC>> {
  %0 = ge.trans_data %x : tensor<1x17x2x2xf16, #ge.format<NHWC>> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  %1 = ge.trans_data %0 : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf16, #ge.format<NHWC>>
  func.return %1 : tensor<1x17x2x2xf16, #ge.format<NHWC>>
}

// -----

// OIHW <-> FRACTAL_Z, grouped FRACTAL_Z, a groups change, f32 FRACTAL_Z with c0 = 8,
// NHWC -> FRACTAL_Z.
// CHECK-LABEL: func.func @trans_data_fractal_z(
// CHECK-SAME:  %[[W:.*]]: tensor<8x17x3x3xf16>, %[[G:.*]]: tensor<16x1x3x3xf16>, %[[F:.*]]: tensor<4x4x1x1xf32>) -> tensor<8x17x3x3xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[W]] : tensor<8x17x3x3xf16> -> tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V1:.*]] = ge.trans_data %[[V0]] : tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<8x17x3x3xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[G]] : tensor<16x1x3x3xf16> -> tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[V2]] : tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>> -> tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V4:.*]] = ge.trans_data %[[F]] : tensor<4x4x1x1xf32> -> tensor<4x4x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8>>
// CHECK-NEXT:    %[[V5:.*]] = ge.trans_data %[[W]] : tensor<8x17x3x3xf16> -> tensor<8x17x3x3xf16, #ge.format<NHWC>>
// CHECK-NEXT:    %[[V6:.*]] = ge.trans_data %[[V5]] : tensor<8x17x3x3xf16, #ge.format<NHWC>> -> tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    func.return %[[V1]] : tensor<8x17x3x3xf16>
// CHECK-NEXT:  }
func.func @trans_data_fractal_z(%w: tensor<8x17x3x3xf16>, %g: tensor<16x1x3x3xf16>, %f: tensor<4x4x1x1xf32>) -> tensor<8x17x3x3xf16> {
  %0 = ge.trans_data %w : tensor<8x17x3x3xf16> -> tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
  %1 = ge.trans_data %0 : tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<8x17x3x3xf16>
  %2 = ge.trans_data %g : tensor<16x1x3x3xf16> -> tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>>
  %3 = ge.trans_data %2 : tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 16>> -> tensor<16x1x3x3xf16, #ge.format<FRACTAL_Z>>
  %4 = ge.trans_data %f : tensor<4x4x1x1xf32> -> tensor<4x4x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8>>
  %5 = ge.trans_data %w : tensor<8x17x3x3xf16> -> tensor<8x17x3x3xf16, #ge.format<NHWC>>
  %6 = ge.trans_data %5 : tensor<8x17x3x3xf16, #ge.format<NHWC>> -> tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
  func.return %1 : tensor<8x17x3x3xf16>
}

// -----

// ge.fused_conv2d with a residual and no bias.
// CHECK-LABEL: func.func @fused_residual_no_bias(
// CHECK-SAME:      %[[X:.*]]: tensor<1x4x4x4xf32>, %[[W:.*]]: tensor<4x4x1x1xf32>, %[[R:.*]]: tensor<1x4x4x4xf32>)
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] residual %[[R]] activation relu6 : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32> -> tensor<1x4x4x4xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x4x4xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "fused_residual_no_bias",
// GENERIC: "ge.fused_conv2d"(%{{.*}}, %{{.*}}, %{{.*}}) <{activation = #ge<activation relu6>, operandSegmentSizes = array<i32: 1, 1, 0, 1>
func.func @fused_residual_no_bias(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>, %r: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  %y = ge.fused_conv2d %x, %w residual %r activation relu6 : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32> -> tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}
