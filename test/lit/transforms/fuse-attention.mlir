// --fuse-attention (transforms/fuse_attention.py): attention chains become one
// ge.flash_attention, Hugging Face's repeat_kv and a constant causal mask fold into it, the
// rotary chain becomes ge.rotary_mul.  The cases that must not fuse are in
// Inputs/fuse-attention-refused.mlir: the pass must print each of them unchanged.
// RUN: ge-opt %s --split-input-file --fuse-attention | filecheck %s
// RUN: ge-opt %S/Inputs/fuse-attention-refused.mlir --split-input-file > %t.before
// RUN: ge-opt %S/Inputs/fuse-attention-refused.mlir --split-input-file --fuse-attention > %t.after
// RUN: diff %t.before %t.after
// RUN: ge-opt %s --split-input-file --fuse-attention --pass-statistics 2>&1 >/dev/null | filecheck %s --check-prefix=STATS

// Each pattern counts its rewrites (one report per chunk): @gpt2 is the flat form, @gqa
// drops its repeat_kv and its causal mask, @rotary fuses twice.
// STATS:      (S) 1 attention-flat applied
// STATS:      (S) 1 attention-causal-mask applied
// STATS-NEXT: (S) 0 attention-flat applied
// STATS-NEXT: (S) 1 attention-gqa applied
// STATS:      (S) 2 rotary applied

// The basic chain: transposed key, scale by a multiplication, an additive mask (an
// argument), softmax over the last axis.
// CHECK-LABEL: func.func @basic(
// CHECK-SAME:  %[[Q:.*]]: tensor<1x2x4x8xf32>, %[[K:.*]]: tensor<1x2x6x8xf32>, %[[V:.*]]: tensor<1x2x6x8xf32>, %[[M:.*]]: tensor<1x1x4x6xf32>)
// CHECK-NEXT:    %[[O:.*]] = ge.flash_attention %[[Q]], %[[K]], %[[V]] mask %[[M]] scale 2.500000e-01 : tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x1x4x6xf32> -> tensor<1x2x4x8xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @basic(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>, %m: tensor<1x1x4x6xf32>) -> tensor<1x2x4x8xf32> {
  %c = ge.const dense<0.25> : tensor<f32>
  %kt = ge.transpose %k perm [0, 1, 3, 2] : tensor<1x2x6x8xf32> -> tensor<1x2x8x6xf32>
  %s = ge.matmul %q, %kt : tensor<1x2x4x8xf32>, tensor<1x2x8x6xf32> -> tensor<1x2x4x6xf32>
  %t = ge.mul %s, %c : (tensor<1x2x4x6xf32>, tensor<f32>) -> tensor<1x2x4x6xf32>
  %u = ge.add %m, %t : (tensor<1x1x4x6xf32>, tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32>
  %p = ge.softmax %u axis 3 : tensor<1x2x4x6xf32>
  %o = ge.matmul %p, %v : tensor<1x2x4x6xf32>, tensor<1x2x6x8xf32> -> tensor<1x2x4x8xf32>
  func.return %o : tensor<1x2x4x8xf32>
}

// -----

// A division by the scale, the key through transpose_b, no mask, f16, a value head size
// of its own.
// CHECK-LABEL: func.func @div_transpose_b(
// CHECK-SAME:  %[[Q:.*]]: tensor<2x2x3x8xf16>, %[[K:.*]]: tensor<2x2x5x8xf16>, %[[V:.*]]: tensor<2x2x5x4xf16>)
// CHECK-NEXT:    %[[O:.*]] = ge.flash_attention %[[Q]], %[[K]], %[[V]] scale 1.250000e-01 : tensor<2x2x3x8xf16>, tensor<2x2x5x8xf16>, tensor<2x2x5x4xf16> -> tensor<2x2x3x4xf16>
// CHECK-NEXT:    func.return %[[O]]
func.func @div_transpose_b(%q: tensor<2x2x3x8xf16>, %k: tensor<2x2x5x8xf16>, %v: tensor<2x2x5x4xf16>) -> tensor<2x2x3x4xf16> {
  %c = ge.const dense<8.0> : tensor<1xf16>
  %s = ge.matmul %q, %k transpose_b : tensor<2x2x3x8xf16>, tensor<2x2x5x8xf16> -> tensor<2x2x3x5xf16>
  %t = ge.div %s, %c : (tensor<2x2x3x5xf16>, tensor<1xf16>) -> tensor<2x2x3x5xf16>
  %p = ge.softmax %t axis 3 : tensor<2x2x3x5xf16>
  %o = ge.matmul %p, %v : tensor<2x2x3x5xf16>, tensor<2x2x5x4xf16> -> tensor<2x2x3x4xf16>
  func.return %o : tensor<2x2x3x4xf16>
}

// -----

// As torch.export writes GPT-2's eager attention: 3-D matmuls between reshapes, the causal
// keep mask in a where with the most negative f32, then the causal additive mask, a
// dropout's identity after the softmax: one causal flash attention.
// The scale is 1 / 2.828427 (the f32 constant), in f64.
// CHECK-LABEL: func.func @gpt2(
// CHECK-SAME:  %[[Q:.*]]: tensor<1x2x4x8xf32>, %[[K:.*]]: tensor<1x2x4x8xf32>, %[[V:.*]]: tensor<1x2x4x8xf32>)
// CHECK-NEXT:    %[[O:.*]] = ge.flash_attention %[[Q]], %[[K]], %[[V]] scale 0.35355339664408242 causal : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @gpt2(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %c = ge.const dense<2.828427> : tensor<f32>
  %keep = ge.const dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %fill = ge.const dense<-3.40282347E+38> : tensor<f32>
  %add = ge.const dense<[[[[0.0, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, 0.0, -3.40282347E+38], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x4x4xf32>
  %kt = ge.transpose %k perm [0, 1, 3, 2] : tensor<1x2x4x8xf32> -> tensor<1x2x8x4xf32>
  %q3 = ge.reshape %q : tensor<1x2x4x8xf32> -> tensor<2x4x8xf32>
  %k3 = ge.reshape %kt : tensor<1x2x8x4xf32> -> tensor<2x8x4xf32>
  %s3 = ge.matmul %q3, %k3 : tensor<2x4x8xf32>, tensor<2x8x4xf32> -> tensor<2x4x4xf32>
  %s = ge.reshape %s3 : tensor<2x4x4xf32> -> tensor<1x2x4x4xf32>
  %t = ge.div %s, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %w = ge.where %keep, %t, %fill : (tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %u = ge.add %w, %add : (tensor<1x2x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = ge.softmax %u axis 3 : tensor<1x2x4x4xf32>
  %d = ge.identity %p : tensor<1x2x4x4xf32>
  %p3 = ge.reshape %d : tensor<1x2x4x4xf32> -> tensor<2x4x4xf32>
  %v3 = ge.reshape %v : tensor<1x2x4x8xf32> -> tensor<2x4x8xf32>
  %o3 = ge.matmul %p3, %v3 : tensor<2x4x4xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  %o = ge.reshape %o3 : tensor<2x4x8xf32> -> tensor<1x2x4x8xf32>
  func.return %o : tensor<1x2x4x8xf32>
}

// -----

// The key permuted straight from [B, S, N, D] to [B, N, D, S] (old GPT-2's permute(0, 2,
// 3, 1)): the fused op reads it through one transpose to [B, N, S, D]; a keep mask that is
// not the causal one stays a mask.
// CHECK-LABEL: func.func @key_permuted(
// CHECK-SAME:  %[[Q:.*]]: tensor<1x2x3x4xf32>, %[[K:.*]]: tensor<1x3x2x4xf32>, %[[V:.*]]: tensor<1x2x3x4xf32>)
// CHECK-NEXT:    %[[KEEP:.*]] = ge.const dense<{{\[}}[true, false, true], [true, true, true], [false, true, true]]> : tensor<3x3xi1>
// CHECK-NEXT:    %[[KT:.*]] = ge.transpose %[[K]] perm [0, 2, 1, 3] : tensor<1x3x2x4xf32> -> tensor<1x2x3x4xf32>
// CHECK-NEXT:    %[[O:.*]] = ge.flash_attention %[[Q]], %[[KT]], %[[V]] mask %[[KEEP]] scale 1.000000e+00 : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<3x3xi1> -> tensor<1x2x3x4xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @key_permuted(%q: tensor<1x2x3x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %keep = ge.const dense<[[true, false, true], [true, true, true], [false, true, true]]> : tensor<3x3xi1>
  %fill = ge.const dense<-1.0e+04> : tensor<f32>
  %kt = ge.transpose %k perm [0, 2, 3, 1] : tensor<1x3x2x4xf32> -> tensor<1x2x4x3xf32>
  %s = ge.matmul %q, %kt : tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32> -> tensor<1x2x3x3xf32>
  %w = ge.where %keep, %s, %fill : (tensor<3x3xi1>, tensor<1x2x3x3xf32>, tensor<f32>) -> tensor<1x2x3x3xf32>
  %p = ge.softmax %w axis 3 : tensor<1x2x3x3xf32>
  %o = ge.matmul %p, %v : tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x4xf32>
  func.return %o : tensor<1x2x3x4xf32>
}

// -----

// Hugging Face's repeat_kv of the key and the value (2 key/value heads for 4 query heads):
// the fused op reads them unrepeated; the constant causal mask becomes `causal`.
// CHECK-LABEL: func.func @gqa(
// CHECK-SAME:  %[[Q:.*]]: tensor<1x4x3x8xf32>, %[[K:.*]]: tensor<1x2x3x8xf32>, %[[V:.*]]: tensor<1x2x3x8xf32>)
// CHECK-NEXT:    %[[O:.*]] = ge.flash_attention %[[Q]], %[[K]], %[[V]] scale 0.35355339059327379 causal : tensor<1x4x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32> -> tensor<1x4x3x8xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @gqa(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x3x8xf32>, %v: tensor<1x2x3x8xf32>) -> tensor<1x4x3x8xf32> {
  %m = ge.const dense<[[true, false, false], [true, true, false], [true, true, true]]> : tensor<3x3xi1>
  %k1 = ge.reshape %k : tensor<1x2x3x8xf32> -> tensor<1x2x1x3x8xf32>
  %k2 = ge.expand %k1 : tensor<1x2x1x3x8xf32> -> tensor<1x2x2x3x8xf32>
  %k3 = ge.identity %k2 : tensor<1x2x2x3x8xf32>
  %k4 = ge.reshape %k3 : tensor<1x2x2x3x8xf32> -> tensor<1x4x3x8xf32>
  %v1 = ge.reshape %v : tensor<1x2x3x8xf32> -> tensor<1x2x1x3x8xf32>
  %v2 = ge.expand %v1 : tensor<1x2x1x3x8xf32> -> tensor<1x2x2x3x8xf32>
  %v4 = ge.reshape %v2 : tensor<1x2x2x3x8xf32> -> tensor<1x4x3x8xf32>
  %o = ge.flash_attention %q, %k4, %v4 mask %m scale 0.35355339059327379 : tensor<1x4x3x8xf32>, tensor<1x4x3x8xf32>, tensor<1x4x3x8xf32>, tensor<3x3xi1> -> tensor<1x4x3x8xf32>
  func.return %o : tensor<1x4x3x8xf32>
}

// -----

// Multi-query attention: one key/value head expanded to every query head.
// CHECK-LABEL: func.func @mqa(
// CHECK-SAME:  %[[Q:.*]]: tensor<1x4x1x8xf32>, %[[K:.*]]: tensor<1x1x5x8xf32>, %[[V:.*]]: tensor<1x1x5x8xf32>)
// CHECK-NEXT:    %[[O:.*]] = ge.flash_attention %[[Q]], %[[K]], %[[V]] scale 1.250000e-01 : tensor<1x4x1x8xf32>, tensor<1x1x5x8xf32>, tensor<1x1x5x8xf32> -> tensor<1x4x1x8xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @mqa(%q: tensor<1x4x1x8xf32>, %k: tensor<1x1x5x8xf32>, %v: tensor<1x1x5x8xf32>) -> tensor<1x4x1x8xf32> {
  %k4 = ge.expand %k : tensor<1x1x5x8xf32> -> tensor<1x4x5x8xf32>
  %v4 = ge.expand %v : tensor<1x1x5x8xf32> -> tensor<1x4x5x8xf32>
  %o = ge.flash_attention %q, %k4, %v4 scale 0.125 : tensor<1x4x1x8xf32>, tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32> -> tensor<1x4x1x8xf32>
  func.return %o : tensor<1x4x1x8xf32>
}

// -----

// Hugging Face Llama's rotary embedding (the slice "to the end" as ATen writes it), and with
// the products written the other way round.
// CHECK-LABEL: func.func @rotary(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x3x8xf32>, %[[C:.*]]: tensor<1x1x3x8xf32>, %[[S:.*]]: tensor<1x1x3x8xf32>)
// CHECK-NEXT:    %[[Y:.*]] = ge.rotary_mul %[[X]], %[[C]], %[[S]] : tensor<1x2x3x8xf32>, tensor<1x1x3x8xf32>, tensor<1x1x3x8xf32>
// CHECK-NEXT:    %[[Y2:.*]] = ge.rotary_mul %[[X]], %[[C]], %[[S]] : tensor<1x2x3x8xf32>, tensor<1x1x3x8xf32>, tensor<1x1x3x8xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[Y2]]
func.func @rotary(%x: tensor<1x2x3x8xf32>, %cos: tensor<1x1x3x8xf32>, %sin: tensor<1x1x3x8xf32>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) {
  %a = ge.mul %x, %cos : (tensor<1x2x3x8xf32>, tensor<1x1x3x8xf32>) -> tensor<1x2x3x8xf32>
  %lo = ge.slice %x starts [0] ends [4] axes [3] steps [1] : tensor<1x2x3x8xf32> -> tensor<1x2x3x4xf32>
  %hi = ge.slice %x starts [4] ends [9223372036854775807] axes [3] steps [1] : tensor<1x2x3x8xf32> -> tensor<1x2x3x4xf32>
  %n = ge.neg %hi : tensor<1x2x3x4xf32>
  %r = ge.concat %n, %lo axis 3 : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x8xf32>
  %b = ge.mul %r, %sin : (tensor<1x2x3x8xf32>, tensor<1x1x3x8xf32>) -> tensor<1x2x3x8xf32>
  %y = ge.add %a, %b : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  %a2 = ge.mul %cos, %x : (tensor<1x1x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  %lo2 = ge.slice %x starts [0] ends [4] axes [3] steps [1] : tensor<1x2x3x8xf32> -> tensor<1x2x3x4xf32>
  %hi2 = ge.slice %x starts [-4] ends [8] axes [3] steps [1] : tensor<1x2x3x8xf32> -> tensor<1x2x3x4xf32>
  %n2 = ge.neg %hi2 : tensor<1x2x3x4xf32>
  %r2 = ge.concat %n2, %lo2 axis 3 : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32> -> tensor<1x2x3x8xf32>
  %b2 = ge.mul %sin, %r2 : (tensor<1x1x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  %y2 = ge.add %b2, %a2 : (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>) -> tensor<1x2x3x8xf32>
  func.return %y, %y2 : tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>
}

// -----

// A labelled chain keeps its label.
// CHECK-LABEL: func.func @labelled(
// CHECK-NEXT:    %[[O:.*]] = ge.flash_attention %{{.*}}, %{{.*}}, %{{.*}} scale 1.000000e+00 {stream.label = #stream.label<"attn", priority = 0, inner_parallel = true>} : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @labelled(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %s = ge.matmul %q, %k transpose_b {stream.label = #stream.label<"attn", priority = 0, inner_parallel = true>} : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x2xf32>
  %p = ge.softmax %s axis 3 {stream.label = #stream.label<"attn", priority = 0, inner_parallel = true>} : tensor<1x1x2x2xf32>
  %o = ge.matmul %p, %v {stream.label = #stream.label<"attn", priority = 0, inner_parallel = true>} : tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  func.return %o : tensor<1x1x2x4xf32>
}

// -----

// A keep mask that is not the causal one with the causal additive mask: both apply, as the
// op's mask and `causal`.
// CHECK-LABEL: func.func @keep_and_causal(
// CHECK-SAME:  %[[Q:.*]]: tensor<1x1x3x4xf32>, %[[V:.*]]: tensor<1x1x3x4xf32>)
// CHECK-NEXT:    %[[KEEP:.*]] = ge.const dense<{{\[}}[true, false, false], [false, true, false], [true, false, true]]> : tensor<3x3xi1>
// CHECK-NEXT:    %[[O:.*]] = ge.flash_attention %[[Q]], %[[Q]], %[[V]] mask %[[KEEP]] scale 1.000000e+00 causal : tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32>, tensor<3x3xi1> -> tensor<1x1x3x4xf32>
// CHECK-NEXT:    func.return %[[O]]
func.func @keep_and_causal(%q: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> tensor<1x1x3x4xf32> {
  %keep = ge.const dense<[[true, false, false], [false, true, false], [true, false, true]]> : tensor<3x3xi1>
  %fill = ge.const dense<0xFF800000> : tensor<f32>
  %m = ge.const dense<[[0.0, -1.0e+09, -1.0e+09], [0.0, 0.0, -1.0e+09], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %s = ge.matmul %q, %q transpose_b : tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32> -> tensor<1x1x3x3xf32>
  %w = ge.where %keep, %s, %fill : (tensor<3x3xi1>, tensor<1x1x3x3xf32>, tensor<f32>) -> tensor<1x1x3x3xf32>
  %u = ge.add %w, %m : (tensor<1x1x3x3xf32>, tensor<3x3xf32>) -> tensor<1x1x3x3xf32>
  %p = ge.softmax %u axis 3 : tensor<1x1x3x3xf32>
  %o = ge.matmul %p, %v : tensor<1x1x3x3xf32>, tensor<1x1x3x4xf32> -> tensor<1x1x3x4xf32>
  func.return %o : tensor<1x1x3x4xf32>
}
