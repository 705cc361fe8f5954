// --shard's expert parallelism on a MoE layer as fuse-mlp leaves it (2 experts, 4 tokens):
// rank e keeps expert block e of the stacked weights and token block e; the dispatch
// all-to-all (split_dim 0, concat_dim 1) brings every token to every rank, the combine
// all-to-all (split_dim 0, concat_dim 0) sends each token block's partial sum to its rank,
// an all-gather gives every token back.  With tp (rank = e * tp + t) each expert's MLP is
// split too (gate/up columns of each half, down rows) and the partial sums all-reduced in
// "tp<e>"; the ep groups are "ep<t>".
//
// RUN: ge-opt %s --split-input-file --shard=ranks=2,ep=2 | filecheck %s
// RUN: ge-opt %s --split-input-file --shard=ranks=2,ep=2 | ge-opt --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --shard=ranks=4,ep=2,tp=2 | filecheck %s --check-prefix=TP
// RUN: not ge-opt %s --split-input-file --shard=ranks=4,ep=4 2>&1 >/dev/null | filecheck %s --check-prefix=EXPERTS
// RUN: not ge-opt %s --shard=ranks=4,ep=2 2>&1 | filecheck %s --check-prefix=DP

// CHECK-LABEL: func.func @moe_rank0(%x: tensor<4x4xf32> {ge.name = "x"}) -> (tensor<4x4xf32> {ge.name = "y"})
// CHECK-SAME: ep = 2 : i64, expert = 0 : i64
// CHECK: %ep_tokens = ge.slice %x1 starts [0] ends [2] axes [1] steps [1] : tensor<1x4x4xf32> -> tensor<1x2x4xf32>
// CHECK-NEXT: %ep_send = ge.expand %ep_tokens : tensor<1x2x4xf32> -> tensor<2x2x4xf32>
// CHECK-NEXT: %ep_dispatch = ge.hcom_all_to_all %ep_send split_dim 0 concat_dim 1 group "ep0" rank_size 2 : tensor<2x2x4xf32> -> tensor<1x4x4xf32>
// CHECK-NEXT: %xs = ge.expand %ep_dispatch : tensor<1x4x4xf32> -> tensor<1x4x4xf32>
// CHECK-NEXT: %w1 = ge.const dense<{{\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], {{.*}}]]]> : tensor<1x4x4xf32>
// CHECK-NEXT: %h = ge.grouped_matmul %xs, %w1 : tensor<1x4x4xf32>, tensor<1x4x4xf32> -> tensor<1x4x4xf32>
// CHECK-NEXT: %a = ge.swi_glu %h dim 2 : tensor<1x4x4xf32> -> tensor<1x4x2xf32>
// CHECK-NEXT: %w2 = ge.const dense<2.500000e-01> : tensor<1x2x4xf32>
// CHECK-NEXT: %e = ge.grouped_matmul %a, %w2 : tensor<1x4x2xf32>, tensor<1x2x4xf32> -> tensor<1x4x4xf32>
// CHECK: %ep_routing = ge.slice %r starts [0] ends [1] axes [0] steps [1] : tensor<2x4x1xf32> -> tensor<1x4x1xf32>
// CHECK-NEXT: %m = ge.mul %e, %ep_routing : (tensor<1x4x4xf32>, tensor<1x4x1xf32>) -> tensor<1x4x4xf32>
// CHECK-NEXT: %o = ge.reduce_sum %m axes [0] : tensor<1x4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %ep_partial = ge.reshape %o : tensor<4x4xf32> -> tensor<2x2x4xf32>
// CHECK-NEXT: %ep_combine = ge.hcom_all_to_all %ep_partial split_dim 0 concat_dim 0 group "ep0" rank_size 2 : tensor<2x2x4xf32> -> tensor<2x2x4xf32>
// CHECK-NEXT: %ep_sum = ge.reduce_sum %ep_combine axes [0] : tensor<2x2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: %[[G:.*]] = ge.hcom_all_gather %ep_sum group "ep0" rank_size 2 : tensor<2x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT: %y = ge.add %x, %[[G]]
// CHECK-LABEL: func.func @moe_rank1
// CHECK-SAME: expert = 1 : i64
// CHECK: ge.slice %x1 starts [2] ends [4] axes [1] steps [1]
// CHECK: %w1 = ge.const dense<{{\[\[\[}}5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], {{.*}}]]]> : tensor<1x4x4xf32>
// CHECK: ge.slice %r starts [1] ends [2] axes [0] steps [1]
// CHECK: ge.hcom_all_to_all %ep_partial split_dim 0 concat_dim 0 group "ep0" rank_size 2
// CHECK: ge.hcom_all_gather %ep_sum group "ep0" rank_size 2

// TP-LABEL: func.func @moe_rank0
// TP: group "ep0" rank_size 2
// TP: %w1 = ge.const dense<{{\[\[\[}}1.000000e+00, 3.000000e+00], {{.*}}]]]> : tensor<1x4x2xf32>
// TP: %a = ge.swi_glu %h dim 2 : tensor<1x4x2xf32> -> tensor<1x4x1xf32>
// TP: %w2 = ge.const dense<2.500000e-01> : tensor<1x1x4xf32>
// TP: %ep_combine = ge.hcom_all_to_all %ep_partial split_dim 0 concat_dim 0 group "ep0" rank_size 2
// TP: %ep_tp_sum = ge.hcom_all_reduce %ep_sum reduction sum group "tp0" rank_size 2 : tensor<2x4xf32>
// TP-NEXT: ge.hcom_all_gather %ep_tp_sum group "ep0" rank_size 2 : tensor<2x4xf32> -> tensor<4x4xf32>
// TP-LABEL: func.func @moe_rank1
// TP: group "ep1" rank_size 2
// TP: %w1 = ge.const dense<{{\[\[\[}}2.000000e+00, 4.000000e+00], {{.*}}]]]> : tensor<1x4x2xf32>
// TP: group "tp0" rank_size 2
// TP-LABEL: func.func @moe_rank2
// TP: group "ep0" rank_size 2
// TP: %w1 = ge.const dense<{{\[\[\[}}5.000000e+00, 7.000000e+00], {{.*}}]]]> : tensor<1x4x2xf32>
// TP: group "tp1" rank_size 2
// TP-LABEL: func.func @moe_rank3
// TP: group "ep1" rank_size 2
// TP: group "tp1" rank_size 2

// DP: ge-opt: error: shard: ep=2 with data parallel (ranks=4 > tp * ep * pp = 2) is not implemented yet
func.func @moe(%x: tensor<4x4xf32> {ge.name = "x"}) -> (tensor<4x4xf32> {ge.name = "y"}) {
  %wr = ge.const dense<0.5> : tensor<4x2xf32>
  %zeros = ge.const dense<0.0> : tensor<4x2xf32>
  %w1 = ge.const dense<[[[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]], [[5.0, 6.0, 7.0, 8.0], [5.0, 6.0, 7.0, 8.0], [5.0, 6.0, 7.0, 8.0], [5.0, 6.0, 7.0, 8.0]]]> : tensor<2x4x4xf32>
  %w2 = ge.const dense<0.25> : tensor<2x2x4xf32>
  %logits = ge.matmul %x, %wr : tensor<4x4xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  %w, %ids = ge.moe_gating_top_k %logits k 1 renorm : tensor<4x2xf32> -> tensor<4x1xf32>, tensor<4x1xi64>
  %routing = ge.scatter_add %zeros, %ids, %w axis 1 : tensor<4x2xf32>, tensor<4x1xi64>, tensor<4x1xf32> -> tensor<4x2xf32>
  %x1 = ge.reshape %x : tensor<4x4xf32> -> tensor<1x4x4xf32>
  %xs = ge.expand %x1 : tensor<1x4x4xf32> -> tensor<2x4x4xf32>
  // EXPERTS: shard-ep.mlir:[[# @LINE + 1]]:3: error: 'ge.grouped_matmul' op --shard: 2 experts are not a multiple of ep=4
  %h = ge.grouped_matmul %xs, %w1 : tensor<2x4x4xf32>, tensor<2x4x4xf32> -> tensor<2x4x4xf32>
  %a = ge.swi_glu %h dim 2 : tensor<2x4x4xf32> -> tensor<2x4x2xf32>
  %e = ge.grouped_matmul %a, %w2 : tensor<2x4x2xf32>, tensor<2x2x4xf32> -> tensor<2x4x4xf32>
  %rt = ge.transpose %routing perm [1, 0] : tensor<4x2xf32> -> tensor<2x4xf32>
  %r = ge.reshape %rt : tensor<2x4xf32> -> tensor<2x4x1xf32>
  %m = ge.mul %e, %r : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %o = ge.reduce_sum %m axes [0] : tensor<2x4x4xf32> -> tensor<4x4xf32>
  %y = ge.add %x, %o : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

// Six tokens: 3 a rank with ep=2, not a multiple of ep=4.  A chain of one grouped
// matmul keeps its experts whole in the tp group (no all-reduce).
// CHECK-LABEL: func.func @six_tokens_rank1
// CHECK: ge.slice %x1 starts [3] ends [6] axes [1] steps [1] : tensor<1x6x4xf32> -> tensor<1x3x4xf32>
// CHECK: %w1 = ge.const dense<1.000000e+00> : tensor<2x4x8xf32>
// TP-LABEL: func.func @six_tokens_rank3
// TP: %w1 = ge.const dense<1.000000e+00> : tensor<2x4x8xf32>
// TP-NOT: ge.hcom_all_reduce
// TP: ge.hcom_all_gather %ep_sum group "ep1" rank_size 2 : tensor<3x4xf32> -> tensor<6x4xf32>
func.func @six_tokens(%x: tensor<6x4xf32> {ge.name = "x"}) -> (tensor<6x4xf32> {ge.name = "y"}) {
  %w1 = ge.const dense<1.0> : tensor<4x4x8xf32>
  %r = ge.const dense<0.25> : tensor<4x6x1xf32>
  %x1 = ge.reshape %x : tensor<6x4xf32> -> tensor<1x6x4xf32>
  %xs = ge.expand %x1 : tensor<1x6x4xf32> -> tensor<4x6x4xf32>
  // EXPERTS: shard-ep.mlir:[[# @LINE + 1]]:3: error: 'ge.grouped_matmul' op --shard: 6 tokens are not a multiple of ep=4
  %h = ge.grouped_matmul %xs, %w1 : tensor<4x6x4xf32>, tensor<4x4x8xf32> -> tensor<4x6x8xf32>
  %s = ge.swi_glu %h dim 2 : tensor<4x6x8xf32> -> tensor<4x6x4xf32>
  %m = ge.mul %s, %r : (tensor<4x6x4xf32>, tensor<4x6x1xf32>) -> tensor<4x6x4xf32>
  %o = ge.reduce_sum %m axes [0] : tensor<4x6x4xf32> -> tensor<6x4xf32>
  %y = ge.add %x, %o : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
  func.return %y : tensor<6x4xf32>
}
