// --lower-to-device refuses what it cannot give a buffer, with one located error: a value
// whose type is not a tensor in a storage format it knows (a foreign encoding).
// RUN: not ge-opt %s --split-input-file --lower-to-device 2>&1 | filecheck %s

// CHECK: lower-to-device-errors.mlir:[[# @LINE + 1]]:1: error: 'func.func' op --lower-to-device: argument #0 has type tensor<4xf32, "dense">, whose encoding is not a storage format (#ge.format)
func.func @foreign_encoding(%x: tensor<4xf32, "dense">) {
  func.return
}
