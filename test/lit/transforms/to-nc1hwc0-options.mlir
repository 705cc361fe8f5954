// --to-nc1hwc0 options: boundary=keep|nc1hwc0 (whether graph inputs and outputs keep their
// declared layout) and fp32-c0=16|8 (the C0 of every fp32 NC1HWC0 and FRACTAL_Z value the pass
// creates); bad option values; a module already assigned to streams is refused.
//
// The assigned module is the last case: with --verify-diagnostics its refusal is printed
// first, on stdout, and the other cases still convert.  In the hex form of a dense value each
// f32 is little-endian, so 1.0 (0x3F800000) is written 0000803F and 2.0 is 00000040.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --to-nc1hwc0 --elide-constants-if-larger=32 | filecheck %s --check-prefix=KEEP
// RUN: ge-opt %s --split-input-file --verify-diagnostics --to-nc1hwc0=boundary=keep,fp32-c0=16 --elide-constants-if-larger=32 | filecheck %s --check-prefix=KEEP
// RUN: ge-opt %s --split-input-file --verify-diagnostics --to-nc1hwc0=boundary=nc1hwc0 --elide-constants-if-larger=32 | filecheck %s --check-prefix=BND
// RUN: ge-opt %s --split-input-file --verify-diagnostics --to-nc1hwc0=fp32-c0=8 --elide-constants-if-larger=32 | filecheck %s --check-prefix=C08
// RUN: ge-opt %s --split-input-file --verify-diagnostics --to-nc1hwc0=boundary=nc1hwc0,fp32-c0=8 --elide-constants-if-larger=32 | filecheck %s --check-prefix=BOTH
//
// The generic form is valid upstream MLIR (written to a file: the refusal goes to stdout).
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
//
// Without --verify-diagnostics the refusal is one line on stderr and a non-zero exit, whatever
// the options.
// RUN: not ge-opt %s --split-input-file --to-nc1hwc0 2>&1 >/dev/null | filecheck %s --check-prefix=ASSIGNED
// RUN: not ge-opt %s --split-input-file --to-nc1hwc0=boundary=nc1hwc0,fp32-c0=8 2>&1 >/dev/null | filecheck %s --check-prefix=ASSIGNED
//
// A bad option value is one error line and a non-zero exit; nothing is printed (a float
// equal to an allowed C0 is refused too).
// RUN: not ge-opt %s --split-input-file --to-nc1hwc0=boundary=nchw 2>&1 | filecheck %s --check-prefix=BAD-BOUNDARY
// RUN: not ge-opt %s --split-input-file --to-nc1hwc0=fp32-c0=32 2>&1 | filecheck %s --check-prefix=BAD-C0
// RUN: not ge-opt %s --split-input-file --to-nc1hwc0=fp32-c0=8.0 2>&1 | filecheck %s --check-prefix=BAD-C0-FLOAT
// BAD-BOUNDARY-NOT: {{\n}}
// BAD-BOUNDARY: {{^}}{{.*}}error: to-nc1hwc0: boundary must be keep or nc1hwc0, got 'nchw'{{$}}
// BAD-BOUNDARY-NOT: {{.}}
// BAD-C0-NOT: {{\n}}
// BAD-C0: {{^}}{{.*}}error: to-nc1hwc0: fp32-c0 must be 16 or 8, got 32{{$}}
// BAD-C0-NOT: {{.}}
// BAD-C0-FLOAT-NOT: {{\n}}
// BAD-C0-FLOAT: {{^}}ge-opt: error: to-nc1hwc0: fp32-c0 must be 16 or 8, got 8.0{{$}}
// BAD-C0-FLOAT-NOT: {{.}}
//
// KEEP: to-nc1hwc0-options.mlir:{{[0-9]+}}:3: error: 'ge.const' op is assigned to a stream
// BND:  to-nc1hwc0-options.mlir:{{[0-9]+}}:3: error: 'ge.const' op is assigned to a stream
// C08:  to-nc1hwc0-options.mlir:{{[0-9]+}}:3: error: 'ge.const' op is assigned to a stream
// BOTH: to-nc1hwc0-options.mlir:{{[0-9]+}}:3: error: 'ge.const' op is assigned to a stream

// ---- boundary --------------------------------------------------------------------------------
//
// keep (the default): the graph input and output stay NCHW, with a trans_data each.  nc1hwc0: the
// function signature changes to NC1HWC0 and no trans_data is left.
// KEEP-LABEL: func.func @boundary_conv_relu(
// KEEP-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
// KEEP-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// KEEP-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[R:.*]] = ge.relu %[[Y]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V2:.*]] = ge.trans_data %[[R]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
// KEEP-NEXT:    func.return %[[V2]] : tensor<1x17x4x4xf16>
// KEEP-NEXT:  }
// BND-LABEL: func.func @boundary_conv_relu(
// BND-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> {
// BND-NEXT:    %[[V0:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// BND-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[V0]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// BND-NEXT:    %[[R:.*]] = ge.relu %[[Y]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// BND-NEXT:    func.return %[[R]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// BND-NEXT:  }
func.func @boundary_conv_relu(%x: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  %r = ge.relu %y : tensor<1x17x4x4xf16>
  func.return %r : tensor<1x17x4x4xf16>
}

// -----

// boundary=nc1hwc0 retypes an input only when all its users take NC1HWC0 (here a flatten reads
// it too), and an output only when it is produced in NC1HWC0 (the flattens' are 2-D).
// BND-LABEL: func.func @boundary_mixed_uses(
// BND-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> (tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x64xf16>, tensor<1x64xf16>) {
// BND-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// BND-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// BND-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// BND-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// BND-NEXT:    %[[F:.*]] = ge.flatten %[[V2]] : tensor<1x16x2x2xf16> -> tensor<1x64xf16>
// BND-NEXT:    %[[G:.*]] = ge.flatten %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x64xf16>
// BND-NEXT:    func.return %[[Y]], %[[F]], %[[G]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x64xf16>, tensor<1x64xf16>
// BND-NEXT:  }
func.func @boundary_mixed_uses(%x: tensor<1x16x2x2xf16>) -> (tensor<1x16x2x2xf16>, tensor<1x64xf16>, tensor<1x64xf16>) {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  %f = ge.flatten %y : tensor<1x16x2x2xf16> -> tensor<1x64xf16>
  %g = ge.flatten %x : tensor<1x16x2x2xf16> -> tensor<1x64xf16>
  func.return %y, %f, %g : tensor<1x16x2x2xf16>, tensor<1x64xf16>, tensor<1x64xf16>
}

// -----

// An input returned unchanged as well as read by a conv: passing it in NC1HWC0, and so
// returning it, needs no conversion at all (it kept NCHW before the cut, with one trans_data).
// BND-LABEL: func.func @boundary_input_returned(
// BND-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>) -> (tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>) {
// BND-NEXT:    %[[V0:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// BND-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[V0]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// BND-NEXT:    func.return %[[Y]], %[[X]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// BND-NEXT:  }
func.func @boundary_input_returned(%x: tensor<1x16x2x2xf16>) -> (tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>) {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  func.return %y, %x : tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>
}

// -----

// A weight passed as a graph input stays OIHW in the signature (boundary concerns NC1HWC0
// activations) and is converted to FRACTAL_Z inside.
// BND-LABEL: func.func @boundary_weight_input(
// BND-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, %[[W:.*]]: tensor<16x16x1x1xf16>) -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> {
// BND-NEXT:    %[[V0:.*]] = ge.trans_data %[[W]] : tensor<16x16x1x1xf16> -> tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// BND-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[V0]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// BND-NEXT:    func.return %[[Y]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// BND-NEXT:  }
func.func @boundary_weight_input(%x: tensor<1x16x2x2xf16>, %w: tensor<16x16x1x1xf16>) -> tensor<1x16x2x2xf16> {
  %y = ge.conv2d %x, %w : tensor<1x16x2x2xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x2x2xf16>
  func.return %y : tensor<1x16x2x2xf16>
}

// -----

// A function called inside the module keeps its signature under boundary=nc1hwc0, so that its
// call sites stay valid; its caller is converted (here it has nothing to convert).
// BND-LABEL: func.func @boundary_callee(
// BND-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
// BND-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// BND-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// BND-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// BND-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// BND-NEXT:    func.return %[[V2]] : tensor<1x16x2x2xf16>
// BND-NEXT:  }
// BND-LABEL: func.func @boundary_caller(
// BND-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
// BND-NEXT:    %[[Y:.*]] = func.call @boundary_callee(%[[X]]) : (tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16>
// BND-NEXT:    func.return %[[Y]] : tensor<1x16x2x2xf16>
// BND-NEXT:  }
func.func @boundary_callee(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  func.return %y : tensor<1x16x2x2xf16>
}
func.func @boundary_caller(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %y = func.call @boundary_callee(%x) : (tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16>
  func.return %y : tensor<1x16x2x2xf16>
}

// -----

// A function without a conv keeps its signature.
// BND-LABEL: func.func @boundary_untouched(
// BND-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
// BND-NEXT:    %[[R:.*]] = ge.relu %[[X]] : tensor<1x16x2x2xf16>
// BND-NEXT:    func.return %[[R]] : tensor<1x16x2x2xf16>
// BND-NEXT:  }
func.func @boundary_untouched(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %r = ge.relu %x : tensor<1x16x2x2xf16>
  func.return %r : tensor<1x16x2x2xf16>
}

// -----

// ---- fp32-c0 ---------------------------------------------------------------------------------
//
// f32 with 17 channels: C0 = 16 by default (C1 = 2); with fp32-c0=8 the input, the FRACTAL_Z
// weight, the converted [1, 17, 1, 1] constant (C1 = 3: channels 0..7, 8..15, then 16 and seven
// zero lanes), the add and the signature under boundary=nc1hwc0 all use C0 = 8.
// KEEP-LABEL: func.func @f32_conv_add_constant(
// KEEP-SAME:  %[[X:.*]]: tensor<1x17x4x4xf32>) -> tensor<1x17x4x4xf32> {
// KEEP-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf32> -> tensor<1x17x4x4xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf32, #ge.format<FRACTAL_Z>>
// KEEP-NEXT:    %[[V2:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01]]], {{\[\[\[}}1.700000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x2x1x1x16xf32> -> tensor<1x17x1x1xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf32, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf32, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[Z:.*]] = ge.add %[[Y]], %[[V2]] : (tensor<1x17x4x4xf32, #ge.format<NC1HWC0>>, tensor<1x17x1x1xf32, #ge.format<NC1HWC0>>) -> tensor<1x17x4x4xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x17x4x4xf32, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf32>
// KEEP-NEXT:    func.return %[[V3]] : tensor<1x17x4x4xf32>
// KEEP-NEXT:  }
// C08-LABEL: func.func @f32_conv_add_constant(
// C08-SAME:  %[[X:.*]]: tensor<1x17x4x4xf32>) -> tensor<1x17x4x4xf32> {
// C08-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf32> -> tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>>
// C08-NEXT:    %[[V2:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]]], {{\[\[\[}}9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01]]], {{\[\[\[}}1.700000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x3x1x1x8xf32> -> tensor<1x17x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<17x17x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>> -> tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[Z:.*]] = ge.add %[[Y]], %[[V2]] : (tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<1x17x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>) -> tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x17x4x4xf32>
// C08-NEXT:    func.return %[[V3]] : tensor<1x17x4x4xf32>
// C08-NEXT:  }
// BOTH-LABEL: func.func @f32_conv_add_constant(
// BOTH-SAME:  %[[X:.*]]: tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>) -> tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>> {
// BOTH-NEXT:    %[[V0:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>>
// BOTH-NEXT:    %[[V1:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]]], {{\[\[\[}}9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01]]], {{\[\[\[}}1.700000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x3x1x1x8xf32> -> tensor<1x17x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>
// BOTH-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[V0]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<17x17x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>> -> tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>
// BOTH-NEXT:    %[[Z:.*]] = ge.add %[[Y]], %[[V1]] : (tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<1x17x1x1xf32, #ge.format<NC1HWC0, c0 = 8>>) -> tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>
// BOTH-NEXT:    func.return %[[Z]] : tensor<1x17x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>
// BOTH-NEXT:  }
func.func @f32_conv_add_constant(%x: tensor<1x17x4x4xf32>) -> tensor<1x17x4x4xf32> {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf32>
  %c = ge.const dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]], [[9.0]], [[10.0]], [[11.0]], [[12.0]], [[13.0]], [[14.0]], [[15.0]], [[16.0]], [[17.0]]]]> : tensor<1x17x1x1xf32>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf32>, tensor<17x17x3x3xf32> -> tensor<1x17x4x4xf32>
  %z = ge.add %y, %c : (tensor<1x17x4x4xf32>, tensor<1x17x1x1xf32>) -> tensor<1x17x4x4xf32>
  func.return %z : tensor<1x17x4x4xf32>
}

// -----

// A tiny f32 weight: FRACTAL_Z [1, 1, 16, C0] with W[0] = 1.0 at index 0 and W[1] = 2.0 at
// index C0 (16 by default, 8 with fp32-c0=8).
// KEEP-LABEL: func.func @f32_weight_fractal_z(
// KEEP-SAME:  %[[X:.*]]: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
// KEEP-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V1:.*]] = ge.const dense<"0x{{0000803F(00000000){15}00000040(00000000){239}"}}> : tensor<1x1x16x16xf32> -> tensor<2x1x1x1xf32, #ge.format<FRACTAL_Z>>
// KEEP-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x1x2x2xf32, #ge.format<NC1HWC0>>, tensor<2x1x1x1xf32, #ge.format<FRACTAL_Z>> -> tensor<1x2x2x2xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x2x2x2xf32, #ge.format<NC1HWC0>> -> tensor<1x2x2x2xf32>
// KEEP-NEXT:    func.return %[[V2]] : tensor<1x2x2x2xf32>
// KEEP-NEXT:  }
// C08-LABEL: func.func @f32_weight_fractal_z(
// C08-SAME:  %[[X:.*]]: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
// C08-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V1:.*]] = ge.const dense<"0x{{0000803F(00000000){7}00000040(00000000){119}"}}> : tensor<1x1x16x8xf32> -> tensor<2x1x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8>>
// C08-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x1x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<2x1x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8>> -> tensor<1x2x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x2x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x2x2x2xf32>
// C08-NEXT:    func.return %[[V2]] : tensor<1x2x2x2xf32>
// C08-NEXT:  }
func.func @f32_weight_fractal_z(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %y = ge.conv2d %x, %w : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A depthwise f32 weight (2 channels, groups = 2) in grouped FRACTAL_Z: channel g on the
// diagonal, W[1] = 2.0 at index 1*C0 + 1 (17, or 9 with fp32-c0=8).
// KEEP-LABEL: func.func @f32_depthwise_weight(
// KEEP-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// KEEP-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V1:.*]] = ge.const dense<"0x{{0000803F(00000000){16}00000040(00000000){238}"}}> : tensor<1x1x16x16xf32> -> tensor<2x1x1x1xf32, #ge.format<FRACTAL_Z, groups = 2>>
// KEEP-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] groups 2 : tensor<1x2x2x2xf32, #ge.format<NC1HWC0>>, tensor<2x1x1x1xf32, #ge.format<FRACTAL_Z, groups = 2>> -> tensor<1x2x2x2xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x2x2x2xf32, #ge.format<NC1HWC0>> -> tensor<1x2x2x2xf32>
// KEEP-NEXT:    func.return %[[V2]] : tensor<1x2x2x2xf32>
// KEEP-NEXT:  }
// C08-LABEL: func.func @f32_depthwise_weight(
// C08-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// C08-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x2x2x2xf32> -> tensor<1x2x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V1:.*]] = ge.const dense<"0x{{0000803F(00000000){8}00000040(00000000){118}"}}> : tensor<1x1x16x8xf32> -> tensor<2x1x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8, groups = 2>>
// C08-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] groups 2 : tensor<1x2x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<2x1x1x1xf32, #ge.format<FRACTAL_Z, c0 = 8, groups = 2>> -> tensor<1x2x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x2x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x2x2x2xf32>
// C08-NEXT:    func.return %[[V2]] : tensor<1x2x2x2xf32>
// C08-NEXT:  }
func.func @f32_depthwise_weight(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %y = ge.conv2d %x, %w groups 2 : tensor<1x2x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A 3x3 depthwise f32 conv over 8 channels: grouped FRACTAL_Z with c0 = 8.
// KEEP-LABEL: func.func @f32_depthwise_3x3(
// KEEP-SAME:  %[[X:.*]]: tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32> {
// KEEP-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x8x2x2xf32> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<8x1x3x3xf32, #ge.format<FRACTAL_Z, groups = 8>>
// KEEP-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] groups 8 : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>, tensor<8x1x3x3xf32, #ge.format<FRACTAL_Z, groups = 8>> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf32>
// KEEP-NEXT:    func.return %[[V2]] : tensor<1x8x2x2xf32>
// KEEP-NEXT:  }
// C08-LABEL: func.func @f32_depthwise_3x3(
// C08-SAME:  %[[X:.*]]: tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32> {
// C08-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x8x2x2xf32> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<8x1x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8, groups = 8>>
// C08-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] groups 8 : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<8x1x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8, groups = 8>> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x8x2x2xf32>
// C08-NEXT:    func.return %[[V2]] : tensor<1x8x2x2xf32>
// C08-NEXT:  }
func.func @f32_depthwise_3x3(%x: tensor<1x8x2x2xf32>) -> tensor<1x8x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<8x1x3x3xf32>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] groups 8 : tensor<1x8x2x2xf32>, tensor<8x1x3x3xf32> -> tensor<1x8x2x2xf32>
  func.return %y : tensor<1x8x2x2xf32>
}

// -----

// A channel concat of two 8-channel f32 values: not C0-aligned with C0 = 16 (the concat runs in
// NCHW after a conversion), aligned with fp32-c0=8, so it may run in NC1HWC0.  With the result
// returned in NCHW, converting the conv result (8 channels) is still cheaper than converting
// the concat's (16); with boundary=nc1hwc0 the concat's result is returned as it is.
// KEEP-LABEL: func.func @f32_concat_8_channels(
// KEEP-SAME:  %[[X:.*]]: tensor<1x8x2x2xf32>) -> tensor<1x16x2x2xf32> {
// KEEP-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x8x2x2xf32> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z>>
// KEEP-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>, tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z>> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V2:.*]] = ge.trans_data %[[A]] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf32>
// KEEP-NEXT:    %[[C:.*]] = ge.concat %[[V2]], %[[V2]] axis 1 : tensor<1x8x2x2xf32>, tensor<1x8x2x2xf32> -> tensor<1x16x2x2xf32>
// KEEP-NEXT:    func.return %[[C]] : tensor<1x16x2x2xf32>
// KEEP-NEXT:  }
// C08-LABEL: func.func @f32_concat_8_channels(
// C08-SAME:  %[[X:.*]]: tensor<1x8x2x2xf32>) -> tensor<1x16x2x2xf32> {
// C08-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x8x2x2xf32> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>>
// C08-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V2:.*]] = ge.trans_data %[[A]] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x8x2x2xf32>
// C08-NEXT:    %[[C:.*]] = ge.concat %[[V2]], %[[V2]] axis 1 : tensor<1x8x2x2xf32>, tensor<1x8x2x2xf32> -> tensor<1x16x2x2xf32>
// C08-NEXT:    func.return %[[C]] : tensor<1x16x2x2xf32>
// C08-NEXT:  }
// BOTH-LABEL: func.func @f32_concat_8_channels(
// BOTH-SAME:  %[[X:.*]]: tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>) -> tensor<1x16x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> {
// BOTH-NEXT:    %[[V0:.*]] = ge.const #ge.elided : tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>>
// BOTH-NEXT:    %[[A:.*]] = ge.conv2d %[[X]], %[[V0]] pads [1, 1, 1, 1] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// BOTH-NEXT:    %[[C:.*]] = ge.concat %[[A]], %[[A]] axis 1 : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x16x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// BOTH-NEXT:    func.return %[[C]] : tensor<1x16x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// BOTH-NEXT:  }
func.func @f32_concat_8_channels(%x: tensor<1x8x2x2xf32>) -> tensor<1x16x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<8x8x3x3xf32>
  %a = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x8x2x2xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x2x2xf32>
  %c = ge.concat %a, %a axis 1 : tensor<1x8x2x2xf32>, tensor<1x8x2x2xf32> -> tensor<1x16x2x2xf32>
  func.return %c : tensor<1x16x2x2xf32>
}

// -----

// An f32 input declared NC1HWC0 (C0 = 16) feeds the conv directly by default; with fp32-c0=8
// (boundary=keep) it is converted to C0 = 8 first.
// KEEP-LABEL: func.func @f32_declared_c0_16(
// KEEP-SAME:  %[[X:.*]]: tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>) -> tensor<1x8x2x2xf32> {
// KEEP-NEXT:    %[[V0:.*]] = ge.const #ge.elided : tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z>>
// KEEP-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[V0]] pads [1, 1, 1, 1] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>, tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z>> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V1:.*]] = ge.trans_data %[[Y]] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf32>
// KEEP-NEXT:    func.return %[[V1]] : tensor<1x8x2x2xf32>
// KEEP-NEXT:  }
// C08-LABEL: func.func @f32_declared_c0_16(
// C08-SAME:  %[[X:.*]]: tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>) -> tensor<1x8x2x2xf32> {
// C08-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>>
// C08-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>, tensor<8x8x3x3xf32, #ge.format<FRACTAL_Z, c0 = 8>> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// C08-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x8x2x2xf32>
// C08-NEXT:    func.return %[[V2]] : tensor<1x8x2x2xf32>
// C08-NEXT:  }
func.func @f32_declared_c0_16(%x: tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>) -> tensor<1x8x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<8x8x3x3xf32>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>, tensor<8x8x3x3xf32> -> tensor<1x8x2x2xf32>
  func.return %y : tensor<1x8x2x2xf32>
}

// -----

// fp32-c0 does not touch f16 (C0 = 16).
// KEEP-LABEL: func.func @f16_unaffected(
// KEEP-SAME:  %[[X:.*]]: tensor<1x8x2x2xf16>) -> tensor<1x8x2x2xf16> {
// KEEP-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x8x2x2xf16> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<8x8x3x3xf16, #ge.format<FRACTAL_Z>>
// KEEP-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>, tensor<8x8x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// KEEP-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf16>
// KEEP-NEXT:    func.return %[[V2]] : tensor<1x8x2x2xf16>
// KEEP-NEXT:  }
// C08-LABEL: func.func @f16_unaffected(
// C08-SAME:  %[[X:.*]]: tensor<1x8x2x2xf16>) -> tensor<1x8x2x2xf16> {
// C08-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x8x2x2xf16> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// C08-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<8x8x3x3xf16, #ge.format<FRACTAL_Z>>
// C08-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>, tensor<8x8x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// C08-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf16>
// C08-NEXT:    func.return %[[V2]] : tensor<1x8x2x2xf16>
// C08-NEXT:  }
func.func @f16_unaffected(%x: tensor<1x8x2x2xf16>) -> tensor<1x8x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<8x8x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x8x2x2xf16>, tensor<8x8x3x3xf16> -> tensor<1x8x2x2xf16>
  func.return %y : tensor<1x8x2x2xf16>
}

// -----

// An assigned module (its ops carry stream.id) is refused at its first assigned op.
// ASSIGNED-NOT: {{\n}}
// ASSIGNED: {{^}}{{.*}}to-nc1hwc0-options.mlir:[[# @LINE + 3]]:3: error: 'ge.const' op is assigned to a stream: --to-nc1hwc0 rewrites graphs before stream assignment; run it before --assign-streams{{$}}
// ASSIGNED-NOT: {{.}}
func.func @assigned(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16> {stream.id = #stream.id<0>}
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] {stream.id = #stream.id<0>} : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  func.return %y : tensor<1x16x2x2xf16>
}
