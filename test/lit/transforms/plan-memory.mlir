// --plan-memory: activation buffers into one workspace; a buffer takes another's bytes only
// when every access of the earlier happens before the later's first write (stream order and
// record/wait), in place for elementwise launches; npu.memory holds the peak and its bounds.
//
// RUN: ge-opt %s --split-input-file --plan-memory | filecheck %s --check-prefixes=CHECK,IN
// RUN: ge-opt %s --split-input-file --plan-memory=in-place=false | filecheck %s --check-prefixes=CHECK,NOIP
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: ge-opt %s --split-input-file --plan-memory | ge-opt --split-input-file --plan-memory | filecheck %s --check-prefixes=CHECK,IN

// One stream, in place: relu -> sigmoid -> relu, each input dying at the next launch, all
// share the 512 bytes at offset 0 (IN); without in place (NOIP) two slots alternate.
// IN-LABEL: func.func @in_place_chain(
// IN-SAME: attributes {npu.program, npu.memory = {peak = 512 : i64, no_reuse = 1536 : i64, sequential_bound = 512 : i64, stream_bound = 512 : i64, buffers = 3 : i64, optimal = 1 : i64}} {
// IN-NEXT:     %workspace = npu.alloc : memref<512xi8>
// IN-NEXT:     %a = npu.view %workspace[0] : memref<512xi8> -> memref<128xf32>
// IN-NEXT:     npu.launch "relu"(%x) -> (%a) stream 0 priority 0
// IN-NEXT:     %b = npu.view %workspace[0] : memref<512xi8> -> memref<128xf32>
// IN-NEXT:     npu.launch "sigmoid"(%a) -> (%b) stream 0 priority 0
// IN-NEXT:     %c = npu.view %workspace[0] : memref<512xi8> -> memref<128xf32>
// IN-NEXT:     npu.launch "relu"(%b) -> (%c) stream 0 priority 0
// IN-NEXT:     npu.launch "add"(%c, %x) -> (%y) stream 0 priority 0
// IN-NEXT:     func.return
// IN-NEXT:   }
// NOIP-LABEL: func.func @in_place_chain(
// NOIP-SAME: attributes {npu.program, npu.memory = {peak = 1024 : i64, no_reuse = 1536 : i64, sequential_bound = 1024 : i64, stream_bound = 1024 : i64, buffers = 3 : i64, optimal = 1 : i64}} {
// NOIP-NEXT:     %workspace = npu.alloc : memref<1024xi8>
// NOIP-NEXT:     %a = npu.view %workspace[0] : memref<1024xi8> -> memref<128xf32>
// NOIP-NEXT:     npu.launch "relu"(%x) -> (%a) stream 0 priority 0
// NOIP-NEXT:     %b = npu.view %workspace[512] : memref<1024xi8> -> memref<128xf32>
// NOIP-NEXT:     npu.launch "sigmoid"(%a) -> (%b) stream 0 priority 0
// NOIP-NEXT:     %c = npu.view %workspace[0] : memref<1024xi8> -> memref<128xf32>
// NOIP-NEXT:     npu.launch "relu"(%b) -> (%c) stream 0 priority 0
// NOIP-NEXT:     npu.launch "add"(%c, %x) -> (%y) stream 0 priority 0
// NOIP-NEXT:     func.return
// NOIP-NEXT:   }
func.func @in_place_chain(%x: memref<128xf32> {npu.input = "x"}, %y: memref<128xf32> {npu.output = "y"}) attributes {npu.program} {
  %a = npu.alloc : memref<128xf32>
  npu.launch "relu"(%x) -> (%a) stream 0 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 128, bytes_in = 512, bytes_out = 512, blocks = 1>
  %b = npu.alloc : memref<128xf32>
  npu.launch "sigmoid"(%a) -> (%b) stream 0 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 512, bytes_in = 512, bytes_out = 512, blocks = 1>
  %c = npu.alloc : memref<128xf32>
  npu.launch "relu"(%b) -> (%c) stream 0 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 128, bytes_in = 512, bytes_out = 512, blocks = 1>
  npu.launch "add"(%c, %x) -> (%y) stream 0 priority 0 : (tensor<128xf32>, tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 128, bytes_in = 1024, bytes_out = 512, blocks = 1>
  func.return
}


// -----

// Two streams where reuse must wait for an event: %a is read on stream 1; stream 0 waits for
// event 1 (recorded after that read) before writing %b, so %b takes %a's bytes.
// CHECK-LABEL: func.func @reuse_after_event(
// CHECK-SAME: attributes {npu.program, npu.memory = {peak = 512 : i64, no_reuse = 1024 : i64, sequential_bound = 512 : i64, stream_bound = 512 : i64, buffers = 2 : i64, optimal = 1 : i64}} {
// CHECK-NEXT:     %workspace = npu.alloc : memref<512xi8>
// CHECK-NEXT:     %a = npu.view %workspace[0] : memref<512xi8> -> memref<128xf32>
// CHECK-NEXT:     npu.launch "relu"(%x) -> (%a) stream 0 priority 0
// CHECK-NEXT:     npu.record 0 stream 0
// CHECK-NEXT:     npu.wait 0 stream 1
// CHECK-NEXT:     npu.launch "sigmoid"(%a) -> (%y) stream 1 priority 0
// CHECK-NEXT:     npu.record 1 stream 1
// CHECK-NEXT:     npu.wait 1 stream 0
// CHECK-NEXT:     %b = npu.view %workspace[0] : memref<512xi8> -> memref<128xf32>
// CHECK-NEXT:     npu.launch "relu"(%x) -> (%b) stream 0 priority 0
// CHECK-NEXT:     npu.launch "sigmoid"(%b) -> (%z) stream 0 priority 0
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
func.func @reuse_after_event(%x: memref<128xf32> {npu.input = "x"}, %y: memref<128xf32> {npu.output = "y"}, %z: memref<128xf32> {npu.output = "z"}) attributes {npu.program} {
  %a = npu.alloc : memref<128xf32>
  npu.launch "relu"(%x) -> (%a) stream 0 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 128, bytes_in = 512, bytes_out = 512, blocks = 1>
  npu.record 0 stream 0
  npu.wait 0 stream 1
  npu.launch "sigmoid"(%a) -> (%y) stream 1 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 512, bytes_in = 512, bytes_out = 512, blocks = 1>
  npu.record 1 stream 1
  npu.wait 1 stream 0
  %b = npu.alloc : memref<128xf32>
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 128, bytes_in = 512, bytes_out = 512, blocks = 1>
  npu.launch "sigmoid"(%b) -> (%z) stream 0 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 512, bytes_in = 512, bytes_out = 512, blocks = 1>
  func.return
}


// -----

// The same without the wait before %b: stream 1 may still read %a when stream 0 writes %b,
// so they get disjoint bytes (the pass never adds events).  The sequential bound (one buffer
// live at a time in the task list) says 512 bytes; the stream-aware bound says 1024.
// CHECK-LABEL: func.func @no_reuse_without_event(
// CHECK-SAME: attributes {npu.program, npu.memory = {peak = 1024 : i64, no_reuse = 1024 : i64, sequential_bound = 512 : i64, stream_bound = 1024 : i64, buffers = 2 : i64, optimal = 1 : i64}} {
// CHECK-NEXT:     %workspace = npu.alloc : memref<1024xi8>
// CHECK-NEXT:     %a = npu.view %workspace[0] : memref<1024xi8> -> memref<128xf32>
// CHECK-NEXT:     npu.launch "relu"(%x) -> (%a) stream 0 priority 0
// CHECK-NEXT:     npu.record 0 stream 0
// CHECK-NEXT:     npu.wait 0 stream 1
// CHECK-NEXT:     npu.launch "sigmoid"(%a) -> (%y) stream 1 priority 0
// CHECK-NEXT:     %b = npu.view %workspace[512] : memref<1024xi8> -> memref<128xf32>
// CHECK-NEXT:     npu.launch "relu"(%x) -> (%b) stream 0 priority 0
// CHECK-NEXT:     npu.launch "sigmoid"(%b) -> (%z) stream 0 priority 0
// CHECK-NEXT:     npu.record 1 stream 1
// CHECK-NEXT:     npu.wait 1 stream 0
// CHECK-NEXT:     func.return
// CHECK-NEXT:   }
func.func @no_reuse_without_event(%x: memref<128xf32> {npu.input = "x"}, %y: memref<128xf32> {npu.output = "y"}, %z: memref<128xf32> {npu.output = "z"}) attributes {npu.program} {
  %a = npu.alloc : memref<128xf32>
  npu.launch "relu"(%x) -> (%a) stream 0 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 128, bytes_in = 512, bytes_out = 512, blocks = 1>
  npu.record 0 stream 0
  npu.wait 0 stream 1
  npu.launch "sigmoid"(%a) -> (%y) stream 1 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 512, bytes_in = 512, bytes_out = 512, blocks = 1>
  %b = npu.alloc : memref<128xf32>
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 128, bytes_in = 512, bytes_out = 512, blocks = 1>
  npu.launch "sigmoid"(%b) -> (%z) stream 0 priority 0 : (tensor<128xf32>) -> (tensor<128xf32>) cost <vector, flops = 512, bytes_in = 512, bytes_out = 512, blocks = 1>
  npu.record 1 stream 1
  npu.wait 1 stream 0
  func.return
}
