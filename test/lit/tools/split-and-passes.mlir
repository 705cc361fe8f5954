// --split-input-file keeps cases apart; pass flags run after -p in command-line order and
// --print-ir-after-all dumps to stderr.
// RUN: ge-opt %s --split-input-file | filecheck %s
// RUN: ge-opt %s --split-input-file --cse -p canonicalize --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=DUMP

func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ge.relu %x : tensor<4xf32>
  %1 = ge.relu %x : tensor<4xf32>
  %2 = ge.add %0, %1 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %2 : tensor<4xf32>
}

// CHECK-LABEL: func.func @first
// CHECK:       // -----
// CHECK-LABEL: func.func @second

// DUMP:      // -----// IR Dump After canonicalize //----- //
// DUMP:      // -----// IR Dump After cse //----- //
// DUMP:      %[[R:.*]] = ge.relu %x : tensor<4xf32>
// DUMP-NEXT: ge.add %[[R]], %[[R]]
// DUMP:      // -----// IR Dump After canonicalize //----- //
// DUMP:      func.func @second
// DUMP:      // -----// IR Dump After cse //----- //

// -----

func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  %unused = ge.sigmoid %x : tensor<4xf32>
  func.return %x : tensor<4xf32>
}
