// TorchAir's scope attributes (`limit_core_num`: _op_aicore_num / _op_vectorcore_num;
// `super_kernel`: _super_kernel_scope / _super_kernel_options) are discardable string
// attributes of the ge ops: they round-trip, a fused op keeps those all its pieces share (a
// differing one is dropped), --lower-to-device puts them on the launches (`attributes {...}`,
// which round-trip too), and a super kernel scope whose launches land on two streams without
// `stream-fusion=1` is a warning at its first op.
// RUN: ge-opt %s --split-input-file | ge-opt --split-input-file | filecheck %s --check-prefix=ROUND
// RUN: ge-opt %s --split-input-file --print-op-generic | ge-opt --split-input-file | filecheck %s --check-prefix=ROUND
// RUN: ge-opt %s --split-input-file --fuse --fuse-mlp | filecheck %s --check-prefix=FUSED
// RUN: ge-opt %s --split-input-file -p fuse,fuse-mlp,assign-streams,lower-to-device 2>/dev/null | ge-opt --split-input-file | filecheck %s --check-prefix=NPU
// RUN: ge-opt %s --split-input-file -p fuse,fuse-mlp,assign-streams,lower-to-device 2>&1 >/dev/null | filecheck %s --check-prefix=WARN

// Conv, batch norm and relu in one super kernel, the relu under another core limit: the fused
// conv keeps the super kernel and the vector-core limit, not the AI-core limit.
// ROUND-LABEL: func.func @conv_bn_relu(
// ROUND:         ge.conv2d {{.*}} {_op_aicore_num = "8", _op_vectorcore_num = "0", _super_kernel_scope = "sk", _super_kernel_options = ""}
// ROUND:         ge.relu {{.*}} {_op_aicore_num = "4", _op_vectorcore_num = "0", _super_kernel_scope = "sk", _super_kernel_options = ""}
// FUSED-LABEL: func.func @conv_bn_relu(
// FUSED:         ge.fused_conv2d {{.*}} activation relu {_op_vectorcore_num = "0", _super_kernel_scope = "sk", _super_kernel_options = ""} :
// NPU-LABEL:   func.func @conv_bn_relu(
// NPU:           npu.launch "fused_conv2d"{{.*}} attributes {_op_vectorcore_num = "0", _super_kernel_scope = "sk", _super_kernel_options = ""}
func.func @conv_bn_relu(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]], [[-2.0]]], [[[0.5]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %gamma = ge.const dense<[1.0, 6.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = ge.const dense<[3.0, 0.5]> : tensor<2xf32>
  %var = ge.const dense<[3.75, 8.75]> : tensor<2xf32>
  %c = ge.conv2d %x, %w {_op_aicore_num = "8", _op_vectorcore_num = "0", _super_kernel_scope = "sk", _super_kernel_options = ""} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %b = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 0.25 {_op_aicore_num = "8", _op_vectorcore_num = "0", _super_kernel_scope = "sk", _super_kernel_options = ""} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.relu %b {_op_aicore_num = "4", _op_vectorcore_num = "0", _super_kernel_scope = "sk", _super_kernel_options = ""} : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// SiLU gating (an authored pattern): the up projection is outside the super kernel, so the
// fused ops keep only the core limit (the new constant none).
// FUSED-LABEL: func.func @matmul_swi_glu(
// FUSED:         ge.const {{.*}} : tensor<2x4xf32>{{$}}
// FUSED-NEXT:    ge.matmul {{.*}} {_op_aicore_num = "2", _op_vectorcore_num = "0"} :
// FUSED-NEXT:    ge.swi_glu {{.*}} {_op_aicore_num = "2", _op_vectorcore_num = "0"} :
// NPU-LABEL:   func.func @matmul_swi_glu(
// NPU:           npu.launch "matmul"{{.*}} attrs {{{.*}}} attributes {_op_aicore_num = "2", _op_vectorcore_num = "0"}
// NPU-NEXT:      npu.launch "swi_glu"{{.*}} attrs {{{.*}}} attributes {_op_aicore_num = "2", _op_vectorcore_num = "0"}
func.func @matmul_swi_glu(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %wg = ge.const dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wu = ge.const dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %g = ge.matmul %x, %wg {_op_aicore_num = "2", _op_vectorcore_num = "0", _super_kernel_scope = "sk"} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %u = ge.matmul %x, %wu transpose_b {_op_aicore_num = "2", _op_vectorcore_num = "0"} : tensor<3x2xf32>, tensor<2x2xf32> -> tensor<3x2xf32>
  %s = ge.silu %g {_op_aicore_num = "2", _op_vectorcore_num = "0", _super_kernel_scope = "sk"} : tensor<3x2xf32>
  %y = ge.mul %u, %s {_op_aicore_num = "2", _op_vectorcore_num = "0", _super_kernel_scope = "sk"} : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %y : tensor<3x2xf32>
}

// -----

// One super kernel over two stream labels: a warning located at its first op.
// NPU-LABEL:   func.func @super_kernel_on_two_streams(
// NPU:           npu.launch "relu"{{.*}} stream 1 {{.*}} attributes {_super_kernel_scope = "sk1", _super_kernel_options = ""}
// NPU:           npu.launch "exp"{{.*}} stream 2 {{.*}} attributes {_super_kernel_scope = "sk1", _super_kernel_options = ""}
// WARN: scope-attrs.mlir:[[# @LINE + 2]]:3: warning: super_kernel scope 'sk1' has kernels on streams 1, 2: a super kernel runs on one stream unless its options hold 'stream-fusion=1'
func.func @super_kernel_on_two_streams(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = ge.relu %x {stream.label = #stream.label<"1">, _super_kernel_scope = "sk1", _super_kernel_options = ""} : tensor<4x4xf32>
  %b = ge.exp %y {stream.label = #stream.label<"2">, _super_kernel_scope = "sk1", _super_kernel_options = ""} : tensor<4x4xf32>
  func.return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// With stream-fusion=1 among its options (`:`-separated) the same scope is no warning.
// WARN-NOT: warning
// NPU-LABEL:   func.func @stream_fusion(
// NPU:           npu.launch "relu"{{.*}} stream 1 {{.*}} attributes {_super_kernel_scope = "sk2", _super_kernel_options = "feed-sync-all=1:stream-fusion=1"}
func.func @stream_fusion(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = ge.relu %x {stream.label = #stream.label<"1">, _super_kernel_scope = "sk2", _super_kernel_options = "feed-sync-all=1:stream-fusion=1"} : tensor<4x4xf32>
  %b = ge.exp %y {stream.label = #stream.label<"2">, _super_kernel_scope = "sk2", _super_kernel_options = "feed-sync-all=1:stream-fusion=1"} : tensor<4x4xf32>
  func.return %a, %b : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// `op_never_timeout` (a bool) and `data_dump` ride along the same way: kept by a fusion whose
// pieces share them, copied onto the launches.
// ROUND-LABEL: func.func @never_timeout_and_dump(
// ROUND:         ge.relu {{.*}} {_op_exec_never_timeout = true, torchair_enable_data_dump = "True"}
// FUSED-LABEL: func.func @never_timeout_and_dump(
// FUSED:         ge.fused_conv2d {{.*}} activation relu {_op_exec_never_timeout = true, torchair_enable_data_dump = "True"} :
// NPU-LABEL:   func.func @never_timeout_and_dump(
// NPU:           npu.launch "fused_conv2d"{{.*}} attributes {_op_exec_never_timeout = true, torchair_enable_data_dump = "True"}
func.func @never_timeout_and_dump(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]], [[-2.0]]], [[[0.5]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w {_op_exec_never_timeout = true, torchair_enable_data_dump = "True"} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.relu %c {_op_exec_never_timeout = true, torchair_enable_data_dump = "True"} : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}
