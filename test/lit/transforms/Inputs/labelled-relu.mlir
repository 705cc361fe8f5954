func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x {stream.label = #stream.label<"1">} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
