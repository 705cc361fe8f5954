// --lower-to-device: ge functions to npu programs (GE's task list).  Every case pins the
// whole output; no ge or stream op, type encoding or attribute survives (NOGE).
//
// RUN: ge-opt %s --split-input-file --lower-to-device | filecheck %s
// RUN: ge-opt %s --split-input-file --assign-streams --lower-to-device | filecheck %s --check-prefix=LABELS
// RUN: ge-opt %s --split-input-file --to-nc1hwc0 --assign-streams=mode=auto --lower-to-device --elide-constants-if-larger=4 | filecheck %s --check-prefix=AUTO
// RUN: ge-opt %s --split-input-file -p 'canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto},lower-to-device' | filecheck %s --check-prefix=NOGE
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: ge-opt %s --split-input-file -p 'to-nc1hwc0,assign-streams{mode=auto},lower-to-device' | ge-opt --split-input-file --lower-to-device | filecheck %s --check-prefix=NOGE

// NOGE-NOT: {{ge\.|stream\.|#ge}}

// One stream (an unassigned graph lowers onto stream 0).  Arguments and results become
// buffer arguments, inputs then outputs, named by ge.name with their logical types.  The
// relu writes a fresh buffer (its value is returned twice: both outputs get a copy); the
// reshape is a view of the relu's bytes (no task), copied into its output; an argument and
// a constant returned as outputs are copied too, each copy right after its value exists.
// CHECK-LABEL: func.func @single(
// CHECK-SAME: %x: memref<2x8xf32> {npu.input = "x", npu.type = tensor<2x8xf32>}, %flat: memref<16xf32> {npu.output = "flat", npu.type = tensor<16xf32>}, %x_1: memref<2x8xf32> {npu.output = "x_out", npu.type = tensor<2x8xf32>}, %c: memref<2xf32> {npu.output = "c", npu.type = tensor<2xf32>}, %y: memref<2x8xf32> {npu.output = "y1", npu.type = tensor<2x8xf32>}, %y_1: memref<2x8xf32> {npu.output = "y2", npu.type = tensor<2x8xf32>}) attributes {npu.program} {
// CHECK-NEXT:     npu.copy %x -> %x_1 stream 0 cost <vector, flops = 0, bytes_in = 64, bytes_out = 64, blocks = 1> : memref<2x8xf32>
// CHECK-NEXT:     %c_1 = npu.weight dense<[1.500000e+00, -2.000000e+00]> : memref<2xf32>
// CHECK-NEXT:     npu.copy %c_1 -> %c stream 0 cost <vector, flops = 0, bytes_in = 8, bytes_out = 8, blocks = 1> : memref<2xf32>
// CHECK-NEXT:     %y_2 = npu.alloc : memref<2x8xf32>
// CHECK-NEXT:     npu.launch "relu"(%x) -> (%y_2) stream 0 priority 0 : (tensor<2x8xf32>) -> (tensor<2x8xf32>) cost <vector, flops = 16, bytes_in = 64, bytes_out = 64, blocks = 1> attrs {}
// CHECK-NEXT:     npu.copy %y_2 -> %y stream 0 cost <vector, flops = 0, bytes_in = 64, bytes_out = 64, blocks = 1> : memref<2x8xf32>
// CHECK-NEXT:     npu.copy %y_2 -> %y_1 stream 0 cost <vector, flops = 0, bytes_in = 64, bytes_out = 64, blocks = 1> : memref<2x8xf32>
// CHECK-NEXT:     %flat_1 = npu.view %y_2[0] : memref<2x8xf32> -> memref<16xf32>
// CHECK-NEXT:     npu.copy %flat_1 -> %flat stream 0 cost <vector, flops = 0, bytes_in = 64, bytes_out = 64, blocks = 1> : memref<16xf32>
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
func.func @single(%x: tensor<2x8xf32> {ge.name = "x"}) -> (tensor<16xf32> {ge.name = "flat"}, tensor<2x8xf32> {ge.name = "x_out"}, tensor<2xf32> {ge.name = "c"}, tensor<2x8xf32> {ge.name = "y1"}, tensor<2x8xf32> {ge.name = "y2"}) {
  %c = ge.const dense<[1.5, -2.0]> : tensor<2xf32>
  %y = ge.relu %x : tensor<2x8xf32>
  %flat = ge.reshape %y : tensor<2x8xf32> -> tensor<16xf32>
  func.return %flat, %x, %c, %y, %y : tensor<16xf32>, tensor<2x8xf32>, tensor<2xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}


// -----

// Two labels with priorities (--assign-streams, labels mode): each label's stream, the
// label's priority on its launches (an unlabelled launch: 0), and stream.record/stream.wait
// as npu.record/npu.wait with events numbered 0..n-1 in record order (the fork from the
// entry is event 0, waited on by both label streams).  Results without ge.name are named
// result0, result1.
// LABELS-LABEL: func.func @labels(
// LABELS-SAME: %x: memref<4xf32> {npu.input = "arg0", npu.type = tensor<4xf32>}, %s: memref<4xf32> {npu.output = "result0", npu.type = tensor<4xf32>}, %a: memref<4xf32> {npu.output = "result1", npu.type = tensor<4xf32>}) attributes {npu.program} {
// LABELS-NEXT:     npu.record 0 stream 0
// LABELS-NEXT:     npu.wait 0 stream 1
// LABELS-NEXT:     npu.launch "relu"(%x) -> (%a) stream 1 priority -1 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
// LABELS-NEXT:     npu.record 1 stream 1
// LABELS-NEXT:     npu.wait 0 stream 2
// LABELS-NEXT:     %b = npu.alloc : memref<4xf32>
// LABELS-NEXT:     npu.launch "sigmoid"(%x) -> (%b) stream 2 priority 2 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 16, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
// LABELS-NEXT:     npu.record 2 stream 2
// LABELS-NEXT:     npu.wait 1 stream 0
// LABELS-NEXT:     npu.wait 2 stream 0
// LABELS-NEXT:     npu.launch "add"(%a, %b) -> (%s) stream 0 priority 0 : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 32, bytes_out = 16, blocks = 1> attrs {}
// LABELS-NEXT:     func.return
// LABELS-NEXT:   }
func.func @labels(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = ge.relu %x {stream.label = #stream.label<"hi", priority = -1, inner_parallel = false>} : tensor<4xf32>
  %b = ge.sigmoid %x {stream.label = #stream.label<"lo", priority = 2, inner_parallel = false>} : tensor<4xf32>
  %s = ge.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s, %a : tensor<4xf32>, tensor<4xf32>
}


// -----

// An assigned auto-mode diamond on encoded data (--to-nc1hwc0 first): the conv's weight is a
// FRACTAL_Z npu.weight of the physical shape [C1*H*W, N1, 16, C0] = [2*3*3, 1, 16, 16], every
// NC1HWC0 value an alloc of shape [N, C1, H, W, C0], trans_data a launch of its own; the two
// branches of the diamond run on streams 0 and 1 with one event each way that is needed.
// AUTO-LABEL: func.func @diamond(
// AUTO-SAME: %x: memref<1x17x8x8xf32> {npu.input = "arg0", npu.type = tensor<1x17x8x8xf32>}, %0: memref<1x16x8x8xf32> {npu.output = "result0", npu.type = tensor<1x16x8x8xf32>}) attributes {npu.program} {
// AUTO-NEXT:     %1 = npu.alloc : memref<1x2x8x8x16xf32>
// AUTO-NEXT:     npu.launch "trans_data"(%x) -> (%1) stream 0 priority 0 : (tensor<1x17x8x8xf32>) -> (tensor<1x17x8x8xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 0, bytes_in = 4352, bytes_out = 8192, blocks = 1> attrs {}
// AUTO-NEXT:     %2 = npu.weight #npu.elided : memref<18x1x16x16xf32>
// AUTO-NEXT:     %a = npu.alloc : memref<1x2x8x8x16xf32>
// AUTO-NEXT:     npu.launch "relu"(%1) -> (%a) stream 0 priority 0 : (tensor<1x17x8x8xf32, #npu.format<NC1HWC0>>) -> (tensor<1x17x8x8xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 1088, bytes_in = 8192, bytes_out = 8192, blocks = 1> attrs {}
// AUTO-NEXT:     %b = npu.alloc : memref<1x1x8x8x16xf32>
// AUTO-NEXT:     npu.launch "conv2d"(%a, %2) -> (%b) stream 0 priority 0 : (tensor<1x17x8x8xf32, #npu.format<NC1HWC0>>, tensor<16x17x3x3xf32, #npu.format<FRACTAL_Z>>) -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 313344, bytes_in = 26624, bytes_out = 4096, blocks = 4> attrs {dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = false, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// AUTO-NEXT:     npu.record 0 stream 0
// AUTO-NEXT:     %c = npu.alloc : memref<1x1x8x8x16xf32>
// AUTO-NEXT:     npu.launch "sigmoid"(%b) -> (%c) stream 0 priority 0 : (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 4096, bytes_in = 4096, bytes_out = 4096, blocks = 1> attrs {}
// AUTO-NEXT:     npu.wait 0 stream 1
// AUTO-NEXT:     %e = npu.alloc : memref<1x1x8x8x16xf32>
// AUTO-NEXT:     npu.launch "relu"(%b) -> (%e) stream 1 priority 0 : (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 1024, bytes_in = 4096, bytes_out = 4096, blocks = 1> attrs {}
// AUTO-NEXT:     npu.record 1 stream 1
// AUTO-NEXT:     npu.wait 1 stream 0
// AUTO-NEXT:     %d = npu.alloc : memref<1x1x8x8x16xf32>
// AUTO-NEXT:     npu.launch "add"(%e, %c) -> (%d) stream 0 priority 0 : (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>, tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) -> (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 1024, bytes_in = 8192, bytes_out = 4096, blocks = 1> attrs {}
// AUTO-NEXT:     npu.launch "trans_data"(%d) -> (%0) stream 0 priority 0 : (tensor<1x16x8x8xf32, #npu.format<NC1HWC0>>) -> (tensor<1x16x8x8xf32>) cost <vector, flops = 0, bytes_in = 4096, bytes_out = 4096, blocks = 1> attrs {}
// AUTO-NEXT:     func.return
// AUTO-NEXT:   }
func.func @diamond(%x: tensor<1x17x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %w = ge.const dense<0.25> : tensor<16x17x3x3xf32>
  %a = ge.relu %x : tensor<1x17x8x8xf32>
  %b = ge.conv2d %a, %w pads [1, 1, 1, 1] : tensor<1x17x8x8xf32>, tensor<16x17x3x3xf32> -> tensor<1x16x8x8xf32>
  %c = ge.sigmoid %b : tensor<1x16x8x8xf32>
  %e = ge.relu %b : tensor<1x16x8x8xf32>
  %d = ge.add %e, %c : (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  func.return %d : tensor<1x16x8x8xf32>
}


// -----

// A collective: a launch on the comm unit with its group, rank size and reduction.
// CHECK-LABEL: func.func @collective(
// CHECK-SAME: %x: memref<8xf32> {npu.input = "arg0", npu.type = tensor<8xf32>}, %r: memref<8xf32> {npu.output = "result0", npu.type = tensor<8xf32>}) attributes {npu.program} {
// CHECK-NEXT:     npu.launch "hcom_all_reduce"(%x) -> (%r) stream 0 priority 0 : (tensor<8xf32>) -> (tensor<8xf32>) cost <comm, flops = 0, bytes_in = 32, bytes_out = 32, blocks = 1> attrs {group = "world", rank_size = 1 : i64, reduction = "sum"}
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
func.func @collective(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = ge.hcom_all_reduce %x reduction sum group "world" rank_size 1 : tensor<8xf32>
  func.return %r : tensor<8xf32>
}

