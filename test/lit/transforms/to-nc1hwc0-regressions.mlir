// Regressions of --to-nc1hwc0: a conversion already in the input is shared (sibling merge),
// a value that is both a conv's input and its filter gets both conversions (not an
// NC1HWC0 -> FRACTAL_Z one), and a rank-3 per-channel constant of an add becomes a
// [1, C, 1, 1] NC1HWC0 constant so the add stays in NC1HWC0.  Bad option values are one
// ge-opt usage error (exit 2, tested in test_ge_opt.py).
// RUN: ge-opt %s --split-input-file --to-nc1hwc0 --elide-constants-if-larger=1 | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: ge-opt %s --split-input-file --to-nc1hwc0 | ge-opt --split-input-file -o /dev/null
// RUN: not ge-opt %s --to-nc1hwc0=boundary=foo 2>&1 | filecheck %s --check-prefix=BAD

// BAD: {{^}}ge-opt: error: to-nc1hwc0: boundary must be keep or nc1hwc0, got 'foo'{{$}}

// CHECK-LABEL: func.func @existing_sibling(
// CHECK-NEXT:  %a = ge.trans_data %x : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  %0 = ge.const #ge.elided : tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:  %y = ge.conv2d %a, %0 : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  %1 = ge.trans_data %y : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:  func.return %a, %1 : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @existing_sibling(%x: tensor<1x16x2x2xf16>) -> (tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x2x2xf16>) {
  %a = ge.trans_data %x : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
  %w = ge.const dense<1.0> : tensor<16x16x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<1x16x2x2xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x2x2xf16>
  func.return %a, %y : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x2x2xf16>
}

// -----

// CHECK-LABEL: func.func @input_and_filter(
// CHECK-NEXT:  %r = ge.relu %x : tensor<16x16x1x1xf16>
// CHECK-NEXT:  %0 = ge.trans_data %r : tensor<16x16x1x1xf16> -> tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:  %1 = ge.trans_data %r : tensor<16x16x1x1xf16> -> tensor<16x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  %y = ge.conv2d %1, %0 : tensor<16x16x1x1xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<16x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  %2 = ge.trans_data %y : tensor<16x16x1x1xf16, #ge.format<NC1HWC0>> -> tensor<16x16x1x1xf16>
// CHECK-NEXT:  func.return %2 : tensor<16x16x1x1xf16>
// CHECK-NEXT:  }
func.func @input_and_filter(%x: tensor<16x16x1x1xf16>) -> tensor<16x16x1x1xf16> {
  %r = ge.relu %x : tensor<16x16x1x1xf16>
  %y = ge.conv2d %r, %r : tensor<16x16x1x1xf16>, tensor<16x16x1x1xf16> -> tensor<16x16x1x1xf16>
  func.return %y : tensor<16x16x1x1xf16>
}

// -----

// CHECK-LABEL: func.func @rank3_channel_constant(
// CHECK-NEXT:  %0 = ge.trans_data %x : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  %1 = ge.const #ge.elided : tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:  %y = ge.conv2d %0, %1 : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  %2 = ge.const #ge.elided : tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  %z = ge.add %y, %2 : (tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>) -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  %3 = ge.trans_data %z : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:  func.return %3 : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @rank3_channel_constant(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<1x16x2x2xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x2x2xf16>
  %c = ge.const dense<2.0> : tensor<16x1x1xf16>
  %z = ge.add %y, %c : (tensor<1x16x2x2xf16>, tensor<16x1x1xf16>) -> tensor<1x16x2x2xf16>
  func.return %z : tensor<1x16x2x2xf16>
}


// -----

// NaN and inf are data: weights and a per-channel constant holding them convert like any
// other (the verifier checks that padding lanes are zero, not that data lanes equal
// themselves), and the output re-parses (checked by the generic RUN line above).
// CHECK-LABEL: func.func @nan_and_inf_are_data(
// CHECK:         ge.const #ge.elided : tensor<2x2x1x1xf32, #ge.format<FRACTAL_Z>>
// CHECK:         ge.const #ge.elided : tensor<1x2x1x1xf32, #ge.format<NC1HWC0>>
// CHECK:         ge.conv2d {{.*}} -> tensor<1x2x2x2xf32, #ge.format<NC1HWC0>>
// CHECK:         ge.add {{.*}} -> tensor<1x2x2x2xf32, #ge.format<NC1HWC0>>
func.func @nan_and_inf_are_data(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[0x7FC00000]], [[1.0]]], [[[0x7F800000]], [[-2.0]]]]> : tensor<2x2x1x1xf32>
  %t = ge.const dense<[[[0x7FC00000]], [[0xFF800000]]]> : tensor<2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %c, %t : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}
