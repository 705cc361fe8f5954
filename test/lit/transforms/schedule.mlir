// --schedule: GE's priority topological sort of each block before stream assignment:
// among the ready ops, collectives first, then the longest remaining path (cost model
// work), then the original order.  Stream labels, stream.wait_tensor and the order of
// ops with effects (collectives) are dependencies.
// RUN: ge-opt %s --split-input-file --schedule | filecheck %s
// RUN: ge-opt %s --split-input-file --schedule --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: not ge-opt %s --split-input-file --assign-streams --schedule 2>&1 | filecheck %s --check-prefix=ASSIGNED

// STATS: (S) 2 ops-moved
// STATS: (S) 2 ops-moved
// STATS: (S) 0 ops-moved
// STATS: (S) 0 ops-moved

// ASSIGNED: schedule.mlir:{{[0-9]+}}:3: error: 'ge.matmul' op is assigned to a stream: --schedule rewrites graphs before stream assignment; run it before --assign-streams

// The all-reduce's input is cheap and its result feeds two matmuls: it is issued first,
// ahead of the long branch written before it.
// CHECK-LABEL: func.func @late
// CHECK-NEXT:    %0 = ge.mul %x, %x
// CHECK-NEXT:    %1 = ge.hcom_all_reduce %0
// CHECK-NEXT:    %2 = ge.matmul %1, %w
// CHECK-NEXT:    %3 = ge.matmul %x, %w
// CHECK-NEXT:    %4 = ge.matmul %2, %w
// CHECK-NEXT:    %5 = ge.relu %3
// CHECK-NEXT:    func.return %5, %4
func.func @late(%x: tensor<64x64xf16>, %w: tensor<64x64xf16>) -> (tensor<64x64xf16>, tensor<64x64xf16>) {
  %0 = ge.matmul %x, %w : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  %1 = ge.relu %0 : tensor<64x64xf16>
  %2 = ge.mul %x, %x : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  %3 = ge.hcom_all_reduce %2 reduction sum group "tp" rank_size 2 : tensor<64x64xf16>
  %4 = ge.matmul %3, %w : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  %5 = ge.matmul %4, %w : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  func.return %1, %5 : tensor<64x64xf16>, tensor<64x64xf16>
}

// -----

// The ops of label "s1" keep their order, the collectives keep theirs (all-reduce before
// all-gather), the matmul after the stream.wait_tensor stays after it.
// CHECK-LABEL: func.func @labels
// CHECK-NEXT:    %0 = ge.relu %x {stream.label
// CHECK-NEXT:    %1 = ge.matmul %x, %w {stream.label
// CHECK-NEXT:    %2 = ge.hcom_all_reduce %1
// CHECK-NEXT:    %3 = ge.hcom_all_gather %0
// CHECK-NEXT:    %4 = stream.wait_tensor %x after %0
// CHECK-NEXT:    %5 = ge.matmul %4, %w
// CHECK-NEXT:    func.return %5, %2
func.func @labels(%x: tensor<64x64xf16>, %w: tensor<64x64xf16>) -> (tensor<64x64xf16>, tensor<64x64xf16>) {
  %0 = ge.relu %x {stream.label = #stream.label<"s1">} : tensor<64x64xf16>
  %1 = ge.matmul %x, %w {stream.label = #stream.label<"s1">} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  %2 = stream.wait_tensor %x after %0 : tensor<64x64xf16>, tensor<64x64xf16>
  %3 = ge.matmul %2, %w : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  %4 = ge.hcom_all_reduce %1 reduction sum group "tp" rank_size 2 : tensor<64x64xf16>
  %5 = ge.hcom_all_gather %0 group "tp" rank_size 2 : tensor<64x64xf16> -> tensor<128x64xf16>
  func.return %3, %4 : tensor<64x64xf16>, tensor<64x64xf16>
}

// -----

// Nothing to move: the block is left as it is, constant included.
// CHECK-LABEL: func.func @kept
// CHECK-NEXT:    %c = ge.const
// CHECK-NEXT:    %0 = ge.add %x, %c
// CHECK-NEXT:    %1 = ge.relu %0
// CHECK-NEXT:    func.return %1
func.func @kept(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = ge.const dense<1.0> : tensor<4xf32>
  %0 = ge.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = ge.relu %0 : tensor<4xf32>
  func.return %1 : tensor<4xf32>
}

// -----

// Point to point: the receive is ready at once (no operand) but stays after the send, as
// ops with effects keep their order.
// CHECK-LABEL: func.func @p2p
// CHECK-NEXT:    %0 = ge.matmul %x, %w
// CHECK-NEXT:    %1 = ge.relu %x
// CHECK-NEXT:    ge.hcom_send %1 dest_rank 1 sr_tag 0 group "pp" rank_size 2
// CHECK-NEXT:    %2 = ge.hcom_receive src_rank 1 sr_tag 0 group "pp" rank_size 2
// CHECK-NEXT:    %3 = ge.add %0, %2
func.func @p2p(%x: tensor<64x64xf16>, %w: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %0 = ge.matmul %x, %w : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
  %1 = ge.relu %x : tensor<64x64xf16>
  ge.hcom_send %1 dest_rank 1 sr_tag 0 group "pp" rank_size 2 : tensor<64x64xf16>
  %2 = ge.hcom_receive src_rank 1 sr_tag 0 group "pp" rank_size 2 : tensor<64x64xf16>
  %3 = ge.add %0, %2 : (tensor<64x64xf16>, tensor<64x64xf16>) -> tensor<64x64xf16>
  func.return %3 : tensor<64x64xf16>
}
