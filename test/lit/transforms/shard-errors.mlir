// Diagnostics of --shard: an op that would mix a split batch (mode=data), an input whose
// batch is not a multiple of the ranks, a function body of several blocks (mode=data), and
// a module already assigned to streams (both modes).  Each is one located `error:` line
// naming the pass and a non-zero exit, never a verifier error on invalid IR afterwards nor
// a traceback.  The error names the input whose batch would be split and says why the op
// cannot take a split batch.
//
// With --verify-diagnostics every case reports its error and ge-opt goes on: the errors
// come first, then the separators (a failed case prints nothing else) and the last case,
// which is not refused.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --shard=ranks=2,mode=data | filecheck %s --check-prefixes=ERR,OUT
// Without it the errors go to stderr, and the exit code is 1.
// RUN: not ge-opt %s --split-input-file --shard=ranks=2,mode=data 2>&1 >/dev/null | filecheck %s --check-prefix=ERR
// Tensor mode splits only MatMul chains: the same cases are no error (but the assigned one).
// RUN: not ge-opt %s --split-input-file --shard=ranks=2,mode=tensor 2>&1 >/dev/null | filecheck %s --check-prefix=TP
// TP-NOT: {{\n}}
// TP: {{^}}{{.*}}shard-errors.mlir:{{[0-9]+}}:3: error: 'ge.relu' op is assigned to a stream: --shard rewrites graphs before stream assignment; run it before --assign-streams{{$}}
// TP-NOT: {{.}}
//
// The newcomer's reproducer: shard after assign-streams, refused at the first op that has a
// stream (its first constant), as --fuse refuses it.
// RUN: not ge-opt %S/../../unit/data/newcomer/shard_bias_rhs.mlir --assign-streams --shard=ranks=2 2>&1 | filecheck %s --check-prefix=ASSIGNED
// RUN: not ge-opt %S/../../unit/data/newcomer/shard_bias_rhs.mlir --assign-streams=mode=auto --shard=ranks=2,mode=data 2>&1 | filecheck %s --check-prefix=ASSIGNED
// ASSIGNED-NOT: {{\n}}
// ASSIGNED: {{^}}{{.*}}shard_bias_rhs.mlir:3:5: error: 'ge.const' op is assigned to a stream: --shard rewrites graphs before stream assignment; run it before --assign-streams{{$}}
// ASSIGNED-NOT: {{.}}
//
// Micro-batches around a stream.wait_tensor whose tensor does not carry the batch but waits
// for one that does (TorchAir's bundled example): refused at the wait, not a traceback.
// RUN: not ge-opt %examples/torchair_multistream.mlir --shard=ranks=2,pp=2,micro-batches=2 2>&1 | filecheck %s --check-prefix=WAIT
// WAIT-NOT: {{\n}}
// WAIT: {{^}}{{.*}}torchair_multistream.mlir:25:5: error: 'stream.wait_tensor' op --shard: micro-batches=2 cannot cut this op's value per micro-batch: it does not carry the batch but follows a value that does (pp=2){{$}}
// WAIT-NOT: {{.}}

// A softmax over the batch, after a relu: located at the softmax, naming the input.
// ERR: {{^}}{{.*}}shard-errors.mlir:[[# @LINE + 3]]:3: error: 'ge.softmax' op --shard: cannot split input 'x' along the batch: this softmax normalises over dim 0 (mode=data){{$}}
func.func @softmax_over_batch(%x: tensor<4x8xf32> {ge.name = "x"}) -> tensor<4x8xf32> {
  %r = ge.relu %x : tensor<4x8xf32>
  %y = ge.softmax %r axis 0 : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// A reshape folding the batch into the other dims.
// ERR-NEXT: {{^}}{{.*}}shard-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.reshape' op --shard: cannot split input 'x' along the batch: its result does not keep its operand's dim 0 (mode=data){{$}}
func.func @reshape_folds_batch(%x: tensor<4x8xf32> {ge.name = "x"}) -> tensor<32xf32> {
  %y = ge.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  func.return %y : tensor<32xf32>
}

// -----

// A transpose moving the batch (of an activation: its result is not used as a weight).
// ERR-NEXT: {{^}}{{.*}}shard-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.transpose' op --shard: cannot split input 'x' along the batch: this transpose moves dim 0 (mode=data){{$}}
func.func @transpose_moves_batch(%x: tensor<4x8xf32> {ge.name = "x"}, %z: tensor<8x4xf32> {ge.name = "z"}) -> tensor<8x4xf32> {
  %t = ge.transpose %x perm [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %y = ge.add %t, %z : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  func.return %y : tensor<8x4xf32>
}

// -----

// A matmul contracting over the batch (transpose_a), and a concat along it.
// ERR-NEXT: {{^}}{{.*}}shard-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.matmul' op --shard: cannot split input 'x' along the batch: this matmul contracts over dim 0 of its operand 'a' (mode=data){{$}}
func.func @matmul_over_batch(%x: tensor<4x8xf32> {ge.name = "x"}, %w: tensor<4x2xf32> {ge.name = "w"}) -> tensor<8x2xf32> {
  %y = ge.matmul %x, %w transpose_a : tensor<4x8xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
  func.return %y : tensor<8x2xf32>
}

// -----

// ERR-NEXT: {{^}}{{.*}}shard-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.concat' op --shard: cannot split input 'x' along the batch: this concat joins along dim 0 (mode=data){{$}}
func.func @concat_along_batch(%x: tensor<4x8xf32> {ge.name = "x"}, %x2: tensor<4x8xf32> {ge.name = "x2"}) -> tensor<8x8xf32> {
  %y = ge.concat %x, %x2 axis 0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
  func.return %y : tensor<8x8xf32>
}

// -----

// An op the pass does not know (here a collective already in the graph).
// ERR-NEXT: {{^}}{{.*}}shard-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.hcom_all_reduce' op --shard: cannot split input 'x' along the batch: the pass does not know how this op treats dim 0 (mode=data){{$}}
func.func @unknown_op(%x: tensor<4x8xf32> {ge.name = "x"}) -> tensor<4x8xf32> {
  %y = ge.hcom_all_reduce %x reduction sum group "world" rank_size 2 : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// A batch that is not a multiple of the ranks: located at the function.
// ERR-NEXT: {{^}}{{.*}}shard-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op --shard: input 'x' has batch 3, not a multiple of ranks=2 (mode=data){{$}}
func.func @odd_batch(%x: tensor<3x8xf32> {ge.name = "x"}) -> tensor<3x8xf32> {
  %y = ge.relu %x : tensor<3x8xf32>
  func.return %y : tensor<3x8xf32>
}

// -----

// A function body of several blocks.
// ERR-NEXT: {{^}}{{.*}}shard-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op has 2 blocks: --shard handles function bodies of one block only (mode=data){{$}}
func.func @two_blocks(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  func.return %x : tensor<4x8xf32>
^bb1:
  %y = ge.relu %x : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// A module already assigned to streams.
// ERR-NEXT: {{^}}{{.*}}shard-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.relu' op is assigned to a stream: --shard rewrites graphs before stream assignment; run it before --assign-streams{{$}}
func.func @assigned(%x: tensor<4x8xf32> {ge.name = "x"}) -> tensor<4x8xf32> {
  %y = ge.relu %x {stream.id = #stream.id<0>} : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}

// -----

// Not refused: the softmax over dim 0 reads a weight (w is a matmul's right-hand operand
// after it), so w stays whole and so does the softmax; x is split.
// OUT-COUNT-9: {{^}}// -----{{$}}
// OUT-NEXT: {{^}}builtin.module {{[{]$}}
// OUT-NEXT: func.func @softmax_of_weight_rank0(%x: tensor<2x8xf32> {ge.name = "x"}, %w: tensor<8x8xf32> {ge.name = "w"})
// OUT-SAME: split = {x = 0 : i64}
// OUT-NEXT: %s = ge.softmax %w axis 0 : tensor<8x8xf32>
// OUT-NEXT: %y = ge.matmul %x, %s : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
func.func @softmax_of_weight(%x: tensor<4x8xf32> {ge.name = "x"}, %w: tensor<8x8xf32> {ge.name = "w"}) -> tensor<4x8xf32> {
  %s = ge.softmax %w axis 0 : tensor<8x8xf32>
  %y = ge.matmul %x, %s : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
