// --assign-streams=mode=auto on unlabelled graphs: chains from a maximum matching on the
// transitive reduction, chains joined by a matching on the closure of the chain graph,
// streams merged lightest first (weight = FLOPs + bytes in + bytes out from the cost module)
// down to max-streams (stream 0 included); automatic streams numbered by their first op, the
// comm stream last.  The same file in mode=single: one stream, no event, no wait_tensor.
// Every case pins the whole output; the comments list each cross-stream dependency (data,
// wait_tensor, fork from the entry, join into func.return) and why it is kept or implied.
//
// Costs on tensor<4xf32> (FLOPs + 16 bytes per operand and result): relu 4+32 = 36,
// relu6 8+32 = 40, sigmoid 16+32 = 48, silu 20+32 = 52, add 4+48 = 52.
//
// RUN: ge-opt %s --split-input-file --assign-streams=mode=auto | filecheck %s
// RUN: ge-opt %s --split-input-file --assign-streams=mode=auto,report 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// More branches than max-streams:
// RUN: ge-opt %s --split-input-file --assign-streams=mode=auto,max-streams=2 | filecheck %s --check-prefix=MAX2
// RUN: ge-opt %s --split-input-file --assign-streams=mode=auto,max-streams=2,report 2>&1 >/dev/null | filecheck %s --check-prefix=MAX2-REPORT
// RUN: ge-opt %s --split-input-file --assign-streams=mode=auto,max-streams=3 | filecheck %s --check-prefix=MAX3
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// mode=single:
// RUN: ge-opt %s --split-input-file --assign-streams=mode=single | filecheck %s --check-prefix=SINGLE
// RUN: ge-opt %s --split-input-file --assign-streams=mode=single,report 2>&1 >/dev/null | filecheck %s --check-prefix=SINGLE-REPORT
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// Determinism (the diffs come last: lit's builtin diff leaves PYTHONPATH pointing at lit for
// the commands after it):
// RUN: env PYTHONHASHSEED=1 ge-opt %s --split-input-file --assign-streams=mode=auto,report > %t.1 2> %t.1.report
// RUN: env PYTHONHASHSEED=2 ge-opt %s --split-input-file --assign-streams=mode=auto,report > %t.2 2> %t.2.report
// RUN: env PYTHONHASHSEED=1 ge-opt %s --split-input-file --assign-streams=mode=auto,max-streams=2 > %t.3
// RUN: env PYTHONHASHSEED=2 ge-opt %s --split-input-file --assign-streams=mode=auto,max-streams=2 > %t.4
// RUN: diff %t.1 %t.2
// RUN: diff %t.1.report %t.2.report
// RUN: diff %t.3 %t.4
// comm-streams=2: the k-th collective of a group on comm stream k mod 2 (a rule every rank
// applies alike), on Inputs/comm-streams.mlir:
// RUN: ge-opt %S/Inputs/comm-streams.mlir --assign-streams=mode=auto,comm-streams=2,report 2>&1 | filecheck %s --check-prefix=COMM2
// COMM2:      logic_stream_id: 1, kind: comm, user_stream_label: , priority: 0, ops: 3
// COMM2-NEXT: logic_stream_id: 2, kind: comm, user_stream_label: , priority: 0, ops: 1
// COMM2:      ge.hcom_all_reduce %x reduction sum group "a" rank_size 2 {stream.id = #stream.id<1>}
// COMM2:      ge.hcom_all_reduce %x reduction sum group "b" rank_size 2 {stream.id = #stream.id<1>}
// COMM2:      ge.hcom_all_reduce %x reduction sum group "a" rank_size 2 {stream.id = #stream.id<2>}
// COMM2:      ge.hcom_all_reduce %x reduction sum group "a" rank_size 2 {stream.id = #stream.id<1>}
// COMM2-LABEL: func.func @p2p
// COMM2:      ge.hcom_send %x dest_rank 1 sr_tag 0 group "pp" rank_size 2 {stream.id = #stream.id<1>}
// COMM2:      ge.hcom_receive src_rank 1 sr_tag 0 group "pp" rank_size 2 {stream.id = #stream.id<1>}
// RUN: not ge-opt %S/Inputs/comm-streams.mlir --assign-streams=comm-streams=3 2>&1 | filecheck %s --check-prefix=COMM3
// COMM3: assign-streams: comm-streams must be 1 or 2 (GE's 1 compute + 1-2 comm streams), got 3

// A chain stays on one stream: no event, whatever max-streams.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.silu %[[B]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT:      [assign-streams] @chain: mode auto, 1 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
// MAX2-LABEL: func.func @chain(
// MAX2-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// MAX2-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    %[[C:.*]] = ge.silu %[[B]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    func.return %[[C]] : tensor<4xf32>
// MAX2-NEXT:  }
// MAX2-REPORT:      [assign-streams] @chain: mode auto, 1 stream(s)
// MAX2-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// MAX2-REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
// MAX3-LABEL: func.func @chain(
// MAX3-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// MAX3-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX3-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX3-NEXT:    %[[C:.*]] = ge.silu %[[B]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX3-NEXT:    func.return %[[C]] : tensor<4xf32>
// MAX3-NEXT:  }
// SINGLE-LABEL: func.func @chain(
// SINGLE-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// SINGLE-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[C:.*]] = ge.silu %[[B]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    func.return %[[C]] : tensor<4xf32>
// SINGLE-NEXT:  }
// SINGLE-REPORT:      [assign-streams] @chain: mode single, 1 stream(s)
// SINGLE-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// SINGLE-REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
func.func @chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %a : tensor<4xf32>
  %c = ge.silu %b : tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// A diamond: two chains, [%a, %b, %d] on stream 0 and [%c] on stream 1.
//   %c (s1): %a and the fork -> wait for %a (implies the entry).
//   %d (s0): %b (same stream), %c (s1) -> wait for %c.
//   return:  the join of s1 (%c) -> implied by %d's wait.
// 4 dependencies (2 + 1 + 1), 2 kept, 2 dropped.  Identical with max-streams=2 and 3.
// CHECK-LABEL: func.func @diamond(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @diamond: mode auto, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// REPORT-NEXT:   logic_stream_id: 1, kind: auto, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   events: 2 kept, 2 dropped of 4 cross-stream dependencies
// MAX2-LABEL: func.func @diamond(
// MAX2-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// MAX2-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// MAX2-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// MAX2-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// MAX2-NEXT:    func.return %[[D]] : tensor<4xf32>
// MAX2-NEXT:  }
// MAX2-REPORT-NEXT: [assign-streams] @diamond: mode auto, 2 stream(s)
// MAX2-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// MAX2-REPORT-NEXT:   logic_stream_id: 1, kind: auto, user_stream_label: , priority: 0, ops: 1
// MAX2-REPORT-NEXT:   events: 2 kept, 2 dropped of 4 cross-stream dependencies
// MAX3-LABEL: func.func @diamond(
// MAX3-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// MAX3-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX3-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX3-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX3-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// MAX3-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX3-NEXT:    %[[E1:.*]] = stream.record %[[C]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX3-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// MAX3-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// MAX3-NEXT:    func.return %[[D]] : tensor<4xf32>
// MAX3-NEXT:  }
// SINGLE-LABEL: func.func @diamond(
// SINGLE-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// SINGLE-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[B:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[D:.*]] = ge.add %[[B]], %[[C]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// SINGLE-NEXT:    func.return %[[D]] : tensor<4xf32>
// SINGLE-NEXT:  }
// SINGLE-REPORT-NEXT: [assign-streams] @diamond: mode single, 1 stream(s)
// SINGLE-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 4
// SINGLE-REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
func.func @diamond(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %a : tensor<4xf32>
  %c = ge.silu %a : tensor<4xf32>
  %d = ge.add %b, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// Four branches, joined pairwise.  The chain cover gives A = [%a, %b1, %s1, %d] (weight
// 36 + 48 + 52 + 52 = 188), B = [%b2] (52), C = [%b3, %s2] (40 + 52 = 92), D = [%b4] (36).
// Default (max 8): four streams, numbered by first op: A 0, B 1, C 2, D 3.
//   %b2 (s1), %b3 (s2), %b4 (s3): %a and the fork -> wait for %a (one record, three waits).
//   %s1 (s0): %b2 (s1) -> wait.   %s2 (s2): %b4 (s3) -> wait.   %d (s0): %s2 (s2) -> wait.
//   return: joins of s1 (%b2), s2 (%s2), s3 (%b4) -> implied by %s1's and %d's waits (%s2
//   waited for %b4).
//   12 dependencies (3 x 2 + 1 + 1 + 1 + 3), 6 kept, 6 dropped.
// max-streams=3: the two lightest, D (36) and B (52), merge into [%b2, %b4] (88); numbered
// by first op: [%b2, %b4] 1, C 2.
//   %b2 (s1), %b3 (s2): wait for %a.  %b4 (s1): %a -> implied by stream order after %b2.
//   %s1 (s0): wait for %b2.  %s2 (s2): %b4 (s1) -> wait.  %d (s0): wait for %s2.
//   return: joins of s1 (%b4), s2 (%s2) -> implied.
//   10 dependencies, 5 kept, 5 dropped.
// max-streams=2: then [%b2, %b4] (88) and C (92) merge: [%b2, %b3, %b4, %s2] on stream 1.
//   %b2 (s1): wait for %a.  %b3, %b4 (s1): %a -> implied.  %s1 (s0): wait for %b2.
//   %s2 (s1): same stream.  %d (s0): wait for %s2.  return: join of s1 (%s2) -> implied.
//   7 dependencies (2 + 1 + 1 + 1 + 1 + 1), 3 kept, 4 dropped.
// CHECK-LABEL: func.func @four_branches(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[B1:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B2:.*]] = ge.silu %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[B2]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    %[[B3:.*]] = ge.relu6 %[[A]] {stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<3>}
// CHECK-NEXT:    %[[B4:.*]] = ge.relu %[[A]] {stream.id = #stream.id<3>} : tensor<4xf32>
// CHECK-NEXT:    %[[E2:.*]] = stream.record %[[B4]] {stream.id = #stream.id<3>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[S1:.*]] = ge.add %[[B1]], %[[B2]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    %[[S2:.*]] = ge.add %[[B3]], %[[B4]] {stream.id = #stream.id<2>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[E3:.*]] = stream.record %[[S2]] {stream.id = #stream.id<2>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E3]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[D:.*]] = ge.add %[[S1]], %[[S2]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[D]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @four_branches: mode auto, 4 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 4
// REPORT-NEXT:   logic_stream_id: 1, kind: auto, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   logic_stream_id: 2, kind: auto, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 3, kind: auto, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   events: 6 kept, 6 dropped of 12 cross-stream dependencies
// MAX2-LABEL: func.func @four_branches(
// MAX2-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// MAX2-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    %[[B1:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// MAX2-NEXT:    %[[B2:.*]] = ge.silu %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    %[[E1:.*]] = stream.record %[[B2]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    %[[B3:.*]] = ge.relu6 %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    %[[B4:.*]] = ge.relu %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// MAX2-NEXT:    %[[S1:.*]] = ge.add %[[B1]], %[[B2]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// MAX2-NEXT:    %[[S2:.*]] = ge.add %[[B3]], %[[B4]] {stream.id = #stream.id<1>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// MAX2-NEXT:    %[[E2:.*]] = stream.record %[[S2]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<0>}
// MAX2-NEXT:    %[[D:.*]] = ge.add %[[S1]], %[[S2]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// MAX2-NEXT:    func.return %[[D]] : tensor<4xf32>
// MAX2-NEXT:  }
// MAX2-REPORT-NEXT: [assign-streams] @four_branches: mode auto, 2 stream(s)
// MAX2-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 4
// MAX2-REPORT-NEXT:   logic_stream_id: 1, kind: auto, user_stream_label: , priority: 0, ops: 4
// MAX2-REPORT-NEXT:   events: 3 kept, 4 dropped of 7 cross-stream dependencies
// MAX3-LABEL: func.func @four_branches(
// MAX3-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// MAX3-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX3-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX3-NEXT:    %[[B1:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX3-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// MAX3-NEXT:    %[[B2:.*]] = ge.silu %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX3-NEXT:    %[[E1:.*]] = stream.record %[[B2]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX3-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<2>}
// MAX3-NEXT:    %[[B3:.*]] = ge.relu6 %[[A]] {stream.id = #stream.id<2>} : tensor<4xf32>
// MAX3-NEXT:    %[[B4:.*]] = ge.relu %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX3-NEXT:    %[[E2:.*]] = stream.record %[[B4]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX3-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// MAX3-NEXT:    %[[S1:.*]] = ge.add %[[B1]], %[[B2]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// MAX3-NEXT:    stream.wait %[[E2]] {stream.id = #stream.id<2>}
// MAX3-NEXT:    %[[S2:.*]] = ge.add %[[B3]], %[[B4]] {stream.id = #stream.id<2>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// MAX3-NEXT:    %[[E3:.*]] = stream.record %[[S2]] {stream.id = #stream.id<2>} : tensor<4xf32>
// MAX3-NEXT:    stream.wait %[[E3]] {stream.id = #stream.id<0>}
// MAX3-NEXT:    %[[D:.*]] = ge.add %[[S1]], %[[S2]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// MAX3-NEXT:    func.return %[[D]] : tensor<4xf32>
// MAX3-NEXT:  }
// SINGLE-LABEL: func.func @four_branches(
// SINGLE-SAME:  %[[X:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// SINGLE-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[B1:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[B2:.*]] = ge.silu %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[B3:.*]] = ge.relu6 %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[B4:.*]] = ge.relu %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[S1:.*]] = ge.add %[[B1]], %[[B2]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// SINGLE-NEXT:    %[[S2:.*]] = ge.add %[[B3]], %[[B4]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// SINGLE-NEXT:    %[[D:.*]] = ge.add %[[S1]], %[[S2]] {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// SINGLE-NEXT:    func.return %[[D]] : tensor<4xf32>
// SINGLE-NEXT:  }
// SINGLE-REPORT-NEXT: [assign-streams] @four_branches: mode single, 1 stream(s)
// SINGLE-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 8
// SINGLE-REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
func.func @four_branches(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b1 = ge.sigmoid %a : tensor<4xf32>
  %b2 = ge.silu %a : tensor<4xf32>
  %b3 = ge.relu6 %a : tensor<4xf32>
  %b4 = ge.relu %a : tensor<4xf32>
  %s1 = ge.add %b1, %b2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s2 = ge.add %b3, %b4 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %d = ge.add %s1, %s2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}

// -----

// Two independent chains: the one starting with %b forks from the function entry (a record of
// both arguments at the function start) and joins into func.return (a wait right before it).
// 2 dependencies, 2 kept.
// CHECK-LABEL: func.func @independent_chains(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]], %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[Y]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[D:.*]] = ge.relu6 %[[B]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[D]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    func.return %[[C]], %[[D]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @independent_chains: mode auto, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: auto, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   events: 2 kept, 0 dropped of 2 cross-stream dependencies
// MAX2-LABEL: func.func @independent_chains(
// MAX2-SAME:  %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// MAX2-NEXT:    %[[E0:.*]] = stream.record %[[X]], %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>
// MAX2-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// MAX2-NEXT:    %[[B:.*]] = ge.sigmoid %[[Y]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// MAX2-NEXT:    %[[D:.*]] = ge.relu6 %[[B]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    %[[E1:.*]] = stream.record %[[D]] {stream.id = #stream.id<1>} : tensor<4xf32>
// MAX2-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// MAX2-NEXT:    func.return %[[C]], %[[D]] : tensor<4xf32>, tensor<4xf32>
// MAX2-NEXT:  }
// MAX2-REPORT-NEXT: [assign-streams] @independent_chains: mode auto, 2 stream(s)
// MAX2-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// MAX2-REPORT-NEXT:   logic_stream_id: 1, kind: auto, user_stream_label: , priority: 0, ops: 2
// MAX2-REPORT-NEXT:   events: 2 kept, 0 dropped of 2 cross-stream dependencies
// SINGLE-LABEL: func.func @independent_chains(
// SINGLE-SAME:  %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// SINGLE-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[B:.*]] = ge.sigmoid %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[C:.*]] = ge.silu %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[D:.*]] = ge.relu6 %[[B]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    func.return %[[C]], %[[D]] : tensor<4xf32>, tensor<4xf32>
// SINGLE-NEXT:  }
// SINGLE-REPORT-NEXT: [assign-streams] @independent_chains: mode single, 1 stream(s)
// SINGLE-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 4
// SINGLE-REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
func.func @independent_chains(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %y : tensor<4xf32>
  %c = ge.silu %a : tensor<4xf32>
  %d = ge.relu6 %b : tensor<4xf32>
  func.return %c, %d : tensor<4xf32>, tensor<4xf32>
}

// -----

// A wait_tensor edge is a dependency like a data edge: %c reads %b and waits for %a.  The
// matching puts [%b, %c] on stream 0 and [%a] on stream 1, so the wait_tensor edge becomes
// the event; the wait_tensor disappears and %c reads %b directly.
//   %a (s1): the fork -> wait for the arguments' record.
//   %c (s0): %b (same stream), %a (s1, through the wait_tensor) -> wait for %a.
//   return: the join of s1 (%a) -> implied.
// 3 dependencies, 2 kept, 1 dropped.  In mode=single no event and no wait_tensor remain.
// CHECK-LABEL: func.func @wait_tensor_edge(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[X]], %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.sigmoid %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[A]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[C:.*]] = ge.silu %[[B]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    func.return %[[C]] : tensor<4xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @wait_tensor_edge: mode auto, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: auto, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   events: 2 kept, 1 dropped of 3 cross-stream dependencies
// SINGLE-LABEL: func.func @wait_tensor_edge(
// SINGLE-SAME:  %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>) -> tensor<4xf32> {
// SINGLE-NEXT:    %[[B:.*]] = ge.sigmoid %[[Y]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    %[[C:.*]] = ge.silu %[[B]] {stream.id = #stream.id<0>} : tensor<4xf32>
// SINGLE-NEXT:    func.return %[[C]] : tensor<4xf32>
// SINGLE-NEXT:  }
// SINGLE-REPORT-NEXT: [assign-streams] @wait_tensor_edge: mode single, 1 stream(s)
// SINGLE-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// SINGLE-REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
func.func @wait_tensor_edge(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %b = ge.sigmoid %y : tensor<4xf32>
  %a = ge.relu %x : tensor<4xf32>
  %w = stream.wait_tensor %b after %a : tensor<4xf32>, tensor<4xf32>
  %c = ge.silu %w : tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// In auto mode a collective stays on the comm stream (1) even between two ops of stream 0
// with nothing between them there: the ineffective multi-stream rule leaves collectives
// alone (mode labels moves this one back to stream 0: assign-streams.mlir).
//   %r (comm): %a and the fork -> wait for %a.   %b (s0): %r -> wait.
//   return: the join of comm (%r) -> implied by %b's wait.
// 4 dependencies, 2 kept, 2 dropped.  mode=single puts the collective on stream 0.
// CHECK-LABEL: func.func @collective_stays_on_comm(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> tensor<16xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[R]] {stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[B:.*]] = ge.relu %[[R]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<16xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @collective_stays_on_comm: mode auto, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 2
// REPORT-NEXT:   logic_stream_id: 1, kind: comm, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   events: 2 kept, 2 dropped of 4 cross-stream dependencies
// SINGLE-LABEL: func.func @collective_stays_on_comm(
// SINGLE-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> tensor<16xf32> {
// SINGLE-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// SINGLE-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.id = #stream.id<0>} : tensor<16xf32>
// SINGLE-NEXT:    %[[B:.*]] = ge.relu %[[R]] {stream.id = #stream.id<0>} : tensor<16xf32>
// SINGLE-NEXT:    func.return %[[B]] : tensor<16xf32>
// SINGLE-NEXT:  }
// SINGLE-REPORT-NEXT: [assign-streams] @collective_stays_on_comm: mode single, 1 stream(s)
// SINGLE-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// SINGLE-REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
func.func @collective_stays_on_comm(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = ge.relu %x : tensor<16xf32>
  %r = ge.hcom_all_reduce %a reduction sum group "world" rank_size 8 : tensor<16xf32>
  %b = ge.relu %r : tensor<16xf32>
  func.return %b : tensor<16xf32>
}

// -----

// With %i on stream 0 between %a and %b, the collective stays on the comm stream (1).
//   %r (comm): %a and the fork -> wait for %a.   %b (s0): %r -> wait (%i is on s0).
//   return: the join of comm (%r) -> implied.
// 4 dependencies, 2 kept, 2 dropped.  mode=single puts the collective on stream 0.
// CHECK-LABEL: func.func @collective_stays(
// CHECK-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> tensor<16xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[R]] {stream.id = #stream.id<1>} : tensor<16xf32>
// CHECK-NEXT:    %[[I:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<16xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[B:.*]] = ge.add %[[R]], %[[I]] {stream.id = #stream.id<0>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT:    func.return %[[B]] : tensor<16xf32>
// CHECK-NEXT:  }
// REPORT-NEXT: [assign-streams] @collective_stays: mode auto, 2 stream(s)
// REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 3
// REPORT-NEXT:   logic_stream_id: 1, kind: comm, user_stream_label: , priority: 0, ops: 1
// REPORT-NEXT:   events: 2 kept, 2 dropped of 4 cross-stream dependencies
// REPORT-NOT:  {{.}}
// SINGLE-LABEL: func.func @collective_stays(
// SINGLE-SAME:  %[[X:[^:]*]]: tensor<16xf32>) -> tensor<16xf32> {
// SINGLE-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<16xf32>
// SINGLE-NEXT:    %[[R:.*]] = ge.hcom_all_reduce %[[A]] reduction sum group "world" rank_size 8 {stream.id = #stream.id<0>} : tensor<16xf32>
// SINGLE-NEXT:    %[[I:.*]] = ge.sigmoid %[[A]] {stream.id = #stream.id<0>} : tensor<16xf32>
// SINGLE-NEXT:    %[[B:.*]] = ge.add %[[R]], %[[I]] {stream.id = #stream.id<0>} : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
// SINGLE-NEXT:    func.return %[[B]] : tensor<16xf32>
// SINGLE-NEXT:  }
// SINGLE-REPORT-NEXT: [assign-streams] @collective_stays: mode single, 1 stream(s)
// SINGLE-REPORT-NEXT:   logic_stream_id: 0, kind: main, user_stream_label: , priority: 0, ops: 4
// SINGLE-REPORT-NEXT:   events: 0 kept, 0 dropped of 0 cross-stream dependencies
// SINGLE-REPORT-NOT:  {{.}}
func.func @collective_stays(%x: tensor<16xf32>) -> tensor<16xf32> {
  %a = ge.relu %x : tensor<16xf32>
  %r = ge.hcom_all_reduce %a reduction sum group "world" rank_size 8 : tensor<16xf32>
  %i = ge.sigmoid %a : tensor<16xf32>
  %b = ge.add %r, %i : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
  func.return %b : tensor<16xf32>
}
