// Function bodies of several blocks: --fuse rewrites them (its patterns are local), the layout
// and stream passes and the lowering refuse them with a located error naming the limit (they order and place
// ops within one block), never a traceback.
// RUN: ge-opt %s --fuse | filecheck %s --check-prefix=FUSE
// RUN: not ge-opt %s --to-nc1hwc0 2>&1 | filecheck %s --check-prefix=LAYOUT
// RUN: not ge-opt %s --assign-streams 2>&1 | filecheck %s --check-prefix=STREAMS
// RUN: not ge-opt %s --assign-streams=mode=single 2>&1 | filecheck %s --check-prefix=STREAMS
// RUN: not ge-opt %s --lower-to-device 2>&1 | filecheck %s --check-prefix=LOWER

// FUSE-LABEL: func.func @two_blocks(
// FUSE:         func.return %{{.*}} : tensor<1x4x4x4xf32>
// FUSE-NEXT:  ^bb1:
// FUSE:         %[[Y:.*]] = ge.fused_conv2d {{.*}} activation relu
// FUSE-NEXT:    func.return %[[Y]] : tensor<1x4x4x4xf32>
// LAYOUT: multi-block.mlir:[[# @LINE + 3]]:1: error: 'func.func' op has 2 blocks: --to-nc1hwc0 handles function bodies of one block only
// STREAMS: multi-block.mlir:[[# @LINE + 2]]:1: error: 'func.func' op has 2 blocks: --assign-streams handles function bodies of one block only
// LOWER: multi-block.mlir:[[# @LINE + 1]]:1: error: 'func.func' op has 2 blocks: --lower-to-device handles function bodies of one block only
func.func @two_blocks(%x: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  func.return %x : tensor<1x4x4x4xf32>
^bb1:
  %w = ge.const dense<1.0> : tensor<4x4x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32> -> tensor<1x4x4x4xf32>
  %y = ge.relu %c : tensor<1x4x4x4xf32>
  func.return %y : tensor<1x4x4x4xf32>
}
