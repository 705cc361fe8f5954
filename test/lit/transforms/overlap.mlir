// --overlap=chunks=k: a matmul whose result goes only to a ge.hcom_all_reduce (the
// row-parallel matmul of tensor parallelism) is cut along its rows, with the row-wise ops
// above it (here the relu and the column-parallel matmul), into k pieces, each with its own
// all-reduce; a stream.wait_tensor keeps the pieces in order; the bias add stays after the
// concat.
// RUN: ge-opt %s --split-input-file --overlap=chunks=2 | filecheck %s
// RUN: ge-opt %s --split-input-file --overlap=chunks=3 | filecheck %s --check-prefix=UNEVEN
// RUN: ge-opt %s --split-input-file --overlap=chunks=2 --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS
// RUN: not ge-opt %s --overlap=chunks=1 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not ge-opt %s --split-input-file --assign-streams --overlap 2>&1 | filecheck %s --check-prefix=ASSIGNED

// CHECK-LABEL: func.func @mlp_rank0
// CHECK-NEXT:    %b2 = ge.const
// CHECK-NEXT:    %w1 = ge.const
// CHECK-NEXT:    %w2 = ge.const
// CHECK-NEXT:    %0 = ge.slice %x starts [0] ends [4] axes [0] steps [1] : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %1 = ge.matmul %0, %w1 : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %2 = ge.relu %1 : tensor<4x16xf32>
// CHECK-NEXT:    %3 = ge.matmul %2, %w2 : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %4 = ge.hcom_all_reduce %3 reduction sum group "tp" rank_size 2 : tensor<4x16xf32>
// CHECK-NEXT:    %5 = stream.wait_tensor %x after %3 : tensor<8x16xf32>, tensor<4x16xf32>
// CHECK-NEXT:    %6 = ge.slice %5 starts [4] ends [8] axes [0] steps [1] : tensor<8x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %7 = ge.matmul %6, %w1 : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %8 = ge.relu %7 : tensor<4x16xf32>
// CHECK-NEXT:    %9 = ge.matmul %8, %w2 : tensor<4x16xf32>, tensor<16x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT:    %10 = ge.hcom_all_reduce %9 reduction sum group "tp" rank_size 2 : tensor<4x16xf32>
// CHECK-NEXT:    %o = ge.concat %4, %10 axis 0 : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<8x16xf32>
// CHECK-NEXT:    %y = ge.add %o, %b2 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT:    func.return %y : tensor<8x16xf32>

// UNEVEN-LABEL: func.func @mlp_rank0
// UNEVEN:         ge.slice %x starts [0] ends [3] axes [0] steps [1] : tensor<8x16xf32> -> tensor<3x16xf32>
// UNEVEN:         ge.hcom_all_reduce %{{.*}} : tensor<3x16xf32>
// UNEVEN:         ge.slice %{{.*}} starts [3] ends [6] axes [0] steps [1] : tensor<8x16xf32> -> tensor<3x16xf32>
// UNEVEN:         ge.hcom_all_reduce %{{.*}} : tensor<3x16xf32>
// UNEVEN:         ge.slice %{{.*}} starts [6] ends [8] axes [0] steps [1] : tensor<8x16xf32> -> tensor<2x16xf32>
// UNEVEN:         ge.hcom_all_reduce %{{.*}} : tensor<2x16xf32>
// UNEVEN:         %o = ge.concat %{{.*}}, %{{.*}}, %{{.*}} axis 0 : tensor<3x16xf32>, tensor<3x16xf32>, tensor<2x16xf32> -> tensor<8x16xf32>

// STATS: overlap
// STATS: (S) 1 matmuls-split
// STATS: (S) 0 matmuls-split

// OPTION: overlap: chunks must be at least 2, got 1

// ASSIGNED: error: 'ge.const' op is assigned to a stream: --overlap rewrites graphs before stream assignment; run it before --assign-streams

func.func @mlp_rank0(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %b2 = ge.const dense<1.000000e+00> : tensor<16xf32>
  %w1 = ge.const dense<5.000000e-01> : tensor<16x16xf32>
  %h = ge.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %r = ge.relu %h : tensor<8x16xf32>
  %w2 = ge.const dense<2.500000e-01> : tensor<16x16xf32>
  %0 = ge.matmul %r, %w2 : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %o = ge.hcom_all_reduce %0 reduction sum group "tp" rank_size 2 : tensor<8x16xf32>
  %y = ge.add %o, %b2 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  func.return %y : tensor<8x16xf32>
}

// -----

// Not split: the matmul's result has another user besides the all-reduce, and a
// transposed left operand.
// CHECK-LABEL: func.func @not_split
// CHECK-NOT:     ge.slice
// CHECK-NOT:     ge.concat
// CHECK:         func.return
func.func @not_split(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %xt: tensor<16x8xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %0 = ge.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %1 = ge.hcom_all_reduce %0 reduction sum group "tp" rank_size 2 : tensor<8x16xf32>
  %2 = ge.matmul %xt, %w transpose_a : tensor<16x8xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %3 = ge.hcom_all_reduce %2 reduction sum group "tp" rank_size 2 : tensor<8x16xf32>
  func.return %0, %1, %3 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}
