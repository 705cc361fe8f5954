// `-` is stdin, and stdin is `<stdin>` in diagnostics and locations, as in mlir-opt; `-o -`
// is stdout.
// RUN: not ge-opt - < %s 2>&1 | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/tools.test)
// RUN: not ge-opt < %s 2>&1 | filecheck %s
// RUN: sed -e 's/%%nope/%%x/' %s | ge-opt - -o - --print-debuginfo | filecheck %s --check-prefix=LOC
// CHECK: {{^}}<stdin>:[[# @LINE + 3]]:15: error: use of {{undefined value '%nope'|undeclared SSA value name}}{{$}}
// LOC:   func.return %x : i32 loc("<stdin>":[[# @LINE + 2]]:3)
func.func @f(%x: i32) -> i32 {
  func.return %nope : i32
}
