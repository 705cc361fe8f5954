// --split-input-file as mlir-opt's: every chunk's result in chunk order, separated by
// `// -----`; a failing chunk prints nothing there, its error goes to stderr, the next chunks
// go on, and the exit code is 1 at the end.  Upstream mlir-opt runs the same file against the
// same checks (its `module` and `return` are ge-opt's `builtin.module` and `func.return`).
// RUN: not ge-opt %s --split-input-file 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=ERR --input-file=%t.err
// (the upstream check of this RUN line is in test/lit/upstream/tools.test)
// (the upstream check of this RUN line is in test/lit/upstream/tools.test)
//
// With -o, a failing chunk leaves the file untouched (mlir-opt would write the others).
// RUN: echo precious > %t.out
// RUN: not ge-opt %s --split-input-file -o %t.out
// RUN: filecheck %s --check-prefix=UNTOUCHED --input-file=%t.out
// UNTOUCHED: {{^}}precious{{$}}

// CHECK-LABEL: func.func @first() {
// CHECK-NEXT:      {{(func\.)?}}return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-EMPTY:
// CHECK-NEXT:  // -----
// CHECK-NEXT:  // -----
// CHECK-NEXT:  {{(builtin\.)?}}module {
// CHECK-NEXT:    func.func @third() {
// CHECK-NEXT:      {{(func\.)?}}return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-EMPTY:
// CHECK-NOT:   {{.}}
func.func @first() {
  func.return
}

// -----

// ERR: {{^}}{{.*}}cli-split-input-file.mlir:[[# @LINE + 2]]:15: error: use of {{undefined value '%nope'|undeclared SSA value name}}{{$}}
func.func @second() -> i32 {
  func.return %nope : i32
}

// -----

func.func @third() {
  func.return
}
