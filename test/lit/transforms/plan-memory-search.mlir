// --plan-memory{search=...}: after the heuristic placement, the exact offset search lowers
// the peak to the stream-aware bound where the heuristic stops short, and npu.memory says
// whether the peak is proven optimal (optimal = 1).  A four-stream program lowered from a
// generated graph (weights zeroed): the heuristic needs 20480 bytes, the bound is 18432.
//
// RUN: ge-opt %s --plan-memory=search=none | filecheck %s --check-prefix=NONE
// RUN: ge-opt %s --plan-memory | filecheck %s --check-prefix=EXACT
// RUN: ge-opt %s --plan-memory=search=exact,budget=0 | filecheck %s --check-prefix=NONE
// RUN: not ge-opt %s --plan-memory=search=greedy 2>&1 | filecheck %s --check-prefix=BAD

// NONE: npu.memory = {peak = 20480 : i64, no_reuse = 27136 : i64, sequential_bound = 14336 : i64, stream_bound = 18432 : i64, buffers = 10 : i64, optimal = 0 : i64}
// NONE: %workspace = npu.alloc : memref<20480xi8>
// EXACT: npu.memory = {peak = 18432 : i64, no_reuse = 27136 : i64, sequential_bound = 14336 : i64, stream_bound = 18432 : i64, buffers = 10 : i64, optimal = 1 : i64}
// EXACT: %workspace = npu.alloc : memref<18432xi8>
// EXACT-COUNT-10: npu.view %workspace[{{[0-9]+}}] : memref<18432xi8>
// BAD: error: plan-memory: search must be none or exact, got 'greedy'

builtin.module {
  func.func @main(%x: memref<2x17x4x4xf32> {npu.input = "x", npu.type = tensor<2x17x4x4xf32>}, %0: memref<2x4x4x4xf32> {npu.output = "relu33", npu.type = tensor<2x4x4x4xf32>}, %sigmoid2: memref<2x17x4x4xf32> {npu.output = "sigmoid2", npu.type = tensor<2x17x4x4xf32>}, %1: memref<2x32x4x4xf32> {npu.output = "cat18", npu.type = tensor<2x32x4x4xf32>}, %2: memref<2x4x4x4xf32> {npu.output = "relu32", npu.type = tensor<2x4x4x4xf32>}) attributes {npu.program} {
    npu.record 0 stream 0
    %3 = npu.alloc : memref<2x2x4x4x16xf32>
    npu.launch "trans_data"(%x) -> (%3) stream 0 priority 0 : (tensor<2x17x4x4xf32>) -> (tensor<2x17x4x4xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 0, bytes_in = 2176, bytes_out = 4096, blocks = 1> attrs {}
    npu.record 1 stream 0
    %leakyrelu1 = npu.alloc : memref<2x2x4x4x16xf32>
    npu.launch "leaky_relu"(%3) -> (%leakyrelu1) stream 0 priority 0 : (tensor<2x17x4x4xf32, #npu.format<NC1HWC0>>) -> (tensor<2x17x4x4xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 1088, bytes_in = 4096, bytes_out = 4096, blocks = 1> attrs {alpha = 1.000000e-01 : f32}
    npu.wait 0 stream 1
    npu.launch "sigmoid"(%x) -> (%sigmoid2) stream 1 priority 0 : (tensor<2x17x4x4xf32>) -> (tensor<2x17x4x4xf32>) cost <vector, flops = 2176, bytes_in = 2176, bytes_out = 2176, blocks = 1> attrs {}
    npu.record 2 stream 1
    %4 = npu.weight dense<0.000000e+00> : memref<2x1x16x16xf32>
    %5 = npu.weight dense<0.000000e+00> : memref<18x1x16x16xf32>
    %b6 = npu.weight dense<0.000000e+00> : memref<16xf32>
    npu.wait 1 stream 2
    %conv7 = npu.alloc : memref<2x1x4x4x16xf32>
    npu.launch "conv2d"(%3, %5, %b6) -> (%conv7) stream 2 priority 0 : (tensor<2x17x4x4xf32, #npu.format<NC1HWC0>>, tensor<16x17x3x3xf32, #npu.format<FRACTAL_Z>>, tensor<16xf32>) -> (tensor<2x16x4x4xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 157184, bytes_in = 22592, bytes_out = 2048, blocks = 2> attrs {dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = true, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
    %6 = npu.weight dense<0.000000e+00> : memref<9x2x16x16xf32>
    %conv9 = npu.alloc : memref<2x2x4x4x16xf32>
    npu.launch "conv2d"(%conv7, %6) -> (%conv9) stream 2 priority 0 : (tensor<2x16x4x4xf32, #npu.format<NC1HWC0>>, tensor<32x16x3x3xf32, #npu.format<FRACTAL_Z>>) -> (tensor<2x32x4x4xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 294912, bytes_in = 20480, bytes_out = 4096, blocks = 4> attrs {dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = false, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
    %7 = npu.weight dense<0.000000e+00> : memref<18x1x16x16xf32>
    %conv11 = npu.alloc : memref<2x1x4x4x16xf32>
    npu.launch "conv2d"(%conv9, %7) -> (%conv11) stream 2 priority 0 : (tensor<2x32x4x4xf32, #npu.format<NC1HWC0>>, tensor<4x32x3x3xf32, #npu.format<FRACTAL_Z>>) -> (tensor<2x4x4x4xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 73728, bytes_in = 22528, bytes_out = 2048, blocks = 2> attrs {dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = false, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
    %8 = npu.weight dense<0.000000e+00> : memref<1x1x16x16xf32>
    %conv13 = npu.alloc : memref<2x1x4x4x16xf32>
    npu.launch "conv2d"(%conv11, %8) -> (%conv13) stream 2 priority 0 : (tensor<2x4x4x4xf32, #npu.format<NC1HWC0>>, tensor<16x4x1x1xf32, #npu.format<FRACTAL_Z>>) -> (tensor<2x16x4x4xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 4096, bytes_in = 3072, bytes_out = 2048, blocks = 2> attrs {dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = false, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
    %9 = npu.weight dense<0.000000e+00> : memref<2x1x16x16xf32>
    %b15 = npu.weight dense<0.000000e+00> : memref<16xf32>
    npu.wait 1 stream 3
    %relu17 = npu.alloc : memref<2x1x4x4x16xf32>
    npu.launch "fused_conv2d"(%3, %9, %b15) -> (%relu17) stream 3 priority 0 : (tensor<2x17x4x4xf32, #npu.format<NC1HWC0>>, tensor<16x17x1x1xf32, #npu.format<FRACTAL_Z>>, tensor<16xf32>) -> (tensor<2x16x4x4xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 18432, bytes_in = 6208, bytes_out = 2048, blocks = 2> attrs {activation = "relu", dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = true, has_residual = false, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
    npu.record 3 stream 3
    npu.wait 3 stream 2
    %cat18 = npu.alloc : memref<2x2x4x4x16xf32>
    npu.launch "concat"(%conv13, %relu17) -> (%cat18) stream 2 priority 0 : (tensor<2x16x4x4xf32, #npu.format<NC1HWC0>>, tensor<2x16x4x4xf32, #npu.format<NC1HWC0>>) -> (tensor<2x32x4x4xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 0, bytes_in = 4096, bytes_out = 4096, blocks = 1> attrs {axis = 1 : i64}
    npu.launch "trans_data"(%cat18) -> (%1) stream 2 priority 0 : (tensor<2x32x4x4xf32, #npu.format<NC1HWC0>>) -> (tensor<2x32x4x4xf32>) cost <vector, flops = 0, bytes_in = 4096, bytes_out = 4096, blocks = 1> attrs {}
    npu.record 4 stream 2
    %relu32 = npu.alloc : memref<2x1x4x4x16xf32>
    npu.launch "fused_conv2d"(%leakyrelu1, %4) -> (%relu32) stream 0 priority 0 : (tensor<2x17x4x4xf32, #npu.format<NC1HWC0>>, tensor<4x17x1x1xf32, #npu.format<FRACTAL_Z>>) -> (tensor<2x4x4x4xf32, #npu.format<NC1HWC0>>) cost <cube, flops = 4480, bytes_in = 6144, bytes_out = 2048, blocks = 2> attrs {activation = "relu", dilations = array<i64: 1, 1>, groups = 1 : i64, has_bias = false, has_residual = false, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
    %10 = npu.alloc : memref<2x4x4x4xf32>
    npu.launch "trans_data"(%relu32) -> (%10) stream 0 priority 0 : (tensor<2x4x4x4xf32, #npu.format<NC1HWC0>>) -> (tensor<2x4x4x4xf32>) cost <vector, flops = 0, bytes_in = 2048, bytes_out = 512, blocks = 1> attrs {}
    npu.copy %10 -> %0 stream 0 cost <vector, flops = 0, bytes_in = 512, bytes_out = 512, blocks = 1> : memref<2x4x4x4xf32>
    npu.copy %10 -> %2 stream 0 cost <vector, flops = 0, bytes_in = 512, bytes_out = 512, blocks = 1> : memref<2x4x4x4xf32>
    npu.wait 2 stream 0
    npu.wait 4 stream 0
    func.return
  }
}

