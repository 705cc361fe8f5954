// Round-trip tests of the `stream` dialect: the #stream.label and #stream.id attributes, the
// !stream.event type and the ops stream.wait_tensor, stream.record and stream.wait.  The
// custom form prints exactly as checked below, reparses to the same IR (custom and generic),
// and the generic form is valid upstream MLIR.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// (the upstream check of this RUN line is in test/lit/upstream/dialects.test)
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ge-opt %s --split-input-file -p cse,canonicalize,dce | filecheck %s --check-prefix=PASSES

// #stream.label: all parameters; priority and inner_parallel omitted (0 and true, always
// printed); a negative priority; inner_parallel = false; parameters in the other order.
// CHECK-LABEL: func.func @label_forms(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.relu %[[X]] {stream.label = #stream.label<"1", priority = 2, inner_parallel = true>} : tensor<4xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.relu %[[V0]] {stream.label = #stream.label<"side", priority = 0, inner_parallel = true>} : tensor<4xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.relu %[[V1]] {stream.label = #stream.label<"p", priority = 7, inner_parallel = true>} : tensor<4xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.relu %[[V2]] {stream.label = #stream.label<"urgent", priority = -1, inner_parallel = true>} : tensor<4xf32>
// CHECK-NEXT:    %[[V4:.*]] = ge.relu %[[V3]] {stream.label = #stream.label<"serial", priority = 0, inner_parallel = false>} : tensor<4xf32>
// CHECK-NEXT:    %[[V5:.*]] = ge.relu %[[V4]] {stream.label = #stream.label<"swapped", priority = 5, inner_parallel = false>} : tensor<4xf32>
// CHECK-NEXT:    func.return %[[V5]] : tensor<4xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "label_forms",
// GENERIC-SAME:   function_type = (tensor<4xf32>) -> tensor<4xf32>}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: tensor<4xf32>):
// GENERIC-NEXT:    %[[V0:.*]] = "ge.relu"(%[[X]]) {stream.label = #stream.label<"1", priority = 2, inner_parallel = true>} : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "ge.relu"(%[[V0]]) {stream.label = #stream.label<"side", priority = 0, inner_parallel = true>} : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    %[[V2:.*]] = "ge.relu"(%[[V1]]) {stream.label = #stream.label<"p", priority = 7, inner_parallel = true>} : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    %[[V3:.*]] = "ge.relu"(%[[V2]]) {stream.label = #stream.label<"urgent", priority = -1, inner_parallel = true>} : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    %[[V4:.*]] = "ge.relu"(%[[V3]]) {stream.label = #stream.label<"serial", priority = 0, inner_parallel = false>} : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    %[[V5:.*]] = "ge.relu"(%[[V4]]) {stream.label = #stream.label<"swapped", priority = 5, inner_parallel = false>} : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    "func.return"(%[[V5]]) : (tensor<4xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @label_forms(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x {stream.label = #stream.label<"1", priority = 2, inner_parallel = true>} : tensor<4xf32>
  %1 = ge.relu %0 {stream.label = #stream.label<"side">} : tensor<4xf32>
  %2 = ge.relu %1 {stream.label = #stream.label<"p", priority = 7>} : tensor<4xf32>
  %3 = ge.relu %2 {stream.label = #stream.label<"urgent", priority = -1>} : tensor<4xf32>
  %4 = ge.relu %3 {stream.label = #stream.label<"serial", inner_parallel = false>} : tensor<4xf32>
  %5 = ge.relu %4 {stream.label = #stream.label<"swapped", inner_parallel = false, priority = 5>} : tensor<4xf32>
  func.return %5 : tensor<4xf32>
}

// -----

// #stream.id on ge ops (a const, whose attributes follow its type, a matmul, an add); an op
// may keep its stream.label beside its stream.id.
// CHECK-LABEL: func.func @stream_ids(
// CHECK-SAME:  %[[X:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<4x4xf32> {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[M:.*]] = ge.matmul %[[X]], %[[W]] {stream.id = #stream.id<0>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    %[[A:.*]] = ge.add %[[M]], %[[X]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<12>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[A]] : tensor<4x4xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "stream_ids",
// GENERIC-SAME:   function_type = (tensor<4x4xf32>) -> tensor<4x4xf32>}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: tensor<4x4xf32>):
// GENERIC-NEXT:    %[[W:.*]] = "ge.const"() <{value = dense<1.000000e+00> : tensor<4x4xf32>}> {stream.id = #stream.id<0>} : () -> tensor<4x4xf32>
// GENERIC-NEXT:    %[[M:.*]] = "ge.matmul"(%[[X]], %[[W]]) {stream.id = #stream.id<0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// GENERIC-NEXT:    %[[A:.*]] = "ge.add"(%[[M]], %[[X]]) {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<12>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// GENERIC-NEXT:    "func.return"(%[[A]]) : (tensor<4x4xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @stream_ids(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %w = ge.const dense<1.0> : tensor<4x4xf32> {stream.id = #stream.id<0>}
  %m = ge.matmul %x, %w {stream.id = #stream.id<0>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %a = ge.add %m, %x {stream.label = #stream.label<"1">, stream.id = #stream.id<12>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %a : tensor<4x4xf32>
}

// -----

// stream.wait_tensor: the result has the input's type (here an encoded one); the dependency
// may have any tensor type; discardable attributes go before the colon.
// CHECK-LABEL: func.func @wait_tensor(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, %[[D:.*]]: tensor<2x3xi32>, %[[Y:.*]]: tensor<4xf32>) -> (tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<4xf32>) {
// CHECK-NEXT:    %[[V0:.*]] = stream.wait_tensor %[[X]] after %[[D]] : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<2x3xi32>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[Y]] : tensor<4xf32>
// CHECK-NEXT:    %[[V1:.*]] = stream.wait_tensor %[[Y]] after %[[R]] {stream.label = #stream.label<"2", priority = 1, inner_parallel = true>} : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    func.return %[[V0]], %[[V1]] : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<4xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "wait_tensor",
// GENERIC-SAME:   function_type = (tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<2x3xi32>, tensor<4xf32>) -> (tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<4xf32>)}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, %[[D:.*]]: tensor<2x3xi32>, %[[Y:.*]]: tensor<4xf32>):
// GENERIC-NEXT:    %[[V0:.*]] = "stream.wait_tensor"(%[[X]], %[[D]]) : (tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<2x3xi32>) -> tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>
// GENERIC-NEXT:    %[[R:.*]] = "ge.relu"(%[[Y]]) : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    %[[V1:.*]] = "stream.wait_tensor"(%[[Y]], %[[R]]) {stream.label = #stream.label<"2", priority = 1, inner_parallel = true>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    "func.return"(%[[V0]], %[[V1]]) : (tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<4xf32>) -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @wait_tensor(%x: tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, %d: tensor<2x3xi32>, %y: tensor<4xf32>) -> (tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<4xf32>) {
  %0 = stream.wait_tensor %x after %d : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<2x3xi32>
  %r = ge.relu %y : tensor<4xf32>
  %1 = stream.wait_tensor %y after %r {stream.label = #stream.label<"2", priority = 1>} : tensor<4xf32>, tensor<4xf32>
  func.return %0, %1 : tensor<1x17x8x8xf16, #ge.format<NC1HWC0>>, tensor<4xf32>
}

// -----

// stream.record of one value and of several (a function argument, produced on stream 0,
// among them), each giving a !stream.event; stream.wait on other streams.
// CHECK-LABEL: func.func @record_and_wait(
// CHECK-SAME:  %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<2x2xf16>) {
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[A]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[R]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[R]], %[[A]], %[[B]] {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf16>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<2>}
// CHECK-NEXT:    func.return
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "record_and_wait",
// GENERIC-SAME:   function_type = (tensor<4xf32>, tensor<2x2xf16>) -> ()}> ({
// GENERIC-NEXT:    ^bb0(%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<2x2xf16>):
// GENERIC-NEXT:    %[[R:.*]] = "ge.relu"(%[[A]]) {stream.id = #stream.id<0>} : (tensor<4xf32>) -> tensor<4xf32>
// GENERIC-NEXT:    %[[E0:.*]] = "stream.record"(%[[R]]) {stream.id = #stream.id<0>} : (tensor<4xf32>) -> !stream.event
// GENERIC-NEXT:    %[[E1:.*]] = "stream.record"(%[[R]], %[[A]], %[[B]]) {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf16>) -> !stream.event
// GENERIC-NEXT:    "stream.wait"(%[[E0]]) {stream.id = #stream.id<1>} : (!stream.event) -> ()
// GENERIC-NEXT:    "stream.wait"(%[[E1]]) {stream.id = #stream.id<2>} : (!stream.event) -> ()
// GENERIC-NEXT:    "func.return"() : () -> ()
// GENERIC-NEXT:    }) : () -> ()
func.func @record_and_wait(%a: tensor<4xf32>, %b: tensor<2x2xf16>) {
  %r = ge.relu %a {stream.id = #stream.id<0>} : tensor<4xf32>
  %e0 = stream.record %r {stream.id = #stream.id<0>} : tensor<4xf32>
  %e1 = stream.record %r, %a, %b {stream.id = #stream.id<0>} : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf16>
  stream.wait %e0 {stream.id = #stream.id<1>}
  stream.wait %e1 {stream.id = #stream.id<2>}
  func.return
}

// -----

// A record on a side stream, after its producer there, waited for on the main stream.
// CHECK-LABEL: func.func @record_on_side_stream(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[S:.*]] = ge.sigmoid %[[X]] {stream.id = #stream.id<3>} : tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = stream.record %[[S]] {stream.id = #stream.id<3>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[Y:.*]] = ge.relu %[[S]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4xf32>
// CHECK-NEXT:  }
func.func @record_on_side_stream(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = ge.sigmoid %x {stream.id = #stream.id<3>} : tensor<4xf32>
  %e = stream.record %s {stream.id = #stream.id<3>} : tensor<4xf32>
  stream.wait %e {stream.id = #stream.id<0>}
  %y = ge.relu %s {stream.id = #stream.id<0>} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// An assigned fork/join: the main stream records after its producers, stream 1 waits, works
// and records, and the main stream waits for it before the join.
// CHECK-LABEL: func.func @fork_join(
// CHECK-SAME:  %[[X:.*]]: tensor<4x4xf32>, %[[W:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32> {
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4x4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.matmul %[[A]], %[[W]] {stream.id = #stream.id<0>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK-NEXT:    %[[E0:.*]] = stream.record %[[A]] {stream.id = #stream.id<0>} : tensor<4x4xf32>
// CHECK-NEXT:    stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[C:.*]] = ge.sigmoid %[[A]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : tensor<4x4xf32>
// CHECK-NEXT:    %[[D:.*]] = ge.mul %[[C]], %[[A]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, stream.id = #stream.id<1>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    %[[E1:.*]] = stream.record %[[D]] {stream.id = #stream.id<1>} : tensor<4x4xf32>
// CHECK-NEXT:    stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:    %[[Y:.*]] = ge.add %[[B]], %[[D]] {stream.id = #stream.id<0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<4x4xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "fork_join",
// GENERIC:         %[[E0:.*]] = "stream.record"(%{{.*}}) {stream.id = #stream.id<0>} : (tensor<4x4xf32>) -> !stream.event
// GENERIC-NEXT:    "stream.wait"(%[[E0]]) {stream.id = #stream.id<1>} : (!stream.event) -> ()
// GENERIC:         %[[E1:.*]] = "stream.record"(%{{.*}}) {stream.id = #stream.id<1>} : (tensor<4x4xf32>) -> !stream.event
// GENERIC-NEXT:    "stream.wait"(%[[E1]]) {stream.id = #stream.id<0>} : (!stream.event) -> ()
func.func @fork_join(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %a = ge.relu %x {stream.id = #stream.id<0>} : tensor<4x4xf32>
  %b = ge.matmul %a, %w {stream.id = #stream.id<0>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %e0 = stream.record %a {stream.id = #stream.id<0>} : tensor<4x4xf32>
  stream.wait %e0 {stream.id = #stream.id<1>}
  %c = ge.sigmoid %a {stream.label = #stream.label<"1">, stream.id = #stream.id<1>} : tensor<4x4xf32>
  %d = ge.mul %c, %a {stream.label = #stream.label<"1">, stream.id = #stream.id<1>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %e1 = stream.record %d {stream.id = #stream.id<1>} : tensor<4x4xf32>
  stream.wait %e1 {stream.id = #stream.id<0>}
  %y = ge.add %b, %d {stream.id = #stream.id<0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

// The stream ops have memory effects: cse, canonicalize and dce keep an unused wait_tensor
// and two identical ones, while the unused ge.relu goes.
// CHECK-LABEL: func.func @effects_kept(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[U:.*]] = stream.wait_tensor %[[X]] after %[[D]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[W1:.*]] = stream.wait_tensor %[[X]] after %[[D]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[W2:.*]] = stream.wait_tensor %[[X]] after %[[D]] : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = ge.add %[[W1]], %[[W2]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<4xf32>
// CHECK-NEXT:  }
// PASSES-LABEL: func.func @effects_kept(
// PASSES-SAME:  %[[X:.*]]: tensor<4xf32>, %[[D:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// PASSES-NEXT:    %[[U:.*]] = stream.wait_tensor %[[X]] after %[[D]] : tensor<4xf32>, tensor<4xf32>
// PASSES-NEXT:    %[[W1:.*]] = stream.wait_tensor %[[X]] after %[[D]] : tensor<4xf32>, tensor<4xf32>
// PASSES-NEXT:    %[[W2:.*]] = stream.wait_tensor %[[X]] after %[[D]] : tensor<4xf32>, tensor<4xf32>
// PASSES-NEXT:    %[[S:.*]] = ge.add %[[W1]], %[[W2]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// PASSES-NEXT:    func.return %[[S]] : tensor<4xf32>
// PASSES-NEXT:  }
func.func @effects_kept(%x: tensor<4xf32>, %d: tensor<4xf32>) -> tensor<4xf32> {
  %unused = stream.wait_tensor %x after %d : tensor<4xf32>, tensor<4xf32>
  %w1 = stream.wait_tensor %x after %d : tensor<4xf32>, tensor<4xf32>
  %w2 = stream.wait_tensor %x after %d : tensor<4xf32>, tensor<4xf32>
  %r = ge.relu %x : tensor<4xf32>
  %s = ge.add %w1, %w2 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

// In an assigned function an unused record and its wait stay; an unused ge.relu goes.
// CHECK-LABEL: func.func @effects_kept_assigned(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = stream.record %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:    stream.wait %[[E]] {stream.id = #stream.id<1>}
// CHECK-NEXT:    %[[S:.*]] = ge.sigmoid %[[X]] {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:    func.return %[[S]] : tensor<4xf32>
// CHECK-NEXT:  }
// PASSES-LABEL: func.func @effects_kept_assigned(
// PASSES-SAME:  %[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// PASSES-NEXT:    %[[E:.*]] = stream.record %[[X]] {stream.id = #stream.id<0>} : tensor<4xf32>
// PASSES-NEXT:    stream.wait %[[E]] {stream.id = #stream.id<1>}
// PASSES-NEXT:    %[[S:.*]] = ge.sigmoid %[[X]] {stream.id = #stream.id<1>} : tensor<4xf32>
// PASSES-NEXT:    func.return %[[S]] : tensor<4xf32>
// PASSES-NEXT:  }
func.func @effects_kept_assigned(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = ge.relu %x {stream.id = #stream.id<0>} : tensor<4xf32>
  %e = stream.record %x {stream.id = #stream.id<0>} : tensor<4xf32>
  stream.wait %e {stream.id = #stream.id<1>}
  %s = ge.sigmoid %x {stream.id = #stream.id<1>} : tensor<4xf32>
  func.return %s : tensor<4xf32>
}

// -----

// A non-ASCII label prints escaped (as xDSL prints strings) and parses back.
// CHECK-LABEL: func.func @label_unicode(
// CHECK-NEXT:    ge.relu %{{.*}} {stream.label = #stream.label<"\E6\B5\811", priority = 0, inner_parallel = true>} : tensor<4xf32>
func.func @label_unicode(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x {stream.label = #stream.label<"流1">} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}
