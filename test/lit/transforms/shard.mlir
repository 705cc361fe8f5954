// --shard: one function per rank; tensor mode splits a MatMul chain Megatron's way
// (column-parallel W1, row-parallel W2, an all-reduce of the partial products, W2's bias
// added once after it); data mode splits the activations' batch, keeps weights whole and
// all-gathers the split outputs.
//
// RUN: ge-opt %s --split-input-file --shard=ranks=2,mode=tensor | filecheck %s --check-prefix=TP
// RUN: ge-opt %s --split-input-file --shard=ranks=2,mode=data | filecheck %s --check-prefix=DP
// RUN: ge-opt %s --split-input-file --shard=ranks=2,mode=tensor | ge-opt --split-input-file | filecheck %s --check-prefix=TP
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: not ge-opt %s --split-input-file --shard=ranks=3,mode=data 2>&1 | filecheck %s --check-prefix=ERR
// RUN: not ge-opt %s --shard=ranks=2,mode=pipeline 2>&1 | filecheck %s --check-prefix=MODE
// TorchAir's example: in1 and in2 are only added, so split; in4 is a matmul's right-hand
// operand (a weight: its dim 0 is the contraction dim), in3 is added to it: both whole.
// RUN: ge-opt %examples/torchair_multistream.mlir --shard=ranks=2,mode=data | filecheck %s --check-prefix=TORCHAIR
// The collectives on the streams: mode auto keeps them on the comm stream (1), with an
// event each way; mode labels moves one between two ops of stream 0 back onto stream 0.
// RUN: ge-opt %s --split-input-file --shard=ranks=2,mode=tensor --assign-streams=mode=auto | filecheck %s --check-prefix=TP-AUTO
// RUN: ge-opt %s --split-input-file --shard=ranks=2,mode=data --assign-streams=mode=auto | filecheck %s --check-prefix=DP-AUTO
// RUN: ge-opt %s --split-input-file --shard=ranks=2,mode=tensor --assign-streams | filecheck %s --check-prefix=TP-LABELS

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

// TORCHAIR-LABEL: func.func @main_rank0(%in1: tensor<2x4xf32> {ge.name = "in1"}, %in2: tensor<2x4xf32> {ge.name = "in2"}, %in3: tensor<4x4xf32> {ge.name = "in3"}, %in4: tensor<4x4xf32> {ge.name = "in4"}) -> (tensor<4x4xf32> {ge.name = "add_result"}, tensor<4x4xf32> {ge.name = "mm_result"}, tensor<4x4xf32> {ge.name = "mm1"}, tensor<4x4xf32> {ge.name = "add2"})
// TORCHAIR-SAME: split = {in1 = 0 : i64, in2 = 0 : i64}
// TORCHAIR-NEXT: %add_result = ge.add %in1, %in2 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
// TORCHAIR-NEXT: %0 = stream.wait_tensor %in4 after %add_result {{.*}} : tensor<4x4xf32>, tensor<2x4xf32>
// TORCHAIR-NEXT: %mm_result = ge.matmul %in3, %0 {{.*}} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// TORCHAIR-NEXT: %mm1 = ge.matmul %in3, %0 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// TORCHAIR-NEXT: %1 = stream.wait_tensor %0 after %mm_result {{.*}} : tensor<4x4xf32>, tensor<4x4xf32>
// TORCHAIR-NEXT: %add2 = ge.add %in3, %1 {{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// TORCHAIR-NEXT: %2 = ge.hcom_all_gather %add_result group "dp" rank_size 2 : tensor<2x4xf32> -> tensor<4x4xf32>
// TORCHAIR-NEXT: func.return %2, %mm_result, %mm1, %add2 :
// TORCHAIR-LABEL: func.func @main_rank1(
// TORCHAIR-SAME: split = {in1 = 0 : i64, in2 = 0 : i64}
// TORCHAIR-NOT: ge.hcom_all_reduce

// TP-AUTO-LABEL: func.func @mlp_rank0(
// TP-AUTO: %[[P:.*]] = ge.matmul %r, %w2 {stream.id = #stream.id<0>} : tensor<4x2xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
// TP-AUTO-NEXT: %[[E0:.*]] = stream.record %[[P]] {stream.id = #stream.id<0>} : tensor<4x8xf32>
// TP-AUTO-NEXT: stream.wait %[[E0]] {stream.id = #stream.id<1>}
// TP-AUTO-NEXT: %[[S:.*]] = ge.hcom_all_reduce %[[P]] reduction sum group "tp" rank_size 2 {stream.id = #stream.id<1>} : tensor<4x8xf32>
// TP-AUTO-NEXT: %[[E1:.*]] = stream.record %[[S]] {stream.id = #stream.id<1>} : tensor<4x8xf32>
// TP-AUTO-NEXT: stream.wait %[[E1]] {stream.id = #stream.id<0>}
// TP-AUTO-NEXT: %y = ge.add %[[S]], %b2 {stream.id = #stream.id<0>} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
// DP-AUTO-LABEL: func.func @mlp_rank0(
// DP-AUTO: %y = ge.matmul %r, %w2 bias %b2 {stream.id = #stream.id<0>} : tensor<2x4xf32>, tensor<4x8xf32>, tensor<8xf32> -> tensor<2x8xf32>
// DP-AUTO-NEXT: %[[E0:.*]] = stream.record %y {stream.id = #stream.id<0>} : tensor<2x8xf32>
// DP-AUTO-NEXT: stream.wait %[[E0]] {stream.id = #stream.id<1>}
// DP-AUTO-NEXT: %[[G:.*]] = ge.hcom_all_gather %y group "dp" rank_size 2 {stream.id = #stream.id<1>} : tensor<2x8xf32> -> tensor<4x8xf32>
// DP-AUTO-NEXT: %[[E1:.*]] = stream.record %[[G]] {stream.id = #stream.id<1>} : tensor<4x8xf32>
// DP-AUTO-NEXT: stream.wait %[[E1]] {stream.id = #stream.id<0>}
// DP-AUTO-NEXT: func.return %[[G]] : tensor<4x8xf32>
// TP-LABELS-LABEL: func.func @mlp_rank0(
// TP-LABELS: %[[P:.*]] = ge.matmul %r, %w2 {stream.id = #stream.id<0>} : tensor<4x2xf32>, tensor<2x8xf32> -> tensor<4x8xf32>
// TP-LABELS-NEXT: %[[S:.*]] = ge.hcom_all_reduce %[[P]] reduction sum group "tp" rank_size 2 {stream.id = #stream.id<0>} : tensor<4x8xf32>
// TP-LABELS-NEXT: %y = ge.add %[[S]], %b2 {stream.id = #stream.id<0>} : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>

// ERR: shard.mlir:[[# @LINE + 2]]:1: error: 'func.func' op --shard: input 'x' has batch 4, not a multiple of ranks=3 (mode=data)
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

// -----

// A bias added by a ge.add rather than carried by the matmul (ONNX's MatMul + Add; the
// constant on either side), and a per-column scale of shape [1, H]: each is split with
// the column-parallel matmul; W2's bias, added after the row-parallel matmul, is added once,
// after the all-reduce.  3-D activations with 2-D weights.  Data mode: the batch (dim 0) of
// x is split, every constant whole.
// TP-LABEL: func.func @bias_add_rank0(%x: tensor<2x4x8xf32> {ge.name = "x"})
// TP: %b2 = ge.const dense<2.500000e-01> : tensor<8xf32>
// TP: %w1 = ge.const dense<{{\[\[}}1.000000e+00, 2.000000e+00], [5.000000e+00, 6.000000e+00]{{.*}}> : tensor<8x2xf32>
// TP: %m1 = ge.matmul %x, %w1 : tensor<2x4x8xf32>, tensor<8x2xf32> -> tensor<2x4x2xf32>
// TP: %b1 = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// TP: %h = ge.add %b1, %m1 : (tensor<2xf32>, tensor<2x4x2xf32>) -> tensor<2x4x2xf32>
// TP: %s = ge.const dense<{{\[\[}}5.000000e-01, 1.000000e+00]]> : tensor<1x2xf32>
// TP: %g = ge.mul %h, %s : (tensor<2x4x2xf32>, tensor<1x2xf32>) -> tensor<2x4x2xf32>
// TP: %r = ge.relu %g : tensor<2x4x2xf32>
// TP: %w2 = ge.const dense<5.000000e-01> : tensor<2x8xf32>
// TP: %[[P:.*]] = ge.matmul %r, %w2 : tensor<2x4x2xf32>, tensor<2x8xf32> -> tensor<2x4x8xf32>
// TP: %[[S:.*]] = ge.hcom_all_reduce %[[P]] reduction sum group "tp" rank_size 2 : tensor<2x4x8xf32>
// TP: %y = ge.add %[[S]], %b2 : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
// TP: func.return %y
// TP-LABEL: func.func @bias_add_rank1(
// TP: %b1 = ge.const dense<[3.000000e+00, 4.000000e+00]> : tensor<2xf32>
// TP: %s = ge.const dense<{{\[\[}}1.500000e+00, 2.000000e+00]]> : tensor<1x2xf32>
// TP: ge.hcom_all_reduce
// DP-LABEL: func.func @bias_add_rank0(%x: tensor<1x4x8xf32> {ge.name = "x"}) -> (tensor<2x4x8xf32> {ge.name = "y"})
// DP-SAME: split = {x = 0 : i64}
// DP: %m1 = ge.matmul %x, %w1 : tensor<1x4x8xf32>, tensor<8x4xf32> -> tensor<1x4x4xf32>
// DP: %h = ge.add %b1, %m1 : (tensor<4xf32>, tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
// DP: %g = ge.mul %h, %s : (tensor<1x4x4xf32>, tensor<1x4xf32>) -> tensor<1x4x4xf32>
// DP: %y = ge.add %m2, %b2 : (tensor<1x4x8xf32>, tensor<8xf32>) -> tensor<1x4x8xf32>
// DP: %[[G:.*]] = ge.hcom_all_gather %y group "dp" rank_size 2 : tensor<1x4x8xf32> -> tensor<2x4x8xf32>
// DP: func.return %[[G]]
func.func @bias_add(%x: tensor<2x4x8xf32> {ge.name = "x"}) -> (tensor<2x4x8xf32> {ge.name = "y"}) {
  %w1 = ge.const dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]> : tensor<8x4xf32>
  %b1 = ge.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %s = ge.const dense<[[0.5, 1.0, 1.5, 2.0]]> : tensor<1x4xf32>
  %w2 = ge.const dense<0.5> : tensor<4x8xf32>
  %b2 = ge.const dense<0.25> : tensor<8xf32>
  %m1 = ge.matmul %x, %w1 : tensor<2x4x8xf32>, tensor<8x4xf32> -> tensor<2x4x4xf32>
  %h = ge.add %b1, %m1 : (tensor<4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %g = ge.mul %h, %s : (tensor<2x4x4xf32>, tensor<1x4xf32>) -> tensor<2x4x4xf32>
  %r = ge.relu %g : tensor<2x4x4xf32>
  %m2 = ge.matmul %r, %w2 : tensor<2x4x4xf32>, tensor<4x8xf32> -> tensor<2x4x8xf32>
  %y = ge.add %m2, %b2 : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  func.return %y : tensor<2x4x8xf32>
}

// -----

// Weights given as inputs (data mode): w is a matmul's right-hand operand and v one after a
// transpose, so both stay whole (never split along their contraction dim), and so does
// their sum u (returned whole, not gathered); x and z carry the batch.  A 3-D batched
// matmul (both operands carry the batch) and a scalar input (no dims: whole).
// DP-LABEL: func.func @weight_inputs_rank0(%x: tensor<2x8xf32> {ge.name = "x"}, %w: tensor<8x8xf32> {ge.name = "w"}, %v: tensor<8x8xf32> {ge.name = "v"}, %z: tensor<2x8xf32> {ge.name = "z"}, %q: tensor<2x3x8xf32> {ge.name = "q"}, %k: tensor<2x8x3xf32> {ge.name = "k"}, %c: tensor<f32> {ge.name = "c"}) -> (tensor<4x8xf32> {ge.name = "y"}, tensor<8x8xf32> {ge.name = "u"}, tensor<4x9xf32> {ge.name = "a"})
// DP-SAME: split = {x = 0 : i64, z = 0 : i64, q = 0 : i64, k = 0 : i64}
// DP-NEXT: %h = ge.matmul %x, %w : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
// DP-NEXT: %t = ge.transpose %v perm [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
// DP-NEXT: %m = ge.matmul %h, %t : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
// DP-NEXT: %y = ge.add %m, %z : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// DP-NEXT: %u = ge.add %w, %v : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
// DP-NEXT: %p = ge.matmul %q, %k : tensor<2x3x8xf32>, tensor<2x8x3xf32> -> tensor<2x3x3xf32>
// DP-NEXT: %e = ge.mul %p, %c : (tensor<2x3x3xf32>, tensor<f32>) -> tensor<2x3x3xf32>
// DP-NEXT: %a = ge.flatten %e : tensor<2x3x3xf32> -> tensor<2x9xf32>
// DP-NEXT: %[[Y:.*]] = ge.hcom_all_gather %y group "dp" rank_size 2 : tensor<2x8xf32> -> tensor<4x8xf32>
// DP-NEXT: %[[A:.*]] = ge.hcom_all_gather %a group "dp" rank_size 2 : tensor<2x9xf32> -> tensor<4x9xf32>
// DP-NEXT: func.return %[[Y]], %u, %[[A]] : tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x9xf32>
func.func @weight_inputs(%x: tensor<4x8xf32> {ge.name = "x"}, %w: tensor<8x8xf32> {ge.name = "w"}, %v: tensor<8x8xf32> {ge.name = "v"}, %z: tensor<4x8xf32> {ge.name = "z"}, %q: tensor<4x3x8xf32> {ge.name = "q"}, %k: tensor<4x8x3xf32> {ge.name = "k"}, %c: tensor<f32> {ge.name = "c"}) -> (tensor<4x8xf32> {ge.name = "y"}, tensor<8x8xf32> {ge.name = "u"}, tensor<4x9xf32> {ge.name = "a"}) {
  %h = ge.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %t = ge.transpose %v perm [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %m = ge.matmul %h, %t : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %y = ge.add %m, %z : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %u = ge.add %w, %v : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %p = ge.matmul %q, %k : tensor<4x3x8xf32>, tensor<4x8x3xf32> -> tensor<4x3x3xf32>
  %e = ge.mul %p, %c : (tensor<4x3x3xf32>, tensor<f32>) -> tensor<4x3x3xf32>
  %a = ge.flatten %e axis 1 : tensor<4x3x3xf32> -> tensor<4x9xf32>
  func.return %y, %u, %a : tensor<4x8xf32>, tensor<8x8xf32>, tensor<4x9xf32>
}
