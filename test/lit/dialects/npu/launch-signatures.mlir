// A launch is checked against its kernel's signature: the `ge` op it is named after
// (kernel "conv2d" is ge.conv2d), rebuilt from the launch's logical types and attributes
// and verified.  One case per rule, each pinned with its exact message and location (line
// numbers are those of the whole file, across `// -----` chunks); the last chunk holds
// launches of every shape of signature that verify.
// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s

// ---- the kernel ---------------------------------------------------------------------------

// A kernel is named after a ge op.
func.func @unknown_kernel(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op unknown kernel 'foo' (a kernel is named after a ge op: 'conv2d' runs ge.conv2d){{$}}
  npu.launch "foo"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// A constant is a weight (npu.weight), not a kernel.
func.func @const_kernel(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op unknown kernel 'const' (a kernel is named after a ge op: 'conv2d' runs ge.conv2d){{$}}
  npu.launch "const"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// ---- operands and results -----------------------------------------------------------------

// As many inputs as the op has operands ...
func.func @input_count(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'relu': takes 1 input (input), got 2{{$}}
  npu.launch "relu"(%x, %x) -> (%b) stream 0 priority 0 : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// ... as many outputs as it has results ...
func.func @output_count(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  %c = npu.alloc : memref<4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'relu': produces 1 output (output), got 2{{$}}
  npu.launch "relu"(%x) -> (%b, %c) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 32, blocks = 1> attrs {}
  func.return
}

// -----

// ... a variadic operand takes the rest (and the op's verifier wants one at least) ...
func.func @variadic_empty() attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'concat': needs at least one input{{$}}
  npu.launch "concat"() -> (%b) stream 0 priority 0 : () -> (tensor<4xf32>) cost <vector, flops = 0, bytes_in = 0, bytes_out = 16, blocks = 1> attrs {axis = 0 : i64}
  func.return
}

// -----

// ... and has_<operand> says which optional operands are present.
func.func @optional_operand(%x: memref<1x4x4x4xf32> {npu.input = "x"}, %w: memref<4x4x1x1xf32> {npu.input = "w"}, %bias: memref<4xf32> {npu.input = "b"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x4x4x4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'conv2d': takes 2 inputs (input, filter) with has_bias = false, got 3{{$}}
  npu.launch "conv2d"(%x, %w, %bias) -> (%b) stream 0 priority 0 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> (tensor<1x4x4x4xf32>) cost <cube, flops = 512, bytes_in = 336, bytes_out = 256, blocks = 1> attrs {has_bias = false}
  func.return
}

// -----

// has_bias is true or false.
func.func @flag_not_bool(%x: memref<1x4x4x4xf32> {npu.input = "x"}, %w: memref<4x4x1x1xf32> {npu.input = "w"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x4x4x4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'conv2d': attribute 'has_bias' must be true or false, got 0 : i64{{$}}
  npu.launch "conv2d"(%x, %w) -> (%b) stream 0 priority 0 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> (tensor<1x4x4x4xf32>) cost <cube, flops = 512, bytes_in = 320, bytes_out = 256, blocks = 1> attrs {has_bias = 0 : i64}
  func.return
}

// -----

// Operands and results bound to one type are of one type (a relu keeps its input's type).
func.func @result_type(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf16>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'leaky_relu': result has type tensor<4xf16>, expected tensor<4xf32> (the input's){{$}}
  npu.launch "leaky_relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf16>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 8, blocks = 1> attrs {alpha = 1.000000e-01 : f32}
  func.return
}

// -----

// ---- attributes ---------------------------------------------------------------------------

// An attribute the op does not have is named, with the ones it has ...
func.func @unknown_attribute(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'relu': has no attribute 'alpha' (its attributes: none){{$}}
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {alpha = 1.000000e-01 : f32}
  func.return
}

// -----

func.func @unknown_attribute_listed(%x: memref<1x4x4x4xf32> {npu.input = "x"}, %w: memref<4x4x1x1xf32> {npu.input = "w"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x4x4x4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'conv2d': has no attribute 'padding' (its attributes: dilations, groups, has_bias, pads, strides){{$}}
  npu.launch "conv2d"(%x, %w) -> (%b) stream 0 priority 0 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> (tensor<1x4x4x4xf32>) cost <cube, flops = 512, bytes_in = 320, bytes_out = 256, blocks = 1> attrs {padding = array<i64: 0, 0, 0, 0>}
  func.return
}

// -----

// ... operandSegmentSizes is rebuilt from the operands, never given.
func.func @segments_given(%x: memref<1x4x4x4xf32> {npu.input = "x"}, %w: memref<4x4x1x1xf32> {npu.input = "w"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x4x4x4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'fused_conv2d': has no attribute 'operandSegmentSizes' (its attributes: activation, alpha, dilations, groups, has_bias, has_residual, pads, strides){{$}}
  npu.launch "fused_conv2d"(%x, %w) -> (%b) stream 0 priority 0 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> (tensor<1x4x4x4xf32>) cost <cube, flops = 512, bytes_in = 320, bytes_out = 256, blocks = 1> attrs {operandSegmentSizes = array<i32: 1, 1, 0, 0>}
  func.return
}

// -----

// An attribute has the property's type: an integer (i64) ...
func.func @integer_attribute(%x: memref<2x4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4x4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'concat': attribute 'axis' must be an integer (i64), got "one"{{$}}
  npu.launch "concat"(%x, %x) -> (%b) stream 0 priority 0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>) cost <vector, flops = 0, bytes_in = 64, bytes_out = 64, blocks = 1> attrs {axis = "one"}
  func.return
}

// -----

func.func @integer_width(%x: memref<2x4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4x4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'concat': attribute 'axis' must be an integer (i64), got 0 : i32{{$}}
  npu.launch "concat"(%x, %x) -> (%b) stream 0 priority 0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>) cost <vector, flops = 0, bytes_in = 64, bytes_out = 64, blocks = 1> attrs {axis = 0 : i32}
  func.return
}

// -----

// ... a float (f32) ...
func.func @float_attribute(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'leaky_relu': attribute 'alpha' must be a float (f32), got 1.000000e-01 : f64{{$}}
  npu.launch "leaky_relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {alpha = 1.000000e-01 : f64}
  func.return
}

// -----

// ... an array of integers (array<i64: ...>, not a list) ...
func.func @array_attribute(%x: memref<1x4x4x4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x4x2x2xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'max_pool': attribute 'kernel' must be an array of integers (i64), got [2 : i64, 2 : i64]{{$}}
  npu.launch "max_pool"(%x) -> (%b) stream 0 priority 0 : (tensor<1x4x4x4xf32>) -> (tensor<1x4x2x2xf32>) cost <vector, flops = 64, bytes_in = 256, bytes_out = 64, blocks = 1> attrs {kernel = [2, 2], strides = array<i64: 2, 2>}
  func.return
}

// -----

// ... one of the enum's names (a string) ...
func.func @enum_attribute(%x: memref<1x4x4x4xf32> {npu.input = "x"}, %w: memref<4x4x1x1xf32> {npu.input = "w"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x4x4x4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'fused_conv2d': attribute 'activation' must be one of "none", "relu", "relu6", "leaky_relu", "sigmoid", got "tanh"{{$}}
  npu.launch "fused_conv2d"(%x, %w) -> (%b) stream 0 priority 0 : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> (tensor<1x4x4x4xf32>) cost <cube, flops = 512, bytes_in = 320, bytes_out = 256, blocks = 1> attrs {activation = "tanh", has_bias = false, has_residual = false}
  func.return
}

// -----

// ... true or false for a unit attribute.
func.func @unit_attribute(%x: memref<1x4x4x4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x4x2x2xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'max_pool': attribute 'ceil_mode' must be true or false, got 1 : i64{{$}}
  npu.launch "max_pool"(%x) -> (%b) stream 0 priority 0 : (tensor<1x4x4x4xf32>) -> (tensor<1x4x2x2xf32>) cost <vector, flops = 64, bytes_in = 256, bytes_out = 64, blocks = 1> attrs {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64}
  func.return
}

// -----

// A property without a default is given.
func.func @missing_attribute(%x: memref<2x4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4x4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'concat': attribute 'axis' is missing (an integer (i64)){{$}}
  npu.launch "concat"(%x, %x) -> (%b) stream 0 priority 0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<4x4xf32>) cost <vector, flops = 0, bytes_in = 64, bytes_out = 64, blocks = 1> attrs {}
  func.return
}

// -----

// ---- the op's verifier --------------------------------------------------------------------

// The result's shape: a conv without padding makes a 2x2 output of a 4x4 input.
func.func @conv_output_shape(%x: memref<1x4x4x4xf32> {npu.input = "x"}, %w: memref<4x4x3x3xf32> {npu.input = "w"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x4x4x4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'conv2d': result has shape [1, 4, 4, 4], expected [1, 4, 2, 2]{{$}}
  npu.launch "conv2d"(%x, %w) -> (%b) stream 0 priority 0 : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> (tensor<1x4x4x4xf32>) cost <cube, flops = 512, bytes_in = 320, bytes_out = 256, blocks = 1> attrs {has_bias = false}
  func.return
}

// -----

// Formats are named as the launch writes them (#npu.format).
func.func @layout(%x: memref<1x1x2x2x16xf32> {npu.input = "x"}, %y: memref<1x4x2x2xf32> {npu.input = "y"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x1x2x2x16xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'add': operand 'rhs' has layout NCHW, expected #npu.format<NC1HWC0> (the result's){{$}}
  npu.launch "add"(%x, %y) -> (%b) stream 0 priority 0 : (tensor<1x4x2x2xf32, #npu.format<NC1HWC0>>, tensor<1x4x2x2xf32>) -> (tensor<1x4x2x2xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 16, bytes_in = 320, bytes_out = 256, blocks = 1> attrs {}
  func.return
}

// -----

// ---- declared signatures (kernels without a ge op) ----------------------------------------

// copy: one input, one output of its type ...
func.func @copy_type(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xi32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'copy': result has type tensor<4xi32>, expected tensor<4xf32> (the input's){{$}}
  npu.launch "copy"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xi32>) cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// ... and no attributes.
func.func @copy_attribute(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: launch-signatures.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel 'copy': has no attribute 'bytes' (its attributes: none){{$}}
  npu.launch "copy"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {bytes = 16 : i64}
  func.return
}

// -----

// ---- launches that verify -----------------------------------------------------------------

// A conv with FRACTAL_Z weights and a bias, a fused conv with a residual and leaky_relu (no
// bias: has_bias false), pooling with and without a unit attribute (false: absent), a
// matmul with a transpose and no has_bias (the count says), a collective (an enum as a
// string), a concat (variadic), a copy launch.
// CHECK-LABEL: func.func @verified(
func.func @verified(%x: memref<1x1x8x8x16xf32> {npu.input = "x"}, %w: memref<9x1x16x16xf32> {npu.input = "w"}, %bias: memref<16xf32> {npu.input = "b"}, %w1: memref<1x1x16x16xf32> {npu.input = "w1"}, %m: memref<2x8xf32> {npu.input = "m"}) attributes {npu.program} {
  %c = npu.alloc : memref<1x1x8x8x16xf32>
  // CHECK: npu.launch "conv2d"
  npu.launch "conv2d"(%x, %w, %bias) -> (%c) stream 0 priority 0 : (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>, tensor<16x3x3x3xf32, #npu.format<FRACTAL_Z>>, tensor<16xf32>) -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 55296, bytes_in = 13376, bytes_out = 4096, blocks = 1> attrs {dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = true, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
  %f = npu.alloc : memref<1x1x8x8x16xf32>
  // CHECK: npu.launch "fused_conv2d"
  npu.launch "fused_conv2d"(%c, %w1, %c) -> (%f) stream 0 priority 0 : (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>, tensor<16x16x1x1xf32, #npu.format<FRACTAL_Z>>, tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 32768, bytes_in = 9216, bytes_out = 4096, blocks = 1> attrs {activation = "leaky_relu", alpha = 2.000000e-01 : f32, has_bias = false, has_residual = true}
  %p = npu.alloc : memref<1x1x4x4x16xf32>
  // CHECK: npu.launch "max_pool"
  npu.launch "max_pool"(%f) -> (%p) stream 0 priority 0 : (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) -> (tensor<1x16x4x4xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 1024, bytes_in = 4096, bytes_out = 1024, blocks = 1> attrs {ceil_mode = true, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
  %q = npu.alloc : memref<1x1x4x4x16xf32>
  // CHECK: npu.launch "avg_pool"
  npu.launch "avg_pool"(%f) -> (%q) stream 0 priority 0 : (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) -> (tensor<1x16x4x4xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 1024, bytes_in = 4096, bytes_out = 1024, blocks = 1> attrs {count_include_pad = false, kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
  %mm = npu.alloc : memref<2x2xf32>
  // CHECK: npu.launch "matmul"
  npu.launch "matmul"(%m, %m) -> (%mm) stream 0 priority 0 : (tensor<2x8xf32>, tensor<2x8xf32>) -> (tensor<2x2xf32>) cost <cube, flops = 64, bytes_in = 128, bytes_out = 16, blocks = 1> attrs {transpose_b = true}
  %r = npu.alloc : memref<2x2xf32>
  // CHECK: npu.launch "hcom_all_reduce"
  npu.launch "hcom_all_reduce"(%mm) -> (%r) stream 0 priority 0 : (tensor<2x2xf32>) -> (tensor<2x2xf32>) cost <comm, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {group = "world", rank_size = 2 : i64, reduction = "sum"}
  %cat = npu.alloc : memref<4x2xf32>
  // CHECK: npu.launch "concat"
  npu.launch "concat"(%mm, %r) -> (%cat) stream 0 priority 0 : (tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<4x2xf32>) cost <vector, flops = 0, bytes_in = 32, bytes_out = 32, blocks = 1> attrs {axis = 0 : i64}
  %cp = npu.alloc : memref<4x2xf32>
  // CHECK: npu.launch "copy"
  npu.launch "copy"(%cat) -> (%cp) stream 0 priority 0 : (tensor<4x2xf32>) -> (tensor<4x2xf32>) cost <vector, flops = 0, bytes_in = 32, bytes_out = 32, blocks = 1> attrs {}
  func.return
}
