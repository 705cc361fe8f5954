// --shard's pipeline stages: the function cut into topological prefixes of balanced cost,
// the values crossing a cut sent by ge.hcom_send and received by ge.hcom_receive in group
// "pp<t>" (forwarded by a middle stage), each stage keeping the constants it reads; the
// last stage returns the outputs, the others nothing; with tp and dp,
// rank = (stage * dp + d) * tp + t.
// With micro-batches=m, each stage runs m micro-batches of the batch in turn (unrolled),
// the sends and receives of micro-batch i tagged i; the last stage joins the outputs.
//
// RUN: ge-opt %s --shard=ranks=2,pp=2 | filecheck %s
// RUN: ge-opt %s --shard=ranks=2,pp=2 | ge-opt | filecheck %s
// RUN: ge-opt %s --shard=ranks=3,pp=3 | filecheck %s --check-prefix=PP3
// RUN: ge-opt %s --shard=ranks=2,pp=2,micro-batches=2 | filecheck %s --check-prefix=MB
// RUN: ge-opt %s --shard=ranks=2,pp=2,micro-batches=2 | ge-opt | filecheck %s --check-prefix=MB
// RUN: ge-opt %s --shard=ranks=4,pp=2 | filecheck %s --check-prefix=DP
// RUN: not ge-opt %s --shard=ranks=8,pp=8 2>&1 | filecheck %s --check-prefix=FEW
// RUN: not ge-opt %s --shard=ranks=2,pp=2,micro-batches=4 2>&1 | filecheck %s --check-prefix=DIV
// RUN: not ge-opt %s --shard=ranks=2,tp=2,micro-batches=2 2>&1 | filecheck %s --check-prefix=NOPP

// CHECK-LABEL: func.func @mlp_rank0(%x: tensor<2x4xf32> {ge.name = "x"}) attributes {ge.shard = {{{.*}}pp = 2 : i64, stage = 0 : i64{{.*}}micro_batches = 1 : i64}}
// CHECK: %a = ge.matmul %x, %w1
// CHECK: %r = ge.relu %a
// CHECK-NOT: ge.matmul
// CHECK: ge.hcom_send %a dest_rank 1 sr_tag 0 group "pp0" rank_size 2 : tensor<2x4xf32>
// CHECK-NEXT: ge.hcom_send %r dest_rank 1 sr_tag 0 group "pp0" rank_size 2 : tensor<2x4xf32>
// CHECK-NEXT: func.return{{$}}
// CHECK-LABEL: func.func @mlp_rank1(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"})
// CHECK-SAME: stage = 1 : i64
// CHECK-NEXT: %w2 = ge.const
// CHECK-NEXT: %a = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 2 : tensor<2x4xf32>
// CHECK-NEXT: %r = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 2 : tensor<2x4xf32>
// CHECK-NEXT: %b = ge.matmul %r, %w2
// CHECK-NEXT: %y = ge.add %b, %a
// CHECK-NEXT: func.return %y

// The middle stage forwards %a, which the last stage reads.
// PP3-LABEL: func.func @mlp_rank1
// PP3: %a = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 3
// PP3: ge.hcom_send %a dest_rank 2 sr_tag 0 group "pp0" rank_size 3
// PP3-LABEL: func.func @mlp_rank2
// PP3: %a = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 3

// Two micro-batches of one row: stage 0 slices its rows of %x, computes and sends micro-batch
// 0 (sr_tag 0), then micro-batch 1 (sr_tag 1); stage 1 receives, computes and joins them.
// MB-LABEL: func.func @mlp_rank0
// MB-SAME: micro_batches = 2 : i64
// MB-NEXT: %w1 = ge.const
// MB-NEXT: %x_mb0 = ge.slice %x starts [0] ends [1] axes [0] steps [1] : tensor<2x4xf32> -> tensor<1x4xf32>
// MB-NEXT: %a_mb0 = ge.matmul %x_mb0, %w1 : tensor<1x4xf32>, tensor<4x4xf32> -> tensor<1x4xf32>
// MB-NEXT: %r_mb0 = ge.relu %a_mb0 : tensor<1x4xf32>
// MB-NEXT: ge.hcom_send %a_mb0 dest_rank 1 sr_tag 0 group "pp0" rank_size 2 : tensor<1x4xf32>
// MB-NEXT: ge.hcom_send %r_mb0 dest_rank 1 sr_tag 0 group "pp0" rank_size 2 : tensor<1x4xf32>
// MB-NEXT: %x_mb1 = ge.slice %x starts [1] ends [2] axes [0] steps [1] : tensor<2x4xf32> -> tensor<1x4xf32>
// MB-NEXT: %a_mb1 = ge.matmul %x_mb1, %w1
// MB-NEXT: %r_mb1 = ge.relu %a_mb1
// MB-NEXT: ge.hcom_send %a_mb1 dest_rank 1 sr_tag 1 group "pp0" rank_size 2 : tensor<1x4xf32>
// MB-NEXT: ge.hcom_send %r_mb1 dest_rank 1 sr_tag 1 group "pp0" rank_size 2 : tensor<1x4xf32>
// MB-NEXT: func.return{{$}}
// MB-LABEL: func.func @mlp_rank1
// MB-NEXT: %w2 = ge.const
// MB-NEXT: %a_mb0 = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 2 : tensor<1x4xf32>
// MB-NEXT: %r_mb0 = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 2 : tensor<1x4xf32>
// MB-NEXT: %b_mb0 = ge.matmul %r_mb0, %w2
// MB-NEXT: %y_mb0 = ge.add %b_mb0, %a_mb0
// MB-NEXT: %a_mb1 = ge.hcom_receive src_rank 0 sr_tag 1 group "pp0" rank_size 2 : tensor<1x4xf32>
// MB-NEXT: %r_mb1 = ge.hcom_receive src_rank 0 sr_tag 1 group "pp0" rank_size 2 : tensor<1x4xf32>
// MB-NEXT: %b_mb1 = ge.matmul %r_mb1, %w2
// MB-NEXT: %y_mb1 = ge.add %b_mb1, %a_mb1
// MB-NEXT: %y = ge.concat %y_mb0, %y_mb1 axis 0 : tensor<1x4xf32>, tensor<1x4xf32> -> tensor<2x4xf32>
// MB-NEXT: func.return %y : tensor<2x4xf32>

// With data parallel (dp = 4 / 2): rank = stage * 2 + d; each data slice d has its own
// pipeline group "pp<d>", and the last stage all-gathers the outputs in group "dp0".
// DP-LABEL: func.func @mlp_rank0(%x: tensor<1x4xf32> {ge.name = "x"})
// DP-SAME: split = {x = 0 : i64}
// DP-SAME: part = 0 : i64, parts = 2 : i64, pp = 2 : i64, stage = 0 : i64
// DP: ge.hcom_send %r dest_rank 1 sr_tag 0 group "pp0" rank_size 2 : tensor<1x4xf32>
// DP-LABEL: func.func @mlp_rank1(%x: tensor<1x4xf32> {ge.name = "x"})
// DP-SAME: part = 1 : i64, parts = 2 : i64, pp = 2 : i64, stage = 0 : i64
// DP: ge.hcom_send %r dest_rank 1 sr_tag 0 group "pp1" rank_size 2 : tensor<1x4xf32>
// DP-LABEL: func.func @mlp_rank2(%x: tensor<1x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"})
// DP-SAME: part = 0 : i64, parts = 2 : i64, pp = 2 : i64, stage = 1 : i64
// DP: %r = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 2 : tensor<1x4xf32>
// DP: %[[Y:.+]] = ge.hcom_all_gather %y group "dp0" rank_size 2 : tensor<1x4xf32> -> tensor<2x4xf32>
// DP-NEXT: func.return %[[Y]] : tensor<2x4xf32>
// DP-LABEL: func.func @mlp_rank3
// DP-SAME: part = 1 : i64, parts = 2 : i64, pp = 2 : i64, stage = 1 : i64
// DP: %r = ge.hcom_receive src_rank 0 sr_tag 0 group "pp1" rank_size 2 : tensor<1x4xf32>
// DP: ge.hcom_all_gather %y group "dp0" rank_size 2
// NOPP: ge-opt: error: shard: micro-batches=2 needs pipeline stages (pp > 1)
// FEW: shard-pp.mlir:[[# @LINE + 2]]:1: error: 'func.func' op --shard: 4 ops cannot make pp=8 stages
// DIV: shard-pp.mlir:[[# @LINE + 1]]:1: error: 'func.func' op --shard: input 'x' has batch 2, not a multiple of micro-batches=4 (pp=2)
func.func @mlp(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %w1 = ge.const dense<1.0> : tensor<4x4xf32>
  %w2 = ge.const dense<0.5> : tensor<4x4xf32>
  %a = ge.matmul %x, %w1 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %r = ge.relu %a : tensor<2x4xf32>
  %b = ge.matmul %r, %w2 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %y = ge.add %b, %a : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}

// What the micro-batches share (%e, without the batch: computed from a constant) is
// computed and sent once, before micro-batch 0, with sr_tag 0; each micro-batch uses it.
// MB-LABEL: func.func @shared_rank0
// MB-NEXT: %w = ge.const
// MB-NEXT: %e = ge.exp %w : tensor<8x8xf32>
// MB-NEXT: ge.hcom_send %e dest_rank 1 sr_tag 0 group "pp0" rank_size 2 : tensor<8x8xf32>
// MB-NEXT: %x_mb0 = ge.slice %x starts [0] ends [2] axes [0] steps [1]
// MB-NEXT: %a_mb0 = ge.matmul %x_mb0, %w
// MB-NEXT: ge.hcom_send %a_mb0 dest_rank 1 sr_tag 0 group "pp0" rank_size 2 : tensor<2x8xf32>
// MB-NEXT: %x_mb1 = ge.slice %x starts [2] ends [4] axes [0] steps [1]
// MB-NEXT: %a_mb1 = ge.matmul %x_mb1, %w
// MB-NEXT: ge.hcom_send %a_mb1 dest_rank 1 sr_tag 1 group "pp0" rank_size 2 : tensor<2x8xf32>
// MB-NEXT: func.return{{$}}
// MB-LABEL: func.func @shared_rank1
// MB-NEXT: %e = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 2 : tensor<8x8xf32>
// MB-NEXT: %a_mb0 = ge.hcom_receive src_rank 0 sr_tag 0 group "pp0" rank_size 2 : tensor<2x8xf32>
// MB-NEXT: %b_mb0 = ge.matmul %a_mb0, %e
// MB-NEXT: %y_mb0 = ge.relu %b_mb0
// MB-NEXT: %a_mb1 = ge.hcom_receive src_rank 0 sr_tag 1 group "pp0" rank_size 2 : tensor<2x8xf32>
// MB-NEXT: %b_mb1 = ge.matmul %a_mb1, %e
// MB-NEXT: %y_mb1 = ge.relu %b_mb1
// MB-NEXT: %y = ge.concat %y_mb0, %y_mb1 axis 0 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
// MB-NEXT: func.return %y : tensor<4x8xf32>
func.func @shared(%x: tensor<4x8xf32> {ge.name = "x"}) -> (tensor<4x8xf32> {ge.name = "y"}) {
  %w = ge.const dense<0.5> : tensor<8x8xf32>
  %a = ge.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %e = ge.exp %w : tensor<8x8xf32>
  %b = ge.matmul %a, %e : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %y = ge.relu %b : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
