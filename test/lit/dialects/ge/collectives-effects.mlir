// Collectives communicate, so they have memory effects: CSE does not merge two identical
// ones and DCE (and the greedy rewriter of canonicalize) does not remove an unused one.  A pure
// op next to them (ge.relu) is merged and removed, which shows that the passes did run.
// RUN: ge-opt %s -p cse,canonicalize,dce | filecheck %s
// RUN: ge-opt %s -p cse,canonicalize,dce | filecheck %s --check-prefix=AR
// RUN: ge-opt %s -p cse,canonicalize,dce | filecheck %s --check-prefix=AG
// RUN: ge-opt %s -p cse,canonicalize,dce | filecheck %s --check-prefix=RELU

// Over the whole output: 3 + 1 all_reduce, 2 all_gather, and 1 of the 4 relus remain.
// AR-COUNT-4: = ge.hcom_all_reduce
// AR-NOT:     ge.hcom_all_reduce
// AG-COUNT-2: = ge.hcom_all_gather
// AG-NOT:     ge.hcom_all_gather
// RELU-COUNT-1: = ge.relu
// RELU-NOT:     ge.relu

// Two identical all_reduce of the same value both stay (CSE), and so does an unused one (DCE).
// CHECK-LABEL: func.func @all_reduce_kept(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.hcom_all_reduce %[[X]] reduction sum group "world" rank_size 2 : tensor<4xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.hcom_all_reduce %[[X]] reduction sum group "world" rank_size 2 : tensor<4xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.hcom_all_reduce %[[X]] reduction sum group "world" rank_size 2 : tensor<4xf32>
// CHECK-NEXT:    func.return %[[V0]], %[[V1]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
func.func @all_reduce_kept(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = ge.hcom_all_reduce %x reduction sum group "world" rank_size 2 : tensor<4xf32>
  %1 = ge.hcom_all_reduce %x reduction sum group "world" rank_size 2 : tensor<4xf32>
  %2 = ge.hcom_all_reduce %x reduction sum group "world" rank_size 2 : tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// Two identical, unused all_gather both stay.
// CHECK-LABEL: func.func @all_gather_kept(
// CHECK-SAME:  %[[X:.*]]: tensor<2x8xf16>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.hcom_all_gather %[[X]] group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.hcom_all_gather %[[X]] group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf16>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @all_gather_kept(%x: tensor<2x8xf16>) {
  %0 = ge.hcom_all_gather %x group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf16>
  %1 = ge.hcom_all_gather %x group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf16>
  func.return
}

// The pure ge.relu: two identical ones are merged by CSE, an unused one is removed.
// CHECK-LABEL: func.func @relu_merged_and_removed(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.relu %[[X]] : tensor<4xf32>
// CHECK-NOT:     ge.relu
// CHECK-NEXT:    func.return %[[V0]], %[[V0]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:  }
func.func @relu_merged_and_removed(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = ge.relu %x : tensor<4xf32>
  %1 = ge.relu %x : tensor<4xf32>
  %2 = ge.relu %0 : tensor<4xf32>
  func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// An unused relu of an unused all_reduce: the relu goes, the all_reduce stays.
// CHECK-LABEL: func.func @relu_of_all_reduce(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.hcom_all_reduce %[[X]] reduction max group "world" rank_size 2 : tensor<4xf32>
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
func.func @relu_of_all_reduce(%x: tensor<4xf32>) {
  %0 = ge.hcom_all_reduce %x reduction max group "world" rank_size 2 : tensor<4xf32>
  %1 = ge.relu %0 : tensor<4xf32>
  func.return
}
