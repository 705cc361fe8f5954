// Round-trip tests of the `npu` dialect (GE's task list): every op and attribute.  The
// custom form prints exactly as checked below, reparses to the same IR (custom and generic),
// the generic form is valid upstream MLIR, and cse/canonicalize/dce keep every task and
// buffer (tasks have memory effects, allocs allocate).
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// (the upstream check of this RUN line is in test/lit/upstream/dialects.test)
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ge-opt %s --split-input-file -p cse,canonicalize,dce | filecheck %s --check-prefix=PASSES

// A device program as the lowering writes it: a trans_data to NC1HWC0 on stream 0, a conv
// with FRACTAL_Z weights on stream 1 after an event, views, a copy into the output.
// CHECK-LABEL: func.func @conv_program(
// CHECK-SAME:  %x: memref<1x3x8x8xf32> {npu.input = "x"}, %y: memref<1x1x8x8x16xf32> {npu.output = "y", npu.type = tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>}) attributes {npu.program} {
// CHECK-NEXT:    %w = npu.weight #npu.external<"model.weights", offset = 0, length = 9216> : memref<9x1x16x16xf32>
// CHECK-NEXT:    %bias = npu.weight dense<[5.000000e-01, -1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00]> : memref<16xf32>
// CHECK-NEXT:    %b = npu.alloc : memref<1x1x8x8x16xf32>
// CHECK-NEXT:    %c = npu.alloc : memref<1x1x8x8x16xf32>
// CHECK-NEXT:    npu.launch "trans_data"(%x) -> (%b) stream 0 priority 0 : (tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 0, bytes_in = 768, bytes_out = 4096, blocks = 1> attrs {}
// CHECK-NEXT:    npu.record 0 stream 0
// CHECK-NEXT:    npu.wait 0 stream 1
// CHECK-NEXT:    npu.launch "conv2d"(%b, %w, %bias) -> (%c) stream 1 priority -1 : (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>, tensor<16x3x3x3xf32, #npu.format<FRACTAL_Z>>, tensor<16xf32>) -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 55296, bytes_in = 13376, bytes_out = 4096, blocks = 1> attrs {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = true}
// CHECK-NEXT:    %v = npu.view %c[0] : memref<1x1x8x8x16xf32> -> memref<64x16xf32>
// CHECK-NEXT:    %u = npu.view %v[256] : memref<64x16xf32> -> memref<2x16xf32>
// CHECK-NEXT:    npu.copy %c -> %y stream 1 cost <vector, flops = 0, bytes_in = 4096, bytes_out = 4096, blocks = 1> : memref<1x1x8x8x16xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "conv_program",
// GENERIC-NEXT:  ^bb0(%x: memref<1x3x8x8xf32>, %y: memref<1x1x8x8x16xf32>):
// GENERIC-NEXT:    %w = "npu.weight"() <{value = #npu.external<"model.weights", offset = 0, length = 9216>}> : () -> memref<9x1x16x16xf32>
// GENERIC-NEXT:    %bias = "npu.weight"() <{value = dense<[5.000000e-01, -1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<16xf32>}> : () -> memref<16xf32>
// GENERIC-NEXT:    %b = "npu.alloc"() : () -> memref<1x1x8x8x16xf32>
// GENERIC-NEXT:    %c = "npu.alloc"() : () -> memref<1x1x8x8x16xf32>
// GENERIC-NEXT:    "npu.launch"(%x, %b) <{kernel = "trans_data", stream = 0 : i64, priority = 0 : i64, in_types = [tensor<1x3x8x8xf32>], out_types = [tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>], cost = #npu.cost<vector, flops = 0, bytes_in = 768, bytes_out = 4096, blocks = 1>, attrs = {}, operandSegmentSizes = array<i32: 1, 1>}> : (memref<1x3x8x8xf32>, memref<1x1x8x8x16xf32>) -> ()
// GENERIC-NEXT:    "npu.record"() <{event = 0 : i64, stream = 0 : i64}> : () -> ()
// GENERIC-NEXT:    "npu.wait"() <{event = 0 : i64, stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:    "npu.launch"(%b, %w, %bias, %c) <{kernel = "conv2d", stream = 1 : i64, priority = -1 : i64, in_types = [tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>, tensor<16x3x3x3xf32, #npu.format<FRACTAL_Z>>, tensor<16xf32>], out_types = [tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>], cost = #npu.cost<cube, flops = 55296, bytes_in = 13376, bytes_out = 4096, blocks = 1>, attrs = {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = true}, operandSegmentSizes = array<i32: 3, 1>}> : (memref<1x1x8x8x16xf32>, memref<9x1x16x16xf32>, memref<16xf32>, memref<1x1x8x8x16xf32>) -> ()
// GENERIC-NEXT:    %v = "npu.view"(%c) <{offset = 0 : i64}> : (memref<1x1x8x8x16xf32>) -> memref<64x16xf32>
// GENERIC-NEXT:    %u = "npu.view"(%v) <{offset = 256 : i64}> : (memref<64x16xf32>) -> memref<2x16xf32>
// GENERIC-NEXT:    "npu.copy"(%c, %y) <{stream = 1 : i64, cost = #npu.cost<vector, flops = 0, bytes_in = 4096, bytes_out = 4096, blocks = 1>}> : (memref<1x1x8x8x16xf32>, memref<1x1x8x8x16xf32>) -> ()
// GENERIC-NEXT:    "func.return"() : () -> ()
// GENERIC-NEXT:  }) {npu.program} : () -> ()
// PASSES-LABEL: func.func @conv_program(
// PASSES-NEXT:    %w = npu.weight #npu.external<"model.weights", offset = 0, length = 9216> : memref<9x1x16x16xf32>
// PASSES-NEXT:    %bias = npu.weight dense<[5.000000e-01, -1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00]> : memref<16xf32>
// PASSES-NEXT:    %b = npu.alloc : memref<1x1x8x8x16xf32>
// PASSES-NEXT:    %c = npu.alloc : memref<1x1x8x8x16xf32>
// PASSES-NEXT:    npu.launch "trans_data"(%x) -> (%b) stream 0 priority 0 : (tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 0, bytes_in = 768, bytes_out = 4096, blocks = 1> attrs {}
// PASSES-NEXT:    npu.record 0 stream 0
// PASSES-NEXT:    npu.wait 0 stream 1
// PASSES-NEXT:    npu.launch "conv2d"(%b, %w, %bias) -> (%c) stream 1 priority -1 : (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>, tensor<16x3x3x3xf32, #npu.format<FRACTAL_Z>>, tensor<16xf32>) -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 55296, bytes_in = 13376, bytes_out = 4096, blocks = 1> attrs {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = true}
// PASSES-NEXT:    npu.copy %c -> %y stream 1 cost <vector, flops = 0, bytes_in = 4096, bytes_out = 4096, blocks = 1> : memref<1x1x8x8x16xf32>
// PASSES-NEXT:    func.return
// PASSES-NEXT:  }
func.func @conv_program(%x: memref<1x3x8x8xf32> {npu.input = "x"}, %y: memref<1x1x8x8x16xf32> {npu.output = "y", npu.type = tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>}) attributes {npu.program} {
  %w = npu.weight #npu.external<"model.weights", offset = 0, length = 9216> : memref<9x1x16x16xf32>
  %bias = npu.weight dense<[0.5, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]> : memref<16xf32>
  %b = npu.alloc : memref<1x1x8x8x16xf32>
  %c = npu.alloc : memref<1x1x8x8x16xf32>
  npu.launch "trans_data"(%x) -> (%b) stream 0 priority 0 : (tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 0, bytes_in = 768, bytes_out = 4096, blocks = 1> attrs {}
  npu.record 0 stream 0
  npu.wait 0 stream 1
  npu.launch "conv2d"(%b, %w, %bias) -> (%c) stream 1 priority -1 : (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>, tensor<16x3x3x3xf32, #npu.format<FRACTAL_Z>>, tensor<16xf32>) -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 55296, bytes_in = 13376, bytes_out = 4096, blocks = 1> attrs {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = true}
  %v = npu.view %c[0] : memref<1x1x8x8x16xf32> -> memref<64x16xf32>
  %u = npu.view %v[256] : memref<64x16xf32> -> memref<2x16xf32>
  npu.copy %c -> %y stream 1 cost <vector, flops = 0, bytes_in = 4096, bytes_out = 4096, blocks = 1> : memref<1x1x8x8x16xf32>
  func.return
}

// -----

// Weights: inline dense data of several element types, written with the buffer's type and
// printed exactly (a hex string prints back as a list when small, a splat as one value);
// external data; elided data with a discardable attribute.
// CHECK-LABEL: func.func @weights(
// CHECK-SAME:  ) attributes {npu.program} {
// CHECK-NEXT:    %0 = npu.weight dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 1.000000e-01]]> : memref<2x3xf32>
// CHECK-NEXT:    %1 = npu.weight dense<1.500000e+00> : memref<1x1x2x2x16xf16>
// CHECK-NEXT:    %2 = npu.weight dense<[1, -2, 127]> : memref<3xi8>
// CHECK-NEXT:    %3 = npu.weight dense<[0, 255]> : memref<2xui8>
// CHECK-NEXT:    %4 = npu.weight dense<[1.000000e+00, 2.000000e+00]> : memref<2xf32>
// CHECK-NEXT:    %5 = npu.weight dense<[7, 8]> : memref<2xi32>
// CHECK-NEXT:    %6 = npu.weight #npu.external<"model.weights", offset = 64, length = 4096> : memref<1024xf32>
// CHECK-NEXT:    %7 = npu.weight #npu.elided : memref<64x64xf32> {note = "big"}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "weights",
// GENERIC-NEXT:    %0 = "npu.weight"() <{value = dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 1.000000e-01]]> : tensor<2x3xf32>}> : () -> memref<2x3xf32>
// GENERIC-NEXT:    %1 = "npu.weight"() <{value = dense<1.500000e+00> : tensor<1x1x2x2x16xf16>}> : () -> memref<1x1x2x2x16xf16>
// GENERIC-NEXT:    %2 = "npu.weight"() <{value = dense<[1, -2, 127]> : tensor<3xi8>}> : () -> memref<3xi8>
// GENERIC-NEXT:    %3 = "npu.weight"() <{value = dense<[0, 255]> : tensor<2xui8>}> : () -> memref<2xui8>
// GENERIC-NEXT:    %4 = "npu.weight"() <{value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}> : () -> memref<2xf32>
// GENERIC-NEXT:    %5 = "npu.weight"() <{value = dense<[7, 8]> : tensor<2xi32>}> : () -> memref<2xi32>
// GENERIC-NEXT:    %6 = "npu.weight"() <{value = #npu.external<"model.weights", offset = 64, length = 4096>}> : () -> memref<1024xf32>
// GENERIC-NEXT:    %7 = "npu.weight"() <{value = #npu.elided}> {note = "big"} : () -> memref<64x64xf32>
// GENERIC-NEXT:    "func.return"() : () -> ()
// GENERIC-NEXT:  }) {npu.program} : () -> ()
// PASSES-LABEL: func.func @weights(
// PASSES-NEXT:    func.return
// PASSES-NEXT:  }
func.func @weights() attributes {npu.program} {
  %0 = npu.weight dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 0.1]]> : memref<2x3xf32>
  %1 = npu.weight dense<1.5> : memref<1x1x2x2x16xf16>
  %2 = npu.weight dense<[1, -2, 127]> : memref<3xi8>
  %3 = npu.weight dense<[0, 255]> : memref<2xui8>
  %4 = npu.weight dense<"0x0000803F00000040"> : memref<2xf32>
  %5 = npu.weight dense<[7, 8]> : memref<2xi32>
  %6 = npu.weight #npu.external<"model.weights", offset = 64, length = 4096> : memref<1024xf32>
  %7 = npu.weight #npu.elided : memref<64x64xf32> {note = "big"}
  func.return
}

// -----

// Launches: a copy kernel, grouped FRACTAL_Z with c0 = 8, NHWC, i8 NC1HWC0 (C0 32),
// a negative priority, a discardable attribute (after the kernel's), `attrs` omitted when
// parsing (printed as `attrs {}`).
// CHECK-LABEL: func.func @launches(
// CHECK-SAME:  %x: memref<1x4x4x2xf32> {npu.input = "x"}, %i: memref<1x1x2x2x32xi8> {npu.input = "i"}, %y: memref<2x3xf32> {npu.output = "y"}, %z: memref<2x3xf32> {npu.output = "z"}) attributes {npu.program} {
// CHECK-NEXT:    %c = npu.weight dense<5.000000e-01> : memref<2x3xf32>
// CHECK-NEXT:    npu.launch "copy"(%c) -> (%y) stream 0 priority 0 : (tensor<2x3xf32>) -> (tensor<2x3xf32>) cost <none, flops = 0, bytes_in = 24, bytes_out = 24, blocks = 0> attrs {}
// CHECK-NEXT:    npu.launch "relu"(%y) -> (%z) stream 0 priority 0 : (tensor<2x3xf32>) -> (tensor<2x3xf32>) cost <vector, flops = 6, bytes_in = 24, bytes_out = 24, blocks = 1> attrs {} attributes {note = "discardable"}
// CHECK-NEXT:    %w = npu.weight dense<0.000000e+00> : memref<1x1x16x8xf32>
// CHECK-NEXT:    %b = npu.alloc : memref<1x4x4x4xf32>
// CHECK-NEXT:    npu.launch "conv2d"(%x, %w) -> (%b) stream 0 priority -3 : (tensor<1x2x4x4xf32, #npu.format<NHWC>>, tensor<4x1x1x1xf32, #npu.format<FRACTAL_Z, c0 = 8, groups = 2>>) -> (tensor<1x4x4x4xf32>) cost <cube, flops = 64, bytes_in = 1152, bytes_out = 256, blocks = 1> attrs {groups = 2 : i64, has_bias = false}
// CHECK-NEXT:    %r = npu.alloc : memref<1x1x2x2x32xi8>
// CHECK-NEXT:    npu.launch "relu"(%i) -> (%r) stream 0 priority 0 : (tensor<1x5x2x2xi8, #npu.format<NC1HWC0>>) -> (tensor<1x5x2x2xi8, #npu.format<NC1HWC0>>) cost <vector, flops = 20, bytes_in = 128, bytes_out = 128, blocks = 1> attrs {}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "launches",
// GENERIC-NEXT:  ^bb0(%x: memref<1x4x4x2xf32>, %i: memref<1x1x2x2x32xi8>, %y: memref<2x3xf32>, %z: memref<2x3xf32>):
// GENERIC-NEXT:    %c = "npu.weight"() <{value = dense<5.000000e-01> : tensor<2x3xf32>}> : () -> memref<2x3xf32>
// GENERIC-NEXT:    "npu.launch"(%c, %y) <{kernel = "copy", stream = 0 : i64, priority = 0 : i64, in_types = [tensor<2x3xf32>], out_types = [tensor<2x3xf32>], cost = #npu.cost<none, flops = 0, bytes_in = 24, bytes_out = 24, blocks = 0>, attrs = {}, operandSegmentSizes = array<i32: 1, 1>}> : (memref<2x3xf32>, memref<2x3xf32>) -> ()
// GENERIC-NEXT:    "npu.launch"(%y, %z) <{kernel = "relu", stream = 0 : i64, priority = 0 : i64, in_types = [tensor<2x3xf32>], out_types = [tensor<2x3xf32>], cost = #npu.cost<vector, flops = 6, bytes_in = 24, bytes_out = 24, blocks = 1>, attrs = {}, operandSegmentSizes = array<i32: 1, 1>}> {note = "discardable"} : (memref<2x3xf32>, memref<2x3xf32>) -> ()
// GENERIC-NEXT:    %w = "npu.weight"() <{value = dense<0.000000e+00> : tensor<1x1x16x8xf32>}> : () -> memref<1x1x16x8xf32>
// GENERIC-NEXT:    %b = "npu.alloc"() : () -> memref<1x4x4x4xf32>
// GENERIC-NEXT:    "npu.launch"(%x, %w, %b) <{kernel = "conv2d", stream = 0 : i64, priority = -3 : i64, in_types = [tensor<1x2x4x4xf32, #npu.format<NHWC>>, tensor<4x1x1x1xf32, #npu.format<FRACTAL_Z, c0 = 8, groups = 2>>], out_types = [tensor<1x4x4x4xf32>], cost = #npu.cost<cube, flops = 64, bytes_in = 1152, bytes_out = 256, blocks = 1>, attrs = {groups = 2 : i64, has_bias = false}, operandSegmentSizes = array<i32: 2, 1>}> : (memref<1x4x4x2xf32>, memref<1x1x16x8xf32>, memref<1x4x4x4xf32>) -> ()
// GENERIC-NEXT:    %r = "npu.alloc"() : () -> memref<1x1x2x2x32xi8>
// GENERIC-NEXT:    "npu.launch"(%i, %r) <{kernel = "relu", stream = 0 : i64, priority = 0 : i64, in_types = [tensor<1x5x2x2xi8, #npu.format<NC1HWC0>>], out_types = [tensor<1x5x2x2xi8, #npu.format<NC1HWC0>>], cost = #npu.cost<vector, flops = 20, bytes_in = 128, bytes_out = 128, blocks = 1>, attrs = {}, operandSegmentSizes = array<i32: 1, 1>}> : (memref<1x1x2x2x32xi8>, memref<1x1x2x2x32xi8>) -> ()
// GENERIC-NEXT:    "func.return"() : () -> ()
// GENERIC-NEXT:  }) {npu.program} : () -> ()
// PASSES-LABEL: func.func @launches(
// PASSES-NEXT:    %c = npu.weight dense<5.000000e-01> : memref<2x3xf32>
// PASSES-NEXT:    npu.launch "copy"(%c) -> (%y) stream 0 priority 0 : (tensor<2x3xf32>) -> (tensor<2x3xf32>) cost <none, flops = 0, bytes_in = 24, bytes_out = 24, blocks = 0> attrs {}
// PASSES-NEXT:    npu.launch "relu"(%y) -> (%z) stream 0 priority 0 : (tensor<2x3xf32>) -> (tensor<2x3xf32>) cost <vector, flops = 6, bytes_in = 24, bytes_out = 24, blocks = 1> attrs {} attributes {note = "discardable"}
// PASSES-NEXT:    %w = npu.weight dense<0.000000e+00> : memref<1x1x16x8xf32>
// PASSES-NEXT:    %b = npu.alloc : memref<1x4x4x4xf32>
// PASSES-NEXT:    npu.launch "conv2d"(%x, %w) -> (%b) stream 0 priority -3 : (tensor<1x2x4x4xf32, #npu.format<NHWC>>, tensor<4x1x1x1xf32, #npu.format<FRACTAL_Z, c0 = 8, groups = 2>>) -> (tensor<1x4x4x4xf32>) cost <cube, flops = 64, bytes_in = 1152, bytes_out = 256, blocks = 1> attrs {groups = 2 : i64, has_bias = false}
// PASSES-NEXT:    %r = npu.alloc : memref<1x1x2x2x32xi8>
// PASSES-NEXT:    npu.launch "relu"(%i) -> (%r) stream 0 priority 0 : (tensor<1x5x2x2xi8, #npu.format<NC1HWC0>>) -> (tensor<1x5x2x2xi8, #npu.format<NC1HWC0>>) cost <vector, flops = 20, bytes_in = 128, bytes_out = 128, blocks = 1> attrs {}
// PASSES-NEXT:    func.return
// PASSES-NEXT:  }
func.func @launches(%x: memref<1x4x4x2xf32> {npu.input = "x"}, %i: memref<1x1x2x2x32xi8> {npu.input = "i"}, %y: memref<2x3xf32> {npu.output = "y"}, %z: memref<2x3xf32> {npu.output = "z"}) attributes {npu.program} {
  %c = npu.weight dense<0.5> : memref<2x3xf32>
  npu.launch "copy"(%c) -> (%y) stream 0 priority 0 : (tensor<2x3xf32>) -> (tensor<2x3xf32>) cost <none, flops = 0, bytes_in = 24, bytes_out = 24, blocks = 0> attrs {}
  npu.launch "relu"(%y) -> (%z) stream 0 priority 0 : (tensor<2x3xf32>) -> (tensor<2x3xf32>) cost <vector, flops = 6, bytes_in = 24, bytes_out = 24, blocks = 1> attrs {} attributes {note = "discardable"}
  %w = npu.weight dense<0.0> : memref<1x1x16x8xf32>
  %b = npu.alloc : memref<1x4x4x4xf32>
  npu.launch "conv2d"(%x, %w) -> (%b) stream 0 priority -3 : (tensor<1x2x4x4xf32, #npu.format<NHWC>>, tensor<4x1x1x1xf32, #npu.format<FRACTAL_Z, c0 = 8, groups = 2>>) -> (tensor<1x4x4x4xf32>) cost <cube, flops = 64, bytes_in = 1152, bytes_out = 256, blocks = 1> attrs {groups = 2 : i64, has_bias = false}
  %r = npu.alloc : memref<1x1x2x2x32xi8>
  npu.launch "relu"(%i) -> (%r) stream 0 priority 0 : (tensor<1x5x2x2xi8, #npu.format<NC1HWC0>>) -> (tensor<1x5x2x2xi8, #npu.format<NC1HWC0>>) cost <vector, flops = 20, bytes_in = 128, bytes_out = 128, blocks = 1>
  func.return
}

// -----

// Events are integer ids, not SSA values: a wait before its record, and a record nobody
// waits for, are written as they are (ordering is the simulator's to check).  Copies with
// and without a cost; views of views.
// CHECK-LABEL: func.func @events_and_copies(
// CHECK-SAME:  %x: memref<8xf32> {npu.input = "x"}, %y: memref<8xf32> {npu.output = "y"}) attributes {npu.program} {
// CHECK-NEXT:    npu.wait 0 stream 1
// CHECK-NEXT:    npu.record 0 stream 0
// CHECK-NEXT:    npu.record 1 stream 1
// CHECK-NEXT:    %b = npu.alloc : memref<8xf32>
// CHECK-NEXT:    npu.copy %x -> %b stream 0 : memref<8xf32>
// CHECK-NEXT:    npu.copy %b -> %y stream 1 cost <vector, flops = 0, bytes_in = 32, bytes_out = 32, blocks = 1> {note = "out"} : memref<8xf32>
// CHECK-NEXT:    %v = npu.view %b[8] : memref<8xf32> -> memref<2x3xf32>
// CHECK-NEXT:    %u = npu.view %v[4] : memref<2x3xf32> -> memref<5xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "events_and_copies",
// GENERIC-NEXT:  ^bb0(%x: memref<8xf32>, %y: memref<8xf32>):
// GENERIC-NEXT:    "npu.wait"() <{event = 0 : i64, stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:    "npu.record"() <{event = 0 : i64, stream = 0 : i64}> : () -> ()
// GENERIC-NEXT:    "npu.record"() <{event = 1 : i64, stream = 1 : i64}> : () -> ()
// GENERIC-NEXT:    %b = "npu.alloc"() : () -> memref<8xf32>
// GENERIC-NEXT:    "npu.copy"(%x, %b) <{stream = 0 : i64}> : (memref<8xf32>, memref<8xf32>) -> ()
// GENERIC-NEXT:    "npu.copy"(%b, %y) <{stream = 1 : i64, cost = #npu.cost<vector, flops = 0, bytes_in = 32, bytes_out = 32, blocks = 1>}> {note = "out"} : (memref<8xf32>, memref<8xf32>) -> ()
// GENERIC-NEXT:    %v = "npu.view"(%b) <{offset = 8 : i64}> : (memref<8xf32>) -> memref<2x3xf32>
// GENERIC-NEXT:    %u = "npu.view"(%v) <{offset = 4 : i64}> : (memref<2x3xf32>) -> memref<5xf32>
// GENERIC-NEXT:    "func.return"() : () -> ()
// GENERIC-NEXT:  }) {npu.program} : () -> ()
// PASSES-LABEL: func.func @events_and_copies(
// PASSES-NEXT:    npu.wait 0 stream 1
// PASSES-NEXT:    npu.record 0 stream 0
// PASSES-NEXT:    npu.record 1 stream 1
// PASSES-NEXT:    %b = npu.alloc : memref<8xf32>
// PASSES-NEXT:    npu.copy %x -> %b stream 0 : memref<8xf32>
// PASSES-NEXT:    npu.copy %b -> %y stream 1 cost <vector, flops = 0, bytes_in = 32, bytes_out = 32, blocks = 1> {note = "out"} : memref<8xf32>
// PASSES-NEXT:    func.return
// PASSES-NEXT:  }
func.func @events_and_copies(%x: memref<8xf32> {npu.input = "x"}, %y: memref<8xf32> {npu.output = "y"}) attributes {npu.program} {
  npu.wait 0 stream 1
  npu.record 0 stream 0
  npu.record 1 stream 1
  %b = npu.alloc : memref<8xf32>
  npu.copy %x -> %b stream 0 : memref<8xf32>
  npu.copy %b -> %y stream 1 cost <vector, flops = 0, bytes_in = 32, bytes_out = 32, blocks = 1> {note = "out"} : memref<8xf32>
  %v = npu.view %b[8] : memref<8xf32> -> memref<2x3xf32>
  %u = npu.view %v[4] : memref<2x3xf32> -> memref<5xf32>
  func.return
}
