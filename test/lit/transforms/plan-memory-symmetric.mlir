// --plan-memory on rank programs (after --shard): the buffers collectives read and write
// sit at one offset on every rank (symmetric memory), in a communication region at the
// start of each workspace (npu.memory's comm_offset and comm_bytes); the other buffers are
// planned after it.  A program without ge.shard has no region.  ge-run refuses rank
// programs whose collective buffers were moved apart, naming the ranks and offsets.
//
// RUN: ge-opt %s --shard=ranks=2,mode=tensor --lower-to-device --plan-memory | filecheck %s --check-prefix=TP
// RUN: ge-opt %s --shard=ranks=2,pp=2 --lower-to-device --plan-memory | filecheck %s --check-prefix=PP
// RUN: ge-opt %s --lower-to-device --plan-memory | filecheck %s --check-prefix=ONE
// RUN: ge-opt %s --shard=ranks=2,mode=tensor --lower-to-device --plan-memory -o %t.mlir
// RUN: sed '/@mlp_rank1/,$ s/%0 = npu.view %workspace\[0\]/%0 = npu.view %workspace[1024]/' %t.mlir > %t.moved.mlir
// RUN: not %python -m ge_dialect.tools.ge_run %t.moved.mlir 2>&1 | filecheck %s --check-prefix=MOVED

// Tensor parallel: the all-reduce's input (%0) and output (%p) take the region's two
// slots, [0] and [512], on both ranks; %h and %r (in place) follow the region.
// TP-LABEL: func.func @mlp_rank0(
// TP-SAME: npu.memory = {peak = 1536 : i64, no_reuse = 2048 : i64, sequential_bound = 1024 : i64, stream_bound = 1024 : i64, buffers = 4 : i64, optimal = 1 : i64, comm_offset = 0 : i64, comm_bytes = 1024 : i64}
// TP: %h = npu.view %workspace[1024]
// TP: %r = npu.view %workspace[1024]
// TP: %0 = npu.view %workspace[0]
// TP: %p = npu.view %workspace[512]
// TP-NEXT: npu.launch "hcom_all_reduce"(%0) -> (%p)
// TP-LABEL: func.func @mlp_rank1(
// TP-SAME: comm_offset = 0 : i64, comm_bytes = 1024 : i64}
// TP: %h = npu.view %workspace[1024]
// TP: %0 = npu.view %workspace[0]
// TP: %p = npu.view %workspace[512]
// TP-NEXT: npu.launch "hcom_all_reduce"(%0) -> (%p)

// Pipeline stages: the send's input on rank 0 and the receive's output on rank 1 are one
// message, at [0] on both.
// PP-LABEL: func.func @mlp_rank0(
// PP-SAME: comm_offset = 0 : i64, comm_bytes = 512 : i64}
// PP: %h = npu.view %workspace[512]
// PP: %r = npu.view %workspace[0]
// PP: npu.launch "hcom_send"(%r)
// PP-LABEL: func.func @mlp_rank1(
// PP-SAME: comm_offset = 0 : i64, comm_bytes = 512 : i64}
// PP: %r = npu.view %workspace[0]
// PP-NEXT: npu.launch "hcom_receive"() -> (%r)
// PP: %p = npu.view %workspace[512]

// One device: planned as before, no region (the first relu in place on its matmul's
// output, the second matmul's output beside them).
// ONE-LABEL: func.func @mlp(
// ONE-SAME: npu.memory = {peak = 1024 : i64, no_reuse = 1536 : i64, sequential_bound = 1024 : i64, stream_bound = 1024 : i64, buffers = 3 : i64, optimal = 1 : i64}}
// ONE-NOT: comm_bytes

// MOVED: {{.*}}.moved.mlir:{{[0-9]+}}:5: error: symmetric memory: input 0 of all_reduce 0 of group 'tp' ('hcom_all_reduce') is not at one offset on every member: rank 0 at 0x0, rank 1 at 0x400

func.func @mlp(%x: tensor<4x8xf32> {ge.name = "x"}) -> (tensor<4x8xf32> {ge.name = "y"}) {
  %w1 = ge.const dense<0.25> : tensor<8x16xf32>
  %w2 = ge.const dense<0.5> : tensor<16x8xf32>
  %h = ge.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %r = ge.relu %h : tensor<4x16xf32>
  %p = ge.matmul %r, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %y = ge.relu %p : tensor<4x8xf32>
  func.return %y : tensor<4x8xf32>
}
