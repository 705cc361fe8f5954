// Diagnostics of the collectives (reduce-scatter, all-to-all, broadcast, send, receive):
// one case per verifier rule, each pinned with its exact message and location (line
// numbers are those of the whole file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

func.func @f(%x: tensor<6x4xf32>) {
  // CHECK: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_reduce_scatter' op operand 'input' dim 0 (6) must be a multiple of rank_size 4{{$}}
  %y = ge.hcom_reduce_scatter %x reduction sum group "tp" rank_size 4 : tensor<6x4xf32> -> tensor<1x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<8x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_reduce_scatter' op result has shape [8, 4], expected [2, 4]{{$}}
  %y = ge.hcom_reduce_scatter %x reduction sum group "tp" rank_size 4 : tensor<8x4xf32> -> tensor<8x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<8x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_reduce_scatter' op group must not be empty{{$}}
  %y = ge.hcom_reduce_scatter %x reduction sum group "" rank_size 4 : tensor<8x4xf32> -> tensor<2x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<8x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_to_all' op split_dim 2 is out of range for the input's rank 2{{$}}
  %y = ge.hcom_all_to_all %x split_dim 2 concat_dim 0 group "ep" rank_size 4 : tensor<8x4xf32> -> tensor<8x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<6x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_to_all' op operand 'input' dim 0 (6) must be a multiple of rank_size 4{{$}}
  %y = ge.hcom_all_to_all %x split_dim 0 concat_dim 0 group "ep" rank_size 4 : tensor<6x4xf32> -> tensor<6x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<8x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_to_all' op result has shape [8, 4], expected [2, 16]{{$}}
  %y = ge.hcom_all_to_all %x split_dim 0 concat_dim 1 group "ep" rank_size 4 : tensor<8x4xf32> -> tensor<8x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_to_all' op send_counts has 3 entries, expected rank_size 2{{$}}
  %y = ge.hcom_all_to_all %x split_dim 0 concat_dim 0 group "ep" rank_size 2 send_counts [1, 2, 1] recv_counts [1, 3] : tensor<4x4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_to_all' op send_counts sum to 3, but the input's dim 0 has size 4{{$}}
  %y = ge.hcom_all_to_all %x split_dim 0 concat_dim 0 group "ep" rank_size 2 send_counts [1, 2] recv_counts [1, 3] : tensor<4x4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_to_all' op send_counts and recv_counts must be given together{{$}}
  %y = ge.hcom_all_to_all %x split_dim 0 concat_dim 0 group "ep" rank_size 2 send_counts [1, 3] : tensor<4x4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_to_all' op uneven pieces (send_counts / recv_counts) need split_dim == concat_dim, got 0 and 1{{$}}
  %y = ge.hcom_all_to_all %x split_dim 0 concat_dim 1 group "ep" rank_size 2 send_counts [1, 3] recv_counts [1, 3] : tensor<4x4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_to_all' op send_counts must not be negative, got [-1, 5]{{$}}
  %y = ge.hcom_all_to_all %x split_dim 0 concat_dim 0 group "ep" rank_size 2 send_counts [-1, 5] recv_counts [1, 3] : tensor<4x4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_to_all' op result has shape [4, 4], expected [5, 4]{{$}}
  %y = ge.hcom_all_to_all %x split_dim 0 concat_dim 0 group "ep" rank_size 2 send_counts [1, 3] recv_counts [2, 3] : tensor<4x4xf32> -> tensor<4x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_broadcast' op root 4 is out of range for rank_size 4 (0..3){{$}}
  %y = ge.hcom_broadcast %x root 4 group "g" rank_size 4 : tensor<4x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xi64>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_broadcast' op operand 'input' must be f16, f32, i8 or i32, got i64{{$}}
  %y = ge.hcom_broadcast %x root 0 group "g" rank_size 4 : tensor<4x4xi64>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_send' op dest_rank 2 is out of range for rank_size 2 (0..1){{$}}
  ge.hcom_send %x dest_rank 2 sr_tag 0 group "pp" rank_size 2 : tensor<4x4xf32>
  func.return
}

// -----

func.func @f(%x: tensor<4x4xf32>) {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_send' op sr_tag must not be negative, got -1{{$}}
  ge.hcom_send %x dest_rank 1 sr_tag -1 group "pp" rank_size 2 : tensor<4x4xf32>
  func.return
}

// -----

func.func @f() {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_receive' op src_rank -1 is out of range for rank_size 2 (0..1){{$}}
  %y = ge.hcom_receive src_rank -1 sr_tag 0 group "pp" rank_size 2 : tensor<4x4xf32>
  func.return
}

// -----

func.func @f() {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_receive' op rank_size must be positive, got 0{{$}}
  %y = ge.hcom_receive src_rank 0 sr_tag 0 group "pp" rank_size 0 : tensor<4x4xf32>
  func.return
}

// -----

func.func @f() {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_receive' op group must not be empty{{$}}
  %y = ge.hcom_receive src_rank 0 sr_tag 0 group "" rank_size 2 : tensor<4x4xi1>
  func.return
}

// -----

func.func @f() {
  // CHECK-NEXT: collectives-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_receive' op result must be f16, f32, i8 or i32, got i64{{$}}
  %y = ge.hcom_receive src_rank 0 sr_tag 0 group "pp" rank_size 2 : tensor<4x4xi64>
  func.return
}
