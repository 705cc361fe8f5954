// Round-trip tests of the `ge` graph ops beyond convolution: matmul, silu, pooling, concat,
// reshape/flatten/transpose, softmax, identity, cast and the collectives.  The custom form
// prints exactly as checked below, reparses to the same IR (custom and generic), and the
// generic form is valid upstream MLIR.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// (the upstream check of this RUN line is in test/lit/upstream/dialects.test)
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// ge.matmul of two matrices, no bias, no transposes (the attributes are omitted).
// CHECK-LABEL: func.func @matmul_plain(
// CHECK-SAME:  %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x6xf32>) -> tensor<4x6xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x6xf32>
// CHECK-NEXT:  }
func.func @matmul_plain(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %y = ge.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  func.return %y : tensor<4x6xf32>
}

// -----

// transpose_a, transpose_b and both: K is taken after transposing the last two dims.
// The unit attributes are properties (printed inside `<{...}>` in the generic form).
// CHECK-LABEL: func.func @matmul_transposes(
// CHECK-SAME:  %[[AT:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<8x6xf32>, %[[A:.*]]: tensor<4x8xf32>, %[[BT:.*]]: tensor<6x8xf32>) -> tensor<4x6xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.matmul %[[AT]], %[[B]] transpose_a : tensor<8x4xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.matmul %[[A]], %[[BT]] transpose_b : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.matmul %[[AT]], %[[BT]] transpose_a transpose_b : tensor<8x4xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
// CHECK-NEXT:    func.return %[[V2]] : tensor<4x6xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "matmul_transposes",
// GENERIC-SAME:   function_type = (tensor<8x4xf32>, tensor<8x6xf32>, tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>}> ({
// GENERIC-NEXT:  ^bb0(%[[AT:.*]]: tensor<8x4xf32>, %[[B:.*]]: tensor<8x6xf32>, %[[A:.*]]: tensor<4x8xf32>, %[[BT:.*]]: tensor<6x8xf32>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.matmul"(%[[AT]], %[[B]]) <{transpose_a}> : (tensor<8x4xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.matmul"(%[[A]], %[[BT]]) <{transpose_b}> : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.matmul"(%[[AT]], %[[BT]]) <{transpose_a, transpose_b}> : (tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
// GENERIC-NEXT:    "func.return"(%[[V2]]) : (tensor<4x6xf32>) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @matmul_transposes(%at: tensor<8x4xf32>, %b: tensor<8x6xf32>, %a: tensor<4x8xf32>, %bt: tensor<6x8xf32>) -> tensor<4x6xf32> {
  %0 = ge.matmul %at, %b transpose_a : tensor<8x4xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %1 = ge.matmul %a, %bt transpose_b : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  %2 = ge.matmul %at, %bt transpose_a transpose_b : tensor<8x4xf32>, tensor<6x8xf32> -> tensor<4x6xf32>
  func.return %2 : tensor<4x6xf32>
}

// -----

// A bias (one value per output column); a bias with transpose_b on a batched lhs and a 2-D
// rhs (the docstring's example).
// CHECK-LABEL: func.func @matmul_bias(
// CHECK-SAME:  %[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x6xf32>, %[[C:.*]]: tensor<6xf32>, %[[X:.*]]: tensor<2x8x16xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[D:.*]]: tensor<32xf32>) -> tensor<2x8x32xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.matmul %[[A]], %[[B]] bias %[[C]] : tensor<4x8xf32>, tensor<8x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.matmul %[[X]], %[[W]] bias %[[D]] transpose_b : tensor<2x8x16xf32>, tensor<32x16xf32>, tensor<32xf32> -> tensor<2x8x32xf32>
// CHECK-NEXT:    func.return %[[V1]] : tensor<2x8x32xf32>
// CHECK-NEXT:  }
func.func @matmul_bias(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<6xf32>, %x: tensor<2x8x16xf32>, %w: tensor<32x16xf32>, %d: tensor<32xf32>) -> tensor<2x8x32xf32> {
  %0 = ge.matmul %a, %b bias %c : tensor<4x8xf32>, tensor<8x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %1 = ge.matmul %x, %w bias %d transpose_b : tensor<2x8x16xf32>, tensor<32x16xf32>, tensor<32xf32> -> tensor<2x8x32xf32>
  func.return %1 : tensor<2x8x32xf32>
}

// -----

// Batch dims broadcast as numpy's: [2, 1] with [5] gives [2, 5]; a 2-D lhs with a batched
// rhs.
// CHECK-LABEL: func.func @matmul_batched(
// CHECK-SAME:  %[[A:.*]]: tensor<2x1x3x4xf32>, %[[B:.*]]: tensor<5x4x6xf32>, %[[C:.*]]: tensor<7x4xf32>, %[[D:.*]]: tensor<3x6x4xf32>) -> tensor<2x5x3x6xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.matmul %[[A]], %[[B]] : tensor<2x1x3x4xf32>, tensor<5x4x6xf32> -> tensor<2x5x3x6xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.matmul %[[C]], %[[D]] transpose_b : tensor<7x4xf32>, tensor<3x6x4xf32> -> tensor<3x7x6xf32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<2x5x3x6xf32>
// CHECK-NEXT:  }
func.func @matmul_batched(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>, %c: tensor<7x4xf32>, %d: tensor<3x6x4xf32>) -> tensor<2x5x3x6xf32> {
  %0 = ge.matmul %a, %b : tensor<2x1x3x4xf32>, tensor<5x4x6xf32> -> tensor<2x5x3x6xf32>
  %1 = ge.matmul %c, %d transpose_b : tensor<7x4xf32>, tensor<3x6x4xf32> -> tensor<3x7x6xf32>
  func.return %0 : tensor<2x5x3x6xf32>
}

// -----

// f16 operands, with and without bias; a discardable attribute is printed after the bias.
// CHECK-LABEL: func.func @matmul_f16(
// CHECK-SAME:  %[[A:.*]]: tensor<3x16xf16>, %[[B:.*]]: tensor<16x8xf16>, %[[C:.*]]: tensor<8xf16>) -> tensor<3x8xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.matmul %[[A]], %[[B]] : tensor<3x16xf16>, tensor<16x8xf16> -> tensor<3x8xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.matmul %[[A]], %[[B]] bias %[[C]] {note = "fc"} : tensor<3x16xf16>, tensor<16x8xf16>, tensor<8xf16> -> tensor<3x8xf16>
// CHECK-NEXT:    func.return %[[V1]] : tensor<3x8xf16>
// CHECK-NEXT:  }
func.func @matmul_f16(%a: tensor<3x16xf16>, %b: tensor<16x8xf16>, %c: tensor<8xf16>) -> tensor<3x8xf16> {
  %0 = ge.matmul %a, %b : tensor<3x16xf16>, tensor<16x8xf16> -> tensor<3x8xf16>
  %1 = ge.matmul %a, %b bias %c {note = "fc"} : tensor<3x16xf16>, tensor<16x8xf16>, tensor<8xf16> -> tensor<3x8xf16>
  func.return %1 : tensor<3x8xf16>
}

// -----

// ge.silu on f32 NCHW, on an NC1HWC0 value (any layout) and on a 1-D f16 value.
// CHECK-LABEL: func.func @silu(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x8x8xf32>, %[[H:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %[[V:.*]]: tensor<16xf16>) -> tensor<1x4x8x8xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.silu %[[X]] : tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.silu %[[H]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.silu %[[V]] : tensor<16xf16>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x8x8xf32>
// CHECK-NEXT:  }
func.func @silu(%x: tensor<1x4x8x8xf32>, %h: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %v: tensor<16xf16>) -> tensor<1x4x8x8xf32> {
  %0 = ge.silu %x : tensor<1x4x8x8xf32>
  %1 = ge.silu %h : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  %2 = ge.silu %v : tensor<16xf16>
  func.return %0 : tensor<1x4x8x8xf32>
}

// -----

// ge.max_pool: kernel only (strides and pads at their defaults are omitted), strides,
// asymmetric pads [top, bottom, left, right], ceil_mode (9x9: same size as floor; 8x8: one
// more window than floor, %4 vs %5; 4x4 with strides 3: the last window would start in the
// trailing padding and is dropped), a non-square kernel.
// CHECK-LABEL: func.func @max_pool(
// CHECK-SAME:  %[[X:.*]]: tensor<1x8x9x9xf32>, %[[E:.*]]: tensor<1x8x8x8xf32>, %[[S:.*]]: tensor<1x1x4x4xf32>) -> tensor<1x8x7x7xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.max_pool %[[X]] kernel [3, 3] : tensor<1x8x9x9xf32> -> tensor<1x8x7x7xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.max_pool %[[X]] kernel [3, 3] strides [2, 2] : tensor<1x8x9x9xf32> -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.max_pool %[[X]] kernel [3, 3] strides [2, 2] pads [1, 0, 2, 1] : tensor<1x8x9x9xf32> -> tensor<1x8x4x5xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.max_pool %[[X]] kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] ceil_mode : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
// CHECK-NEXT:    %[[V4:.*]] = ge.max_pool %[[E]] kernel [3, 3] strides [2, 2] : tensor<1x8x8x8xf32> -> tensor<1x8x3x3xf32>
// CHECK-NEXT:    %[[V5:.*]] = ge.max_pool %[[E]] kernel [3, 3] strides [2, 2] ceil_mode : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %[[V6:.*]] = ge.max_pool %[[S]] kernel [2, 2] strides [3, 3] pads [1, 1, 1, 1] ceil_mode : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
// CHECK-NEXT:    %[[V7:.*]] = ge.max_pool %[[X]] kernel [2, 3] strides [1, 2] : tensor<1x8x9x9xf32> -> tensor<1x8x8x4xf32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x8x7x7xf32>
// CHECK-NEXT:  }
func.func @max_pool(%x: tensor<1x8x9x9xf32>, %e: tensor<1x8x8x8xf32>, %s: tensor<1x1x4x4xf32>) -> tensor<1x8x7x7xf32> {
  %0 = ge.max_pool %x kernel [3, 3] : tensor<1x8x9x9xf32> -> tensor<1x8x7x7xf32>
  %1 = ge.max_pool %x kernel [3, 3] strides [2, 2] : tensor<1x8x9x9xf32> -> tensor<1x8x4x4xf32>
  %2 = ge.max_pool %x kernel [3, 3] strides [2, 2] pads [1, 0, 2, 1] : tensor<1x8x9x9xf32> -> tensor<1x8x4x5xf32>
  %3 = ge.max_pool %x kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] ceil_mode : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
  %4 = ge.max_pool %e kernel [3, 3] strides [2, 2] : tensor<1x8x8x8xf32> -> tensor<1x8x3x3xf32>
  %5 = ge.max_pool %e kernel [3, 3] strides [2, 2] ceil_mode : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  %6 = ge.max_pool %s kernel [2, 2] strides [3, 3] pads [1, 1, 1, 1] ceil_mode : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  %7 = ge.max_pool %x kernel [2, 3] strides [1, 2] : tensor<1x8x9x9xf32> -> tensor<1x8x8x4xf32>
  func.return %0 : tensor<1x8x7x7xf32>
}

// -----

// Pooling keeps the layout: NC1HWC0 (f16, f32 with c0 = 8, ui8 with its default c0), NHWC,
// and an i8 max_pool.
// CHECK-LABEL: func.func @max_pool_layouts(
// CHECK-SAME:  %[[H:.*]]: tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, %[[F:.*]]: tensor<1x3x6x6xf32, #ge.format<NC1HWC0, c0 = 8>>, %[[N:.*]]: tensor<1x3x6x6xf32, #ge.format<NHWC>>, %[[I:.*]]: tensor<1x4x4x4xi8>, %[[U:.*]]: tensor<1x33x4x4xui8, #ge.format<NC1HWC0>>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[V0:.*]] = ge.max_pool %[[H]] kernel [2, 2] strides [2, 2] : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.max_pool %[[F]] kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] : tensor<1x3x6x6xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>
// CHECK-NEXT:    %[[V2:.*]] = ge.max_pool %[[N]] kernel [2, 2] strides [2, 2] : tensor<1x3x6x6xf32, #ge.format<NHWC>> -> tensor<1x3x3x3xf32, #ge.format<NHWC>>
// CHECK-NEXT:    %[[V3:.*]] = ge.max_pool %[[I]] kernel [2, 2] strides [2, 2] : tensor<1x4x4x4xi8> -> tensor<1x4x2x2xi8>
// CHECK-NEXT:    %[[V4:.*]] = ge.max_pool %[[U]] kernel [3, 3] pads [1, 1, 1, 1] : tensor<1x33x4x4xui8, #ge.format<NC1HWC0>> -> tensor<1x33x4x4xui8, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @max_pool_layouts(%h: tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, %f: tensor<1x3x6x6xf32, #ge.format<NC1HWC0, c0 = 8>>, %n: tensor<1x3x6x6xf32, #ge.format<NHWC>>, %i: tensor<1x4x4x4xi8>, %u: tensor<1x33x4x4xui8, #ge.format<NC1HWC0>>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> {
  %0 = ge.max_pool %h kernel [2, 2] strides [2, 2] : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
  %1 = ge.max_pool %f kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] : tensor<1x3x6x6xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x3x3xf32, #ge.format<NC1HWC0, c0 = 8>>
  %2 = ge.max_pool %n kernel [2, 2] strides [2, 2] : tensor<1x3x6x6xf32, #ge.format<NHWC>> -> tensor<1x3x3x3xf32, #ge.format<NHWC>>
  %3 = ge.max_pool %i kernel [2, 2] strides [2, 2] : tensor<1x4x4x4xi8> -> tensor<1x4x2x2xi8>
  %4 = ge.max_pool %u kernel [3, 3] pads [1, 1, 1, 1] : tensor<1x33x4x4xui8, #ge.format<NC1HWC0>> -> tensor<1x33x4x4xui8, #ge.format<NC1HWC0>>
  func.return %0 : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
}

// -----

// ge.avg_pool: the same attributes plus count_include_pad, alone and with ceil_mode (8x8,
// kernel 3, strides 2, pads 1: ceil gives 5, floor would give 4).
// In the generic form xDSL places properties that were not written (here pads of %3) after
// the written ones, so both orders are accepted there.
// CHECK-LABEL: func.func @avg_pool(
// CHECK-SAME:  %[[X:.*]]: tensor<1x8x9x9xf32>, %[[E:.*]]: tensor<1x8x8x8xf32>) -> tensor<1x8x7x7xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.avg_pool %[[X]] kernel [3, 3] : tensor<1x8x9x9xf32> -> tensor<1x8x7x7xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.avg_pool %[[X]] kernel [3, 3] strides [2, 2] : tensor<1x8x9x9xf32> -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.avg_pool %[[X]] kernel [3, 3] strides [2, 2] pads [1, 0, 2, 1] : tensor<1x8x9x9xf32> -> tensor<1x8x4x5xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.avg_pool %[[E]] kernel [3, 3] strides [2, 2] ceil_mode : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
// CHECK-NEXT:    %[[V4:.*]] = ge.avg_pool %[[X]] kernel [2, 2] strides [2, 2] pads [0, 1, 0, 1] count_include_pad : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
// CHECK-NEXT:    %[[V5:.*]] = ge.avg_pool %[[E]] kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] ceil_mode count_include_pad : tensor<1x8x8x8xf32> -> tensor<1x8x5x5xf32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x8x7x7xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "avg_pool",
// GENERIC-SAME:   function_type = (tensor<1x8x9x9xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x7x7xf32>}> ({
// GENERIC-NEXT:  ^bb0(%[[X:.*]]: tensor<1x8x9x9xf32>, %[[E:.*]]: tensor<1x8x8x8xf32>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.avg_pool"(%[[X]]) <{kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>}> : (tensor<1x8x9x9xf32>) -> tensor<1x8x7x7xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.avg_pool"(%[[X]]) <{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>}> : (tensor<1x8x9x9xf32>) -> tensor<1x8x4x4xf32>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.avg_pool"(%[[X]]) <{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 2, 1>}> : (tensor<1x8x9x9xf32>) -> tensor<1x8x4x5xf32>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.avg_pool"(%[[E]]) <{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, {{(ceil_mode, pads = array<i64: 0, 0, 0, 0>|pads = array<i64: 0, 0, 0, 0>, ceil_mode)}}}> : (tensor<1x8x8x8xf32>) -> tensor<1x8x4x4xf32>
// GENERIC-NEXT:    %[[V4:.*]] = "ge.avg_pool"(%[[X]]) <{kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 1, 0, 1>, count_include_pad}> : (tensor<1x8x9x9xf32>) -> tensor<1x8x5x5xf32>
// GENERIC-NEXT:    %[[V5:.*]] = "ge.avg_pool"(%[[E]]) <{kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, ceil_mode, count_include_pad}> : (tensor<1x8x8x8xf32>) -> tensor<1x8x5x5xf32>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<1x8x7x7xf32>) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @avg_pool(%x: tensor<1x8x9x9xf32>, %e: tensor<1x8x8x8xf32>) -> tensor<1x8x7x7xf32> {
  %0 = ge.avg_pool %x kernel [3, 3] : tensor<1x8x9x9xf32> -> tensor<1x8x7x7xf32>
  %1 = ge.avg_pool %x kernel [3, 3] strides [2, 2] : tensor<1x8x9x9xf32> -> tensor<1x8x4x4xf32>
  %2 = ge.avg_pool %x kernel [3, 3] strides [2, 2] pads [1, 0, 2, 1] : tensor<1x8x9x9xf32> -> tensor<1x8x4x5xf32>
  %3 = ge.avg_pool %e kernel [3, 3] strides [2, 2] ceil_mode : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  %4 = ge.avg_pool %x kernel [2, 2] strides [2, 2] pads [0, 1, 0, 1] count_include_pad : tensor<1x8x9x9xf32> -> tensor<1x8x5x5xf32>
  %5 = ge.avg_pool %e kernel [3, 3] strides [2, 2] pads [1, 1, 1, 1] ceil_mode count_include_pad : tensor<1x8x8x8xf32> -> tensor<1x8x5x5xf32>
  func.return %0 : tensor<1x8x7x7xf32>
}

// -----

// ge.avg_pool on NC1HWC0, NHWC and i8 inputs.
// CHECK-LABEL: func.func @avg_pool_layouts(
// CHECK-SAME:  %[[H:.*]]: tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, %[[N:.*]]: tensor<1x3x6x6xf16, #ge.format<NHWC>>, %[[I:.*]]: tensor<1x4x4x4xi8>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[V0:.*]] = ge.avg_pool %[[H]] kernel [2, 2] strides [2, 2] count_include_pad : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.avg_pool %[[N]] kernel [3, 3] strides [3, 3] : tensor<1x3x6x6xf16, #ge.format<NHWC>> -> tensor<1x3x2x2xf16, #ge.format<NHWC>>
// CHECK-NEXT:    %[[V2:.*]] = ge.avg_pool %[[I]] kernel [2, 2] strides [2, 2] : tensor<1x4x4x4xi8> -> tensor<1x4x2x2xi8>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @avg_pool_layouts(%h: tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, %n: tensor<1x3x6x6xf16, #ge.format<NHWC>>, %i: tensor<1x4x4x4xi8>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> {
  %0 = ge.avg_pool %h kernel [2, 2] strides [2, 2] count_include_pad : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
  %1 = ge.avg_pool %n kernel [3, 3] strides [3, 3] : tensor<1x3x6x6xf16, #ge.format<NHWC>> -> tensor<1x3x2x2xf16, #ge.format<NHWC>>
  %2 = ge.avg_pool %i kernel [2, 2] strides [2, 2] : tensor<1x4x4x4xi8> -> tensor<1x4x2x2xi8>
  func.return %0 : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
}

// -----

// ge.global_avg_pool: NCHW, NC1HWC0 (batch 2, 17 channels) and NHWC.
// CHECK-LABEL: func.func @global_avg_pool(
// CHECK-SAME:  %[[X:.*]]: tensor<1x8x7x7xf32>, %[[H:.*]]: tensor<2x17x7x7xf16, #ge.format<NC1HWC0>>, %[[N:.*]]: tensor<1x3x5x5xf16, #ge.format<NHWC>>) -> tensor<1x8x1x1xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.global_avg_pool %[[X]] : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.global_avg_pool %[[H]] : tensor<2x17x7x7xf16, #ge.format<NC1HWC0>> -> tensor<2x17x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.global_avg_pool %[[N]] : tensor<1x3x5x5xf16, #ge.format<NHWC>> -> tensor<1x3x1x1xf16, #ge.format<NHWC>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x8x1x1xf32>
// CHECK-NEXT:  }
func.func @global_avg_pool(%x: tensor<1x8x7x7xf32>, %h: tensor<2x17x7x7xf16, #ge.format<NC1HWC0>>, %n: tensor<1x3x5x5xf16, #ge.format<NHWC>>) -> tensor<1x8x1x1xf32> {
  %0 = ge.global_avg_pool %x : tensor<1x8x7x7xf32> -> tensor<1x8x1x1xf32>
  %1 = ge.global_avg_pool %h : tensor<2x17x7x7xf16, #ge.format<NC1HWC0>> -> tensor<2x17x1x1xf16, #ge.format<NC1HWC0>>
  %2 = ge.global_avg_pool %n : tensor<1x3x5x5xf16, #ge.format<NHWC>> -> tensor<1x3x1x1xf16, #ge.format<NHWC>>
  func.return %0 : tensor<1x8x1x1xf32>
}

// -----

// ge.concat of 1, 2 and 3 inputs, on axes 0, 1 and 3 and on a rank-2 tensor.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:  %[[A:.*]]: tensor<1x16x4x4xf16>, %[[B:.*]]: tensor<1x8x4x4xf16>, %[[M:.*]]: tensor<2x3xf32>, %[[N:.*]]: tensor<4x3xf32>, %[[O:.*]]: tensor<1x3xf32>) -> tensor<1x24x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.concat %[[A]] axis 1 : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.concat %[[A]], %[[B]] axis 1 : tensor<1x16x4x4xf16>, tensor<1x8x4x4xf16> -> tensor<1x24x4x4xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.concat %[[M]], %[[N]], %[[O]] axis 0 : tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x3xf32> -> tensor<7x3xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.concat %[[M]], %[[M]], %[[M]] axis 1 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x9xf32>
// CHECK-NEXT:    %[[V4:.*]] = ge.concat %[[A]], %[[A]] axis 3 : tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16> -> tensor<1x16x4x8xf16>
// CHECK-NEXT:    %[[V5:.*]] = ge.concat %[[A]], %[[A]] axis 0 : tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16> -> tensor<2x16x4x4xf16>
// CHECK-NEXT:    func.return %[[V1]] : tensor<1x24x4x4xf16>
// CHECK-NEXT:  }
func.func @concat(%a: tensor<1x16x4x4xf16>, %b: tensor<1x8x4x4xf16>, %m: tensor<2x3xf32>, %n: tensor<4x3xf32>, %o: tensor<1x3xf32>) -> tensor<1x24x4x4xf16> {
  %0 = ge.concat %a axis 1 : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16>
  %1 = ge.concat %a, %b axis 1 : tensor<1x16x4x4xf16>, tensor<1x8x4x4xf16> -> tensor<1x24x4x4xf16>
  %2 = ge.concat %m, %n, %o axis 0 : tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x3xf32> -> tensor<7x3xf32>
  %3 = ge.concat %m, %m, %m axis 1 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x9xf32>
  %4 = ge.concat %a, %a axis 3 : tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16> -> tensor<1x16x4x8xf16>
  %5 = ge.concat %a, %a axis 0 : tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16> -> tensor<2x16x4x4xf16>
  func.return %1 : tensor<1x24x4x4xf16>
}

// -----

// Concat keeps the layout: NC1HWC0 channel concat (16 + 8 channels), NC1HWC0 on H with 3
// inputs, NHWC, i8 on the batch axis, 1-D ui8.
// CHECK-LABEL: func.func @concat_layouts(
// CHECK-SAME:  %[[A:.*]]: tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, %[[B:.*]]: tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, %[[N:.*]]: tensor<1x3x2x2xf32, #ge.format<NHWC>>, %[[I:.*]]: tensor<1x4x2x2xi8>, %[[J:.*]]: tensor<2x4x2x2xi8>, %[[U:.*]]: tensor<3xui8>) -> tensor<1x24x4x4xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[V0:.*]] = ge.concat %[[A]], %[[B]] axis 1 : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x24x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.concat %[[B]], %[[B]], %[[B]] axis 2 : tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x8x12x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.concat %[[N]], %[[N]] axis 1 : tensor<1x3x2x2xf32, #ge.format<NHWC>>, tensor<1x3x2x2xf32, #ge.format<NHWC>> -> tensor<1x6x2x2xf32, #ge.format<NHWC>>
// CHECK-NEXT:    %[[V3:.*]] = ge.concat %[[I]], %[[J]] axis 0 : tensor<1x4x2x2xi8>, tensor<2x4x2x2xi8> -> tensor<3x4x2x2xi8>
// CHECK-NEXT:    %[[V4:.*]] = ge.concat %[[U]], %[[U]] axis 0 : tensor<3xui8>, tensor<3xui8> -> tensor<6xui8>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x24x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "concat_layouts",
// GENERIC-SAME:   function_type = (tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x3x2x2xf32, #ge.format<NHWC>>, tensor<1x4x2x2xi8>, tensor<2x4x2x2xi8>, tensor<3xui8>) -> tensor<1x24x4x4xf16, #ge.format<NC1HWC0>>}> ({
// GENERIC-NEXT:  ^bb0(%[[A:.*]]: tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, %[[B:.*]]: tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, %[[N:.*]]: tensor<1x3x2x2xf32, #ge.format<NHWC>>, %[[I:.*]]: tensor<1x4x2x2xi8>, %[[J:.*]]: tensor<2x4x2x2xi8>, %[[U:.*]]: tensor<3xui8>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.concat"(%[[A]], %[[B]]) <{axis = 1 : i64}> : (tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>) -> tensor<1x24x4x4xf16, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.concat"(%[[B]], %[[B]], %[[B]]) <{axis = 2 : i64}> : (tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>) -> tensor<1x8x12x4xf16, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.concat"(%[[N]], %[[N]]) <{axis = 1 : i64}> : (tensor<1x3x2x2xf32, #ge.format<NHWC>>, tensor<1x3x2x2xf32, #ge.format<NHWC>>) -> tensor<1x6x2x2xf32, #ge.format<NHWC>>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.concat"(%[[I]], %[[J]]) <{axis = 0 : i64}> : (tensor<1x4x2x2xi8>, tensor<2x4x2x2xi8>) -> tensor<3x4x2x2xi8>
// GENERIC-NEXT:    %[[V4:.*]] = "ge.concat"(%[[U]], %[[U]]) <{axis = 0 : i64}> : (tensor<3xui8>, tensor<3xui8>) -> tensor<6xui8>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<1x24x4x4xf16, #ge.format<NC1HWC0>>) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @concat_layouts(%a: tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, %b: tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, %n: tensor<1x3x2x2xf32, #ge.format<NHWC>>, %i: tensor<1x4x2x2xi8>, %j: tensor<2x4x2x2xi8>, %u: tensor<3xui8>) -> tensor<1x24x4x4xf16, #ge.format<NC1HWC0>> {
  %0 = ge.concat %a, %b axis 1 : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x24x4x4xf16, #ge.format<NC1HWC0>>
  %1 = ge.concat %b, %b, %b axis 2 : tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x8x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x8x12x4xf16, #ge.format<NC1HWC0>>
  %2 = ge.concat %n, %n axis 1 : tensor<1x3x2x2xf32, #ge.format<NHWC>>, tensor<1x3x2x2xf32, #ge.format<NHWC>> -> tensor<1x6x2x2xf32, #ge.format<NHWC>>
  %3 = ge.concat %i, %j axis 0 : tensor<1x4x2x2xi8>, tensor<2x4x2x2xi8> -> tensor<3x4x2x2xi8>
  %4 = ge.concat %u, %u axis 0 : tensor<3xui8>, tensor<3xui8> -> tensor<6xui8>
  func.return %0 : tensor<1x24x4x4xf16, #ge.format<NC1HWC0>>
}

// -----

// ge.reshape: 4-D -> 2-D, 3-D -> 2-D and -> 4-D, i8, and to rank 0.
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:  %[[X:.*]]: tensor<1x64x1x1xf32>, %[[Y:.*]]: tensor<2x3x4xf16>, %[[I:.*]]: tensor<6xi8>, %[[S:.*]]: tensor<1xf32>) -> tensor<1x64xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.reshape %[[X]] : tensor<1x64x1x1xf32> -> tensor<1x64xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.reshape %[[Y]] : tensor<2x3x4xf16> -> tensor<6x4xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.reshape %[[Y]] : tensor<2x3x4xf16> -> tensor<1x2x3x4xf16>
// CHECK-NEXT:    %[[V3:.*]] = ge.reshape %[[I]] : tensor<6xi8> -> tensor<3x2xi8>
// CHECK-NEXT:    %[[V4:.*]] = ge.reshape %[[S]] : tensor<1xf32> -> tensor<f32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x64xf32>
// CHECK-NEXT:  }
func.func @reshape(%x: tensor<1x64x1x1xf32>, %y: tensor<2x3x4xf16>, %i: tensor<6xi8>, %s: tensor<1xf32>) -> tensor<1x64xf32> {
  %0 = ge.reshape %x : tensor<1x64x1x1xf32> -> tensor<1x64xf32>
  %1 = ge.reshape %y : tensor<2x3x4xf16> -> tensor<6x4xf16>
  %2 = ge.reshape %y : tensor<2x3x4xf16> -> tensor<1x2x3x4xf16>
  %3 = ge.reshape %i : tensor<6xi8> -> tensor<3x2xi8>
  %4 = ge.reshape %s : tensor<1xf32> -> tensor<f32>
  func.return %0 : tensor<1x64xf32>
}

// -----

// ge.flatten: the default axis 1 (omitted when printed, also when written), axis 0, axis 2,
// axis = rank, and on a rank-2 f16 tensor.
// CHECK-LABEL: func.func @flatten(
// CHECK-SAME:  %[[X:.*]]: tensor<2x8x3x3xf32>, %[[Y:.*]]: tensor<4x5xf16>) -> tensor<2x72xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.flatten %[[X]] : tensor<2x8x3x3xf32> -> tensor<2x72xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.flatten %[[X]] : tensor<2x8x3x3xf32> -> tensor<2x72xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.flatten %[[X]] axis 0 : tensor<2x8x3x3xf32> -> tensor<1x144xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.flatten %[[X]] axis 2 : tensor<2x8x3x3xf32> -> tensor<16x9xf32>
// CHECK-NEXT:    %[[V4:.*]] = ge.flatten %[[X]] axis 4 : tensor<2x8x3x3xf32> -> tensor<144x1xf32>
// CHECK-NEXT:    %[[V5:.*]] = ge.flatten %[[Y]] axis 2 : tensor<4x5xf16> -> tensor<20x1xf16>
// CHECK-NEXT:    func.return %[[V0]] : tensor<2x72xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "flatten",
// GENERIC-SAME:   function_type = (tensor<2x8x3x3xf32>, tensor<4x5xf16>) -> tensor<2x72xf32>}> ({
// GENERIC-NEXT:  ^bb0(%[[X:.*]]: tensor<2x8x3x3xf32>, %[[Y:.*]]: tensor<4x5xf16>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.flatten"(%[[X]]) <{axis = 1 : i64}> : (tensor<2x8x3x3xf32>) -> tensor<2x72xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.flatten"(%[[X]]) <{axis = 1 : i64}> : (tensor<2x8x3x3xf32>) -> tensor<2x72xf32>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.flatten"(%[[X]]) <{axis = 0 : i64}> : (tensor<2x8x3x3xf32>) -> tensor<1x144xf32>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.flatten"(%[[X]]) <{axis = 2 : i64}> : (tensor<2x8x3x3xf32>) -> tensor<16x9xf32>
// GENERIC-NEXT:    %[[V4:.*]] = "ge.flatten"(%[[X]]) <{axis = 4 : i64}> : (tensor<2x8x3x3xf32>) -> tensor<144x1xf32>
// GENERIC-NEXT:    %[[V5:.*]] = "ge.flatten"(%[[Y]]) <{axis = 2 : i64}> : (tensor<4x5xf16>) -> tensor<20x1xf16>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<2x72xf32>) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @flatten(%x: tensor<2x8x3x3xf32>, %y: tensor<4x5xf16>) -> tensor<2x72xf32> {
  %0 = ge.flatten %x : tensor<2x8x3x3xf32> -> tensor<2x72xf32>
  %1 = ge.flatten %x axis 1 : tensor<2x8x3x3xf32> -> tensor<2x72xf32>
  %2 = ge.flatten %x axis 0 : tensor<2x8x3x3xf32> -> tensor<1x144xf32>
  %3 = ge.flatten %x axis 2 : tensor<2x8x3x3xf32> -> tensor<16x9xf32>
  %4 = ge.flatten %x axis 4 : tensor<2x8x3x3xf32> -> tensor<144x1xf32>
  %5 = ge.flatten %y axis 2 : tensor<4x5xf16> -> tensor<20x1xf16>
  func.return %0 : tensor<2x72xf32>
}

// -----

// ge.transpose: rank 3, NCHW -> NHWC order on rank 4, i8 rank 2, the identity perm.
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:  %[[X:.*]]: tensor<2x3x4xf32>, %[[Y:.*]]: tensor<1x8x4x4xf16>, %[[M:.*]]: tensor<3x5xi8>) -> tensor<2x4x3xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.transpose %[[X]] perm [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.transpose %[[Y]] perm [0, 2, 3, 1] : tensor<1x8x4x4xf16> -> tensor<1x4x4x8xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.transpose %[[M]] perm [1, 0] : tensor<3x5xi8> -> tensor<5x3xi8>
// CHECK-NEXT:    %[[V3:.*]] = ge.transpose %[[X]] perm [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<2x4x3xf32>
// CHECK-NEXT:  }
func.func @transpose(%x: tensor<2x3x4xf32>, %y: tensor<1x8x4x4xf16>, %m: tensor<3x5xi8>) -> tensor<2x4x3xf32> {
  %0 = ge.transpose %x perm [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  %1 = ge.transpose %y perm [0, 2, 3, 1] : tensor<1x8x4x4xf16> -> tensor<1x4x4x8xf16>
  %2 = ge.transpose %m perm [1, 0] : tensor<3x5xi8> -> tensor<5x3xi8>
  %3 = ge.transpose %x perm [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  func.return %0 : tensor<2x4x3xf32>
}

// -----

// ge.softmax on several axes of rank-2 f32 and rank-4 f16 tensors, with an attribute.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:  %[[X:.*]]: tensor<2x10xf32>, %[[Y:.*]]: tensor<1x8x4x4xf16>) -> tensor<2x10xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.softmax %[[X]] axis 1 : tensor<2x10xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.softmax %[[X]] axis 0 : tensor<2x10xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.softmax %[[Y]] axis 1 : tensor<1x8x4x4xf16>
// CHECK-NEXT:    %[[V3:.*]] = ge.softmax %[[Y]] axis 3 {note = "last"} : tensor<1x8x4x4xf16>
// CHECK-NEXT:    func.return %[[V0]] : tensor<2x10xf32>
// CHECK-NEXT:  }
func.func @softmax(%x: tensor<2x10xf32>, %y: tensor<1x8x4x4xf16>) -> tensor<2x10xf32> {
  %0 = ge.softmax %x axis 1 : tensor<2x10xf32>
  %1 = ge.softmax %x axis 0 : tensor<2x10xf32>
  %2 = ge.softmax %y axis 1 : tensor<1x8x4x4xf16>
  %3 = ge.softmax %y axis 3 {note = "last"} : tensor<1x8x4x4xf16>
  func.return %0 : tensor<2x10xf32>
}

// -----

// ge.identity accepts any type: f32, an encoded NC1HWC0 and FRACTAL_Z value, i8, rank-0 i32.
// CHECK-LABEL: func.func @identity(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x8x8xf32>, %[[H:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %[[I:.*]]: tensor<3xi8>, %[[W:.*]]: tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, %[[S:.*]]: tensor<i32>) -> tensor<1x4x8x8xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.identity %[[X]] : tensor<1x4x8x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.identity %[[H]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.identity %[[I]] : tensor<3xi8>
// CHECK-NEXT:    %[[V3:.*]] = ge.identity %[[W]] : tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V4:.*]] = ge.identity %[[S]] : tensor<i32>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x8x8xf32>
// CHECK-NEXT:  }
func.func @identity(%x: tensor<1x4x8x8xf32>, %h: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %i: tensor<3xi8>, %w: tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>, %s: tensor<i32>) -> tensor<1x4x8x8xf32> {
  %0 = ge.identity %x : tensor<1x4x8x8xf32>
  %1 = ge.identity %h : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  %2 = ge.identity %i : tensor<3xi8>
  %3 = ge.identity %w : tensor<8x17x3x3xf16, #ge.format<FRACTAL_Z>>
  %4 = ge.identity %s : tensor<i32>
  func.return %0 : tensor<1x4x8x8xf32>
}

// -----

// ge.cast f32 -> f16 and f16 -> f32; the layout stays: NC1HWC0 with c0 = 8 both ways,
// NC1HWC0 with the default c0, NHWC.
// CHECK-LABEL: func.func @cast(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x8x8xf32>, %[[H:.*]]: tensor<16xf16>, %[[F:.*]]: tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, %[[G:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %[[N:.*]]: tensor<1x3x2x2xf32, #ge.format<NHWC>>) -> tensor<1x4x8x8xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.cast %[[X]] : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.cast %[[H]] : tensor<16xf16> -> tensor<16xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.cast %[[F]] : tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0, c0 = 8>>
// CHECK-NEXT:    %[[V3:.*]] = ge.cast %[[V2]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// CHECK-NEXT:    %[[V4:.*]] = ge.cast %[[G]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf32, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V5:.*]] = ge.cast %[[N]] : tensor<1x3x2x2xf32, #ge.format<NHWC>> -> tensor<1x3x2x2xf16, #ge.format<NHWC>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1x4x8x8xf16>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "cast",
// GENERIC-SAME:   function_type = (tensor<1x4x8x8xf32>, tensor<16xf16>, tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x3x2x2xf32, #ge.format<NHWC>>) -> tensor<1x4x8x8xf16>}> ({
// GENERIC-NEXT:  ^bb0(%[[X:.*]]: tensor<1x4x8x8xf32>, %[[H:.*]]: tensor<16xf16>, %[[F:.*]]: tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, %[[G:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %[[N:.*]]: tensor<1x3x2x2xf32, #ge.format<NHWC>>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.cast"(%[[X]]) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf16>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.cast"(%[[H]]) : (tensor<16xf16>) -> tensor<16xf32>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.cast"(%[[F]]) : (tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>) -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0, c0 = 8>>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.cast"(%[[V2]]) : (tensor<1x3x2x2xf16, #ge.format<NC1HWC0, c0 = 8>>) -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// GENERIC-NEXT:    %[[V4:.*]] = "ge.cast"(%[[G]]) : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x2x2xf32, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[V5:.*]] = "ge.cast"(%[[N]]) : (tensor<1x3x2x2xf32, #ge.format<NHWC>>) -> tensor<1x3x2x2xf16, #ge.format<NHWC>>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<1x4x8x8xf16>) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @cast(%x: tensor<1x4x8x8xf32>, %h: tensor<16xf16>, %f: tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, %g: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, %n: tensor<1x3x2x2xf32, #ge.format<NHWC>>) -> tensor<1x4x8x8xf16> {
  %0 = ge.cast %x : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf16>
  %1 = ge.cast %h : tensor<16xf16> -> tensor<16xf32>
  %2 = ge.cast %f : tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0, c0 = 8>>
  %3 = ge.cast %2 : tensor<1x3x2x2xf16, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
  %4 = ge.cast %g : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf32, #ge.format<NC1HWC0>>
  %5 = ge.cast %n : tensor<1x3x2x2xf32, #ge.format<NHWC>> -> tensor<1x3x2x2xf16, #ge.format<NHWC>>
  func.return %0 : tensor<1x4x8x8xf16>
}

// -----

// ge.cast from the graph's integer types and i1 (ids, masks) to f32 and f16.
// CHECK-LABEL: func.func @cast_from_integers(
// CHECK-SAME:  %[[I:.*]]: tensor<2x8xi64>, %[[B:.*]]: tensor<2x8xi1>, %[[J:.*]]: tensor<4xi32>, %[[U:.*]]: tensor<4xui8>) -> tensor<2x8xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.cast %[[I]] : tensor<2x8xi64> -> tensor<2x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.cast %[[B]] : tensor<2x8xi1> -> tensor<2x8xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.cast %[[J]] : tensor<4xi32> -> tensor<4xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.cast %[[U]] : tensor<4xui8> -> tensor<4xf16>
// CHECK-NEXT:    func.return %[[V0]] : tensor<2x8xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "cast_from_integers",
// GENERIC:         "ge.cast"(%{{.*}}) : (tensor<2x8xi64>) -> tensor<2x8xf32>
// GENERIC-NEXT:    "ge.cast"(%{{.*}}) : (tensor<2x8xi1>) -> tensor<2x8xf16>
func.func @cast_from_integers(%i: tensor<2x8xi64>, %b: tensor<2x8xi1>, %j: tensor<4xi32>, %u: tensor<4xui8>) -> tensor<2x8xf32> {
  %0 = ge.cast %i : tensor<2x8xi64> -> tensor<2x8xf32>
  %1 = ge.cast %b : tensor<2x8xi1> -> tensor<2x8xf16>
  %2 = ge.cast %j : tensor<4xi32> -> tensor<4xf32>
  %3 = ge.cast %u : tensor<4xui8> -> tensor<4xf16>
  func.return %0 : tensor<2x8xf32>
}

// -----

// ge.hcom_all_reduce with each reduction (sum, prod, max, min) on f32, f16, i32, i8 and an
// NC1HWC0 value, with a discardable attribute.
// CHECK-LABEL: func.func @hcom_all_reduce(
// CHECK-SAME:  %[[X:.*]]: tensor<1024xf32>, %[[H:.*]]: tensor<2x8xf16>, %[[I:.*]]: tensor<16xi32>, %[[B:.*]]: tensor<16xi8>, %[[N:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1024xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.hcom_all_reduce %[[X]] reduction sum group "world" rank_size 8 : tensor<1024xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.hcom_all_reduce %[[H]] reduction prod group "dp" rank_size 2 : tensor<2x8xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.hcom_all_reduce %[[I]] reduction max group "tp" rank_size 4 : tensor<16xi32>
// CHECK-NEXT:    %[[V3:.*]] = ge.hcom_all_reduce %[[B]] reduction min group "world" rank_size 1 : tensor<16xi8>
// CHECK-NEXT:    %[[V4:.*]] = ge.hcom_all_reduce %[[N]] reduction sum group "hccl_world_group" rank_size 16 {note = "grad"} : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<1024xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "hcom_all_reduce",
// GENERIC-SAME:   function_type = (tensor<1024xf32>, tensor<2x8xf16>, tensor<16xi32>, tensor<16xi8>, tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1024xf32>}> ({
// GENERIC-NEXT:  ^bb0(%[[X:.*]]: tensor<1024xf32>, %[[H:.*]]: tensor<2x8xf16>, %[[I:.*]]: tensor<16xi32>, %[[B:.*]]: tensor<16xi8>, %[[N:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.hcom_all_reduce"(%[[X]]) <{reduction = #ge<reduction sum>, group = "world", rank_size = 8 : i64}> : (tensor<1024xf32>) -> tensor<1024xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.hcom_all_reduce"(%[[H]]) <{reduction = #ge<reduction prod>, group = "dp", rank_size = 2 : i64}> : (tensor<2x8xf16>) -> tensor<2x8xf16>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.hcom_all_reduce"(%[[I]]) <{reduction = #ge<reduction max>, group = "tp", rank_size = 4 : i64}> : (tensor<16xi32>) -> tensor<16xi32>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.hcom_all_reduce"(%[[B]]) <{reduction = #ge<reduction min>, group = "world", rank_size = 1 : i64}> : (tensor<16xi8>) -> tensor<16xi8>
// GENERIC-NEXT:    %[[V4:.*]] = "ge.hcom_all_reduce"(%[[N]]) <{reduction = #ge<reduction sum>, group = "hccl_world_group", rank_size = 16 : i64}> {note = "grad"} : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<1024xf32>) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @hcom_all_reduce(%x: tensor<1024xf32>, %h: tensor<2x8xf16>, %i: tensor<16xi32>, %b: tensor<16xi8>, %n: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1024xf32> {
  %0 = ge.hcom_all_reduce %x reduction sum group "world" rank_size 8 : tensor<1024xf32>
  %1 = ge.hcom_all_reduce %h reduction prod group "dp" rank_size 2 : tensor<2x8xf16>
  %2 = ge.hcom_all_reduce %i reduction max group "tp" rank_size 4 : tensor<16xi32>
  %3 = ge.hcom_all_reduce %b reduction min group "world" rank_size 1 : tensor<16xi8>
  %4 = ge.hcom_all_reduce %n reduction sum group "hccl_world_group" rank_size 16 {note = "grad"} : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return %0 : tensor<1024xf32>
}

// -----

// ge.hcom_all_gather: dim 0 is multiplied by rank_size (1 keeps the shape); i32; NC1HWC0.
// CHECK-LABEL: func.func @hcom_all_gather(
// CHECK-SAME:  %[[X:.*]]: tensor<2x8xf16>, %[[V:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<1x4xi32>, %[[N:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<8x8xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.hcom_all_gather %[[X]] group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.hcom_all_gather %[[V]] group "dp" rank_size 1 : tensor<3xf32> -> tensor<3xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.hcom_all_gather %[[I]] group "tp" rank_size 8 : tensor<1x4xi32> -> tensor<8x4xi32>
// CHECK-NEXT:    %[[V3:.*]] = ge.hcom_all_gather %[[N]] group "world" rank_size 2 : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<8x8xf16>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "hcom_all_gather",
// GENERIC-SAME:   function_type = (tensor<2x8xf16>, tensor<3xf32>, tensor<1x4xi32>, tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<8x8xf16>}> ({
// GENERIC-NEXT:  ^bb0(%[[X:.*]]: tensor<2x8xf16>, %[[V:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<1x4xi32>, %[[N:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.hcom_all_gather"(%[[X]]) <{group = "world", rank_size = 4 : i64}> : (tensor<2x8xf16>) -> tensor<8x8xf16>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.hcom_all_gather"(%[[V]]) <{group = "dp", rank_size = 1 : i64}> : (tensor<3xf32>) -> tensor<3xf32>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.hcom_all_gather"(%[[I]]) <{group = "tp", rank_size = 8 : i64}> : (tensor<1x4xi32>) -> tensor<8x4xi32>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.hcom_all_gather"(%[[N]]) <{group = "world", rank_size = 2 : i64}> : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    "func.return"(%[[V0]]) : (tensor<8x8xf16>) -> ()
// GENERIC-NEXT:  }) : () -> ()
func.func @hcom_all_gather(%x: tensor<2x8xf16>, %v: tensor<3xf32>, %i: tensor<1x4xi32>, %n: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<8x8xf16> {
  %0 = ge.hcom_all_gather %x group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf16>
  %1 = ge.hcom_all_gather %v group "dp" rank_size 1 : tensor<3xf32> -> tensor<3xf32>
  %2 = ge.hcom_all_gather %i group "tp" rank_size 8 : tensor<1x4xi32> -> tensor<8x4xi32>
  %3 = ge.hcom_all_gather %n group "world" rank_size 2 : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return %0 : tensor<8x8xf16>
}
