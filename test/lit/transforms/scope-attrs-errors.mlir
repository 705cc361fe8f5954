// --lower-to-device checks TorchAir's scope attributes it copies onto launches: strings,
// the core counts whole numbers (the device's range is checked by the simulator, which
// knows the device).  One located error each.
// RUN: not ge-opt %s --split-input-file --lower-to-device 2>&1 >/dev/null | filecheck %s

// CHECK: scope-attrs-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.relu' op --lower-to-device: TorchAir's scope attribute _op_aicore_num must be a whole number as a string, got 8 : i64
func.func @count_not_a_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x {_op_aicore_num = 8 : i64} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: scope-attrs-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.relu' op --lower-to-device: TorchAir's scope attribute _op_vectorcore_num must be a whole number as a string, got "-1"
func.func @negative_count(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x {_op_aicore_num = "8", _op_vectorcore_num = "-1"} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK: scope-attrs-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.matmul' op --lower-to-device: TorchAir's scope attribute _super_kernel_scope must be a string, got unit
func.func @scope_not_a_string(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = ge.matmul %a, %a {_super_kernel_scope} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}

// -----

// CHECK: scope-attrs-errors.mlir:[[# @LINE + 2]]:3: error: 'ge.relu' op --lower-to-device: TorchAir's scope attribute _op_exec_never_timeout must be a bool, got "True"
func.func @never_timeout_not_a_bool(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = ge.relu %x {_op_exec_never_timeout = "True"} : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
