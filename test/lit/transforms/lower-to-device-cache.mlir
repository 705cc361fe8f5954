// --lower-to-device on ge.scatter_update (the KV-cache update): the launch writes a view of
// the buffer it updates, the cache's own when nothing reads the old cache afterwards (in
// place: no copy of the cache, and a cache argument whose update is returned becomes an
// in-out argument), else a copy of the cache made by an npu.copy just before.  Every case
// pins the whole output, which parses and verifies again (in-out arguments included);
// PLAN shows the in-place view kept by --plan-memory.
//
// RUN: ge-opt %s --split-input-file --assign-streams --lower-to-device | filecheck %s
// RUN: ge-opt %s --split-input-file --assign-streams --lower-to-device | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --lower-to-device --plan-memory | filecheck %s --check-prefix=PLAN

// The decode step: the caches are arguments whose updates are returned once, so they
// become in-out arguments (npu.input and npu.output) and each launch writes a view of its
// cache's own buffer; no copy of a cache.  The old cache's read before the update (the
// reduce_sum) comes first on the stream, so it does not stop the update in place.
// CHECK-LABEL: func.func @in_out(
// CHECK-SAME: %x: memref<1x2x1x4xf32> {npu.input = "x", npu.type = tensor<1x2x1x4xf32>}, %pos: memref<1xi64> {npu.input = "pos", npu.type = tensor<1xi64>}, %k: memref<1x2x8x4xf32> {npu.input = "k_cache", npu.output = "k_cache_new", npu.type = tensor<1x2x8x4xf32>}, %y: memref<1x2x8xf32> {npu.output = "y", npu.type = tensor<1x2x8xf32>}, %old: memref<1x2x8xf32> {npu.output = "old", npu.type = tensor<1x2x8xf32>}) attributes {npu.program} {
// CHECK-NEXT:   npu.launch "reduce_sum"(%k) -> (%old) stream 0 priority 0 : (tensor<1x2x8x4xf32>) -> (tensor<1x2x8xf32>) cost <vector, flops = 64, bytes_in = 256, bytes_out = 64, blocks = 1> attrs {axes = array<i64: 3>}
// CHECK-NEXT:   %kn = npu.view %k[0] : memref<1x2x8x4xf32> -> memref<1x2x8x4xf32>
// CHECK-NEXT:   npu.launch "scatter_update"(%k, %pos, %x) -> (%kn) stream 0 priority 0 : (tensor<1x2x8x4xf32>, tensor<1xi64>, tensor<1x2x1x4xf32>) -> (tensor<1x2x8x4xf32>) cost <vector, flops = 0, bytes_in = 40, bytes_out = 32, blocks = 1> attrs {axis = 2 : i64}
// CHECK-NEXT:   npu.launch "reduce_sum"(%kn) -> (%y) stream 0 priority 0 : (tensor<1x2x8x4xf32>) -> (tensor<1x2x8xf32>) cost <vector, flops = 64, bytes_in = 256, bytes_out = 64, blocks = 1> attrs {axes = array<i64: 3>}
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
func.func @in_out(%x: tensor<1x2x1x4xf32> {ge.name = "x"}, %pos: tensor<1xi64> {ge.name = "pos"}, %k: tensor<1x2x8x4xf32> {ge.name = "k_cache"}) -> (tensor<1x2x8xf32> {ge.name = "y"}, tensor<1x2x8x4xf32> {ge.name = "k_cache_new"}, tensor<1x2x8xf32> {ge.name = "old"}) {
  %old = ge.reduce_sum %k axes [3] : tensor<1x2x8x4xf32> -> tensor<1x2x8xf32>
  %kn = ge.scatter_update %k, %pos, %x axis 2 : tensor<1x2x8x4xf32>, tensor<1xi64>, tensor<1x2x1x4xf32> -> tensor<1x2x8x4xf32>
  %y = ge.reduce_sum %kn axes [3] : tensor<1x2x8x4xf32> -> tensor<1x2x8xf32>
  func.return %y, %kn, %old : tensor<1x2x8xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8xf32>
}

// -----

// The old cache is read after the update: the update works on a copy, made straight into
// its output buffer, and the argument stays an input only.
// CHECK-LABEL: func.func @read_after(
// CHECK-SAME: %x: memref<1x1xf32> {npu.input = "arg0", npu.type = tensor<1x1xf32>}, %pos: memref<1xi64> {npu.input = "arg1", npu.type = tensor<1xi64>}, %k: memref<1x4xf32> {npu.input = "arg2", npu.type = tensor<1x4xf32>}, %kn: memref<1x4xf32> {npu.output = "result0", npu.type = tensor<1x4xf32>}, %old: memref<1xf32> {npu.output = "result1", npu.type = tensor<1xf32>}) attributes {npu.program} {
// CHECK-NEXT:   npu.copy %k -> %kn stream 0 cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> : memref<1x4xf32>
// CHECK-NEXT:   %kn_1 = npu.view %kn[0] : memref<1x4xf32> -> memref<1x4xf32>
// CHECK-NEXT:   npu.launch "scatter_update"(%kn, %pos, %x) -> (%kn_1) stream 0 priority 0 : (tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 0, bytes_in = 12, bytes_out = 4, blocks = 1> attrs {axis = 1 : i64}
// CHECK-NEXT:   npu.launch "reduce_sum"(%k) -> (%old) stream 0 priority 0 : (tensor<1x4xf32>) -> (tensor<1xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 4, blocks = 1> attrs {axes = array<i64: 1>}
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
func.func @read_after(%x: tensor<1x1xf32>, %pos: tensor<1xi64>, %k: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1xf32>) {
  %kn = ge.scatter_update %k, %pos, %x axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32> -> tensor<1x4xf32>
  %old = ge.reduce_sum %k axes [1] : tensor<1x4xf32> -> tensor<1xf32>
  func.return %kn, %old : tensor<1x4xf32>, tensor<1xf32>
}

// -----

// A read through a view counts: the reshape of the old cache is read after the update.
// CHECK-LABEL: func.func @read_after_view(
// CHECK-SAME: %x: memref<1x1xf32> {npu.input = "arg0", npu.type = tensor<1x1xf32>}, %pos: memref<1xi64> {npu.input = "arg1", npu.type = tensor<1xi64>}, %k: memref<1x4xf32> {npu.input = "arg2", npu.type = tensor<1x4xf32>}, %kn: memref<1x4xf32> {npu.output = "result0", npu.type = tensor<1x4xf32>}, %old: memref<1xf32> {npu.output = "result1", npu.type = tensor<1xf32>}) attributes {npu.program} {
// CHECK-NEXT:   %flat = npu.view %k[0] : memref<1x4xf32> -> memref<4xf32>
// CHECK-NEXT:   npu.copy %k -> %kn stream 0 cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> : memref<1x4xf32>
// CHECK-NEXT:   %kn_1 = npu.view %kn[0] : memref<1x4xf32> -> memref<1x4xf32>
// CHECK-NEXT:   npu.launch "scatter_update"(%kn, %pos, %x) -> (%kn_1) stream 0 priority 0 : (tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 0, bytes_in = 12, bytes_out = 4, blocks = 1> attrs {axis = 1 : i64}
// CHECK-NEXT:   npu.launch "reduce_sum"(%flat) -> (%old) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<1xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 4, blocks = 1> attrs {axes = array<i64: 0>, keepdims = true}
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
func.func @read_after_view(%x: tensor<1x1xf32>, %pos: tensor<1xi64>, %k: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1xf32>) {
  %flat = ge.reshape %k : tensor<1x4xf32> -> tensor<4xf32>
  %kn = ge.scatter_update %k, %pos, %x axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32> -> tensor<1x4xf32>
  %old = ge.reduce_sum %flat axes [0] keepdims : tensor<4xf32> -> tensor<1xf32>
  func.return %kn, %old : tensor<1x4xf32>, tensor<1xf32>
}

// -----

// A cache computed in the graph (an activation) and not returned: the update writes a view
// of its allocation, and the view stays a view of it in the workspace (PLAN).
// CHECK-LABEL: func.func @activation(
// CHECK-SAME: %c: memref<1x4xf32> {npu.input = "arg0", npu.type = tensor<1x4xf32>}, %pos: memref<1xi64> {npu.input = "arg1", npu.type = tensor<1xi64>}, %x: memref<1x1xf32> {npu.input = "arg2", npu.type = tensor<1x1xf32>}, %y: memref<1xf32> {npu.output = "result0", npu.type = tensor<1xf32>}) attributes {npu.program} {
// CHECK-NEXT:   %k = npu.alloc : memref<1x4xf32>
// CHECK-NEXT:   npu.launch "relu"(%c) -> (%k) stream 0 priority 0 : (tensor<1x4xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
// CHECK-NEXT:   %kn = npu.view %k[0] : memref<1x4xf32> -> memref<1x4xf32>
// CHECK-NEXT:   npu.launch "scatter_update"(%k, %pos, %x) -> (%kn) stream 0 priority 0 : (tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 0, bytes_in = 12, bytes_out = 4, blocks = 1> attrs {axis = 1 : i64}
// CHECK-NEXT:   npu.launch "reduce_sum"(%kn) -> (%y) stream 0 priority 0 : (tensor<1x4xf32>) -> (tensor<1xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 4, blocks = 1> attrs {axes = array<i64: 1>}
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
// PLAN-LABEL: func.func @activation(
// PLAN-SAME: %c: memref<1x4xf32> {npu.input = "arg0", npu.type = tensor<1x4xf32>}, %pos: memref<1xi64> {npu.input = "arg1", npu.type = tensor<1xi64>}, %x: memref<1x1xf32> {npu.input = "arg2", npu.type = tensor<1x1xf32>}, %y: memref<1xf32> {npu.output = "result0", npu.type = tensor<1xf32>}) attributes {npu.program, npu.memory = {peak = 512 : i64, no_reuse = 512 : i64, sequential_bound = 512 : i64, stream_bound = 512 : i64, buffers = 1 : i64, optimal = 1 : i64}} {
// PLAN-NEXT:   %workspace = npu.alloc : memref<512xi8>
// PLAN-NEXT:   %k = npu.view %workspace[0] : memref<512xi8> -> memref<1x4xf32>
// PLAN-NEXT:   npu.launch "relu"(%c) -> (%k) stream 0 priority 0 : (tensor<1x4xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
// PLAN-NEXT:   %kn = npu.view %k[0] : memref<1x4xf32> -> memref<1x4xf32>
// PLAN-NEXT:   npu.launch "scatter_update"(%k, %pos, %x) -> (%kn) stream 0 priority 0 : (tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 0, bytes_in = 12, bytes_out = 4, blocks = 1> attrs {axis = 1 : i64}
// PLAN-NEXT:   npu.launch "reduce_sum"(%kn) -> (%y) stream 0 priority 0 : (tensor<1x4xf32>) -> (tensor<1xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 4, blocks = 1> attrs {axes = array<i64: 1>}
// PLAN-NEXT:   func.return
// PLAN-NEXT: }
func.func @activation(%c: tensor<1x4xf32>, %pos: tensor<1xi64>, %x: tensor<1x1xf32>) -> tensor<1xf32> {
  %k = ge.relu %c : tensor<1x4xf32>
  %kn = ge.scatter_update %k, %pos, %x axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32> -> tensor<1x4xf32>
  %y = ge.reduce_sum %kn axes [1] : tensor<1x4xf32> -> tensor<1xf32>
  func.return %y : tensor<1xf32>
}

// -----

// Not writable in place: a constant (a read-only weight), and an argument whose update is
// not returned (the caller's input stays unchanged).  Each update copies its cache into a
// new allocation first.
// CHECK-LABEL: func.func @copies(
// CHECK-SAME: %k: memref<1x4xf32> {npu.input = "arg0", npu.type = tensor<1x4xf32>}, %pos: memref<1xi64> {npu.input = "arg1", npu.type = tensor<1xi64>}, %x: memref<1x1xf32> {npu.input = "arg2", npu.type = tensor<1x1xf32>}, %a: memref<1xf32> {npu.output = "result0", npu.type = tensor<1xf32>}, %b: memref<1xf32> {npu.output = "result1", npu.type = tensor<1xf32>}) attributes {npu.program} {
// CHECK-NEXT:   %w = npu.weight dense<[[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]> : memref<1x4xf32>
// CHECK-NEXT:   %wn = npu.alloc : memref<1x4xf32>
// CHECK-NEXT:   npu.copy %w -> %wn stream 0 cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> : memref<1x4xf32>
// CHECK-NEXT:   %wn_1 = npu.view %wn[0] : memref<1x4xf32> -> memref<1x4xf32>
// CHECK-NEXT:   npu.launch "scatter_update"(%wn, %pos, %x) -> (%wn_1) stream 0 priority 0 : (tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 0, bytes_in = 12, bytes_out = 4, blocks = 1> attrs {axis = 1 : i64}
// CHECK-NEXT:   %kn = npu.alloc : memref<1x4xf32>
// CHECK-NEXT:   npu.copy %k -> %kn stream 0 cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> : memref<1x4xf32>
// CHECK-NEXT:   %kn_1 = npu.view %kn[0] : memref<1x4xf32> -> memref<1x4xf32>
// CHECK-NEXT:   npu.launch "scatter_update"(%kn, %pos, %x) -> (%kn_1) stream 0 priority 0 : (tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 0, bytes_in = 12, bytes_out = 4, blocks = 1> attrs {axis = 1 : i64}
// CHECK-NEXT:   npu.launch "reduce_sum"(%wn_1) -> (%a) stream 0 priority 0 : (tensor<1x4xf32>) -> (tensor<1xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 4, blocks = 1> attrs {axes = array<i64: 1>}
// CHECK-NEXT:   npu.launch "reduce_sum"(%kn_1) -> (%b) stream 0 priority 0 : (tensor<1x4xf32>) -> (tensor<1xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 4, blocks = 1> attrs {axes = array<i64: 1>}
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
func.func @copies(%k: tensor<1x4xf32>, %pos: tensor<1xi64>, %x: tensor<1x1xf32>) -> (tensor<1xf32>, tensor<1xf32>) {
  %w = ge.const dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>
  %wn = ge.scatter_update %w, %pos, %x axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32> -> tensor<1x4xf32>
  %kn = ge.scatter_update %k, %pos, %x axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32> -> tensor<1x4xf32>
  %a = ge.reduce_sum %wn axes [1] : tensor<1x4xf32> -> tensor<1xf32>
  %b = ge.reduce_sum %kn axes [1] : tensor<1x4xf32> -> tensor<1xf32>
  func.return %a, %b : tensor<1xf32>, tensor<1xf32>
}

// -----

// Two updates of one cache: the first is followed by the second's read of the old cache, so
// it works on a copy; the second, last, updates the argument in place.
// CHECK-LABEL: func.func @twice(
// CHECK-SAME: %k: memref<1x4xf32> {npu.input = "k", npu.output = "b", npu.type = tensor<1x4xf32>}, %pos: memref<1xi64> {npu.input = "arg1", npu.type = tensor<1xi64>}, %x: memref<1x1xf32> {npu.input = "arg2", npu.type = tensor<1x1xf32>}, %a: memref<1x4xf32> {npu.output = "a", npu.type = tensor<1x4xf32>}) attributes {npu.program} {
// CHECK-NEXT:   npu.copy %k -> %a stream 0 cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> : memref<1x4xf32>
// CHECK-NEXT:   %a_1 = npu.view %a[0] : memref<1x4xf32> -> memref<1x4xf32>
// CHECK-NEXT:   npu.launch "scatter_update"(%a, %pos, %x) -> (%a_1) stream 0 priority 0 : (tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 0, bytes_in = 12, bytes_out = 4, blocks = 1> attrs {axis = 1 : i64}
// CHECK-NEXT:   %b = npu.view %k[0] : memref<1x4xf32> -> memref<1x4xf32>
// CHECK-NEXT:   npu.launch "scatter_update"(%k, %pos, %x) -> (%b) stream 0 priority 0 : (tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 0, bytes_in = 12, bytes_out = 4, blocks = 1> attrs {axis = 1 : i64}
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
func.func @twice(%k: tensor<1x4xf32> {ge.name = "k"}, %pos: tensor<1xi64>, %x: tensor<1x1xf32>) -> (tensor<1x4xf32> {ge.name = "a"}, tensor<1x4xf32> {ge.name = "b"}) {
  %a = ge.scatter_update %k, %pos, %x axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32> -> tensor<1x4xf32>
  %b = ge.scatter_update %k, %pos, %x axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32> -> tensor<1x4xf32>
  func.return %a, %b : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// A read of the old cache on another stream (--assign-streams puts the labelled op on
// stream 1): stream order cannot put it first, so the update works on a copy.
// CHECK-LABEL: func.func @other_stream(
// CHECK-SAME: %k: memref<1x4xf32> {npu.input = "k", npu.type = tensor<1x4xf32>}, %pos: memref<1xi64> {npu.input = "arg1", npu.type = tensor<1xi64>}, %x: memref<1x1xf32> {npu.input = "arg2", npu.type = tensor<1x1xf32>}, %s: memref<1xf32> {npu.output = "result0", npu.type = tensor<1xf32>}, %kn: memref<1x4xf32> {npu.output = "result1", npu.type = tensor<1x4xf32>}) attributes {npu.program} {
// CHECK-NEXT:   npu.record 0 stream 0
// CHECK-NEXT:   npu.wait 0 stream 1
// CHECK-NEXT:   npu.launch "reduce_sum"(%k) -> (%s) stream 1 priority 0 : (tensor<1x4xf32>) -> (tensor<1xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 4, blocks = 1> attrs {axes = array<i64: 1>}
// CHECK-NEXT:   npu.record 1 stream 1
// CHECK-NEXT:   npu.copy %k -> %kn stream 0 cost <vector, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> : memref<1x4xf32>
// CHECK-NEXT:   %kn_1 = npu.view %kn[0] : memref<1x4xf32> -> memref<1x4xf32>
// CHECK-NEXT:   npu.launch "scatter_update"(%kn, %pos, %x) -> (%kn_1) stream 0 priority 0 : (tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32>) -> (tensor<1x4xf32>) cost <vector, flops = 0, bytes_in = 12, bytes_out = 4, blocks = 1> attrs {axis = 1 : i64}
// CHECK-NEXT:   npu.wait 1 stream 0
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
func.func @other_stream(%k: tensor<1x4xf32> {ge.name = "k"}, %pos: tensor<1xi64>, %x: tensor<1x1xf32>) -> (tensor<1xf32>, tensor<1x4xf32>) {
  %s = ge.reduce_sum %k axes [1] {stream.label = #stream.label<"side", priority = 0, inner_parallel = false>} : tensor<1x4xf32> -> tensor<1xf32>
  %kn = ge.scatter_update %k, %pos, %x axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x1xf32> -> tensor<1x4xf32>
  func.return %s, %kn : tensor<1xf32>, tensor<1x4xf32>
}
