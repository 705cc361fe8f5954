// `-t ge-pbtxt` prints the function as GE's GraphDef in protobuf text format (the schema is
// ge_dialect/ir/ge_ir.proto): Data nodes for the arguments, one node per op with GE's type,
// "src:index" data inputs and "^src" control inputs (TorchAir's pbtxt spelling), TorchAir's scope attributes, and a
// TensorDescriptor per output (stored shape, layout); NetOutput for the return.
// RUN: ge-opt %examples/torchair_multistream.mlir -t ge-pbtxt | filecheck %s --check-prefix=MS
// RUN: not ge-opt %s --split-input-file -t ge-pbtxt 2>/dev/null | filecheck %s
// RUN: not ge-opt %s --split-input-file -t ge-pbtxt 2>&1 >/dev/null | filecheck %s --check-prefix=ERR
// RUN: not ge-opt %examples/torchair_multistream.mlir --lower-to-device -t ge-pbtxt 2>&1 | filecheck %s --check-prefix=DEV

// A device program is no GE graph.
// DEV: torchair_multistream.mlir:23:3: error: 'func.func' op is an npu program (lowered to the device), not a GE graph: print the graph before lower-to-device{{$}}

// TorchAir's multi-stream example: npu_wait_tensor(in4, add_result) is an Identity of in4
// with a control input from the Add; ops in npu_stream_switch('1') carry the label.
// MS:      name: "main"
// MS-NEXT: input: "in1"
// MS-NEXT: input: "in2"
// MS-NEXT: input: "in3"
// MS-NEXT: input: "in4"
// MS-NEXT: output: "add_result:0"
// MS-NEXT: output: "mm_result:0"
// MS-NEXT: output: "mm1:0"
// MS-NEXT: output: "add2:0"
// MS-NEXT: op {
// MS-NEXT:   name: "in1"
// MS-NEXT:   type: "Data"
// MS-NEXT:   attr {
// MS-NEXT:     key: "index"
// MS-NEXT:     value {
// MS-NEXT:       i: 0
// MS:        name: "in4"
// MS-NEXT:   type: "Data"
// MS-NEXT:   attr {
// MS-NEXT:     key: "index"
// MS-NEXT:     value {
// MS-NEXT:       i: 3
// MS:      op {
// MS-NEXT:   name: "add_result"
// MS-NEXT:   type: "Add"
// MS-NEXT:   input: "in1:0"
// MS-NEXT:   input: "in2:0"
// MS-NOT:    attr
// MS:        output_desc {
// MS-NEXT:     name: "output"
// MS-NEXT:     dtype: DT_FLOAT
// MS-NEXT:     shape {
// MS-NEXT:       dim: 4
// MS-NEXT:       dim: 4
// MS-NEXT:     }
// MS-NEXT:     layout: "ND"
// MS-NEXT:   }
// MS-NEXT: }
// MS-NEXT: op {
// MS-NEXT:   name: "Identity"
// MS-NEXT:   type: "Identity"
// MS-NEXT:   input: "in4:0"
// MS-NEXT:   input: "^add_result"
// MS-NEXT:   attr {
// MS-NEXT:     key: "_enable_inner_parallel"
// MS-NEXT:     value {
// MS-NEXT:       b: true
// MS-NEXT:     }
// MS-NEXT:   }
// MS-NEXT:   attr {
// MS-NEXT:     key: "_user_stream_label"
// MS-NEXT:     value {
// MS-NEXT:       s: "1"
// MS-NEXT:     }
// MS-NEXT:   }
// MS-NEXT:   attr {
// MS-NEXT:     key: "_user_stream_priority"
// MS-NEXT:     value {
// MS-NEXT:       s: "0"
// MS-NEXT:     }
// MS-NEXT:   }
// MS-NEXT:   input_desc {
// MS-NEXT:     name: "x"
// MS:      op {
// MS-NEXT:   name: "mm_result"
// MS-NEXT:   type: "MatMulV2"
// MS-NEXT:   input: "in3:0"
// MS-NEXT:   input: "Identity:0"
// MS-NEXT:   attr {
// MS-NEXT:     key: "_enable_inner_parallel"
// MS:            s: "1"
// MS:      op {
// MS-NEXT:   name: "mm1"
// MS-NEXT:   type: "MatMulV2"
// MS-NEXT:   input: "in3:0"
// MS-NEXT:   input: "Identity:0"
// MS-NEXT:   input_desc {
// MS:      op {
// MS-NEXT:   name: "Identity_1"
// MS-NEXT:   type: "Identity"
// MS-NEXT:   input: "Identity:0"
// MS-NEXT:   input: "^mm_result"
// MS:            s: "2"
// MS:      op {
// MS-NEXT:   name: "add2"
// MS-NEXT:   type: "Add"
// MS-NEXT:   input: "in3:0"
// MS-NEXT:   input: "Identity_1:0"
// MS:      op {
// MS-NEXT:   name: "NetOutput"
// MS-NEXT:   type: "NetOutput"
// MS-NEXT:   input: "add_result:0"
// MS-NEXT:   input: "mm_result:0"
// MS-NEXT:   input: "mm1:0"
// MS-NEXT:   input: "add2:0"
// MS-NEXT:   input_desc {
// MS-NEXT:     name: "x0"
// MS-NOT:  op {

// A conv / batch norm / relu graph: GE's types, properties as attributes, constants as
// Const nodes described by their type (the bytes are not printed), a TorchAir scope string
// attribute, a priority-3 label without inner parallelism.
// CHECK:      name: "net"
// CHECK-NEXT: input: "x"
// CHECK-NEXT: output: "relu:0"
// CHECK:        name: "w"
// CHECK-NEXT:   type: "Const"
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "value"
// CHECK-NEXT:     value {
// CHECK-NEXT:       t {
// CHECK-NEXT:         desc {
// CHECK-NEXT:           dtype: DT_FLOAT
// CHECK-NEXT:           shape {
// CHECK-NEXT:             dim: 4
// CHECK-NEXT:             dim: 3
// CHECK-NEXT:             dim: 3
// CHECK-NEXT:             dim: 3
// CHECK-NEXT:           }
// CHECK-NEXT:           layout: "NCHW"
// CHECK-NEXT:         }
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   output_desc {
// CHECK:        name: "conv"
// CHECK-NEXT:   type: "Conv2D"
// CHECK-NEXT:   input: "x:0"
// CHECK-NEXT:   input: "w:0"
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "dilations"
// CHECK-NEXT:     value {
// CHECK-NEXT:       list {
// CHECK-NEXT:         i: 1
// CHECK-NEXT:         i: 1
// CHECK-NEXT:         val_type: VT_LIST_INT
// CHECK:          key: "groups"
// CHECK-NEXT:     value {
// CHECK-NEXT:       i: 1
// CHECK:          key: "pads"
// CHECK-NEXT:     value {
// CHECK-NEXT:       list {
// CHECK-NEXT:         i: 1
// CHECK-NEXT:         i: 1
// CHECK-NEXT:         i: 1
// CHECK-NEXT:         i: 1
// CHECK:          key: "strides"
// CHECK:        input_desc {
// CHECK-NEXT:     name: "input"
// CHECK:        input_desc {
// CHECK-NEXT:     name: "filter"
// CHECK:        name: "bn"
// CHECK-NEXT:   type: "BatchNorm"
// CHECK-NEXT:   input: "conv:0"
// CHECK-NEXT:   input: "s:0"
// CHECK-NEXT:   input: "b:0"
// CHECK-NEXT:   input: "b:0"
// CHECK-NEXT:   input: "s:0"
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "epsilon"
// CHECK-NEXT:     value {
// CHECK-NEXT:       f: 0.001
// CHECK:        name: "relu"
// CHECK-NEXT:   type: "Relu"
// CHECK-NEXT:   input: "bn:0"
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "_enable_inner_parallel"
// CHECK-NEXT:     value {
// CHECK-NEXT:       b: false
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "_op_aicore_num"
// CHECK-NEXT:     value {
// CHECK-NEXT:       s: "4"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "_user_stream_label"
// CHECK-NEXT:     value {
// CHECK-NEXT:       s: "side"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "_user_stream_priority"
// CHECK-NEXT:     value {
// CHECK-NEXT:       s: "3"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK:        name: "NetOutput"
// CHECK-NEXT:   type: "NetOutput"
// CHECK-NEXT:   input: "relu:0"
func.func @net(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = ge.const dense<5.000000e-01> : tensor<4x3x3x3xf32>
  %s = ge.const dense<1.000000e+00> : tensor<4xf32>
  %b = ge.const dense<0.000000e+00> : tensor<4xf32>
  %conv = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  %bn = ge.batch_norm %conv, %s, %b, %b, %s epsilon 1.000000e-03 : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %relu = ge.relu %bn {_op_aicore_num = "4", stream.label = #stream.label<"side", priority = 3, inner_parallel = false>} : tensor<1x4x8x8xf32>
  func.return %relu : tensor<1x4x8x8xf32>
}

// -----

// An NC1HWC0 tensor: its descriptor stores the 5-D shape (20 channels = 2 blocks of 16 for
// f16) with layout NC1HWC0, and the logical shape and format as origin_shape/origin_format.
// CHECK-LABEL: name: "nc1hwc0"
// CHECK:        name: "t"
// CHECK-NEXT:   type: "TransData"
// CHECK-NEXT:   input: "x:0"
// CHECK-NEXT:   input_desc {
// CHECK-NEXT:     name: "input"
// CHECK-NEXT:     dtype: DT_FLOAT16
// CHECK-NEXT:     shape {
// CHECK-NEXT:       dim: 1
// CHECK-NEXT:       dim: 20
// CHECK-NEXT:       dim: 4
// CHECK-NEXT:       dim: 4
// CHECK-NEXT:     }
// CHECK-NEXT:     layout: "NCHW"
// CHECK-NEXT:   }
// CHECK-NEXT:   output_desc {
// CHECK-NEXT:     name: "output"
// CHECK-NEXT:     dtype: DT_FLOAT16
// CHECK-NEXT:     shape {
// CHECK-NEXT:       dim: 1
// CHECK-NEXT:       dim: 2
// CHECK-NEXT:       dim: 4
// CHECK-NEXT:       dim: 4
// CHECK-NEXT:       dim: 16
// CHECK-NEXT:     }
// CHECK-NEXT:     layout: "NC1HWC0"
// CHECK-NEXT:     attr {
// CHECK-NEXT:       key: "origin_format"
// CHECK-NEXT:       value {
// CHECK-NEXT:         s: "NCHW"
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:     attr {
// CHECK-NEXT:       key: "origin_shape"
// CHECK-NEXT:       value {
// CHECK-NEXT:         list {
// CHECK-NEXT:           i: 1
// CHECK-NEXT:           i: 20
// CHECK-NEXT:           i: 4
// CHECK-NEXT:           i: 4
// CHECK-NEXT:           val_type: VT_LIST_INT
// CHECK:        name: "r"
// CHECK-NEXT:   type: "Relu"
// CHECK-NEXT:   input: "t:0"
// CHECK:          layout: "NC1HWC0"
func.func @nc1hwc0(%x: tensor<1x20x4x4xf16>) -> tensor<1x20x4x4xf16> {
  %t = ge.trans_data %x : tensor<1x20x4x4xf16> -> tensor<1x20x4x4xf16, #ge.format<NC1HWC0>>
  %r = ge.relu %t : tensor<1x20x4x4xf16, #ge.format<NC1HWC0>>
  %y = ge.trans_data %r : tensor<1x20x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x20x4x4xf16>
  func.return %y : tensor<1x20x4x4xf16>
}

// -----

// After stream assignment: a record is a Send, a wait a Recv after it (a control input),
// both with the event's id; stream.id is the node's stream_id (0, the default, is not
// printed).
// CHECK-LABEL: name: "assigned"
// CHECK:        name: "a"
// CHECK-NEXT:   type: "Relu"
// CHECK-NEXT:   input: "x:0"
// CHECK-NEXT:   input_desc {
// CHECK:        name: "e"
// CHECK-NEXT:   type: "Send"
// CHECK-NEXT:   input: "^a"
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "event_id"
// CHECK-NEXT:     value {
// CHECK-NEXT:       i: 0
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: op {
// CHECK-NEXT:   name: "Recv"
// CHECK-NEXT:   type: "Recv"
// CHECK-NEXT:   input: "^e"
// CHECK-NEXT:   attr {
// CHECK-NEXT:     key: "event_id"
// CHECK-NEXT:     value {
// CHECK-NEXT:       i: 0
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   stream_id: 1
// CHECK-NEXT: }
// CHECK-NEXT: op {
// CHECK-NEXT:   name: "b"
// CHECK-NEXT:   type: "Sigmoid"
// CHECK-NEXT:   input: "a:0"
// CHECK-NEXT:   attr {
// CHECK:          key: "_user_stream_label"
// CHECK:        stream_id: 1
// CHECK-NEXT:   input_desc {
func.func @assigned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream.id = #stream.id<0>} : tensor<4xf32>
  %e = stream.record %a {stream.id = #stream.id<0>} : tensor<4xf32>
  stream.wait %e {stream.id = #stream.id<1>}
  %b = ge.sigmoid %a {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
  %e2 = stream.record %b {stream.id = #stream.id<1>} : tensor<4xf32>
  stream.wait %e2 {stream.id = #stream.id<0>}
  func.return %b : tensor<4xf32>
}

// -----

// A module with two functions is not one graph.
// ERR: ge-pbtxt.mlir:[[# @LINE + 4]]:1: error: 'func.func' op is a second function: a GE graph dump prints one graph (the module has 2){{$}}
func.func @f() {
  func.return
}
func.func @g() {
  func.return
}

// -----

// A module without a function has no graph.
// ERR: ge-pbtxt.mlir:[[# @LINE + 1]]:1: error: 'builtin.module' op has no func.func to print as a GE graph{{$}}
builtin.module {
}
