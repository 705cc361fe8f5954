// --lower-to-device refuses what it cannot give a buffer, with one located error: a value
// whose type is not a tensor in a storage format it knows (a foreign encoding, a format
// with no layout).
// RUN: not ge-opt %s --split-input-file --lower-to-device 2>&1 | filecheck %s

// CHECK: lower-to-device-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op --lower-to-device: argument #0 has type tensor<4xf32, "dense">, whose encoding is not a storage format (#ge.format)
func.func @foreign_encoding(%x: tensor<4xf32, "dense">) {
  func.return
}

// -----

// A function's argument types are verified by no op: a storage format without a layout
// (grouped FRACTAL_Z with no channels) is the lowering's error, not a crash.
// CHECK: lower-to-device-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op --lower-to-device: argument #0: FRACTAL_Z with groups = 32 needs non-empty channels (dims 0 and 1), got 0x1x1x1{{$}}
func.func @fractal_z_without_channels(%x: tensor<0x1x1x1xf16, #ge.format<FRACTAL_Z, groups = 32>>) -> tensor<0x1x1x1xf16, #ge.format<FRACTAL_Z, groups = 32>> {
  func.return %x : tensor<0x1x1x1xf16, #ge.format<FRACTAL_Z, groups = 32>>
}
