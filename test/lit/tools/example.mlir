// The bundled example parses, verifies, round-trips and is valid upstream MLIR.
// RUN: ge-opt %examples/resnet_block.mlir | ge-opt | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/tools.test)

// CHECK-LABEL: func.func @resnet_block
// CHECK-COUNT-2: ge.conv2d
// CHECK: ge.add
// CHECK: ge.relu
// CHECK: func.return
