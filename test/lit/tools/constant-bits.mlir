// Float constants re-parse to the same bits: in ge-opt (custom and generic form) and in
// upstream MLIR, whose reading of the generic form ge-opt reads back to the same text.
// Finite elements print as decimals with a "." (xDSL's 9-digit form has none for the
// integers of 7-9 digits, and MLIR's is the hex bit pattern, which xDSL reads as a value);
// an attribute holding inf or NaN prints as the hex string of its bytes.  In the input, a
// hex integer in a float dense literal is the bit pattern, as in MLIR.
//
// RUN: ge-opt %s | filecheck %s
// RUN: ge-opt %s | ge-opt | filecheck %s
// RUN: ge-opt %s --print-op-generic | ge-opt | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/tools.test)
// (the upstream check of this RUN line is in test/lit/upstream/tools.test)

// The ONNX reproducer's constant [1234567.0, -3416252.0] and two larger integers.
// CHECK-LABEL: func.func @integers
// CHECK-NEXT:    ge.const dense<[1234567.0, -3416252.0, 16777216.0, 123456792.0]> : tensor<4xf32>
// MLIR-LABEL:  func.func @integers
// MLIR-NEXT:     "ge.const"() <{value = dense<[0x4996B438, 0xCA5082F0, 0x4B800000, 0x4CEB79A3]> : tensor<4xf32>}>
func.func @integers() -> tensor<4xf32> {
  %c = ge.const dense<[0x4996B438, 0xCA5082F0, 16777216.0, 123456792.0]> : tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// A splat of more than 100 elements prints one element.
// CHECK-LABEL: func.func @integer_splat
// CHECK-NEXT:    ge.const dense<-9412345.0> : tensor<128xf32>
// MLIR-LABEL:  func.func @integer_splat
// MLIR-NEXT:     "ge.const"() <{value = dense<0xCB0F9EF9> : tensor<128xf32>}>
func.func @integer_splat() -> tensor<128xf32> {
  %c = ge.const dense<0xCB0F9EF9> : tensor<128xf32>
  func.return %c : tensor<128xf32>
}

// +-inf, quiet and signalling NaNs with payloads, -0, subnormals.
// CHECK-LABEL: func.func @special_f32
// CHECK-NEXT:    ge.const dense<"0x0000807F000080FF0000C07F0100C0FF0100807F0000008001000000FFFF7F80"> : tensor<8xf32>
// MLIR-LABEL:  func.func @special_f32
// MLIR-NEXT:     "ge.const"() <{value = dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, -0.000000e+00, 1.401300e-45, -1.17549421E-38]> : tensor<8xf32>}>
func.func @special_f32() -> tensor<8xf32> {
  %c = ge.const dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x80000000, 0x00000001, 0x807FFFFF]> : tensor<8xf32>
  func.return %c : tensor<8xf32>
}

// A splat is decided on bits: 0.0 and -0.0 differ.
// CHECK-LABEL: func.func @zeros
// CHECK-NEXT:    ge.const dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf32>
// MLIR-LABEL:  func.func @zeros
// MLIR-NEXT:     "ge.const"() <{value = dense<[0.000000e+00, -0.000000e+00]> : tensor<2xf32>}>
func.func @zeros() -> tensor<2xf32> {
  %c = ge.const dense<[0.0, -0.0]> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// A splat of inf is the hex of one element (MLIR reads it as a splat too).
// CHECK-LABEL: func.func @inf_splat
// CHECK-NEXT:    ge.const dense<"0x0000807F"> : tensor<3xf32>
// MLIR-LABEL:  func.func @inf_splat
// MLIR-NEXT:     "ge.const"() <{value = dense<0x7F800000> : tensor<3xf32>}>
func.func @inf_splat() -> tensor<3xf32> {
  %c = ge.const dense<0x7F800000> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// f16: a signalling NaN with a payload, a negative quiet NaN, the smallest subnormal,
// -0, the largest finite value.
// CHECK-LABEL: func.func @special_f16
// CHECK-NEXT:    ge.const dense<"0x017C00FE006801000080FF7B"> : tensor<6xf16>
// MLIR-LABEL:  func.func @special_f16
// MLIR-NEXT:     "ge.const"() <{value = dense<[0x7C01, 0xFE00, 2.048000e+03, 5.960460e-08, -0.000000e+00, 6.550400e+04]> : tensor<6xf16>}>
func.func @special_f16() -> tensor<6xf16> {
  %c = ge.const dense<[0x7C01, 0xFE00, 2.048000e+03, 0x0001, 0x8000, 6.550400e+04]> : tensor<6xf16>
  func.return %c : tensor<6xf16>
}

// CHECK-LABEL: func.func @finite_f16
// CHECK-NEXT:    ge.const dense<[5.960460e-08, -0.000000e+00, 6.550400e+04, 6.097560e-05]> : tensor<4xf16>
// MLIR-LABEL:  func.func @finite_f16
// MLIR-NEXT:     "ge.const"() <{value = dense<[5.960460e-08, -0.000000e+00, 6.550400e+04, 6.097560e-05]> : tensor<4xf16>}>
func.func @finite_f16() -> tensor<4xf16> {
  %c = ge.const dense<[0x0001, 0x8000, 65504.0, 0x03FF]> : tensor<4xf16>
  func.return %c : tensor<4xf16>
}

// Subnormals and the smallest normal f32.
// CHECK-LABEL: func.func @subnormal_f32
// CHECK-NEXT:    ge.const dense<[1.401300e-45, -1.17549421e-38, 1.17549435e-38]> : tensor<3xf32>
// MLIR-LABEL:  func.func @subnormal_f32
// MLIR-NEXT:     "ge.const"() <{value = dense<[1.401300e-45, -1.17549421E-38, 1.17549435E-38]> : tensor<3xf32>}>
func.func @subnormal_f32() -> tensor<3xf32> {
  %c = ge.const dense<[0x00000001, 0x807FFFFF, 0x00800000]> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}

// Decimals are rounded once, as MLIR rounds: both are within 1e-35 of the midpoint
// 1 + 2^-24 between 1.0 and the next f32, which is their nearest double (rounding
// through a double would give 1.0 twice).
// CHECK-LABEL: func.func @rounded_once
// CHECK-NEXT:    ge.const dense<[1.00000012, 1.000000e+00]> : tensor<2xf32>
// MLIR-LABEL:  func.func @rounded_once
// MLIR-NEXT:     "ge.const"() <{value = dense<[1.00000012, 1.000000e+00]> : tensor<2xf32>}>
func.func @rounded_once() -> tensor<2xf32> {
  %c = ge.const dense<[1.00000005960464477539062500000000001, 1.0000000596046447753906249999999999]> : tensor<2xf32>
  func.return %c : tensor<2xf32>
}

// Beyond the largest finite value a decimal is inf, as in MLIR.
// CHECK-LABEL: func.func @overflow
// CHECK-NEXT:    ge.const dense<"0x0000807FFFFF7F7F000080FF"> : tensor<3xf32>
// MLIR-LABEL:  func.func @overflow
// MLIR-NEXT:     "ge.const"() <{value = dense<[0x7F800000, 3.40282347E+38, 0xFF800000]> : tensor<3xf32>}>
func.func @overflow() -> tensor<3xf32> {
  %c = ge.const dense<[3.5e38, 3.40282356e38, -1.0e39]> : tensor<3xf32>
  func.return %c : tensor<3xf32>
}
