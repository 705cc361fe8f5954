// Diagnostics of the `npu` dialect: one case per parse error of its attributes, per op
// verifier rule and per whole-program rule (`verify_program`), each pinned with its exact
// message and location (line numbers are those of the whole file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

// ---- #npu.format and #npu.cost: parse errors -----------------------------------------------

// #npu.format is #ge.format's implementation: the default layouts are written as no encoding.
func.func @format_explicit_default(%x: memref<1x1x1x1xf32> {npu.input = "x"}) attributes {npu.program} {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:54: error: explicit default format NCHW is not allowed: write the tensor type without an encoding{{$}}
  %b = npu.alloc {t = tensor<1x1x1x1xf32, #npu.format<NCHW>>} : memref<1xf32>
  func.return
}

// -----

// An unknown unit, located at the word.
func.func @cost_unknown_unit(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:96: error: unknown unit 'gpu', expected cube, vector, comm or none{{$}}
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <gpu, flops = 0, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// A negative count, located at the number.
func.func @cost_negative(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:126: error: bytes_in must be non-negative, got -16{{$}}
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 0, bytes_in = -16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// Every count is written.
func.func @cost_missing(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:95: error: cost parameter 'blocks' is missing (a cost names unit, flops, bytes_in, bytes_out and blocks){{$}}
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 0, bytes_in = 16, bytes_out = 16> attrs {}
  func.return
}

// -----

// An unknown parameter, located at its name.
func.func @cost_unknown_parameter(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:44: error: unknown cost parameter 'cycles', expected flops or bytes_in or bytes_out or blocks{{$}}
  npu.copy %x -> %b stream 0 cost <vector, cycles = 1> : memref<4xf32>
  func.return
}

// -----

// ---- npu.alloc ----------------------------------------------------------------------------

// A buffer has a static shape ...
func.func @alloc_dynamic() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.alloc' op result must have a static shape, got memref<?xf32>{{$}}
  %b = npu.alloc : memref<?xf32>
  func.return
}

// -----

// ... the identity layout (its shape is the physical shape) ...
func.func @alloc_layout() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.alloc' op result must have the identity layout (a buffer of physical shape), got memref<4x4xf32, strided<[1, 4]>>{{$}}
  %b = npu.alloc : memref<4x4xf32, strided<[1, 4]>>
  func.return
}

// -----

// ... no memory space ...
func.func @alloc_memory_space() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.alloc' op result must have no memory space, got memref<4xf32, 1 : i64>{{$}}
  %b = npu.alloc : memref<4xf32, 1>
  func.return
}

// -----

// ... an element type the device computes with ...
func.func @alloc_element_type() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.alloc' op result has unsupported element type bf16{{$}}
  %b = npu.alloc : memref<4xbf16>
  func.return
}

// -----

// ... and a byte size that fits in int64 (2^62 x 4 f32 is 2^66 bytes) ...
func.func @alloc_too_large() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.alloc' op result: memref<4611686018427387904x4xf32> holds 73786976294838206464 bytes, more than a device can address (at most 2^63 - 1 bytes){{$}}
  %b = npu.alloc : memref<4611686018427387904x4xf32>
  func.return
}

// -----

// ... as does every buffer: 2^61 f32 are 2^63 bytes, one too many.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op argument 0: memref<2305843009213693952xf32> holds 9223372036854775808 bytes, more than a device can address (at most 2^63 - 1 bytes){{$}}
func.func @argument_too_large(%x: memref<2305843009213693952xf32> {npu.input = "x"}) attributes {npu.program} {
  func.return
}

// -----

// ---- npu.weight ---------------------------------------------------------------------------

// Dense data has the buffer's element type (generic form) ...
func.func @weight_element_type() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.weight' op value has element type f16, expected f32 (the buffer's){{$}}
  %w = "npu.weight"() <{value = dense<1.0> : tensor<4xf16>}> : () -> memref<4xf32>
  func.return
}

// -----

// ... and shape ...
func.func @weight_shape() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.weight' op value has type tensor<2x2xf32>, expected a tensor of the buffer's shape 4{{$}}
  %w = "npu.weight"() <{value = dense<1.0> : tensor<2x2xf32>}> : () -> memref<4xf32>
  func.return
}

// -----

// ... and no encoding.
func.func @weight_encoding() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.weight' op value must be a dense tensor without encoding, got tensor<4xf32, "enc">{{$}}
  %w = "npu.weight"() <{value = dense<1.0> : tensor<4xf32, "enc">}> : () -> memref<4xf32>
  func.return
}

// -----

// External data holds exactly the buffer's bytes.
func.func @weight_external_length() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.weight' op external data has length 8, expected 16 bytes for memref<4xf32>{{$}}
  %w = npu.weight #npu.external<"w.bin", offset = 0, length = 8> : memref<4xf32>
  func.return
}

// -----

// ---- npu.view -----------------------------------------------------------------------------

// A byte offset is non-negative ...
func.func @view_negative_offset() attributes {npu.program} {
  %b = npu.alloc : memref<8xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.view' op offset must be non-negative, got -4{{$}}
  %v = npu.view %b[-4] : memref<8xf32> -> memref<4xf32>
  func.return
}

// -----

// ... a multiple of the element size ...
func.func @view_misaligned() attributes {npu.program} {
  %b = npu.alloc : memref<8xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.view' op offset 2 is not a multiple of the element size (4 bytes){{$}}
  %v = npu.view %b[2] : memref<8xf32> -> memref<4xf32>
  func.return
}

// -----

// ... and the view lies inside its source ...
func.func @view_out_of_bounds() attributes {npu.program} {
  %b = npu.alloc : memref<8xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.view' op a view of 16 bytes at offset 20 does not fit in the source's 32 bytes{{$}}
  %v = npu.view %b[20] : memref<8xf32> -> memref<2x2xf32>
  func.return
}

// -----

// ... with the source's element type (any type only in a workspace, a flat i8 buffer) ...
func.func @view_element_type() attributes {npu.program} {
  %b = npu.alloc : memref<8xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.view' op result has element type f16, expected f32 (the source's; only a workspace, a flat i8 buffer, is viewed as other types){{$}}
  %v = npu.view %b[0] : memref<8xf32> -> memref<16xf16>
  func.return
}

// -----

// ... at an offset aligned to the result's element size.
func.func @view_workspace_alignment() attributes {npu.program} {
  %ws = npu.alloc : memref<64xi8>
  %ok = npu.view %ws[4] : memref<64xi8> -> memref<2x2xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.view' op offset 2 is not a multiple of the element size (4 bytes){{$}}
  %v = npu.view %ws[2] : memref<64xi8> -> memref<4xf32>
  func.return
}

// -----

// ---- npu.launch ---------------------------------------------------------------------------

// One logical type per operand (custom form: a parse error at the types) ...
func.func @launch_type_count(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:55: error: 2 input types, expected 1 (one per input){{$}}
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// ... (generic form: the verifier's).
func.func @launch_type_count_generic(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op out_types has 0 entries, expected 1 (one per output){{$}}
  "npu.launch"(%x, %b) <{kernel = "relu", stream = 0 : i64, priority = 0 : i64, in_types = [tensor<4xf32>], out_types = [], cost = #npu.cost<vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1>, attrs = {}, operandSegmentSizes = array<i32: 1, 1>}> : (memref<4xf32>, memref<4xf32>) -> ()
  func.return
}

// -----

// Each buffer is the memref of its logical type's physical shape.
func.func @launch_buffer_type(%x: memref<1x3x8x8xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x3x8x8xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op output 0 has type memref<1x3x8x8xf32>, expected memref<1x1x8x8x16xf32> (the physical shape of tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>){{$}}
  npu.launch "trans_data"(%x) -> (%b) stream 0 priority 0 : (tensor<1x3x8x8xf32>) -> (tensor<1x3x8x8xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 0, bytes_in = 768, bytes_out = 4096, blocks = 1> attrs {}
  func.return
}

// -----

// A logical type follows the format rules (NC1HWC0 is rank 4) ...
func.func @launch_format_rank(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op input 0's logical type: format NC1HWC0 needs a rank-4 tensor, got rank 1{{$}}
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32, #npu.format<NC1HWC0>>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// ... and its format is an #npu.format (the device dialect does not know #ge.format).
func.func @launch_ge_format(%x: memref<1x1x1x1x16xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<1x1x1x1x16xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op input 0's logical type has an encoding that is not #npu.format: #ge.format<NC1HWC0>{{$}}
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<1x1x1x1xf32, #ge.format<NC1HWC0>>) -> (tensor<1x1x1x1xf32, #npu.format<NC1HWC0>>) cost <vector, flops = 16, bytes_in = 64, bytes_out = 64, blocks = 1> attrs {}
  func.return
}

// -----

// A forward reference takes its buffer type from the logical type, which must be valid.
func.func @launch_forward_bad_type(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:74: error: output 0's logical type: format NHWC needs a rank-4 tensor, got rank 1{{$}}
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32, #npu.format<NHWC>>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  %b = npu.alloc : memref<4xf32>
  func.return
}

// -----

// An output is not a weight ...
func.func @launch_writes_weight(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %w = npu.weight dense<0.0> : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op output 0 is a weight (npu.weight), which is read-only{{$}}
  npu.launch "relu"(%x) -> (%w) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// ... nor a view of one ...
func.func @launch_writes_weight_view(%x: memref<2x2xf32> {npu.input = "x"}) attributes {npu.program} {
  %w = npu.weight dense<0.0> : memref<4xf32>
  %v = npu.view %w[0] : memref<4xf32> -> memref<2x2xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op output 0 is a view of a weight (npu.weight), which is read-only{{$}}
  npu.launch "relu"(%x) -> (%v) stream 0 priority 0 : (tensor<2x2xf32>) -> (tensor<2x2xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// ... nor a program input.
func.func @launch_writes_input(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op output 0 is the program input "x", which is read-only{{$}}
  npu.launch "relu"(%x) -> (%x) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// Stream ids are non-negative.
func.func @launch_negative_stream(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op stream id must be non-negative, got -1{{$}}
  npu.launch "relu"(%x) -> (%b) stream -1 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// A launch names its kernel.
func.func @launch_empty_kernel(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op kernel name must not be empty{{$}}
  npu.launch ""(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {}
  func.return
}

// -----

// The kernel's attributes are builtin attributes, also inside arrays and dictionaries.
func.func @launch_attrs_not_builtin(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %b = npu.alloc : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op attrs: 'modes' holds #npu.elided, which is not a builtin attribute (kernels read builtin attributes only){{$}}
  npu.launch "relu"(%x) -> (%b) stream 0 priority 0 : (tensor<4xf32>) -> (tensor<4xf32>) cost <vector, flops = 4, bytes_in = 16, bytes_out = 16, blocks = 1> attrs {alpha = 1.0 : f32, modes = [1 : i64, #npu.elided]}
  func.return
}

// -----

// ---- npu.record, npu.wait -----------------------------------------------------------------

func.func @record_negative_event() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.record' op event id must be non-negative, got -1{{$}}
  npu.record -1 stream 0
  func.return
}

// -----

func.func @wait_negative_stream() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.wait' op stream id must be non-negative, got -2{{$}}
  npu.wait 0 stream -2
  func.return
}

// -----

// ---- npu.copy -----------------------------------------------------------------------------

// Source and dest have one type (generic form) ...
func.func @copy_types(%x: memref<4xf32> {npu.input = "x"}, %y: memref<2x2xf32> {npu.output = "y"}) attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.copy' op dest has type memref<2x2xf32>, expected memref<4xf32> (the source's){{$}}
  "npu.copy"(%x, %y) <{stream = 0 : i64}> : (memref<4xf32>, memref<2x2xf32>) -> ()
  func.return
}

// -----

// ... and the dest is not a weight.
func.func @copy_into_weight(%x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  %w = npu.weight dense<0.0> : memref<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.copy' op dest is a weight (npu.weight), which is read-only{{$}}
  npu.copy %x -> %w stream 0 : memref<4xf32>
  func.return
}

// -----

func.func @copy_negative_stream(%x: memref<4xf32> {npu.input = "x"}, %y: memref<4xf32> {npu.output = "y"}) attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.copy' op stream id must be non-negative, got -1{{$}}
  npu.copy %x -> %y stream -1 : memref<4xf32>
  func.return
}

// -----

// ---- whole-program rules ------------------------------------------------------------------

// A program has no results: its outputs are arguments.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op a device program has no results (its outputs are arguments, written in place), got 1{{$}}
func.func @program_results(%x: memref<4xf32> {npu.input = "x"}) -> memref<4xf32> attributes {npu.program} {
  func.return %x : memref<4xf32>
}

// -----

// npu.program is a unit attribute.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op attribute 'npu.program' must be a unit attribute, got 1 : i64{{$}}
func.func @program_marker() attributes {npu.program = 1} {
  func.return
}

// -----

// The body holds npu ops and func.return only.
func.func @program_foreign_op() attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'test.op' op is not a device task: a device program holds npu ops and func.return only{{$}}
  "test.op"() : () -> ()
  func.return
}

// -----

// The body is one block.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op the body of a device program is one block, got 2{{$}}
func.func @program_blocks() attributes {npu.program} {
  func.return
^bb1:
  func.return
}

// -----

// Every argument is an input or an output ...
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op argument 1 has neither npu.input nor npu.output: every argument of a device program is a named input or output{{$}}
func.func @program_unnamed_argument(%x: memref<4xf32> {npu.input = "x"}, %y: memref<4xf32>) attributes {npu.program} {
  func.return
}

// -----

// ... or both (an in-out argument), which counts as an input ...
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op argument 1 is an input after output argument 0: inputs come first{{$}}
func.func @program_in_out_after_output(%y: memref<4xf32> {npu.output = "y"}, %x: memref<4xf32> {npu.input = "x", npu.output = "x"}) attributes {npu.program} {
  func.return
}

// -----

// ... named by a non-empty string ...
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op argument 0: npu.output must be a non-empty string, got 1 : i64{{$}}
func.func @program_name_not_string(%y: memref<4xf32> {npu.output = 1}) attributes {npu.program} {
  func.return
}

// -----

// ... unique among the inputs, and among the outputs (an output may share an input's name) ...
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op argument 3 is named "y", as argument 2 is: output names must be unique{{$}}
func.func @program_duplicate_name(%x: memref<4xf32> {npu.input = "x"}, %x2: memref<4xf32> {npu.input = "y"}, %y: memref<4xf32> {npu.output = "y"}, %z: memref<4xf32> {npu.output = "y"}) attributes {npu.program} {
  func.return
}

// -----

// ... inputs first ...
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op argument 1 is an input after output argument 0: inputs come first{{$}}
func.func @program_input_after_output(%y: memref<4xf32> {npu.output = "y"}, %x: memref<4xf32> {npu.input = "x"}) attributes {npu.program} {
  func.return
}

// -----

// ... and a buffer ...
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op argument 0 must be a memref, got tensor<4xf32>{{$}}
func.func @program_tensor_argument(%x: tensor<4xf32> {npu.input = "x"}) attributes {npu.program} {
  func.return
}

// -----

// ... the physical storage of its logical type (npu.type), when it has one.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op argument 0 has type memref<1x3x2x2xf32>, expected memref<1x1x2x2x16xf32> (the physical shape of its npu.type tensor<1x3x2x2xf32, #npu.format<NC1HWC0>>){{$}}
func.func @program_logical_type(%x: memref<1x3x2x2xf32> {npu.input = "x", npu.type = tensor<1x3x2x2xf32, #npu.format<NC1HWC0>>}) attributes {npu.program} {
  func.return
}

// -----

// Event ids (records and waits together) are 0..n-1; the error is at the first use of the
// smallest id beyond the gap.
func.func @program_event_gap() attributes {npu.program} {
  npu.record 0 stream 0
  npu.wait 0 stream 1
  npu.wait 3 stream 1
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.record' op event ids must be numbered 0..n-1: event 2 is used but 1 is not{{$}}
  npu.record 2 stream 0
  npu.record 3 stream 0
  func.return
}

// -----

// So are the stream ids of tasks.
func.func @program_stream_gap(%x: memref<4xf32> {npu.input = "x"}, %y: memref<4xf32> {npu.output = "y"}) attributes {npu.program} {
  npu.record 0 stream 0
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.copy' op stream ids must be numbered 0..n-1: stream 2 is used but 1 is not{{$}}
  npu.copy %x -> %y stream 2 : memref<4xf32>
  npu.wait 0 stream 2
  func.return
}

// -----

// A grouped FRACTAL_Z with no channels has no stored layout (a launch's logical type).
func.func @fractal_z_without_channels(%x: memref<4xf16> {npu.input = "x"}, %y: memref<4xf16> {npu.output = "y"}) attributes {npu.program} {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'npu.launch' op input 0's logical type: FRACTAL_Z with groups = 32 needs non-empty channels (dims 0 and 1), got 0x1x1x1{{$}}
  npu.launch "relu"(%x) -> (%y) stream 0 priority 0 : (tensor<0x1x1x1xf16, #npu.format<FRACTAL_Z, groups = 32>>) -> (tensor<4xf16>) cost <vector, flops = 4, bytes_in = 8, bytes_out = 8, blocks = 1> attrs {}
  func.return
}
