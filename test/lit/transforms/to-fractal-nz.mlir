// --to-fractal-nz: matmuls on FRACTAL_NZ operands where a minimum cut says so (the ND2NZ
// penalty of an ND operand against the bytes of the trans_data it would take), weights
// converted to FRACTAL_NZ at compile time whatever the cut decides, elementwise ops between
// matmuls kept in FRACTAL_NZ where their stored arrays give the logical result, and the
// function's arguments and results in their declared layout.  Constants of more than 32
// elements are elided.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --to-fractal-nz --elide-constants-if-larger=32 | filecheck %s
//
// Without --verify-diagnostics a refusal is one located line on stderr and a non-zero exit.
// RUN: not ge-opt %s --split-input-file --to-fractal-nz 2>&1 >/dev/null | filecheck %s --check-prefix=ERR
//
// The statistics of each case, in order (pinned for the first two, a function without a
// matmul and the input's own pair that cancels).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --to-fractal-nz --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// STATS-LABEL: to-fractal-nz
// STATS-NEXT:  {{^}}  (S) 1 constants-converted  - ge.const converted to FRACTAL_NZ at compile time{{$}}
// STATS-NEXT:  {{^}}  (S) 0 fractal-nz-ops       - ops that run in FRACTAL_NZ{{$}}
// STATS-NEXT:  {{^}}  (S) 0 trans-data-cancelled - ge.trans_data cancelled, merged or left unused{{$}}
// STATS-NEXT:  {{^}}  (S) 0 trans-data-inserted  - ge.trans_data inserted around FRACTAL_NZ ops{{$}}
// STATS-LABEL: to-fractal-nz
// STATS-NEXT:  {{^}}  (S) 3 constants-converted  - ge.const converted to FRACTAL_NZ at compile time{{$}}
// STATS-NEXT:  {{^}}  (S) 5 fractal-nz-ops       - ops that run in FRACTAL_NZ{{$}}
// STATS-NEXT:  {{^}}  (S) 0 trans-data-cancelled - ge.trans_data cancelled, merged or left unused{{$}}
// STATS-NEXT:  {{^}}  (S) 2 trans-data-inserted  - ge.trans_data inserted around FRACTAL_NZ ops{{$}}
// STATS-LABEL: to-fractal-nz
// STATS-LABEL: to-fractal-nz
// STATS-LABEL: to-fractal-nz
// STATS-NEXT:  {{^}}  (S) 0 constants-converted
// STATS-NEXT:  {{^}}  (S) 0 fractal-nz-ops
// STATS-LABEL: to-fractal-nz
// STATS-NEXT:  {{^}}  (S) 1 constants-converted
// STATS-NEXT:  {{^}}  (S) 3 fractal-nz-ops
// STATS-NEXT:  {{^}}  (S) 2 trans-data-cancelled
// STATS-NEXT:  {{^}}  (S) 2 trans-data-inserted
//
// With --verify-diagnostics the refusals are printed first, on stdout, and the other cases
// still convert.
// CHECK: to-fractal-nz.mlir:{{[0-9]+}}:1: error: 'func.func' op has 2 blocks: --to-fractal-nz handles function bodies of one block only
// CHECK: to-fractal-nz.mlir:{{[0-9]+}}:3: error: 'ge.const' op is assigned to a stream: --to-fractal-nz rewrites graphs before stream assignment; run it before --assign-streams

// A weight of a matmul whose activation rows are a whole burst (256 f16: 512 bytes) or more:
// the cut keeps the activation ND (no ND2NZ penalty, no trans_data), the weight becomes a
// FRACTAL_NZ constant anyway (free); the bias stays ND.
// CHECK-LABEL: func.func @weights_only(
// CHECK-SAME:    %[[X:.*]]: tensor<16x256xf16>) -> tensor<16x32xf16> {
// CHECK-NEXT:    %[[W:.*]] = ge.const #ge.elided : tensor<256x32xf16, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<2.000000e+00> : tensor<32xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[X]], %[[W]] bias %[[B]] : tensor<16x256xf16>, tensor<256x32xf16, #ge.format<FRACTAL_NZ>>, tensor<32xf16> -> tensor<16x32xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<16x32xf16>
// CHECK-NEXT:  }
func.func @weights_only(%x: tensor<16x256xf16>) -> tensor<16x32xf16> {
  %w = ge.const dense<1.0> : tensor<256x32xf16>
  %b = ge.const dense<2.0> : tensor<32xf16>
  %y = ge.matmul %x, %w bias %b : tensor<16x256xf16>, tensor<256x32xf16>, tensor<32xf16> -> tensor<16x32xf16>
  func.return %y : tensor<16x32xf16>
}

// -----

// matmul -> add bias -> gelu -> matmul -> matmul on rows of 32 f32 (128 bytes: a quarter of a
// burst, so an ND operand would load 4 times slower): the chain runs in FRACTAL_NZ with one
// trans_data in and one out.  The bias [32], which broadcasts over M, is replicated at compile
// time to a FRACTAL_NZ constant of the result's shape; the weight read twice is converted once.
// CHECK-LABEL: func.func @mlp_chain(
// CHECK-SAME:    %[[X:.*]]: tensor<16x32xf32>) -> tensor<16x32xf32> {
// CHECK-NEXT:    %[[XN:.*]] = ge.trans_data %[[X]] : tensor<16x32xf32> -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[W1:.*]] = ge.const #ge.elided : tensor<32x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[B1:.*]] = ge.const #ge.elided : tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[W2:.*]] = ge.const #ge.elided : tensor<32x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[H:.*]] = ge.matmul %[[XN]], %[[W1]] : tensor<16x32xf32, #ge.format<FRACTAL_NZ>>, tensor<32x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[HB:.*]] = ge.add %[[H]], %[[B1]] : (tensor<16x32xf32, #ge.format<FRACTAL_NZ>>, tensor<16x32xf32, #ge.format<FRACTAL_NZ>>) -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[G:.*]] = ge.gelu %[[HB]] : tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[G]], %[[W2]] : tensor<16x32xf32, #ge.format<FRACTAL_NZ>>, tensor<32x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[Z:.*]] = ge.matmul %[[Y]], %[[W2]] : tensor<16x32xf32, #ge.format<FRACTAL_NZ>>, tensor<32x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[ZD:.*]] = ge.trans_data %[[Z]] : tensor<16x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x32xf32>
// CHECK-NEXT:    func.return %[[ZD]] : tensor<16x32xf32>
// CHECK-NEXT:  }
func.func @mlp_chain(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %w1 = ge.const dense<0.5> : tensor<32x32xf32>
  %b1 = ge.const dense<0.25> : tensor<32xf32>
  %w2 = ge.const dense<0.125> : tensor<32x32xf32>
  %h = ge.matmul %x, %w1 : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  %hb = ge.add %h, %b1 : (tensor<16x32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  %g = ge.gelu %hb : tensor<16x32xf32>
  %y = ge.matmul %g, %w2 : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  %z = ge.matmul %y, %w2 : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  func.return %z : tensor<16x32xf32>
}

// -----

// One matmul from an argument to the result: converting the input (2 x 2 KiB) and the wide
// result back (2 x 32 KiB) costs more than the ND2NZ penalty of the input (3 x 2 KiB), so the
// cut keeps ND; only the weight is converted.
// CHECK-LABEL: func.func @keeps_nd(
// CHECK-SAME:    %[[X:.*]]: tensor<16x32xf32>) -> tensor<16x512xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const #ge.elided : tensor<32x512xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[X]], %[[W]] : tensor<16x32xf32>, tensor<32x512xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x512xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<16x512xf32>
// CHECK-NEXT:  }
func.func @keeps_nd(%x: tensor<16x32xf32>) -> tensor<16x512xf32> {
  %w = ge.const dense<1.0> : tensor<32x512xf32>
  %y = ge.matmul %x, %w : tensor<16x32xf32>, tensor<32x512xf32> -> tensor<16x512xf32>
  func.return %y : tensor<16x512xf32>
}

// -----

// Batched matmuls reading computed operands (transposed too), a mul by an ND scalar constant
// and exp (f(0) = 1: padding lanes written 0) in FRACTAL_NZ.  The add of a computed operand
// that broadcasts over M ([2, 1, 32]) stays ND: its stored array would not broadcast lane by
// lane; %h is converted back for it, and the add's result converted for the last matmul.
// CHECK-LABEL: func.func @computed_broadcast(
// CHECK-SAME:    %[[X:.*]]: tensor<2x16x32xf32>, %[[R:.*]]: tensor<2x1x32xf32>) -> tensor<2x16x32xf32> {
// CHECK-NEXT:    %[[XN:.*]] = ge.trans_data %[[X]] : tensor<2x16x32xf32> -> tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[W:.*]] = ge.const #ge.elided : tensor<32x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[H:.*]] = ge.matmul %[[XN]], %[[W]] : tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>>, tensor<32x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[HD:.*]] = ge.trans_data %[[H]] : tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<2x16x32xf32>
// CHECK-NEXT:    %[[S:.*]] = ge.const dense<5.000000e-01> : tensor<1xf32>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[H]], %[[S]] : (tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>>, tensor<1xf32>) -> tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[E:.*]] = ge.exp %[[M]] : tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[E]], %[[E]] transpose_b : tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>>, tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<2x16x16xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[A:.*]] = ge.add %[[HD]], %[[R]] : (tensor<2x16x32xf32>, tensor<2x1x32xf32>) -> tensor<2x16x32xf32>
// CHECK-NEXT:    %[[AN:.*]] = ge.trans_data %[[A]] : tensor<2x16x32xf32> -> tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[Z:.*]] = ge.matmul %[[Y]], %[[AN]] : tensor<2x16x16xf32, #ge.format<FRACTAL_NZ>>, tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[ZD:.*]] = ge.trans_data %[[Z]] : tensor<2x16x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<2x16x32xf32>
// CHECK-NEXT:    func.return %[[ZD]] : tensor<2x16x32xf32>
// CHECK-NEXT:  }
func.func @computed_broadcast(%x: tensor<2x16x32xf32>, %r: tensor<2x1x32xf32>) -> tensor<2x16x32xf32> {
  %w = ge.const dense<1.0> : tensor<32x32xf32>
  %h = ge.matmul %x, %w : tensor<2x16x32xf32>, tensor<32x32xf32> -> tensor<2x16x32xf32>
  %s = ge.const dense<0.5> : tensor<1xf32>
  %m = ge.mul %h, %s : (tensor<2x16x32xf32>, tensor<1xf32>) -> tensor<2x16x32xf32>
  %e = ge.exp %m : tensor<2x16x32xf32>
  %y = ge.matmul %e, %e transpose_b : tensor<2x16x32xf32>, tensor<2x16x32xf32> -> tensor<2x16x16xf32>
  %a = ge.add %h, %r : (tensor<2x16x32xf32>, tensor<2x1x32xf32>) -> tensor<2x16x32xf32>
  %z = ge.matmul %y, %a : tensor<2x16x16xf32>, tensor<2x16x32xf32> -> tensor<2x16x32xf32>
  func.return %z : tensor<2x16x32xf32>
}

// -----

// A function without a matmul is left alone, even with ops that could run in FRACTAL_NZ.
// CHECK-LABEL: func.func @no_matmul(
// CHECK-SAME:    %[[X:.*]]: tensor<16x32xf32>) -> tensor<16x32xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.relu %[[X]] : tensor<16x32xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<16x32xf32>
// CHECK-NEXT:  }
func.func @no_matmul(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %y = ge.relu %x : tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}

// -----

// The input's own inverse pair (ND -> NZ -> ND) cancels before the cut, which then converts
// %x once for the chain; an elided weight stays elided, now FRACTAL_NZ.
// CHECK-LABEL: func.func @user_trans_data(
// CHECK-SAME:    %[[X:.*]]: tensor<16x32xf32>) -> tensor<16x32xf32> {
// CHECK-NEXT:    %[[XN:.*]] = ge.trans_data %[[X]] : tensor<16x32xf32> -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[W:.*]] = ge.const #ge.elided : tensor<32x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[Y:.*]] = ge.matmul %[[XN]], %[[W]] : tensor<16x32xf32, #ge.format<FRACTAL_NZ>>, tensor<32x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[T:.*]] = ge.tanh %[[Y]] : tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[Z:.*]] = ge.matmul %[[T]], %[[W]] : tensor<16x32xf32, #ge.format<FRACTAL_NZ>>, tensor<32x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[ZD:.*]] = ge.trans_data %[[Z]] : tensor<16x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x32xf32>
// CHECK-NEXT:    func.return %[[ZD]] : tensor<16x32xf32>
// CHECK-NEXT:  }
func.func @user_trans_data(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %w = ge.const #ge.elided : tensor<32x32xf32>
  %n = ge.trans_data %x : tensor<16x32xf32> -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
  %d = ge.trans_data %n : tensor<16x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x32xf32>
  %y = ge.matmul %d, %w : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  %t = ge.tanh %y : tensor<16x32xf32>
  %z = ge.matmul %t, %w : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  func.return %z : tensor<16x32xf32>
}

// -----

// Refused: a function body of several blocks (the pass places ops within one block).
// ERR: {{^}}{{.*}}to-fractal-nz.mlir:[[# @LINE + 1]]:1: error: 'func.func' op has 2 blocks: --to-fractal-nz handles function bodies of one block only{{$}}
func.func @two_blocks(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  func.return %x : tensor<16x32xf32>
^bb1:
  %w = ge.const dense<1.0> : tensor<32x32xf32>
  %y = ge.matmul %x, %w : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}

// -----

// Refused: an assigned module (its ops carry stream.id), at its first assigned op.
// ERR-NEXT: {{^}}{{.*}}to-fractal-nz.mlir:[[# @LINE + 2]]:3: error: 'ge.const' op is assigned to a stream: --to-fractal-nz rewrites graphs before stream assignment; run it before --assign-streams{{$}}
func.func @assigned(%x: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %w = ge.const dense<1.0> : tensor<32x32xf32> {stream.id = #stream.id<0>}
  %y = ge.matmul %x, %w {stream.id = #stream.id<0>} : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  func.return %y : tensor<16x32xf32>
}
