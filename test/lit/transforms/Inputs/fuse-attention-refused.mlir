// ---- Refusals: each function is left as it was ------------------------------------------

// The softmax is not over the last axis.
func.func @softmax_axis(%q: tensor<1x2x4x4xf32>, %v: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %s = ge.matmul %q, %q transpose_b : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  %p = ge.softmax %s axis 2 : tensor<1x2x4x4xf32>
  %o = ge.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  func.return %o : tensor<1x2x4x4xf32>
}

// -----

// The scores have a second use (a function result): they must stay.
func.func @scores_used(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> (tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32>) {
  %s = ge.matmul %q, %k transpose_b : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %p = ge.softmax %s axis 3 : tensor<1x1x2x2xf32>
  %o = ge.matmul %p, %v : tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  func.return %o, %s : tensor<1x1x2x4xf32>, tensor<1x1x2x2xf32>
}

// -----

// The softmax is on another stream label than the matmuls.
func.func @labels(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %s = ge.matmul %q, %k transpose_b : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %p = ge.softmax %s axis 3 {stream.label = #stream.label<"other", priority = 0, inner_parallel = true>} : tensor<1x1x2x2xf32>
  %o = ge.matmul %p, %v : tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  func.return %o : tensor<1x1x2x4xf32>
}

// -----

// A where's fill of -1 does not exclude its positions (their weights are not 0).
func.func @weak_fill(%q: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %keep = ge.const dense<[[true, false], [true, true]]> : tensor<2x2xi1>
  %fill = ge.const dense<-1.0> : tensor<f32>
  %s = ge.matmul %q, %q transpose_b : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %w = ge.where %keep, %s, %fill : (tensor<2x2xi1>, tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %p = ge.softmax %w axis 3 : tensor<1x1x2x2xf32>
  %o = ge.matmul %p, %v : tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  func.return %o : tensor<1x1x2x4xf32>
}

// -----

// A keep mask that masks out a whole query row (the where averages the values there, the
// fused op would give zeros).
func.func @row_masked_out(%q: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %keep = ge.const dense<[[false, false], [true, true]]> : tensor<2x2xi1>
  %fill = ge.const dense<-1.0e+09> : tensor<f32>
  %s = ge.matmul %q, %q transpose_b : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %w = ge.where %keep, %s, %fill : (tensor<2x2xi1>, tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %p = ge.softmax %w axis 3 : tensor<1x1x2x2xf32>
  %o = ge.matmul %p, %v : tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  func.return %o : tensor<1x1x2x4xf32>
}

// -----

// An additive mask that grows the scores (two batches of masks for one of queries).
func.func @mask_grows(%q: tensor<1x1x2x4xf32>, %m: tensor<2x1x2x2xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<2x1x2x4xf32> {
  %s = ge.matmul %q, %q transpose_b : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %u = ge.add %s, %m : (tensor<1x1x2x2xf32>, tensor<2x1x2x2xf32>) -> tensor<2x1x2x2xf32>
  %p = ge.softmax %u axis 3 : tensor<2x1x2x2xf32>
  %o = ge.matmul %p, %v : tensor<2x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<2x1x2x4xf32>
  func.return %o : tensor<2x1x2x4xf32>
}

// -----

// A scale that is not a scalar constant.
func.func @scale_vector(%q: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %c = ge.const dense<[0.5, 0.25]> : tensor<2xf32>
  %s = ge.matmul %q, %q transpose_b : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %t = ge.mul %s, %c : (tensor<1x1x2x2xf32>, tensor<2xf32>) -> tensor<1x1x2x2xf32>
  %p = ge.softmax %t axis 3 : tensor<1x1x2x2xf32>
  %o = ge.matmul %p, %v : tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  func.return %o : tensor<1x1x2x4xf32>
}

// -----

// repeat_kv of the key only: the value is not repeated the same way.
func.func @gqa_key_only(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x4x3x8xf32>) -> tensor<1x4x3x8xf32> {
  %k1 = ge.reshape %k : tensor<1x2x3x8xf32> -> tensor<1x2x1x3x8xf32>
  %k2 = ge.expand %k1 : tensor<1x2x1x3x8xf32> -> tensor<1x2x2x3x8xf32>
  %k4 = ge.reshape %k2 : tensor<1x2x2x3x8xf32> -> tensor<1x4x3x8xf32>
  %o = ge.flash_attention %q, %k4, %v scale 0.125 : tensor<1x4x3x8xf32>, tensor<1x4x3x8xf32>, tensor<1x4x3x8xf32> -> tensor<1x4x3x8xf32>
  func.return %o : tensor<1x4x3x8xf32>
}

// -----

// A constant mask that is not the causal one (its diagonal is masked out).
func.func @not_causal(%q: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %m = ge.const dense<[[true, false], [true, false]]> : tensor<2x2xi1>
  %o = ge.flash_attention %q, %q, %q mask %m scale 0.5 : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>, tensor<2x2xi1> -> tensor<1x1x2x4xf32>
  func.return %o : tensor<1x1x2x4xf32>
}

// -----

// Rotary halves taken wrongly (the first three and the last five).
func.func @rotary_halves(%x: tensor<2x8xf32>, %cos: tensor<2x8xf32>, %sin: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %a = ge.mul %x, %cos : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %lo = ge.slice %x starts [0] ends [3] axes [1] steps [1] : tensor<2x8xf32> -> tensor<2x3xf32>
  %hi = ge.slice %x starts [3] ends [8] axes [1] steps [1] : tensor<2x8xf32> -> tensor<2x5xf32>
  %n = ge.neg %hi : tensor<2x5xf32>
  %r = ge.concat %n, %lo axis 1 : tensor<2x5xf32>, tensor<2x3xf32> -> tensor<2x8xf32>
  %b = ge.mul %r, %sin : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = ge.add %a, %b : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// Rotating another tensor than the one multiplied by cos.
func.func @rotary_other(%x: tensor<2x8xf32>, %z: tensor<2x8xf32>, %cos: tensor<2x8xf32>, %sin: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %a = ge.mul %x, %cos : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %lo = ge.slice %z starts [0] ends [4] axes [1] steps [1] : tensor<2x8xf32> -> tensor<2x4xf32>
  %hi = ge.slice %z starts [4] ends [8] axes [1] steps [1] : tensor<2x8xf32> -> tensor<2x4xf32>
  %n = ge.neg %hi : tensor<2x4xf32>
  %r = ge.concat %n, %lo axis 1 : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x8xf32>
  %b = ge.mul %r, %sin : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %y = ge.add %a, %b : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// A causal additive mask with more queries than keys: the first query sees no key.
func.func @causal_more_queries(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x3x4xf32> {
  %m = ge.const dense<[[-1.0e+09, -1.0e+09], [0.0, -1.0e+09], [0.0, 0.0]]> : tensor<3x2xf32>
  %s = ge.matmul %q, %k transpose_b : tensor<1x1x3x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x3x2xf32>
  %u = ge.add %s, %m : (tensor<1x1x3x2xf32>, tensor<3x2xf32>) -> tensor<1x1x3x2xf32>
  %p = ge.softmax %u axis 3 : tensor<1x1x3x2xf32>
  %o = ge.matmul %p, %v : tensor<1x1x3x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x3x4xf32>
  func.return %o : tensor<1x1x3x4xf32>
}

// -----

// A keep mask that, with the causal additive mask, leaves the first query no key.
func.func @keep_and_causal(%q: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %keep = ge.const dense<[[false, true], [true, true]]> : tensor<2x2xi1>
  %fill = ge.const dense<-1.0e+09> : tensor<f32>
  %m = ge.const dense<[[0.0, -1.0e+09], [0.0, 0.0]]> : tensor<2x2xf32>
  %s = ge.matmul %q, %q transpose_b : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %w = ge.where %keep, %s, %fill : (tensor<2x2xi1>, tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %u = ge.add %w, %m : (tensor<1x1x2x2xf32>, tensor<2x2xf32>) -> tensor<1x1x2x2xf32>
  %p = ge.softmax %u axis 3 : tensor<1x1x2x2xf32>
  %o = ge.matmul %p, %v : tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  func.return %o : tensor<1x1x2x4xf32>
}
