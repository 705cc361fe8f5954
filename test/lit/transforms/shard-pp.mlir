// --shard's pipeline stages: the function cut into topological prefixes of balanced cost,
// the values crossing a cut sent by ge.hcom_send and received by ge.hcom_receive in group
// "pp<t>" (forwarded by a middle stage), each stage keeping the constants it reads; the
// last stage returns the outputs, the others nothing; with tp, rank = stage * tp + t.
//
// RUN: ge-opt %s --shard=ranks=2,pp=2 | filecheck %s
// RUN: ge-opt %s --shard=ranks=2,pp=2 | ge-opt | filecheck %s
// RUN: ge-opt %s --shard=ranks=3,pp=3 | filecheck %s --check-prefix=PP3
// RUN: not ge-opt %s --shard=ranks=4,pp=2 2>&1 | filecheck %s --check-prefix=DP
// RUN: not ge-opt %s --shard=ranks=8,pp=8 2>&1 | filecheck %s --check-prefix=FEW

// CHECK-LABEL: func.func @mlp_rank0(%x: tensor<2x4xf32> {ge.name = "x"}) attributes {ge.shard = {{{.*}}pp = 2 : i64, stage = 0 : i64}}
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
// PP3: %a = ge.hcom_receive src_rank 1 sr_tag 0 group "pp0" rank_size 3

// DP: ge-opt: error: shard: pp=2 with data parallel (ranks=4 > tp * ep * pp = 2) is not implemented yet
// FEW: shard-pp.mlir:[[# @LINE + 1]]:1: error: 'func.func' op --shard: 4 ops cannot make pp=8 stages
func.func @mlp(%x: tensor<2x4xf32> {ge.name = "x"}) -> (tensor<2x4xf32> {ge.name = "y"}) {
  %w1 = ge.const dense<1.0> : tensor<4x4xf32>
  %w2 = ge.const dense<0.5> : tensor<4x4xf32>
  %a = ge.matmul %x, %w1 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %r = ge.relu %a : tensor<2x4xf32>
  %b = ge.matmul %r, %w2 : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %y = ge.add %b, %a : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}
