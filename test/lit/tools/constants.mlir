// Constants: elision for reading, and external data beside the IR.
// RUN: ge-opt %s --elide-constants-if-larger=4 | filecheck %s --check-prefix=ELIDE
// RUN: rm -rf %t && mkdir -p %t/a %t/b
// RUN: ge-opt %s --externalize-constants-if-larger=4 -o %t/a/out.mlir
// RUN: filecheck %s --check-prefix=EXT < %t/a/out.mlir
// RUN: ge-opt %t/a/out.mlir -o %t/b/moved.mlir
// RUN: filecheck %s --check-prefix=MOVED < %t/b/moved.mlir
// (the upstream check of this RUN line is in test/lit/upstream/tools.test)

func.func @consts() -> (tensor<8xf32>, tensor<2xf32>, tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>) {
  %big = ge.const dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %small = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %enc = ge.const dense<1.0> : tensor<1x17x1x1xf16> -> tensor<1x17x1x1xf16>
  %t = ge.trans_data %enc : tensor<1x17x1x1xf16> -> tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>
  func.return %big, %small, %t : tensor<8xf32>, tensor<2xf32>, tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>
}

// ELIDE:      %{{.*}} = ge.const #ge.elided : tensor<8xf32>
// ELIDE-NEXT: %{{.*}} = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// ELIDE-NEXT: %{{.*}} = ge.const #ge.elided : tensor<1x17x1x1xf16>

// EXT:      %{{.*}} = ge.const #ge.external<"out.mlir.weights", offset = 0, length = 32> : tensor<8xf32>
// EXT-NEXT: %{{.*}} = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// EXT-NEXT: %{{.*}} = ge.const #ge.external<"out.mlir.weights", offset = 64, length = 34> : tensor<1x17x1x1xf16>

// MOVED:      %{{.*}} = ge.const #ge.external<"../a/out.mlir.weights", offset = 0, length = 32> : tensor<8xf32>
// MOVED:      %{{.*}} = ge.const #ge.external<"../a/out.mlir.weights", offset = 64, length = 34> : tensor<1x17x1x1xf16>
