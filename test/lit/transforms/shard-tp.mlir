// --shard's tensor parallelism on transformer blocks, and its composition with data
// parallelism (ranks = dp * tp, rank = d * tp + t): SwiGLU's gate and up split by columns
// and down by rows with one all-reduce; attention split by heads (q/k/v projections by
// columns, ge.flash_attention on 1/tp of the heads, the output projection by rows, one
// all-reduce); groups numbered per instance ("tp<d>", "dp<t>").
//
// RUN: ge-opt %s --split-input-file --shard=ranks=4,tp=2 | filecheck %s
// RUN: ge-opt %s --split-input-file --shard=ranks=4,tp=2 | ge-opt --split-input-file | filecheck %s
// RUN: not ge-opt %s --split-input-file --shard=ranks=8,tp=8 2>&1 >/dev/null | filecheck %s --check-prefix=WIDTH
// RUN: not ge-opt %s --shard=ranks=6,tp=4 2>&1 | filecheck %s --check-prefix=RANKS

// CHECK-LABEL: func.func @mlp_rank0(%x: tensor<1x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"})
// CHECK-SAME: ge.shard = {rank = 0 : i64, ranks = 4 : i64, mode = "composed", split = {x = 0 : i64}, tp = 2 : i64, dp = 2 : i64, part = 0 : i64, parts = 2 : i64, pp = 1 : i64, stage = 0 : i64}
// CHECK: %g = ge.matmul %x, %wg : tensor<1x4xf32>, tensor<4x2xf32> -> tensor<1x2xf32>
// CHECK: %u = ge.matmul %x, %wu : tensor<1x4xf32>, tensor<4x2xf32> -> tensor<1x2xf32>
// CHECK: %h = ge.mul %s, %u : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK: %[[P:.*]] = ge.matmul %h, %wd : tensor<1x2xf32>, tensor<2x4xf32> -> tensor<1x4xf32>
// CHECK: %y = ge.hcom_all_reduce %[[P]] reduction sum group "tp0" rank_size 2 : tensor<1x4xf32>
// CHECK: ge.hcom_all_gather %y group "dp0" rank_size 2 : tensor<1x4xf32> -> tensor<2x4xf32>
// CHECK-LABEL: func.func @mlp_rank1
// CHECK: group "tp0"
// CHECK: group "dp1"
// CHECK-LABEL: func.func @mlp_rank2
// CHECK-SAME: part = 1 : i64
// CHECK: group "tp1"
// CHECK: group "dp0"
// CHECK-LABEL: func.func @mlp_rank3
// CHECK: group "tp1"
// CHECK: group "dp1"
func.func @mlp(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %wg = ge.const dense<1.0> : tensor<4x4xf32>
  %wu = ge.const dense<2.0> : tensor<4x4xf32>
  %wd = ge.const dense<0.5> : tensor<4x4xf32>
  // WIDTH: shard-tp.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op --shard: hidden width 4 is not a multiple of tp=8
  %g = ge.matmul %x, %wg : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %s = ge.silu %g : tensor<2x4xf32>
  %u = ge.matmul %x, %wu : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %h = ge.mul %s, %u : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = ge.matmul %h, %wd : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// -----

// Attention with 2 query heads and 2 key/value heads of size 2 (hidden 4): each rank of a
// tensor-parallel pair keeps one head.
// CHECK-LABEL: func.func @attention_rank0(%x: tensor<1x2x4xf32> {ge.name = "x"}) -> (tensor<2x2x4xf32> {ge.name = "y"})
// CHECK: %q = ge.matmul %x, %wq : tensor<1x2x4xf32>, tensor<4x2xf32> -> tensor<1x2x2xf32>
// CHECK: %qh = ge.reshape %q : tensor<1x2x2xf32> -> tensor<1x2x1x2xf32>
// CHECK: %qt = ge.transpose %qh perm [0, 2, 1, 3] : tensor<1x2x1x2xf32> -> tensor<1x1x2x2xf32>
// CHECK: %o = ge.flash_attention %qt, %kt, %vt scale 5.000000e-01 causal : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x2x2xf32>
// CHECK: %om = ge.reshape %ot : tensor<1x2x1x2xf32> -> tensor<1x2x2xf32>
// CHECK: %[[P:.*]] = ge.matmul %om, %wo : tensor<1x2x2xf32>, tensor<2x4xf32> -> tensor<1x2x4xf32>
// CHECK: %y = ge.hcom_all_reduce %[[P]] reduction sum group "tp0" rank_size 2 : tensor<1x2x4xf32>
// CHECK-NEXT: %[[G:.*]] = ge.hcom_all_gather %y group "dp0" rank_size 2
// CHECK-NEXT: func.return %[[G]]
// CHECK-LABEL: func.func @attention_rank3
// CHECK: group "tp1"
func.func @attention(%x: tensor<2x2x4xf32> {ge.name = "x"}) -> (tensor<2x2x4xf32> {ge.name = "y"}) {
  %wq = ge.const dense<0.25> : tensor<4x4xf32>
  %wk = ge.const dense<0.5> : tensor<4x4xf32>
  %wv = ge.const dense<1.0> : tensor<4x4xf32>
  %wo = ge.const dense<2.0> : tensor<4x4xf32>
  %q = ge.matmul %x, %wq : tensor<2x2x4xf32>, tensor<4x4xf32> -> tensor<2x2x4xf32>
  %qh = ge.reshape %q : tensor<2x2x4xf32> -> tensor<2x2x2x2xf32>
  %qt = ge.transpose %qh perm [0, 2, 1, 3] : tensor<2x2x2x2xf32> -> tensor<2x2x2x2xf32>
  %k = ge.matmul %x, %wk : tensor<2x2x4xf32>, tensor<4x4xf32> -> tensor<2x2x4xf32>
  %kh = ge.reshape %k : tensor<2x2x4xf32> -> tensor<2x2x2x2xf32>
  %kt = ge.transpose %kh perm [0, 2, 1, 3] : tensor<2x2x2x2xf32> -> tensor<2x2x2x2xf32>
  %v = ge.matmul %x, %wv : tensor<2x2x4xf32>, tensor<4x4xf32> -> tensor<2x2x4xf32>
  %vh = ge.reshape %v : tensor<2x2x4xf32> -> tensor<2x2x2x2xf32>
  %vt = ge.transpose %vh perm [0, 2, 1, 3] : tensor<2x2x2x2xf32> -> tensor<2x2x2x2xf32>
  // WIDTH: shard-tp.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op --shard: 2 query heads and 2 key/value heads are not both multiples of tp=8
  %o = ge.flash_attention %qt, %kt, %vt scale 0.5 causal : tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32> -> tensor<2x2x2x2xf32>
  %ot = ge.transpose %o perm [0, 2, 1, 3] : tensor<2x2x2x2xf32> -> tensor<2x2x2x2xf32>
  %om = ge.reshape %ot : tensor<2x2x2x2xf32> -> tensor<2x2x4xf32>
  %y = ge.matmul %om, %wo : tensor<2x2x4xf32>, tensor<4x4xf32> -> tensor<2x2x4xf32>
  func.return %y : tensor<2x2x4xf32>
}

// RANKS: shard: ranks=6 is not a multiple of tp * ep * pp = 4
