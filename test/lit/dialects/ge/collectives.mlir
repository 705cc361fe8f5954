// Round-trip tests of the collectives beyond all-reduce and all-gather: reduce-scatter,
// all-to-all (equal pieces and uneven counts), broadcast, send and receive.  The custom
// form prints exactly as checked below and reparses to the same IR (custom and generic);
// the diagnostics are in collectives-invalid.mlir.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @collectives(
// CHECK-NEXT:    %[[V0:.*]] = ge.hcom_reduce_scatter %{{.*}} reduction sum group "tp" rank_size 4 : tensor<8x16xf16> -> tensor<2x16xf16>
// CHECK-NEXT:    %[[V1:.*]] = ge.hcom_reduce_scatter %{{.*}} reduction max group "tp" rank_size 2 : tensor<4xi32> -> tensor<2xi32>
// CHECK-NEXT:    %[[V2:.*]] = ge.hcom_all_to_all %{{.*}} split_dim 0 concat_dim 1 group "ep" rank_size 4 : tensor<8x4xf32> -> tensor<2x16xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.hcom_all_to_all %{{.*}} split_dim 0 concat_dim 0 group "ep" rank_size 2 send_counts [1, 3] recv_counts [1, 2] : tensor<4x4xf32> -> tensor<3x4xf32>
// CHECK-NEXT:    %[[V4:.*]] = ge.hcom_broadcast %{{.*}} root 3 group "g" rank_size 4 : tensor<8x16xf16>
// CHECK-NEXT:    ge.hcom_send %{{.*}} dest_rank 1 sr_tag 0 group "pp" rank_size 2 : tensor<4x4xf32>
// CHECK-NEXT:    %[[V5:.*]] = ge.hcom_receive src_rank 0 sr_tag 7 group "pp" rank_size 2 : tensor<4x4xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "collectives",
// GENERIC:         "ge.hcom_reduce_scatter"(%{{.*}}) <{reduction = #ge<reduction sum>, group = "tp", rank_size = 4 : i64}> : (tensor<8x16xf16>) -> tensor<2x16xf16>
// GENERIC:         "ge.hcom_all_to_all"(%{{.*}}) <{split_dim = 0 : i64, concat_dim = 0 : i64, group = "ep", rank_size = 2 : i64, send_counts = array<i64: 1, 3>, recv_counts = array<i64: 1, 2>}>
// GENERIC:         "ge.hcom_send"(%{{.*}}) <{dest_rank = 1 : i64, sr_tag = 0 : i64, group = "pp", rank_size = 2 : i64}> : (tensor<4x4xf32>) -> ()
// GENERIC:         "ge.hcom_receive"() <{src_rank = 0 : i64, sr_tag = 7 : i64, group = "pp", rank_size = 2 : i64}> : () -> tensor<4x4xf32>
func.func @collectives(%x: tensor<8x16xf16>, %i: tensor<4xi32>, %a: tensor<8x4xf32>, %b: tensor<4x4xf32>) -> (tensor<2x16xf16>, tensor<2xi32>, tensor<2x16xf32>, tensor<3x4xf32>, tensor<8x16xf16>, tensor<4x4xf32>) {
  %0 = ge.hcom_reduce_scatter %x reduction sum group "tp" rank_size 4 : tensor<8x16xf16> -> tensor<2x16xf16>
  %1 = ge.hcom_reduce_scatter %i reduction max group "tp" rank_size 2 : tensor<4xi32> -> tensor<2xi32>
  %2 = ge.hcom_all_to_all %a split_dim 0 concat_dim 1 group "ep" rank_size 4 : tensor<8x4xf32> -> tensor<2x16xf32>
  %3 = ge.hcom_all_to_all %b split_dim 0 concat_dim 0 group "ep" rank_size 2 send_counts [1, 3] recv_counts [1, 2] : tensor<4x4xf32> -> tensor<3x4xf32>
  %4 = ge.hcom_broadcast %x root 3 group "g" rank_size 4 : tensor<8x16xf16>
  ge.hcom_send %b dest_rank 1 sr_tag 0 group "pp" rank_size 2 : tensor<4x4xf32>
  %5 = ge.hcom_receive src_rank 0 sr_tag 7 group "pp" rank_size 2 : tensor<4x4xf32>
  func.return %0, %1, %2, %3, %4, %5 : tensor<2x16xf16>, tensor<2xi32>, tensor<2x16xf32>, tensor<3x4xf32>, tensor<8x16xf16>, tensor<4x4xf32>
}

// -----

// They communicate: CSE keeps two identical ones, DCE an unused one.
// RUN: ge-opt %s --split-input-file -p cse,dce | filecheck %s --check-prefix=CSE
// CHECK-LABEL: func.func @effects(
// CSE-LABEL: func.func @effects(
// CSE-NEXT:    ge.hcom_broadcast
// CSE-NEXT:    ge.hcom_broadcast
// CSE-NEXT:    ge.hcom_receive
// CHECK-NEXT:    ge.hcom_broadcast
// CHECK-NEXT:    ge.hcom_broadcast
// CHECK-NEXT:    ge.hcom_receive
// CHECK-NEXT:    func.return
func.func @effects(%x: tensor<4xf32>) {
  %0 = ge.hcom_broadcast %x root 0 group "g" rank_size 2 : tensor<4xf32>
  %1 = ge.hcom_broadcast %x root 0 group "g" rank_size 2 : tensor<4xf32>
  %2 = ge.hcom_receive src_rank 1 sr_tag 0 group "g" rank_size 2 : tensor<4xf32>
  func.return
}
