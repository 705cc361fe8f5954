// Diagnostics of the `ge` transformer ops (flash_attention, rotary_mul): at least one case per
// verifier rule, each pinned with its exact message and location (line numbers are those of
// the whole file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

// Attention is on floats.
func.func @int_query(%q: tensor<1x2x4x8xi32>) {
  // CHECK: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op operand 'query' must be f16 or f32, got i32{{$}}
  %o = ge.flash_attention %q, %q, %q scale 0.25 : tensor<1x2x4x8xi32>, tensor<1x2x4x8xi32>, tensor<1x2x4x8xi32> -> tensor<1x2x4x8xi32>
  func.return
}

// -----

// Every operand is [B, N, S, D].
func.func @rank3(%q: tensor<2x4x8xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op operand 'query' must have rank 4 ([B, N, S, D]), got tensor<2x4x8xf32>{{$}}
  %o = ge.flash_attention %q, %q, %q scale 0.25 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  func.return
}

// -----

// A stored format is refused: attention takes ND tensors.
func.func @layout(%q: tensor<1x2x4x16xf16, #ge.format<NC1HWC0>>, %k: tensor<1x2x4x16xf16>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op operand 'query' has layout #ge.format<NC1HWC0>: flash_attention takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %o = ge.flash_attention %q, %k, %k scale 0.25 : tensor<1x2x4x16xf16, #ge.format<NC1HWC0>>, tensor<1x2x4x16xf16>, tensor<1x2x4x16xf16> -> tensor<1x2x4x16xf16>
  func.return
}

// -----

// Query, key and value share their element type.
func.func @key_type(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf16>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op operand 'key' has element type f16, expected f32 (that of operand 'query'){{$}}
  %o = ge.flash_attention %q, %k, %q scale 0.25 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  func.return
}

// -----

// The key has the query's batch and head size.
func.func @key_head_size(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x16xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op operand 'key' has shape [1, 2, 4, 16], expected [1, Nkv, Skv, 8] (the batch and head size of operand 'query'){{$}}
  %o = ge.flash_attention %q, %k, %k scale 0.25 : tensor<1x2x4x8xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32> -> tensor<1x2x4x16xf32>
  func.return
}

// -----

// The value has the key's batch, heads and length.
func.func @value_length(%q: tensor<1x2x4x8xf32>, %v: tensor<1x2x5x8xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op operand 'value' has shape [1, 2, 5, 8], expected [1, 2, 4, Dv] (the batch, heads and length of operand 'key'){{$}}
  %o = ge.flash_attention %q, %q, %v scale 0.25 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x5x8xf32> -> tensor<1x2x4x8xf32>
  func.return
}

// -----

// Grouped-query attention: the query's heads are a multiple of the key's.
func.func @groups(%q: tensor<1x3x4x8xf32>, %k: tensor<1x2x4x8xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op operand 'query' has 3 heads, not a multiple of the 2 heads of operand 'key' (grouped-query attention){{$}}
  %o = ge.flash_attention %q, %k, %k scale 0.25 : tensor<1x3x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x3x4x8xf32>
  func.return
}

// -----

// The scale is finite.
func.func @scale(%q: tensor<1x2x4x8xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op scale must be finite, got inf{{$}}
  %o = ge.flash_attention %q, %q, %q scale 1.0e400 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>
  func.return
}

// -----

// Causal attention aligns bottom-right: it needs at least as many keys as queries.
func.func @causal(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x3x8xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op causal attention needs Sq <= Skv, got Sq = 4 queries and Skv = 3 keys{{$}}
  %o = ge.flash_attention %q, %k, %k scale 0.25 causal : tensor<1x2x4x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32> -> tensor<1x2x4x8xf32>
  func.return
}

// -----

// A mask is i1 (keep) or the query's float type (added).
func.func @mask_type(%q: tensor<1x2x4x8xf32>, %m: tensor<4x4xf16>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op operand 'mask' has element type f16, expected i1 (keep where true) or f32 (added to the scores){{$}}
  %o = ge.flash_attention %q, %q, %q mask %m scale 0.25 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<4x4xf16> -> tensor<1x2x4x8xf32>
  func.return
}

// -----

// A mask broadcasts to the scores [B, N, Sq, Skv] without growing them.
func.func @mask_shape(%q: tensor<1x2x4x8xf32>, %m: tensor<2x1x4x4xi1>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op operand 'mask' has shape [2, 1, 4, 4], which does not broadcast to the scores [1, 2, 4, 4]{{$}}
  %o = ge.flash_attention %q, %q, %q mask %m scale 0.25 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<2x1x4x4xi1> -> tensor<1x2x4x8xf32>
  func.return
}

// -----

// The result is [B, N, Sq, Dv].
func.func @result_shape(%q: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x6xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op result has shape [1, 2, 4, 8], expected [1, 2, 4, 6]{{$}}
  %o = ge.flash_attention %q, %q, %v scale 0.25 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x6xf32> -> tensor<1x2x4x8xf32>
  func.return
}

// -----

// ... of the query's element type.
func.func @result_type(%q: tensor<1x2x4x8xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flash_attention' op result has element type f16, expected f32 (that of operand 'query'){{$}}
  %o = ge.flash_attention %q, %q, %q scale 0.25 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf16>
  func.return
}

// -----

// rotary_mul is on floats...
func.func @rotary_int(%x: tensor<4x8xi8>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.rotary_mul' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.rotary_mul %x, %x, %x : tensor<4x8xi8>, tensor<4x8xi8>, tensor<4x8xi8>
  func.return
}

// -----

// ... whose last dim has two halves.
func.func @rotary_odd(%x: tensor<4x7xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.rotary_mul' op operand 'input' must have an even last dim (two halves), got [4, 7]{{$}}
  %y = ge.rotary_mul %x, %x, %x : tensor<4x7xf32>, tensor<4x7xf32>, tensor<4x7xf32>
  func.return
}

// -----

// cos and sin broadcast to the input...
func.func @rotary_broadcast(%x: tensor<4x8xf32>, %c: tensor<2x4x8xf32>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.rotary_mul' op operand 'cos' has shape [2, 4, 8], which does not broadcast to operand 'input' [4, 8]{{$}}
  %y = ge.rotary_mul %x, %c, %x : tensor<4x8xf32>, tensor<2x4x8xf32>, tensor<4x8xf32>
  func.return
}

// -----

// ... and have its element type.
func.func @rotary_sin_type(%x: tensor<4x8xf32>, %s: tensor<8xf16>) {
  // CHECK-NEXT: transformer-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.rotary_mul' op operand 'sin' has element type f16, expected f32 (that of operand 'input'){{$}}
  %y = ge.rotary_mul %x, %x, %s : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf16>
  func.return
}
