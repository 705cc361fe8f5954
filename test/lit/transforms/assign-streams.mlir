// --assign-streams in labels mode (the default): ops with the same stream.label share a stream
// (or its sub-streams, with inner_parallel = true),
// unlabelled ops run on stream 0, unlabelled collectives on the comm stream.  Every case pins
// the whole output.  The comments list, for each cross-stream dependency (data, wait_tensor,
// the fork from the function entry to the first op of a side stream, the join of each side
// stream's last op into func.return), whether it is kept, and why a dropped one is implied by
// stream order and the kept waits; the report's "events" line counts exactly these
// dependencies.  Stream numbers: 0 main, label streams by first appearance, comm last.
// Records follow their producer on its stream and publish all its results; waits come right
// before their consumer; constants take their label's stream, else the stream of their
// first user, and never get an event; labelled ops keep their stream.label; no stream.wait_tensor remains.
//
// RUN: ge-opt %s --split-input-file --assign-streams | filecheck %s
// RUN: ge-opt %s --split-input-file --assign-streams=report 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// The labelled cases in auto mode (inner_parallel spreads a label over at most max-streams
// sub-streams; label streams do not count toward the max-streams automatic streams).
// RUN: ge-opt %s --split-input-file --assign-streams=mode=auto | filecheck %s --check-prefix=AUTO
// RUN: ge-opt %s --split-input-file --assign-streams=mode=auto,report 2>&1 >/dev/null | filecheck %s --check-prefix=AUTO-REPORT
// RUN: ge-opt %s --split-input-file --assign-streams=mode=auto,max-streams=1 | filecheck %s --check-prefix=AUTO1
// RUN: ge-opt %s --split-input-file --assign-streams=max-streams=1 | filecheck %s --check-prefix=LABELS1
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// The bundled TorchAir example (npu_stream_switch / npu_wait_tensor), see the CHECK lines at
// the end of this file.
// RUN: ge-opt %examples/torchair_multistream.mlir --assign-streams | filecheck %s --check-prefix=TORCHAIR
// RUN: ge-opt %examples/torchair_multistream.mlir --assign-streams=report 2>&1 >/dev/null | filecheck %s --check-prefix=TORCHAIR-REPORT
// priorities= gives user labels new priorities (LABEL:N), as GE's stream priority option;
// a malformed item is an option error.
// RUN: ge-opt %examples/torchair_multistream.mlir -p 'assign-streams{report=true priorities="1:3 2:1"}' 2>&1 >/dev/null | filecheck %s --check-prefix=PRIO
// RUN: not ge-opt %examples/torchair_multistream.mlir -p 'assign-streams{priorities="1=3"}' 2>&1 | filecheck %s --check-prefix=PRIO-BAD
// PRIO: logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 3, ops: 1
// PRIO: logic_stream_id: 2, kind: label, user_stream_label: 2, priority: 1, ops: 1
// PRIO-BAD: error: assign-streams: priorities takes LABEL:N items, got '1=3'
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// Determinism: the output does not depend on Python's hash seed.  (The diffs come last: lit's
// builtin diff leaves PYTHONPATH pointing at lit for the commands after it.)
// RUN: env PYTHONHASHSEED=1 ge-opt %s --split-input-file --assign-streams=report > %t.1 2> %t.1.report
// RUN: env PYTHONHASHSEED=2 ge-opt %s --split-input-file --assign-streams=report > %t.2 2> %t.2.report
// RUN: env PYTHONHASHSEED=1 ge-opt %s --split-input-file --assign-streams=mode=auto > %t.3
// RUN: env PYTHONHASHSEED=2 ge-opt %s --split-input-file --assign-streams=mode=auto > %t.4
// RUN: env PYTHONHASHSEED=1 ge-opt %examples/torchair_multistream.mlir --assign-streams > %t.5
// RUN: env PYTHONHASHSEED=2 ge-opt %examples/torchair_multistream.mlir --assign-streams > %t.6
// RUN: diff %t.1 %t.2
// RUN: diff %t.1.report %t.2.report
// RUN: diff %t.3 %t.4
// RUN: diff %t.5 %t.6

// Two labels with different priorities.  "b" appears first, so it is stream 1 and "a" stream 2
// (numbering by first appearance, not by name or priority); both keep their stream.label with
// its priority and inner_parallel flag.
//   %b (s1): needs %a (s0) and the fork (entry, s0); %a implies the entry -> wait for %a.
//   %c (s2): needs the entry (%y, and the fork) -> wait for the record of the arguments,
//            which sits at the function start and publishes all of them.
//   %d (s0): needs %b (s1) and %c (s2); neither implies the other -> two waits.
//   %e (s1): needs only %b, earlier on its stream -> no wait.
//   return:  needs %d (s0), %e and the joins of s1 (%e) and s2 (%c); %c is implied by %d's
//            wait -> one wait, for %e.
// 7 dependencies (2 + 1 + 2 + 0 + 2), 5 kept, 2 dropped.
// CHECK-LABEL: func.func @two_labels(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]], %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"b", priority = 2, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E2:.*]] = stream.record %[[B]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    %[[C:.*]] = ge.relu %[[Y]] {stream.label = #stream.label<"a", priority = 5, inner_parallel = false>, stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    %[[E3:.*]] = stream.record %[[C]] {stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    stream.wait %[[E3]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = ge.mul %[[B]], %[[B]] {stream.label = #stream.label<"b", priority = 2, inner_parallel = true>, stream.id = #stream.id<1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[E4:.*]] = stream.record %[[E]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E4]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    func.return %[[D]], %[[E]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// REPORT:      [assign-streams] @two_labels: mode labels, 3 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: b, priority: 2, ops: 2
// REPORT-NEXT:   logic_stream_id: 2, kind: label, user_stream_label: a, priority: 5, ops: 1
// REPORT-NEXT:   events: 5 kept, 2 dropped of 7 cross-stream dependencies
func.func @two_labels(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %a {stream.label = #stream.label<"b", priority = 2>} : tensor<4xf32>
  %c = ge.relu %y {stream.label = #stream.label<"a", priority = 5, inner_parallel = false>} : tensor<4xf32>
  %d = ge.add %b, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = ge.mul %b, %b {stream.label = #stream.label<"b", priority = 2>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d, %e : tensor<4xf32>, tensor<4xf32>
}

// -----

// A wait_tensor whose dependency is on the waiting op's own stream needs no event: on stream
// 0 (%w after %a) and on stream 1 (%q after %p).  The wait_tensors disappear and their users
// read the waited value directly.
//   %p (s1): the fork (entry) -> wait for the arguments' record.
//   %r (s1): reads %y (entry, implied by the fork wait) and %p (same stream) -> no wait.
//   return:  %b (s0), %r (s1) and the join of s1 (%r) -> one wait.
// 3 dependencies, 2 kept, 1 dropped.
// CHECK-LABEL: func.func @wait_same_stream(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]], %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[P:.*]] = ge.relu %[[X]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.sigmoid %[[Y]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[R]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    func.return %[[B]], %[[R]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @wait_same_stream: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 2
// REPORT-NEXT:   events: 2 kept, 1 dropped of 3 cross-stream dependencies
func.func @wait_same_stream(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = ge.relu %x : tensor<4xf32>
  %w = stream.wait_tensor %y after %a : tensor<4xf32>, tensor<4xf32>
  %b = ge.sigmoid %w : tensor<4xf32>
  %p = ge.relu %x {stream.label = #stream.label<"1">} : tensor<4xf32>
  %q = stream.wait_tensor %y after %p {stream.label = #stream.label<"1">} : tensor<4xf32>, tensor<4xf32>
  %r = ge.sigmoid %q {stream.label = #stream.label<"1">} : tensor<4xf32>
  func.return %b, %r : tensor<4xf32>, tensor<4xf32>
}

// -----

// A wait_tensor whose dependency is on another stream becomes an event: %b (s0) reads only
// %y, but waits for %a (s1).
//   %a (s1): the fork -> wait for the arguments' record.
//   %b (s0): %a (s1, through the wait_tensor) -> wait; %y is on its own stream.
//   return:  %b (s0) and the join of s1 (%a, implied by %b's wait) -> no wait.
// 3 dependencies, 2 kept, 1 dropped.
// CHECK-LABEL: func.func @wait_other_stream(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]], %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @wait_other_stream: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 1
// REPORT-NEXT:   events: 2 kept, 1 dropped of 3 cross-stream dependencies
func.func @wait_other_stream(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream.label = #stream.label<"1">} : tensor<4xf32>
  %w = stream.wait_tensor %y after %a : tensor<4xf32>, tensor<4xf32>
  %b = ge.sigmoid %w : tensor<4xf32>
  func.return %b : tensor<4xf32>
}

// -----

// Waits implied by stream order: %c needs %a and %b, both on stream 1; waiting for %b (later
// on that stream) implies %a.  %d needs %a again: implied by %c's wait.
//   %a (s1): the fork -> wait.   %c (s0): %a, %b -> one wait, for %b.
//   %d (s0): %a -> implied.      return: join of s1 (%b) -> implied.
// 5 dependencies, 2 kept, 3 dropped.
// CHECK-LABEL: func.func @implied_by_stream_order(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[B]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[C:.*]] = ge.add %[[A]], %[[B]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[D:.*]] = ge.mul %[[A]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @implied_by_stream_order: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 2
// REPORT-NEXT:   events: 2 kept, 3 dropped of 5 cross-stream dependencies
func.func @implied_by_stream_order(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream.label = #stream.label<"1">} : tensor<4xf32>
  %b = ge.sigmoid %a {stream.label = #stream.label<"1">} : tensor<4xf32>
  %c = ge.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = ge.mul %a, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// A dependency implied through a third stream is dropped: %c (s2) reads %a (s0) and %b (s1),
// and %b already waited for %a, so waiting for %b implies %a (a pairwise rule such as XLA's
// would keep the %a -> %c wait).
//   %b (s1): %a and the fork -> wait for %a.
//   %c (s2): %a, %b and the fork -> wait for %b only.
//   %d (s0): %c (s2) -> wait; %a is on its own stream.
//   return:  joins of s1 (%b) and s2 (%c) -> both implied by %d's wait.
// 8 dependencies (2 + 3 + 1 + 2), 3 kept, 5 dropped.
// CHECK-LABEL: func.func @third_stream(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[B]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    %[[C:.*]] = ge.add %[[A]], %[[B]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>, stream.id = #stream.id<2>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[E2:.*]] = stream.record %[[C]] {stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[D:.*]] = ge.mul %[[C]], %[[A]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @third_stream: mode labels, 3 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 1
// REPORT-NEXT:   logic_stream_id: 2, kind: label, user_stream_label: 2, priority: 0, ops: 1
// REPORT-NEXT:   events: 3 kept, 5 dropped of 8 cross-stream dependencies
func.func @third_stream(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %a {stream.label = #stream.label<"1">} : tensor<4xf32>
  %c = ge.add %a, %b {stream.label = #stream.label<"2">} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = ge.mul %c, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// Fork and join: stream 1 starts from the arguments only, so it waits for a record of the
// arguments at the function start (all of them, on stream 0); nothing on stream 0 consumes
// stream 1, so func.return waits for its last op.
// 2 dependencies, 2 kept.
// CHECK-LABEL: func.func @fork_and_join(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]], %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[Y]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.silu %[[B]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    func.return %[[A]], %[[C]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @fork_and_join: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 2
// REPORT-NEXT:   events: 2 kept, 0 dropped of 2 cross-stream dependencies
func.func @fork_and_join(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %y {stream.label = #stream.label<"1">} : tensor<4xf32>
  %c = ge.silu %b {stream.label = #stream.label<"1">} : tensor<4xf32>
  func.return %a, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// Unlabelled constants stay where they are and take the stream of their first user: %w is first used
// by %m (s1), %v by %a (s0).  Their uses on the other stream (%s reads %w, %n reads %v)
// need no event, and no record publishes a constant.
//   %m (s1): the fork (%x) -> wait.   return: %n (s1) and the join of s1 -> one wait.
// 2 dependencies, 2 kept.
// CHECK-LABEL: func.func @constants(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]] {stream.id = #stream.id<0>} : tensor<4x4xf32>
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<2.000000e+00> : tensor<4x4xf32> {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[V:.*]] = ge.const dense<3.000000e+00> : tensor<4x4xf32> {stream.id = #stream.id<0>}
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[M:.*]] = ge.matmul %[[X]], %[[W]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.add %[[X]], %[[V]] {stream.id = #stream.id<0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[N:.*]] = ge.mul %[[M]], %[[V]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[N]] {stream.id = #stream.id<1>} : tensor<4x4xf32>
// CHECK-NEXT:    %[[S:.*]] = ge.sub %[[A]], %[[W]] {stream.id = #stream.id<0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    func.return %[[S]], %[[N]] : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @constants: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 2
// REPORT-NEXT:   events: 2 kept, 0 dropped of 2 cross-stream dependencies
func.func @constants(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %w = ge.const dense<2.0> : tensor<4x4xf32>
  %v = ge.const dense<3.0> : tensor<4x4xf32>
  %m = ge.matmul %x, %w {stream.label = #stream.label<"1">} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %a = ge.add %x, %v : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %n = ge.mul %m, %v {stream.label = #stream.label<"1">} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = ge.sub %a, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %s, %n : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A labelled constant runs on its label's stream (%k, label "1", although its first user %a
// is on stream 0); a constant whose label no op carries runs on the stream of its first user
// (%u).  Both keep their stream.label; no event for either.
//   %b (s1): %a and the fork -> wait for %a.   return: %b (s1) and the join of s1 -> one wait.
// 3 dependencies, 2 kept, 1 dropped.
// CHECK-LABEL: func.func @labelled_constants(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[K:.*]] = ge.const dense<1.000000e+00> : tensor<4xf32> {stream.label = #stream.label<"1", priority = 3, inner_parallel = true>, stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[U:.*]] = ge.const dense<2.000000e+00> : tensor<4xf32> {stream.label = #stream.label<"unused", priority = 1, inner_parallel = true>, stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[A:.*]] = ge.add %[[X]], %[[K]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B:.*]] = ge.mul %[[A]], %[[K]] {stream.label = #stream.label<"1", priority = 3, inner_parallel = true>, stream.id = #stream.id<1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[B]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.sub %[[A]], %[[U]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    func.return %[[C]], %[[B]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @labelled_constants: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 3, ops: 1
// REPORT-NEXT:   events: 2 kept, 1 dropped of 3 cross-stream dependencies
func.func @labelled_constants(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %k = ge.const dense<1.0> : tensor<4xf32> {stream.label = #stream.label<"1", priority = 3>}
  %u = ge.const dense<2.0> : tensor<4xf32> {stream.label = #stream.label<"unused", priority = 1>}
  %a = ge.add %x, %k : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %b = ge.mul %a, %k {stream.label = #stream.label<"1", priority = 3>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = ge.sub %a, %u : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %c, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// GE's ineffective multi-stream rule: a collective between two ops of stream 0 with nothing
// between them there moves back to stream 0 (GE test AicoreHcclSerial_AssignSameStream):
// one stream, no event.
// CHECK-LABEL: func.func @collective_moves_back(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> tensor<16xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.relu %[[R]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<16xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @collective_moves_back: mode labels, 1 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
func.func @collective_moves_back(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = ge.relu %x : tensor<16xf32>
  %r = ge.hcom_all_reduce %a reduction sum group "world" rank_size 8 : tensor<16xf32>
  %b = ge.relu %r : tensor<16xf32>
  func.return %b : tensor<16xf32>
}

// -----

// With an independent op (%i) on stream 0 between the collective's producer and its user, the
// collective stays on the comm stream (numbered last) and overlaps with %i.
//   %r (comm): %a and the fork -> wait for %a.   %b (s0): %r -> wait.
//   return: join of comm (%r) -> implied by %b's wait.
// 4 dependencies, 2 kept, 2 dropped.
// CHECK-LABEL: func.func @collective_stays(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<16xf32>, %[[Y:[^:]*]]: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[R]] {stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    %[[I:.*]] = ge.sigmoid %[[Y]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[B:.*]] = ge.relu %[[R]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    func.return %[[B]], %[[I]] : tensor<16xf32>, tensor<16xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @collective_stays: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// REPORT-NEXT:   logic_stream_id: 1, kind: comm, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   events: 2 kept, 2 dropped of 4 cross-stream dependencies
func.func @collective_stays(%x: tensor<16xf32>, %y: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a = ge.relu %x : tensor<16xf32>
  %r = ge.hcom_all_reduce %a reduction sum group "world" rank_size 8 : tensor<16xf32>
  %i = ge.sigmoid %y : tensor<16xf32>
  %b = ge.relu %r : tensor<16xf32>
  func.return %b, %i : tensor<16xf32>, tensor<16xf32>
}

// -----

// A collective between two ops of a label stream stays on the comm stream: the rule never
// moves an op onto a label stream (GE test StreamLabelAndHcclSerial_AssignDiffStream).  Stream
// 0 has no op but keeps its number; the comm stream comes after the label stream.
//   %a (s1): the fork -> wait.   %g (comm): %a and the fork -> wait for %a.
//   %b (s1): %g -> wait.         return: %b (s1) and the joins of s1 and comm -> one wait.
// 6 dependencies (1 + 2 + 1 + 2), 4 kept, 2 dropped.
// CHECK-LABEL: func.func @collective_between_labels(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> tensor<64xf32> {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[A]] {stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    %[[G:.*]] = ge.hcom_all_gather %[[A]] group "world" rank_size 4 {stream.id = #stream.id<2>} : tensor<16xf32> -> tensor<64xf32>
// CHECK-NEXT:    %[[E2:.*]] = stream.record %[[G]] {stream.id = #stream.id<2>} : tensor<64xf32>
// CHECK-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B:.*]] = ge.relu %[[G]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<64xf32>
// CHECK-NEXT:    %[[E3:.*]] = stream.record %[[B]] {stream.id = #stream.id<1>} : tensor<64xf32>
// CHECK-NEXT:    stream.wait %[[E3]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    func.return %[[B]] : tensor<64xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @collective_between_labels: mode labels, 3 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 0
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 2, kind: comm, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   events: 4 kept, 2 dropped of 6 cross-stream dependencies
func.func @collective_between_labels(%x: tensor<16xf32>) -> tensor<64xf32> {
  %a = ge.relu %x {stream.label = #stream.label<"1">} : tensor<16xf32>
  %g = ge.hcom_all_gather %a group "world" rank_size 4 : tensor<16xf32> -> tensor<64xf32>
  %b = ge.relu %g {stream.label = #stream.label<"1">} : tensor<64xf32>
  func.return %b : tensor<64xf32>
}

// -----

// A labelled collective runs on its label stream (there is no comm stream), and the
// ineffective rule leaves it there even with nothing between its neighbours on stream 0.
//   %r (s1): %a and the fork -> wait for %a.   %b (s0): %r -> wait.
//   return: join of s1 -> implied.
// 4 dependencies, 2 kept, 2 dropped.
// CHECK-LABEL: func.func @collective_labelled(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> tensor<16xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.label = #stream.label<"c", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[R]] {stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[B:.*]] = ge.relu %[[R]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<16xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @collective_labelled: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: c, priority: 0, ops: 1
// REPORT-NEXT:   events: 2 kept, 2 dropped of 4 cross-stream dependencies
func.func @collective_labelled(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = ge.relu %x : tensor<16xf32>
  %r = ge.hcom_all_reduce %a reduction sum group "world" rank_size 8 {stream.label = #stream.label<"c">} : tensor<16xf32>
  %b = ge.relu %r : tensor<16xf32>
  func.return %b : tensor<16xf32>
}

// -----

// Streams are numbered per function: "y" is stream 1 in the first function and stream 2 in
// the second, where "x" appears first.
//   first:  %a (s1): fork -> wait; return: join -> wait.  2 dependencies, 2 kept.
//   second: %b (s1): %a and the fork -> wait for %a; %c (s2): %b and the fork -> wait for %b;
//           return: %c (s2) and the joins of s1 (%b, implied) and s2 -> one wait.
//           6 dependencies, 3 kept, 3 dropped.
// CHECK-LABEL: func.func @two_functions_a(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.label = #stream.label<"y", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    func.return %[[A]] : tensor<4xf32>
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @two_functions_b(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B:.*]] = ge.relu %[[A]] {stream.label = #stream.label<"x", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[B]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    %[[C:.*]] = ge.relu %[[B]] {stream.label = #stream.label<"y", priority = 0, inner_parallel = true>, stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    %[[E2:.*]] = stream.record %[[C]] {stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    func.return %[[C]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @two_functions_a: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 0
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: y, priority: 0, ops: 1
// REPORT-NEXT:   events: 2 kept, 0 dropped of 2 cross-stream dependencies
// REPORT-NEXT: [assign-streams] @two_functions_b: mode labels, 3 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: x, priority: 0, ops: 1
// REPORT-NEXT:   logic_stream_id: 2, kind: label, user_stream_label: y, priority: 0, ops: 1
// REPORT-NEXT:   events: 3 kept, 3 dropped of 6 cross-stream dependencies
func.func @two_functions_a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {stream.label = #stream.label<"y">} : tensor<4xf32>
  func.return %a : tensor<4xf32>
}
func.func @two_functions_b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.relu %a {stream.label = #stream.label<"x">} : tensor<4xf32>
  %c = ge.relu %b {stream.label = #stream.label<"y">} : tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// inner_parallel = true (TorchAir's default): in both modes the label's independent ops are
// spread over sub-streams of their own (1 and 2, both labelled "p"); %d then waits for both.
//   %b (s1): %a, fork -> wait for %a.  %c (s2): %a, fork -> wait for %a (the same record).
//   %d (s0): %b, %c -> two waits.  return: joins of s1, s2 -> implied.
//   8 dependencies, 4 kept, 4 dropped.
// max-streams also bounds the sub-streams of one label: with max-streams=1 the label has
// a single stream again (the IR of @inner_parallel_false), yet it does not take the place of
// an automatic stream (see @labels_beyond_limit).
// CHECK-LABEL: func.func @inner_parallel_true(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[B]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>, stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    %[[E2:.*]] = stream.record %[[C]] {stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @inner_parallel_true: mode labels, 3 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: p, priority: 1, ops: 1
// REPORT-NEXT:   logic_stream_id: 2, kind: label, user_stream_label: p, priority: 1, ops: 1
// REPORT-NEXT:   events: 4 kept, 4 dropped of 8 cross-stream dependencies
// AUTO-LABEL: func.func @inner_parallel_true(
// AUTO-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// AUTO-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// AUTO-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// AUTO-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// AUTO-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO-NEXT:    %[[E1:.*]] = stream.record %[[B]] {stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// AUTO-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>, stream.id = #stream.id<2>} : tensor<4xf32>
// AUTO-NEXT:    %[[E2:.*]] = stream.record %[[C]] {stream.id = #stream.id<2>} : tensor<4xf32>
// AUTO-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// AUTO-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// AUTO-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// AUTO-NEXT:    func.return %[[D]] : tensor<4xf32>
// AUTO-NEXT:  }
// AUTO-REPORT:      [assign-streams] @inner_parallel_true: mode auto, 3 stream(s)
// AUTO-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// AUTO-REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: p, priority: 1, ops: 1
// AUTO-REPORT-NEXT:   logic_stream_id: 2, kind: label, user_stream_label: p, priority: 1, ops: 1
// AUTO-REPORT-NEXT:   events: 4 kept, 4 dropped of 8 cross-stream dependencies
// AUTO1-LABEL: func.func @inner_parallel_true(
// AUTO1-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// AUTO1-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// AUTO1-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// AUTO1-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// AUTO1-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO1-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO1-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO1-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// AUTO1-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// AUTO1-NEXT:    func.return %[[D]] : tensor<4xf32>
// AUTO1-NEXT:  }
// LABELS1-LABEL: func.func @inner_parallel_true(
// LABELS1-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// LABELS1-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// LABELS1-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// LABELS1-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// LABELS1-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// LABELS1-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// LABELS1-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// LABELS1-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// LABELS1-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// LABELS1-NEXT:    func.return %[[D]] : tensor<4xf32>
// LABELS1-NEXT:  }
func.func @inner_parallel_true(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %a {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>} : tensor<4xf32>
  %c = ge.silu %a {stream.label = #stream.label<"p", priority = 1, inner_parallel = true>} : tensor<4xf32>
  %d = ge.add %b, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// inner_parallel = false: in both modes the label's ops share one stream (the waits are those
// of @inner_parallel_true with max-streams=1).  6 dependencies, 2 kept, 4 dropped.
// CHECK-LABEL: func.func @inner_parallel_false(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = false>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = false>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @inner_parallel_false: mode labels, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: p, priority: 1, ops: 2
// REPORT-NEXT:   events: 2 kept, 4 dropped of 6 cross-stream dependencies
// AUTO-LABEL: func.func @inner_parallel_false(
// AUTO-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// AUTO-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// AUTO-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// AUTO-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// AUTO-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = false>, stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.label = #stream.label<"p", priority = 1, inner_parallel = false>, stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// AUTO-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// AUTO-NEXT:    func.return %[[D]] : tensor<4xf32>
// AUTO-NEXT:  }
// AUTO-REPORT-NEXT: [assign-streams] @inner_parallel_false: mode auto, 2 stream(s)
// AUTO-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// AUTO-REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: p, priority: 1, ops: 2
// AUTO-REPORT-NEXT:   events: 2 kept, 4 dropped of 6 cross-stream dependencies
func.func @inner_parallel_false(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %a {stream.label = #stream.label<"p", priority = 1, inner_parallel = false>} : tensor<4xf32>
  %c = ge.silu %a {stream.label = #stream.label<"p", priority = 1, inner_parallel = false>} : tensor<4xf32>
  %d = ge.add %b, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// Numbering with every kind of stream.  In auto mode %b (independent of %a, returned as is)
// gets an automatic stream; although its first op comes before the label's, the label stream
// is 1, the automatic stream 2 and the comm stream 3.  The collective stays on the comm
// stream: its user is on a label stream.  (%t's operand %a reaches it through %r and %c, so
// %a -> %t is no chain edge; the chain [%a] is joined to [%t] by the closure matching.)
//   labels: %r (comm, s2): %a, fork -> wait for %a.  %c (s1): %r, fork -> wait for %r.
//           %t (s0): %c -> wait.  return: joins of s1, s2 -> implied.
//           7 dependencies, 3 kept, 4 dropped.
//   auto:   %b (s2): fork -> wait for the arguments' record.  %r (s3): %a, fork -> wait for
//           %a.  %c (s1): %r, fork -> wait for %r.  %t (s0): %c -> wait.  return: %b (s2)
//           and the joins of s1, s2, s3 -> one wait, for %b.
//           9 dependencies, 5 kept, 4 dropped.
//   auto, max-streams=1: puts %b back on stream 0; as in labels mode.
// CHECK-LABEL: func.func @numbering_mixed(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.id = #stream.id<2>} : tensor<16xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[R]] {stream.id = #stream.id<2>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[C:.*]] = ge.silu %[[R]] {stream.label = #stream.label<"L", priority = 4, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    %[[E2:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[T:.*]] = ge.add %[[A]], %[[C]] {stream.id = #stream.id<0>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT:    func.return %[[T]], %[[B]] : tensor<16xf32>, tensor<16xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @numbering_mixed: mode labels, 3 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: L, priority: 4, ops: 1
// REPORT-NEXT:   logic_stream_id: 2, kind: comm, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   events: 3 kept, 4 dropped of 7 cross-stream dependencies
// AUTO-LABEL: func.func @numbering_mixed(
// AUTO-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
// AUTO-NEXT:    %[[E0:.*]] = stream.record %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// AUTO-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// AUTO-NEXT:    %[[E1:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<16xf32>
// AUTO-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// AUTO-NEXT:    %[[B:.*]] = ge.sigmoid %[[X]] {stream.id = #stream.id<2>} : tensor<16xf32>
// AUTO-NEXT:    %[[E2:.*]] = stream.record %[[B]] {stream.id = #stream.id<2>} : tensor<16xf32>
// AUTO-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<3>}
// AUTO-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.id = #stream.id<3>} : tensor<16xf32>
// AUTO-NEXT:    %[[E3:.*]] = stream.record %[[R]] {stream.id = #stream.id<3>} : tensor<16xf32>
// AUTO-NEXT:    stream.wait %[[E3]] {stream.id = #stream.id<1>}
// AUTO-NEXT:    %[[C:.*]] = ge.silu %[[R]] {stream.label = #stream.label<"L", priority = 4, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<16xf32>
// AUTO-NEXT:    %[[E4:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<16xf32>
// AUTO-NEXT:    stream.wait %[[E4]] {stream.id = #stream.id<0>}
// AUTO-NEXT:    %[[T:.*]] = ge.add %[[A]], %[[C]] {stream.id = #stream.id<0>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
// AUTO-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// AUTO-NEXT:    func.return %[[T]], %[[B]] : tensor<16xf32>, tensor<16xf32>
// AUTO-NEXT:  }
// AUTO-REPORT-NEXT: [assign-streams] @numbering_mixed: mode auto, 4 stream(s)
// AUTO-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// AUTO-REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: L, priority: 4, ops: 1
// AUTO-REPORT-NEXT:   logic_stream_id: 2, kind: auto, user_stream_label: , priority: 0, ops: 1
// AUTO-REPORT-NEXT:   logic_stream_id: 3, kind: comm, user_stream_label: , priority: 0, ops: 1
// AUTO-REPORT-NEXT:   events: 5 kept, 4 dropped of 9 cross-stream dependencies
// AUTO1-LABEL: func.func @numbering_mixed(
// AUTO1-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
// AUTO1-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// AUTO1-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<16xf32>
// AUTO1-NEXT:    %[[B:.*]] = ge.sigmoid %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// AUTO1-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// AUTO1-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.id = #stream.id<2>} : tensor<16xf32>
// AUTO1-NEXT:    %[[E1:.*]] = stream.record %[[R]] {stream.id = #stream.id<2>} : tensor<16xf32>
// AUTO1-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<1>}
// AUTO1-NEXT:    %[[C:.*]] = ge.silu %[[R]] {stream.label = #stream.label<"L", priority = 4, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<16xf32>
// AUTO1-NEXT:    %[[E2:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<16xf32>
// AUTO1-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// AUTO1-NEXT:    %[[T:.*]] = ge.add %[[A]], %[[C]] {stream.id = #stream.id<0>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
// AUTO1-NEXT:    func.return %[[T]], %[[B]] : tensor<16xf32>, tensor<16xf32>
// AUTO1-NEXT:  }
func.func @numbering_mixed(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %a = ge.relu %x : tensor<16xf32>
  %b = ge.sigmoid %x : tensor<16xf32>
  %r = ge.hcom_all_reduce %a reduction sum group "world" rank_size 8 : tensor<16xf32>
  %c = ge.silu %r {stream.label = #stream.label<"L", priority = 4>} : tensor<16xf32>
  %t = ge.add %a, %c : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %t, %b : tensor<16xf32>, tensor<16xf32>
}

// -----

// Label streams do not count toward max-streams (GE test
// ByPathCover_StreamLimitDoesNotLimitSerialStreams): with max-streams=1 the independent %b
// joins stream 0, yet the two labels keep streams 1 and 2 (3 streams).
//   %c (s1), %d (s2): %a and the fork -> wait for %a (one record, two waits).
//   %e (s0): %c, %d -> two waits.   return: joins of s1, s2 -> implied.
//   8 dependencies, 4 kept, 4 dropped.  Labels mode gives the same IR.
// CHECK-LABEL: func.func @labels_beyond_limit(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    %[[D:.*]] = ge.relu6 %[[A]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>, stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    %[[E2:.*]] = stream.record %[[D]] {stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[E:.*]] = ge.add %[[C]], %[[D]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[F:.*]] = ge.add %[[E]], %[[B]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[F]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @labels_beyond_limit: mode labels, 3 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 4
// REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 1
// REPORT-NEXT:   logic_stream_id: 2, kind: label, user_stream_label: 2, priority: 0, ops: 1
// REPORT-NEXT:   events: 4 kept, 4 dropped of 8 cross-stream dependencies
// REPORT-NOT:  {{.}}
// AUTO1-LABEL: func.func @labels_beyond_limit(
// AUTO1-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// AUTO1-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// AUTO1-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// AUTO1-NEXT:    %[[B:.*]] = ge.sigmoid %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// AUTO1-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// AUTO1-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO1-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// AUTO1-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// AUTO1-NEXT:    %[[D:.*]] = ge.relu6 %[[A]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>, stream.id = #stream.id<2>} : tensor<4xf32>
// AUTO1-NEXT:    %[[E2:.*]] = stream.record %[[D]] {stream.id = #stream.id<2>} : tensor<4xf32>
// AUTO1-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// AUTO1-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// AUTO1-NEXT:    %[[E:.*]] = ge.add %[[C]], %[[D]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// AUTO1-NEXT:    %[[F:.*]] = ge.add %[[E]], %[[B]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// AUTO1-NEXT:    func.return %[[F]] : tensor<4xf32>
// AUTO1-NEXT:  }
func.func @labels_beyond_limit(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %x : tensor<4xf32>
  %c = ge.silu %a {stream.label = #stream.label<"1">} : tensor<4xf32>
  %d = ge.relu6 %a {stream.label = #stream.label<"2">} : tensor<4xf32>
  %e = ge.add %c, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %f = ge.add %e, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %f : tensor<4xf32>
}

// ---- The TorchAir example ------------------------------------------------------------------
// add_result runs on stream 0, mm_result on label "1" (stream 1), mm1 on stream 0, add2 on
// label "2" (stream 2); both labels keep the documented default priority 0.  The
// npu_wait_tensor edges become events and the wait_tensors disappear (the matmuls and add2
// read %in4 directly).
//   mm_result (s1): add_result (wait_tensor), the entry (in3, in4, fork) -> wait for
//                   add_result, which implies the entry.
//   mm1 (s0):       add_result through the rebound in4 -> same stream, no wait.
//   add2 (s2):      mm_result (wait_tensor), add_result (the rebound in4), the entry ->
//                   wait for mm_result only (it implies add_result and the entry).
//   return:         mm_result (s1), add2 (s2) and the joins of s1, s2 -> one wait, for add2,
//                   which implies mm_result.
// 7 dependencies (2 + 3 + 2), 3 kept, 4 dropped.
// TORCHAIR-LABEL: func.func @main(
// TORCHAIR-SAME:  %[[IN1:[^:]*]]: tensor<4x4xf32> {ge.name = "in1"}, %[[IN2:[^:]*]]: tensor<4x4xf32> {ge.name = "in2"}, %[[IN3:[^:]*]]: tensor<4x4xf32> {ge.name = "in3"}, %[[IN4:[^:]*]]: tensor<4x4xf32> {ge.name = "in4"}) -> (tensor<4x4xf32> {ge.name = "add_result"}, tensor<4x4xf32> {ge.name = "mm_result"}, tensor<4x4xf32> {ge.name = "mm1"}, tensor<4x4xf32> {ge.name = "add2"}) {
// TORCHAIR-NEXT:    %[[ADD_RESULT:.*]] = ge.add %[[IN1]], %[[IN2]] {stream.id = #stream.id<0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// TORCHAIR-NEXT:    %[[E0:.*]] = stream.record %[[ADD_RESULT]] {stream.id = #stream.id<0>} : tensor<4x4xf32>
// TORCHAIR-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// TORCHAIR-NEXT:    %[[MM_RESULT:.*]] = ge.matmul %[[IN3]], %[[IN4]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// TORCHAIR-NEXT:    %[[E1:.*]] = stream.record %[[MM_RESULT]] {stream.id = #stream.id<1>} : tensor<4x4xf32>
// TORCHAIR-NEXT:    %[[MM1:.*]] = ge.matmul %[[IN3]], %[[IN4]] {stream.id = #stream.id<0>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// TORCHAIR-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<2>}
// TORCHAIR-NEXT:    %[[ADD2:.*]] = ge.add %[[IN3]], %[[IN4]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>, stream.id = #stream.id<2>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// TORCHAIR-NEXT:    %[[E2:.*]] = stream.record %[[ADD2]] {stream.id = #stream.id<2>} : tensor<4x4xf32>
// TORCHAIR-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// TORCHAIR-NEXT:    func.return %[[ADD_RESULT]], %[[MM_RESULT]], %[[MM1]], %[[ADD2]] : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
// TORCHAIR-NEXT:  }
// TORCHAIR-REPORT:      [assign-streams] @main: mode labels, 3 stream(s)
// TORCHAIR-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// TORCHAIR-REPORT-NEXT:   logic_stream_id: 1, kind: label, user_stream_label: 1, priority: 0, ops: 1
// TORCHAIR-REPORT-NEXT:   logic_stream_id: 2, kind: label, user_stream_label: 2, priority: 0, ops: 1
// TORCHAIR-REPORT-NEXT:   events: 3 kept, 4 dropped of 7 cross-stream dependencies
// TORCHAIR-REPORT-NOT:  {{.}}
