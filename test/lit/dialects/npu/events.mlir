// The records of one event are on one stream (`verify_program`): a wait goes on once its
// event has been recorded, the first record counting, so with records on two streams what
// a wait orders would depend on which stream gets there first.  An event recorded on a
// second stream is one error at that record, naming the event, both streams and where the
// first record is; records of one event on one stream verify (the first counts).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s --check-prefixes=CHECK,IR
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

func.func @two_streams() attributes {npu.program} {
  npu.record 0 stream 0
  npu.wait 0 stream 2
  // CHECK: events.mlir:[[# @LINE + 1]]:3: error: 'npu.record' op event 0 is recorded on stream 1 here and on stream 0 at {{.*}}events.mlir:[[# @LINE - 2]]:3: the records of an event must be on one stream (which one comes first would depend on timing){{$}}
  npu.record 0 stream 1
  func.return
}

// -----

// The second record comes after the wait in issue order: still refused.
func.func @after_the_wait() attributes {npu.program} {
  npu.wait 0 stream 1
  npu.record 0 stream 1
  npu.record 1 stream 1
  npu.wait 1 stream 0
  // CHECK-NEXT: events.mlir:[[# @LINE + 1]]:3: error: 'npu.record' op event 0 is recorded on stream 0 here and on stream 1 at {{.*}}events.mlir:[[# @LINE - 3]]:3: the records of an event must be on one stream (which one comes first would depend on timing){{$}}
  npu.record 0 stream 0
  func.return
}

// -----

// IR-LABEL: func.func @one_stream() attributes {npu.program} {
// IR-NEXT:    npu.record 0 stream 0
// IR-NEXT:    npu.wait 0 stream 1
// IR-NEXT:    npu.record 0 stream 0
// IR-NEXT:    func.return
func.func @one_stream() attributes {npu.program} {
  npu.record 0 stream 0
  npu.wait 0 stream 1
  npu.record 0 stream 0
  func.return
}
