// --assign-streams=mode=auto finds the overlap LLM code writes by hand: DeepSeek's
// multi-head latent attention projects the hidden state down twice, for the queries and
// for the keys/values (q_a_proj -> norm -> q_b_proj beside kv_a_proj -> norm -> kv_b_proj);
// without any stream label the two chains go to two streams, forked after the input and
// joined at the return.
//
// RUN: ge-opt %s --assign-streams=mode=auto | filecheck %s

func.func @mla(%x: tensor<16x256xf16>) -> (tensor<16x512xf16>, tensor<16x512xf16>) {
  %wqa = ge.const dense<5.000000e-01> : tensor<256x64xf16>
  %wqb = ge.const dense<5.000000e-01> : tensor<64x512xf16>
  %wka = ge.const dense<5.000000e-01> : tensor<256x32xf16>
  %wkb = ge.const dense<5.000000e-01> : tensor<32x512xf16>
  %gq = ge.const dense<1.0> : tensor<64xf16>
  %gk = ge.const dense<1.0> : tensor<32xf16>
  %qa = ge.matmul %x, %wqa : tensor<16x256xf16>, tensor<256x64xf16> -> tensor<16x64xf16>
  %qn = ge.rms_norm %qa, %gq axis 1 epsilon 1.0e-06 : tensor<16x64xf16>, tensor<64xf16>
  %q = ge.matmul %qn, %wqb : tensor<16x64xf16>, tensor<64x512xf16> -> tensor<16x512xf16>
  %ka = ge.matmul %x, %wka : tensor<16x256xf16>, tensor<256x32xf16> -> tensor<16x32xf16>
  %kn = ge.rms_norm %ka, %gk axis 1 epsilon 1.0e-06 : tensor<16x32xf16>, tensor<32xf16>
  %k = ge.matmul %kn, %wkb : tensor<16x32xf16>, tensor<32x512xf16> -> tensor<16x512xf16>
  func.return %q, %k : tensor<16x512xf16>, tensor<16x512xf16>
}

// CHECK:      %[[FORK:.*]] = stream.record %x {stream.id = #stream.id<0>}
// CHECK:      %qa = ge.matmul %x, %wqa {stream.id = #stream.id<0>}
// CHECK-NEXT: %qn = ge.rms_norm %qa, %gq axis 1 {stream.id = #stream.id<0>}
// CHECK-NEXT: %q = ge.matmul %qn, %wqb {stream.id = #stream.id<0>}
// CHECK-NEXT: stream.wait %[[FORK]] {stream.id = #stream.id<1>}
// CHECK-NEXT: %ka = ge.matmul %x, %wka {stream.id = #stream.id<1>}
// CHECK-NEXT: %kn = ge.rms_norm %ka, %gk axis 1 {stream.id = #stream.id<1>}
// CHECK-NEXT: %k = ge.matmul %kn, %wkb {stream.id = #stream.id<1>}
// CHECK-NEXT: %[[JOIN:.*]] = stream.record %k {stream.id = #stream.id<1>}
// CHECK-NEXT: stream.wait %[[JOIN]] {stream.id = #stream.id<0>}
// CHECK-NEXT: func.return %q, %k
