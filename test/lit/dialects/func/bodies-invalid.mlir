// Function bodies: MLIR's rules that xDSL 0.75 does not check, so that ge-opt never accepts
// (nor prints) what mlir-opt rejects, and the passes never meet a body without terminator.
// RUN: ge-opt %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 | filecheck %s --check-prefix=FIRST
// FIRST: bodies-invalid.mlir:[[# @LINE + 6]]:1: error: 'func.func' op empty block: expect at least a terminator

// A body of one empty block (mlir-opt: "empty block: expect at least a terminator"); the
// passes would otherwise meet a function without func.return.
// CHECK: bodies-invalid.mlir:[[# @LINE + 2]]:1: error: 'func.func' op empty block: expect at least a terminator
// expected-error@+1 {{empty block: expect at least a terminator}}
func.func @empty_body(%x: tensor<4xf32>) {
}

// -----

// `{}` parses as no body at all: a public declaration, which mlir-opt rejects.
// CHECK: bodies-invalid.mlir:[[# @LINE + 2]]:1: error: 'func.func' op symbol declaration cannot have public visibility (a function without a body is a declaration: give it a body or make it private)
// expected-error@+1 {{symbol declaration cannot have public visibility}}
func.func @no_body() {}

// -----

// A private declaration is fine.
// CHECK-LABEL: func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
