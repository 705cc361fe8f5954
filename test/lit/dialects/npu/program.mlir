// A small device program written by hand, as a test author would: y = relu(x) + x, with
// the relu on stream 1 and the add on stream 0 after an event.  It verifies (op verifiers
// and verify_program), prints back unchanged, and upstream MLIR parses its generic form.
// RUN: GE_ROUNDTRIP
// (the upstream check of this RUN line is in test/lit/upstream/dialects.test)

// CHECK-LABEL: func.func @relu_add(
// CHECK-SAME:  %x: memref<1x1x4x4x16xf16> {npu.input = "x", npu.type = tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>}, %y: memref<1x1x4x4x16xf16> {npu.output = "y", npu.type = tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>}) attributes {npu.program} {
// CHECK-NEXT:    %r = npu.alloc : memref<1x1x4x4x16xf16>
// CHECK-NEXT:    npu.launch "relu"(%x) -> (%r) stream 1 priority 0 : (tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>) -> (tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>) cost <vector, flops = 256, bytes_in = 512, bytes_out = 512, blocks = 1> attrs {}
// CHECK-NEXT:    npu.record 0 stream 1
// CHECK-NEXT:    npu.wait 0 stream 0
// CHECK-NEXT:    npu.launch "add"(%r, %x) -> (%y) stream 0 priority 0 : (tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>, tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>) -> (tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>) cost <vector, flops = 256, bytes_in = 1024, bytes_out = 512, blocks = 1> attrs {}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @relu_add(%x: memref<1x1x4x4x16xf16> {npu.input = "x", npu.type = tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>},
                    %y: memref<1x1x4x4x16xf16> {npu.output = "y", npu.type = tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>})
    attributes {npu.program} {
  %r = npu.alloc : memref<1x1x4x4x16xf16>
  npu.launch "relu"(%x) -> (%r) stream 1 priority 0
      : (tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>) -> (tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>)
      cost <vector, flops = 256, bytes_in = 512, bytes_out = 512, blocks = 1>
  npu.record 0 stream 1
  npu.wait 0 stream 0
  npu.launch "add"(%r, %x) -> (%y) stream 0 priority 0
      : (tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>, tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>)
      -> (tensor<1x3x4x4xf16, #npu.format<NC1HWC0>>)
      cost <vector, flops = 256, bytes_in = 1024, bytes_out = 512, blocks = 1>
  func.return
}
