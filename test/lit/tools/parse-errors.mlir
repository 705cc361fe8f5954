// Malformed input is one located error, never a traceback or a hang: tokens the
// lexer refuses (also as the first token of a chunk), unterminated string literals (xDSL
// 0.75's lexer backtracks exponentially on them), integers and element types xDSL cannot
// store, unknown ops (located at their name, as in mlir-opt).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=ERR
//
// Without the diagnostics flags the run fails with the first case's error, and no traceback.
// ERR-NOT: Traceback
// ERR: parse-errors.mlir:[[# @LINE + 6]]:1: error: expected an identifier after '%'{{$}}
// ERR-NOT: Traceback
// CHECK-NOT: Traceback

// A chunk whose first token is a lone prefix character.
// CHECK: parse-errors.mlir:[[# @LINE + 1]]:1: error: expected an identifier after '%'{{$}}
%

// -----

// CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:1: error: expected an identifier after '#'{{$}}
#

// -----

// CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:1: error: expected an identifier after '!'{{$}}
!

// -----

// CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:1: error: expected an identifier after '^'{{$}}
^

// -----

// CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:1: error: unexpected character "'"{{$}}
'

// -----

// A lone prefix character inside an op.
func.func @percent_in_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:16: error: expected an identifier after '%'{{$}}
  %0 = ge.relu % : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// Unterminated string literals: the error is where the closing quote is missing (the end
// of the line), as in mlir-opt.  A label's string:
func.func @unterminated_label(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:108: error: expected '"' in string literal{{$}}
  %0 = ge.relu %x {stream.label = #stream.label<"1234567890123456789012345678901234567890>} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// An attribute's string.
func.func @unterminated_attribute(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:85: error: expected '"' in string literal{{$}}
  %0 = ge.relu %x {note = "1234567890123456789012345678901234567890} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// A bare string where an op is expected (`//` in a string does not start a comment).
func.func @unterminated_bare(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:57: error: expected '"' in string literal{{$}}
  "1234567890123456789012345678901234567890 // a comment
  func.return %x : tensor<4xf32>
}

// -----

// An escape MLIR does not know.
func.func @unknown_escape(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:29: error: unknown escape in string literal{{$}}
  %0 = ge.relu %x {note = "a\qb"} : tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// An i64 array element at or beyond 2^63 (mlir-opt: "integer value too large", at it).
func.func @stride_too_large(%x: tensor<1x4x7x6xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x5x4xf32> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:37: error: integer value too large{{$}}
  %y = ge.conv2d %x, %w strides [2, 9223372036854775808] : tensor<1x4x7x6xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x5x4xf32>
  func.return %y : tensor<1x4x5x4xf32>
}

// -----

// Below -2^63.
func.func @pad_too_small(%x: tensor<1x4x7x6xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x5x4xf32> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:34: error: integer value too large{{$}}
  %y = ge.conv2d %x, %w pads [0, -9223372036854775809, 0, 0] : tensor<1x4x7x6xf32>, tensor<4x4x3x3xf32> -> tensor<1x4x5x4xf32>
  func.return %y : tensor<1x4x5x4xf32>
}

// -----

// An integer type mlir-opt accepts but xDSL cannot store a dense literal of.
func.func @const_i99999() -> tensor<2xi99999> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:33: error: unsupported element type i99999 in a dense literal{{$}}
  %0 = ge.const dense<[1, 2]> : tensor<2xi99999>
  func.return %0 : tensor<2xi99999>
}

// -----

// The type parses; ge ops reject it in their verifier.
func.func @relu_i99999(%x: tensor<2xi99999>) -> tensor<2xi99999> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op operand 'input' has unsupported element type i99999{{$}}
  %0 = ge.relu %x : tensor<2xi99999>
  func.return %0 : tensor<2xi99999>
}

// -----

// An unknown op is located at its name, as in mlir-opt (custom and generic form).
func.func @unknown_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:8: error: Operation ge.nosuchop is not registered{{$}}
  %x = ge.nosuchop %a : tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// -----

func.func @unknown_op_generic(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: parse-errors.mlir:[[# @LINE + 1]]:8: error: Operation ge.nosuchop is not registered{{$}}
  %x = "ge.nosuchop"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}

// -----

// A valid last case: the run goes on to it.
// CHECK: func.func @still_parsed
func.func @still_parsed(%x: tensor<4xf32>) -> tensor<4xf32> {
  func.return %x : tensor<4xf32>
}
