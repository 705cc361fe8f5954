// One decode step of a tiny attention layer (2 heads of dim 8, a KV cache of 16 positions)
// with its KV cache updated in place: the new token's K and V are written at position 5 of
// the caches (`ge.scatter_update`), and the query attends over the updated cache with the
// positions after 5 masked out.  The position is a constant here so that ge-run's random
// inputs are valid; a decode loop feeds it as an i64 input (test/unit/frontend/
// test_kv_cache_decode.py imports such a step from PyTorch).
//
//   ge-run --check-numbers examples/kv_cache_decode.mlir
//
// `--lower-to-device` writes each cache update into the cache's own buffer: the caches
// become in-out arguments (npu.input "k_cache", npu.output "k_cache_new") and each
// update moves the new token's 64 bytes, not the cache's 1 KiB.
func.func @decode(%q: tensor<1x2x1x8xf32> {ge.name = "q"},
                  %k_new: tensor<1x2x1x8xf32> {ge.name = "k_new"},
                  %v_new: tensor<1x2x1x8xf32> {ge.name = "v_new"},
                  %k_cache: tensor<1x2x16x8xf32> {ge.name = "k_cache"},
                  %v_cache: tensor<1x2x16x8xf32> {ge.name = "v_cache"})
    -> (tensor<1x2x1x8xf32> {ge.name = "out"},
        tensor<1x2x16x8xf32> {ge.name = "k_cache_new"},
        tensor<1x2x16x8xf32> {ge.name = "v_cache_new"}) {
  %pos = ge.const dense<5> : tensor<1xi64>
  %k = ge.scatter_update %k_cache, %pos, %k_new axis 2 : tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32> -> tensor<1x2x16x8xf32>
  %v = ge.scatter_update %v_cache, %pos, %v_new axis 2 : tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32> -> tensor<1x2x16x8xf32>
  %scores = ge.matmul %q, %k transpose_b : tensor<1x2x1x8xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x1x16xf32>
  %scale = ge.const dense<0.353553385> : tensor<f32>
  %scaled = ge.mul %scores, %scale : (tensor<1x2x1x16xf32>, tensor<f32>) -> tensor<1x2x1x16xf32>
  %positions = ge.const dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : tensor<16xi64>
  %visible = ge.less_equal %positions, %pos : (tensor<16xi64>, tensor<1xi64>) -> tensor<16xi1>
  %hidden = ge.const dense<0xFF800000> : tensor<f32>
  %masked = ge.where %visible, %scaled, %hidden : (tensor<16xi1>, tensor<1x2x1x16xf32>, tensor<f32>) -> tensor<1x2x1x16xf32>
  %weights = ge.softmax %masked axis 3 : tensor<1x2x1x16xf32>
  %out = ge.matmul %weights, %v : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x1x8xf32>
  func.return %out, %k, %v : tensor<1x2x1x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
}
