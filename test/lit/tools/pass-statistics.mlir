// --pass-statistics: after the pipeline, what each pass counted, on stderr, in mlir-opt's
// format (`--mlir-pass-statistics`, pipeline display): a header, then each pass that counted
// something in pipeline order, one `(S) <value> <name> - <description>` line per statistic,
// sorted by name; with --split-input-file, one report per chunk.  Stdout stays the IR.
// RUN: ge-opt %s --split-input-file --fuse --to-nc1hwc0 --assign-streams=mode=auto --lower-to-device --plan-memory --pass-statistics -o %t 2>&1 | filecheck %s
// RUN: ge-opt %s --split-input-file --lower-to-device --plan-memory=in-place=false --pass-statistics -o %t 2>&1 | filecheck %s --check-prefix=NOINPLACE
// RUN: ge-opt %s --split-input-file --fuse --lower-to-device --plan-memory | filecheck %s --check-prefix=IR
// RUN: ge-opt %s --split-input-file --fuse --lower-to-device --plan-memory 2>&1 | filecheck %s --check-prefix=OFF

// IR: npu.program
// OFF-NOT: Pass statistics report

// Two conv + relu branches joined by an add: two streams, four ops in NC1HWC0, the
// sigmoid and the add written in place.
// CHECK:      {{^}}===-------------------------------------------------------------------------==={{$}}
// CHECK-NEXT: {{^}}                         ... Pass statistics report ...{{$}}
// CHECK-NEXT: {{^}}===-------------------------------------------------------------------------==={{$}}
// CHECK-NEXT: {{^}}fuse{{$}}
// CHECK-NEXT: {{^}}  (S) 2 fusions - rewrites into ge.fused_conv2d (each absorbs a whole chain){{$}}
// CHECK-NEXT: {{^}}to-nc1hwc0{{$}}
// CHECK-NEXT: {{^}}  (S) 4 nc1hwc0-ops          - ops that run in NC1HWC0{{$}}
// CHECK-NEXT: {{^}}  (S) 0 trans-data-cancelled - ge.trans_data cancelled, merged or left unused{{$}}
// CHECK-NEXT: {{^}}  (S) 2 trans-data-inserted  - ge.trans_data inserted around NC1HWC0 ops{{$}}
// CHECK-NEXT: {{^}}assign-streams{{$}}
// CHECK-NEXT: {{^}}  (S) 2 events-dropped - cross-stream dependencies that stream order and the kept events already imply{{$}}
// CHECK-NEXT: {{^}}  (S) 2 events-kept    - cross-stream dependencies kept as record/wait events{{$}}
// CHECK-NEXT: {{^}}  (S) 2 streams        - streams of the assigned functions (summed over functions){{$}}
// CHECK-NEXT: {{^}}lower-to-device{{$}}
// CHECK-NEXT: {{^}}  (S) 0 copies   - npu.copy tasks into output buffers{{$}}
// CHECK-NEXT: {{^}}  (S) 2 events   - npu.record events (one per stream.record){{$}}
// CHECK-NEXT: {{^}}  (S) 6 launches - npu.launch tasks (one per ge op){{$}}
// CHECK-NEXT: {{^}}plan-memory{{$}}
// CHECK-NEXT: {{^}}  (S) 5 buffers        - activation buffers planned into the workspace{{$}}
// CHECK-NEXT: {{^}}  (S) 0 buffers-reused - buffers placed in bytes an earlier buffer also uses{{$}}
// CHECK-NEXT: {{^}}  (S) 2 in-place       - launches writing into their input's buffer{{$}}
// CHECK-EMPTY:
func.func @branches(%x: tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16> {
  %w = ge.const dense<0.5> : tensor<16x16x1x1xf16>
  %a = ge.conv2d %x, %w : tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x8x8xf16>
  %ra = ge.relu %a : tensor<1x16x8x8xf16>
  %b = ge.conv2d %x, %w : tensor<1x16x8x8xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x8x8xf16>
  %rb = ge.relu %b : tensor<1x16x8x8xf16>
  %s = ge.add %ra, %rb : (tensor<1x16x8x8xf16>, tensor<1x16x8x8xf16>) -> tensor<1x16x8x8xf16>
  %y = ge.sigmoid %s : tensor<1x16x8x8xf16>
  func.return %y : tensor<1x16x8x8xf16>
}

// -----

// The input's own inverse trans_data pair is cancelled (both ops go); a chain of four
// sigmoids whose last is returned twice (two copies).  In place, each sigmoid but the first
// writes its input's bytes; without in-place (second RUN, where the trans_data stay) the
// six buffers take turns in two places.
// CHECK:      {{^}}                         ... Pass statistics report ...{{$}}
// CHECK:      {{^}}to-nc1hwc0{{$}}
// CHECK-NEXT: {{^}}  (S) 0 nc1hwc0-ops          - ops that run in NC1HWC0{{$}}
// CHECK-NEXT: {{^}}  (S) 2 trans-data-cancelled - ge.trans_data cancelled, merged or left unused{{$}}
// CHECK-NEXT: {{^}}  (S) 0 trans-data-inserted  - ge.trans_data inserted around NC1HWC0 ops{{$}}
// CHECK-NEXT: {{^}}assign-streams{{$}}
// CHECK-NEXT: {{^}}  (S) 0 events-dropped - cross-stream dependencies that stream order and the kept events already imply{{$}}
// CHECK-NEXT: {{^}}  (S) 0 events-kept    - cross-stream dependencies kept as record/wait events{{$}}
// CHECK-NEXT: {{^}}  (S) 1 streams        - streams of the assigned functions (summed over functions){{$}}
// CHECK-NEXT: {{^}}lower-to-device{{$}}
// CHECK-NEXT: {{^}}  (S) 2 copies   - npu.copy tasks into output buffers{{$}}
// CHECK-NEXT: {{^}}  (S) 0 events   - npu.record events (one per stream.record){{$}}
// CHECK-NEXT: {{^}}  (S) 4 launches - npu.launch tasks (one per ge op){{$}}
// CHECK-NEXT: {{^}}plan-memory{{$}}
// CHECK-NEXT: {{^}}  (S) 4 buffers        - activation buffers planned into the workspace{{$}}
// CHECK-NEXT: {{^}}  (S) 0 buffers-reused - buffers placed in bytes an earlier buffer also uses{{$}}
// CHECK-NEXT: {{^}}  (S) 3 in-place       - launches writing into their input's buffer{{$}}

// NOINPLACE:      {{^}}                         ... Pass statistics report ...{{$}}
// NOINPLACE:      {{^}}plan-memory{{$}}
// NOINPLACE:      {{^}}                         ... Pass statistics report ...{{$}}
// NOINPLACE-NEXT: {{^}}===-------------------------------------------------------------------------==={{$}}
// NOINPLACE-NEXT: {{^}}lower-to-device{{$}}
// NOINPLACE-NEXT: {{^}}  (S) 2 copies   - npu.copy tasks into output buffers{{$}}
// NOINPLACE-NEXT: {{^}}  (S) 0 events   - npu.record events (one per stream.record){{$}}
// NOINPLACE-NEXT: {{^}}  (S) 6 launches - npu.launch tasks (one per ge op){{$}}
// NOINPLACE-NEXT: {{^}}plan-memory{{$}}
// NOINPLACE-NEXT: {{^}}  (S) 6 buffers        - activation buffers planned into the workspace{{$}}
// NOINPLACE-NEXT: {{^}}  (S) 4 buffers-reused - buffers placed in bytes an earlier buffer also uses{{$}}
// NOINPLACE-NEXT: {{^}}  (S) 0 in-place       - launches writing into their input's buffer{{$}}
func.func @chain(%x: tensor<1x16x8x8xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) {
  %t = ge.trans_data %x : tensor<1x16x8x8xf32> -> tensor<1x16x8x8xf32, #ge.format<NC1HWC0>>
  %u = ge.trans_data %t : tensor<1x16x8x8xf32, #ge.format<NC1HWC0>> -> tensor<1x16x8x8xf32>
  %a = ge.sigmoid %u : tensor<1x16x8x8xf32>
  %b = ge.sigmoid %a : tensor<1x16x8x8xf32>
  %c = ge.sigmoid %b : tensor<1x16x8x8xf32>
  %d = ge.sigmoid %c : tensor<1x16x8x8xf32>
  func.return %d, %d : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>
}
