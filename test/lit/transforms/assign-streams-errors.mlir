// Diagnostics of --assign-streams: a stream label in mode=single (GE's E10055), bad option
// values, and a module that is already assigned.  Each is one located `error:` line (an
// option error names the pass) and a non-zero exit, never a traceback.
//
// mode=single refuses the first labelled op of each function (constants and wait_tensors are
// not ops of the stream graph); a function already assigned is refused before its labels are
// looked at.  With --verify-diagnostics every case reports its error and ge-opt goes on.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --assign-streams=mode=single | filecheck %s --check-prefix=SINGLE
// Without it, as in mlir-opt, each case's error goes to stderr in its place, the next cases go
// on (here all fail: stdout gets only the separators) and the exit code is 1.
// RUN: not ge-opt %s --split-input-file --assign-streams=mode=single 2>&1 | filecheck %s --check-prefix=SINGLE
// In labels and auto mode only the assigned function is refused; the others are assigned.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --assign-streams | filecheck %s --check-prefix=LABELS
// RUN: ge-opt %s --split-input-file --verify-diagnostics --assign-streams=mode=auto,max-streams=2 | filecheck %s --check-prefix=LABELS
// RUN: not ge-opt %s --split-input-file --assign-streams 2>&1 >/dev/null | filecheck %s --check-prefix=ASSIGNED
// The generic form of what --verify-diagnostics prints for the other cases is valid upstream MLIR.
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
//
// The TorchAir example in mode=single: its first labelled op is mm_result (the labelled
// wait_tensor before it is not refused: wait_tensors disappear).
// RUN: not ge-opt %examples/torchair_multistream.mlir --assign-streams=mode=single 2>&1 | filecheck %s --check-prefix=TORCHAIR-SINGLE
// TORCHAIR-SINGLE-NOT: {{\n}}
// TORCHAIR-SINGLE: {{^}}{{.*}}torchair_multistream.mlir:{{[0-9]+}}:5: error: 'ge.matmul' op has stream label "1", but mode=single runs everything on one stream (GE E10055: stream labels need multi-stream){{$}}
// TORCHAIR-SINGLE-NOT: {{.}}
//
// Running the pass twice: on its own output (read back from stdin), and twice in one
// pipeline.  The first op of the TorchAir example's output is %add_result (stream 0, line 3 of
// the printed module).
// RUN: ge-opt %examples/torchair_multistream.mlir --assign-streams | not ge-opt --assign-streams 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: ge-opt %examples/torchair_multistream.mlir --assign-streams | not ge-opt --assign-streams=mode=single 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not ge-opt %examples/torchair_multistream.mlir --assign-streams --assign-streams=mode=auto 2>&1 | filecheck %s --check-prefix=TWICE-PIPELINE
// TWICE-NOT: {{\n}}
// TWICE: {{^}}<stdin>:3:5: error: 'ge.add' op is already assigned to a stream: run --assign-streams once{{$}}
// TWICE-NOT: {{.}}
// TWICE-PIPELINE-NOT: {{\n}}
// TWICE-PIPELINE: {{^}}{{.*}}torchair_multistream.mlir:{{[0-9]+}}:5: error: 'ge.add' op is already assigned to a stream: run --assign-streams once{{$}}
// TWICE-PIPELINE-NOT: {{.}}
//
// Bad option values: one error line naming the pass, and a non-zero exit; nothing printed.
// RUN: not ge-opt %s --split-input-file --assign-streams=mode=fast 2>&1 | filecheck %s --check-prefix=BAD-MODE
// RUN: not ge-opt %s --split-input-file --assign-streams=mode=Labels,report 2>&1 | filecheck %s --check-prefix=BAD-MODE-CASE
// RUN: not ge-opt %s --split-input-file --assign-streams=mode=auto,max-streams=0 2>&1 | filecheck %s --check-prefix=BAD-MAX0
// RUN: not ge-opt %s --split-input-file --assign-streams=max-streams=-3 2>&1 | filecheck %s --check-prefix=BAD-MAXNEG
// BAD-MODE-NOT: {{\n}}
// BAD-MODE: {{^}}{{.*}}error: assign-streams: mode must be labels, auto or single, got 'fast'{{$}}
// BAD-MODE-NOT: {{.}}
// BAD-MODE-CASE-NOT: {{\n}}
// BAD-MODE-CASE: {{^}}{{.*}}error: assign-streams: mode must be labels, auto or single, got 'Labels'{{$}}
// BAD-MODE-CASE-NOT: {{.}}
// BAD-MAX0-NOT: {{\n}}
// BAD-MAX0: {{^}}{{.*}}error: assign-streams: max-streams must be at least 1, got 0{{$}}
// BAD-MAX0-NOT: {{.}}
// BAD-MAXNEG-NOT: {{\n}}
// BAD-MAXNEG: {{^}}{{.*}}error: assign-streams: max-streams must be at least 1, got -3{{$}}
// BAD-MAXNEG-NOT: {{.}}
// A value of the wrong type and an unknown option are command-line errors (ge-opt's usage
// error, naming the pass, the option and what it expects).
// RUN: not ge-opt %s --split-input-file --assign-streams=max-streams=two 2>&1 | filecheck %s --check-prefix=BAD-MAXTYPE
// RUN: not ge-opt %s --split-input-file --assign-streams=streams=2 2>&1 | filecheck %s --check-prefix=BAD-OPTION
// BAD-MAXTYPE-NOT: {{\n}}
// BAD-MAXTYPE: {{^}}ge-opt: error: assign-streams: option 'max-streams' expects an integer, got 'two'{{$}}
// BAD-MAXTYPE-NOT: {{.}}
// BAD-OPTION-NOT: {{\n}}
// BAD-OPTION: {{^}}ge-opt: error: assign-streams: unknown option 'streams' (options: mode, max-streams, report, comm-streams, priorities){{$}}
// BAD-OPTION-NOT: {{.}}

// A label on the first op.
// SINGLE: {{^}}{{.*}}assign-streams-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.relu' op has stream label "1", but mode=single runs everything on one stream (GE E10055: stream labels need multi-stream){{$}}
func.func @label_on_first_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x {stream.label = #stream.label<"1">} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// A label on a later op, after a labelled constant and a labelled wait_tensor (not refused).
// SINGLE-NEXT: {{^}}{{.*}}assign-streams-errors.mlir:[[# @LINE + 5]]:3: error: 'ge.sigmoid' op has stream label "side", but mode=single runs everything on one stream (GE E10055: stream labels need multi-stream){{$}}
func.func @label_on_later_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = ge.const dense<1.0> : tensor<4xf32> {stream.label = #stream.label<"side", priority = 2>}
  %a = ge.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %w = stream.wait_tensor %x after %a {stream.label = #stream.label<"side", priority = 2>} : tensor<4xf32>, tensor<4xf32>
  %s = ge.sigmoid %w {stream.label = #stream.label<"side", priority = 2>} : tensor<4xf32>
  %t = ge.relu %s {stream.label = #stream.label<"side", priority = 2>} : tensor<4xf32>
  func.return %t : tensor<4xf32>
}

// -----

// A labelled collective.
// SINGLE-NEXT: {{^}}{{.*}}assign-streams-errors.mlir:[[# @LINE + 3]]:3: error: 'ge.hcom_all_reduce' op has stream label "comm", but mode=single runs everything on one stream (GE E10055: stream labels need multi-stream){{$}}
func.func @label_on_collective(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = ge.relu %x : tensor<16xf32>
  %r = ge.hcom_all_reduce %a reduction sum group "world" rank_size 8 {stream.label = #stream.label<"comm">} : tensor<16xf32>
  func.return %r : tensor<16xf32>
}

// -----

// An assigned function (every op has a stream.id, as --assign-streams prints it) is refused
// at its first op, in every mode.
// The four failed chunks print nothing but their separators.
// SINGLE-NEXT: {{^}}{{.*}}assign-streams-errors.mlir:[[# @LINE + 12]]:3: error: 'ge.relu' op is already assigned to a stream: run --assign-streams once{{$}}
// SINGLE-NEXT: {{^}}// -----{{$}}
// SINGLE-NEXT: {{^}}// -----{{$}}
// SINGLE-NEXT: {{^}}// -----{{$}}
// SINGLE-NOT: {{.}}
// In labels and auto mode this is the only error, printed first; the other cases follow.
// LABELS: {{^}}{{.*}}assign-streams-errors.mlir:[[# @LINE + 6]]:3: error: 'ge.relu' op is already assigned to a stream: run --assign-streams once{{$}}
// LABELS-NEXT: {{^}}builtin.module {{[{]$}}
// ASSIGNED-NOT: {{\n}}
// ASSIGNED: {{^}}{{.*}}assign-streams-errors.mlir:[[# @LINE + 3]]:3: error: 'ge.relu' op is already assigned to a stream: run --assign-streams once{{$}}
// ASSIGNED-NOT: {{.}}
func.func @already_assigned(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream.id = #stream.id<0>} : tensor<4xf32>
  %e0 = stream.record %a {stream.id = #stream.id<0>} : tensor<4xf32>
  stream.wait %e0 {stream.id = #stream.id<1>}
  %c = ge.sigmoid %a {stream.label = #stream.label<"1">, stream.id = #stream.id<1>} : tensor<4xf32>
  %e1 = stream.record %c {stream.id = #stream.id<1>} : tensor<4xf32>
  stream.wait %e1 {stream.id = #stream.id<0>}
  %y = ge.add %a, %c {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
