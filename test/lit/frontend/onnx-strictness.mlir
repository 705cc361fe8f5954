// ONNX import strictness through ge-opt: a node name that is not valid UTF-8 is
// read with `\xNN` escapes and the output reads back (here and upstream); a dimension above
// 2^63 - 1 is one error line and exit 1, never a traceback.
// RUN: %python %S/Inputs/make_onnx.py %t.onnx block
// RUN: %python -c 'import sys; d = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(d.replace(b"relu1", b"\xffelu1"))' %t.onnx %t.utf8.onnx
// RUN: ge-opt %t.utf8.onnx --input-shape x=2x3x8x8 --print-debuginfo | filecheck %s
// RUN: ge-opt %t.utf8.onnx --input-shape x=2x3x8x8 --print-debuginfo | ge-opt --print-debuginfo | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/frontend.test)
// RUN: not ge-opt %t.onnx --input-shape x=99999999999999999999x3x8x8 2>&1 | filecheck %s --check-prefix=HUGE

// CHECK: ge.relu %bn : tensor<2x4x5x4xf32> loc("\\xffelu1"(unknown))

// HUGE-NOT: Traceback
// HUGE: {{^}}{{.*}}.onnx: error: dimension 99999999999999999999 of the input shape given for 'x' exceeds 2^63 - 1{{$}}
