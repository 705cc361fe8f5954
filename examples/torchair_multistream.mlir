// TorchAir's documented multi-stream example, as ge-opt IR: the model of "使用示例" in
// TorchAir's docs/zh/ascend_ir/features/advanced/multi_stream.md (Ascend/torchair @fced8842):
//
//   add_result = torch.add(in1, in2)
//   with tng.scope.npu_stream_switch('1'):
//       tng.scope.npu_wait_tensor(in4, add_result)
//       mm_result = torch.mm(in3, in4)
//   mm1 = torch.mm(in3, in4)
//   with tng.scope.npu_stream_switch('2'):
//       tng.scope.npu_wait_tensor(in4, mm_result)
//       add2 = torch.add(in3, in4)
//   return add_result, mm_result, mm1, add2
//
// The scopes take npu_stream_switch's defaults, stream_priority = 0 (a reserved parameter the
// documentation says to leave at 0) and enable_inner_parallel = True.  The documentation runs
// the model on 1000x1000 fp16 inputs; here they are 4x4 f32 (the same graph, small enough for
// the interpreter's tests).  Ops outside any scope carry no label (the default stream).
// npu_wait_tensor rebinds in4: every op built from in4 after a wait (mm1 included) uses that
// wait's result.  Arguments and results carry their graph names as {ge.name = ...}.  This is
// exactly what ge_dialect.frontend.builder.GraphBuilder prints for the same Python code
// (test/unit/test_builder.py, torchair_example).
builtin.module {
  func.func @main(%in1: tensor<4x4xf32> {ge.name = "in1"}, %in2: tensor<4x4xf32> {ge.name = "in2"}, %in3: tensor<4x4xf32> {ge.name = "in3"}, %in4: tensor<4x4xf32> {ge.name = "in4"}) -> (tensor<4x4xf32> {ge.name = "add_result"}, tensor<4x4xf32> {ge.name = "mm_result"}, tensor<4x4xf32> {ge.name = "mm1"}, tensor<4x4xf32> {ge.name = "add2"}) {
    %add_result = ge.add %in1, %in2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    %0 = stream.wait_tensor %in4 after %add_result {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<4x4xf32>, tensor<4x4xf32>
    %mm_result = ge.matmul %in3, %0 {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %mm1 = ge.matmul %in3, %0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %1 = stream.wait_tensor %0 after %mm_result {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>} : tensor<4x4xf32>, tensor<4x4xf32>
    %add2 = ge.add %in3, %1 {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    func.return %add_result, %mm_result, %mm1, %add2 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  }
}
