// The input of assign-streams-auto.mlir's comm-streams=2 RUN line: three all-reduces of
// group "a" and one of group "b".
func.func @comm2(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = ge.hcom_all_reduce %x reduction sum group "a" rank_size 2 : tensor<4xf32>
  %1 = ge.hcom_all_reduce %x reduction sum group "b" rank_size 2 : tensor<4xf32>
  %2 = ge.hcom_all_reduce %x reduction sum group "a" rank_size 2 : tensor<4xf32>
  %3 = ge.hcom_all_reduce %x reduction sum group "a" rank_size 2 : tensor<4xf32>
  func.return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// A send has no result to record an event on: a graph with one keeps one comm stream.
func.func @p2p(%x: tensor<4xf32>) -> tensor<4xf32> {
  ge.hcom_send %x dest_rank 1 sr_tag 0 group "pp" rank_size 2 : tensor<4xf32>
  %0 = ge.hcom_receive src_rank 1 sr_tag 0 group "pp" rank_size 2 : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
