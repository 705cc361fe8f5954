// Diagnostics of the `stream` dialect: one case per parse error of its attributes, per op
// verifier rule and per module-wide stream rule, each pinned with its exact message and
// location (line numbers are those of the whole file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s
//
// Without the diagnostics flags, as in mlir-opt, each case's error goes to stderr in its place,
// the next cases go on, and the exit code is 1.

// ---- #stream.label and #stream.id: parse errors --------------------------------------------

// The label string comes first and is required.
func.func @label_missing_string(%x: tensor<4xf32>) {
  // CHECK: invalid.mlir:[[# @LINE + 1]]:49: error: string literal expected (the stream label){{$}}
  %0 = ge.relu %x {stream.label = #stream.label<priority = 1>} : tensor<4xf32>
  func.return
}

// -----

// An empty parameter list has no label string either.
func.func @label_empty_brackets(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:49: error: string literal expected (the stream label){{$}}
  %0 = ge.relu %x {stream.label = #stream.label<>} : tensor<4xf32>
  func.return
}

// -----

// An unknown parameter, located at its name.
func.func @label_unknown_parameter(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:54: error: unknown label parameter 'prio', expected priority or inner_parallel{{$}}
  %0 = ge.relu %x {stream.label = #stream.label<"1", prio = 1>} : tensor<4xf32>
  func.return
}

// -----

// A parameter given twice, located at its second occurrence.
func.func @label_duplicate_parameter(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:68: error: label parameter 'priority' is given twice{{$}}
  %0 = ge.relu %x {stream.label = #stream.label<"1", priority = 1, priority = 2>} : tensor<4xf32>
  func.return
}

// -----

// inner_parallel is a boolean, not an integer.
func.func @label_inner_parallel_integer(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:71: error: Expected boolean literal{{$}}
  %0 = ge.relu %x {stream.label = #stream.label<"1", inner_parallel = 1>} : tensor<4xf32>
  func.return
}

// -----

// priority is an integer, not a boolean.
func.func @label_priority_boolean(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:65: error: Expected integer literal{{$}}
  %0 = ge.relu %x {stream.label = #stream.label<"1", priority = true>} : tensor<4xf32>
  func.return
}

// -----

// A trailing comma expects another parameter.
func.func @label_trailing_comma(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:67: error: identifier expected (priority or inner_parallel){{$}}
  %0 = ge.relu %x {stream.label = #stream.label<"1", priority = 1,>} : tensor<4xf32>
  func.return
}

// -----

// A negative stream id, located at the number.
func.func @id_negative(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:43: error: a stream id must be non-negative, got -1{{$}}
  %0 = ge.relu %x {stream.id = #stream.id<-1>} : tensor<4xf32>
  func.return
}

// -----

// A stream id is one integer.
func.func @id_two_numbers(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:44: error: '>' expected{{$}}
  %0 = ge.relu %x {stream.id = #stream.id<1, 2>} : tensor<4xf32>
  func.return
}

// -----

// ---- stream.wait ----------------------------------------------------------------------------

// The event of a wait comes from a stream.record, not from a block argument ...
func.func @wait_block_argument(%e: !stream.event) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait' op waits on an event that is not from a stream.record (a block argument){{$}}
  stream.wait %e {stream.id = #stream.id<1>}
  func.return
}

// -----

// ... nor from another op.
func.func @wait_other_op() {
  %e = "test.op"() : () -> !stream.event
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait' op waits on an event that is not from a stream.record ('test.op'){{$}}
  stream.wait %e {stream.id = #stream.id<1>}
  func.return
}

// -----

// A wait follows its record; the message names the record's location.
func.func @wait_before_record(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait' op operand #0 does not dominate this use (defined by 'stream.record' at {{.*}}invalid.mlir:[[# @LINE + 2]]:3){{$}}
  stream.wait %e {stream.id = #stream.id<1>}
  %e = stream.record %x {stream.id = #stream.id<0>} : tensor<4xf32>
  func.return
}

// -----

// A wait on the stream of its record.
func.func @wait_same_stream(%x: tensor<4xf32>) {
  %y = ge.relu %x {stream.id = #stream.id<2>} : tensor<4xf32>
  %e = stream.record %y {stream.id = #stream.id<2>} : tensor<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait' op is on stream 2, the stream of its record: a wait must be on another stream{{$}}
  stream.wait %e {stream.id = #stream.id<2>}
  func.return
}

// -----

// The operand of a wait is an event (generic form).
func.func @wait_tensor_operand(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait' op operand 'event' at position 0 does not verify: tensor<4xf32> should be of base attribute stream.event{{$}}
  "stream.wait"(%x) : (tensor<4xf32>) -> ()
  func.return
}

// -----

// ---- stream.record --------------------------------------------------------------------------

// A record follows the producers of its operands; the message names the producer.
func.func @record_before_producer(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.record' op operand #0 does not dominate this use (defined by 'ge.relu' at {{.*}}invalid.mlir:[[# @LINE + 2]]:3){{$}}
  %e = stream.record %y {stream.id = #stream.id<0>} : tensor<4xf32>
  %y = ge.relu %x {stream.id = #stream.id<0>} : tensor<4xf32>
  func.return
}

// -----

// A record goes on the stream of its operand's producer.
func.func @record_other_stream(%x: tensor<4xf32>) {
  %y = ge.relu %x {stream.id = #stream.id<1>} : tensor<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.record' op is on stream 0, but operand #0 is produced on stream 1: a record goes on its producers' stream{{$}}
  %e = stream.record %y {stream.id = #stream.id<0>} : tensor<4xf32>
  func.return
}

// -----

// A function argument is produced on stream 0.
func.func @record_argument_other_stream(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.record' op is on stream 1, but operand #0 is produced on stream 0: a record goes on its producers' stream{{$}}
  %e = stream.record %x {stream.id = #stream.id<1>} : tensor<4xf32>
  func.return
}

// -----

// Every operand counts: here the second one (a function argument) is on another stream.
func.func @record_second_operand(%x: tensor<4xf32>) {
  %y = ge.relu %x {stream.id = #stream.id<1>} : tensor<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.record' op is on stream 1, but operand #1 is produced on stream 0: a record goes on its producers' stream{{$}}
  %e = stream.record %y, %x {stream.id = #stream.id<1>} : tensor<4xf32>, tensor<4xf32>
  func.return
}

// -----

// A record publishes at least one value (generic form).
func.func @record_no_operand() {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.record' op needs at least one value to publish{{$}}
  %e = "stream.record"() {stream.id = #stream.id<0>} : () -> !stream.event
  func.return
}

// -----

// A record publishes tensors (generic form) ...
func.func @record_event_operand(%e0: !stream.event) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.record' op operand 'values' at position 0 does not verify: !stream.event should be of base attribute tensor{{$}}
  %e = "stream.record"(%e0) : (!stream.event) -> !stream.event
  func.return
}

// -----

// ... and gives an event.
func.func @record_tensor_result(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.record' op result 'event' at position 0 does not verify: tensor<4xf32> should be of base attribute stream.event{{$}}
  %e = "stream.record"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

// ---- stream.wait_tensor ---------------------------------------------------------------------

// The result has the input's type (generic form).
func.func @wait_tensor_result_type(%x: tensor<4xf32>, %d: tensor<2xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait_tensor' op result 'output' at position 0 does not verify: attribute tensor<4xf32> expected from variable 'T', but got tensor<4xf16>{{$}}
  %0 = "stream.wait_tensor"(%x, %d) : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf16>
  func.return
}

// -----

// The dependency is a tensor (generic form).
func.func @wait_tensor_event_dependency(%x: tensor<4xf32>, %d: !stream.event) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait_tensor' op operand 'dependency' at position 1 does not verify: !stream.event should be of base attribute tensor{{$}}
  %0 = "stream.wait_tensor"(%x, %d) : (tensor<4xf32>, !stream.event) -> tensor<4xf32>
  func.return
}

// -----

// ---- Module-wide rules (verify_streams) -----------------------------------------------------

// All ops of one label agree on its priority; the message names both ops' locations (an
// omitted priority is 0).
func.func @label_priority_conflict(%x: tensor<4xf32>) {
  %0 = ge.relu %x {stream.label = #stream.label<"1", priority = 3>} : tensor<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op has stream label "1" with priority 0, but the label has priority 3 at {{.*}}invalid.mlir:[[# @LINE - 1]]:3{{$}}
  %1 = ge.relu %0 {stream.label = #stream.label<"1">} : tensor<4xf32>
  func.return
}

// -----

// The same rule across functions of one module, and on a stream op.
func.func @first(%x: tensor<4xf32>) {
  %0 = ge.relu %x {stream.label = #stream.label<"side", priority = -2>} : tensor<4xf32>
  func.return
}
func.func @second(%x: tensor<4xf32>, %d: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait_tensor' op has stream label "side" with priority 1, but the label has priority -2 at {{.*}}invalid.mlir:[[# @LINE - 4]]:3{{$}}
  %0 = stream.wait_tensor %x after %d {stream.label = #stream.label<"side", priority = 1>} : tensor<4xf32>, tensor<4xf32>
  func.return
}

// -----

// stream.id holds a #stream.id ...
func.func @id_wrong_kind(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op attribute 'stream.id' must be a #stream.id, got 3 : i64{{$}}
  %0 = ge.relu %x {stream.id = 3 : i64} : tensor<4xf32>
  func.return
}

// -----

func.func @id_holds_label(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op attribute 'stream.id' must be a #stream.id, got #stream.label<"1", priority = 0, inner_parallel = true>{{$}}
  %0 = ge.relu %x {stream.id = #stream.label<"1">} : tensor<4xf32>
  func.return
}

// -----

// ... and stream.label a #stream.label (a bare string is not one).
func.func @label_wrong_kind(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op attribute 'stream.label' must be a #stream.label, got "1"{{$}}
  %0 = ge.relu %x {stream.label = "1"} : tensor<4xf32>
  func.return
}

// -----

func.func @label_holds_id(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op attribute 'stream.label' must be a #stream.label, got #stream.id<1>{{$}}
  %0 = ge.relu %x {stream.label = #stream.id<1>} : tensor<4xf32>
  func.return
}

// -----

// The rule holds on every op, the module included.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:1: error: 'builtin.module' op attribute 'stream.id' must be a #stream.id, got 0 : i64{{$}}
module attributes {stream.id = 0} {
}

// -----

// An empty label is refused where it is written.
func.func @label_empty(%x: tensor<4xf32>) {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:49: error: a stream label must not be empty{{$}}
  %0 = ge.relu %x {stream.label = #stream.label<"">} : tensor<4xf32>
  func.return
}

// -----

// !stream.event has no parameters.
// CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:50: error: ')' expected{{$}}
func.func @event_with_parameter(%e: !stream.event<1>) {
  func.return
}

// -----

// In an assigned function every op has a stream.
func.func @partly_assigned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x {stream.id = #stream.id<0>} : tensor<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.sigmoid' op has no 'stream.id', but the function is assigned (e.g. 'ge.relu' at {{.*}}invalid.mlir:[[# @LINE - 1]]:3 has one){{$}}
  %z = ge.sigmoid %y : tensor<4xf32>
  func.return %z : tensor<4xf32>
}

// -----

// ... records and waits included.
func.func @wait_without_stream(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = stream.record %x {stream.id = #stream.id<0>} : tensor<4xf32>
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait' op has no 'stream.id', but the function is assigned (e.g. 'stream.record' at {{.*}}invalid.mlir:[[# @LINE - 1]]:3 has one){{$}}
  stream.wait %e
  %y = ge.relu %x {stream.id = #stream.id<1>} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// No stream.wait_tensor remains in an assigned function.
func.func @wait_tensor_in_assigned(%x: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:3: error: 'stream.wait_tensor' op remains in a function whose ops have streams: stream assignment turns every stream.wait_tensor into stream order or an event{{$}}
  %w = stream.wait_tensor %x after %d {stream.id = #stream.id<1>} : tensor<4xf32>, tensor<4xf32>
  %y = ge.relu %w {stream.id = #stream.id<1>} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// A priority beyond a 64-bit integer.
func.func @label_huge_priority(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: invalid.mlir:[[# @LINE + 1]]:65: error: integer value too large{{$}}
  %y = ge.relu %x {stream.label = #stream.label<"1", priority = 99999999999999999999999>} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// Every case failed: no IR is printed.
// CHECK-NOT: {{stream\.|ge\.|func\.}}
