// --shard: one function per rank; tensor mode splits a MatMul chain Megatron's way
// (column-parallel W1, row-parallel W2, an all-reduce of the partial products, W2's bias
// added once after it); data mode splits the batch and all-gathers the outputs.
//
// RUN: ge-opt %s --split-input-file --shard=ranks=2,mode=tensor | filecheck %s --check-prefix=TP
// RUN: ge-opt %s --split-input-file --shard=ranks=2,mode=data | filecheck %s --check-prefix=DP
// RUN: ge-opt %s --split-input-file --shard=ranks=2,mode=tensor | ge-opt --split-input-file | filecheck %s --check-prefix=TP
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: not ge-opt %s --split-input-file --shard=ranks=3,mode=data 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not ge-opt %s --shard=ranks=2,mode=pipeline 2>&1 | filecheck %s --check-prefix=MODE

// TP-LABEL: func.func @mlp_rank0(%x: tensor<4x8xf32> {ge.name = "x"}) -> (tensor<4x8xf32> {ge.name = "y"})
// TP-SAME: ge.shard = {rank = 0 : i64, ranks = 2 : i64, mode = "tensor", split = {}}
// TP: %b2 = ge.const dense<2.500000e-01> : tensor<8xf32>
// TP: %w1 = ge.const dense<{{\[\[}}1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00]{{.*}}> : tensor<8x2xf32>
// TP: %b1 = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// TP: %h = ge.matmul %x, %w1 bias %b1 : tensor<4x8xf32>, tensor<8x2xf32>, tensor<2xf32> -> tensor<4x2xf32>
// TP: %r = ge.relu %h : tensor<4x2xf32>
// TP: %w2 = ge.const dense<5.000000e-01> : tensor<2x8xf32>
// TP: %[[P:.*]] = ge.matmul %r, %w2 : tensor<4x2xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
// TP: %[[S:.*]] = ge.hcom_all_reduce %[[P]] reduction sum group "tp" rank_size 2 : tensor<4x8xf32>
// TP: %y = ge.add %[[S]], %b2 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// TP: func.return %y
// TP-LABEL: func.func @mlp_rank1(
// TP-SAME: rank = 1 : i64
// TP: %w1 = ge.const dense<{{\[\[}}3.000000e+00, 4.000000e+00], [7.000000e+00, 8.000000e+00]{{.*}}> : tensor<8x2xf32>
// TP: %b1 = ge.const dense<[3.000000e+00, 4.000000e+00]> : tensor<2xf32>
// TP: ge.hcom_all_reduce
// TP-NOT: func.func @mlp(

// DP-LABEL: func.func @mlp_rank0(%x: tensor<2x8xf32> {ge.name = "x"}) -> (tensor<4x8xf32> {ge.name = "y"})
// DP-SAME: split = {x = 0 : i64}
// DP: %h = ge.matmul %x, %w1 bias %b1 : tensor<2x8xf32>, tensor<8x4xf32>, tensor<4xf32> -> tensor<2x4xf32>
// DP: %r = ge.relu %h : tensor<2x4xf32>
// DP: %y = ge.matmul %r, %w2 bias %b2 : tensor<2x4xf32>, tensor<4x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// DP: %[[G:.*]] = ge.hcom_all_gather %y group "dp" rank_size 2 : tensor<2x8xf32> -> tensor<4x8xf32>
// DP: func.return %[[G]]
// DP-LABEL: func.func @mlp_rank1(

// ERR: shard.mlir:{{[0-9]+}}:1: error: 'func.func' op shard: input 'x' has batch 4, not a multiple of ranks=3 (mode=data)
// MODE: ge-opt: error: shard: mode must be tensor or data, got 'pipeline'
func.func @mlp(%x: tensor<4x8xf32> {ge.name = "x"}) -> (tensor<4x8xf32> {ge.name = "y"}) {
  %w1 = ge.const dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<8x4xf32>
  %b1 = ge.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %w2 = ge.const dense<0.5> : tensor<4x8xf32>
  %b2 = ge.const dense<0.25> : tensor<8xf32>
  %h = ge.matmul %x, %w1 bias %b1 : tensor<4x8xf32>, tensor<8x4xf32>, tensor<4xf32> -> tensor<4x4xf32>
  %r = ge.relu %h : tensor<4x4xf32>
  %y = ge.matmul %r, %w2 bias %b2 : tensor<4x4xf32>, tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
