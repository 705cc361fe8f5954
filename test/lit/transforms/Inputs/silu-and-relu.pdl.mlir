// PDL patterns for test/lit/transforms/apply-pdl.mlir (ge-opt --apply-pdl=FILE).

// x * sigmoid(x) -> silu(x), with the sigmoid on either side of the mul.
pdl.pattern @mul_sigmoid_to_silu : benefit(2) {
  %t = pdl.type
  %x = pdl.operand
  %sigmoid = pdl.operation "ge.sigmoid"(%x : !pdl.value) -> (%t : !pdl.type)
  %s = pdl.result 0 of %sigmoid
  %mul = pdl.operation "ge.mul"(%x, %s : !pdl.value, !pdl.value) -> (%t : !pdl.type)
  pdl.rewrite %mul {
    %silu = pdl.operation "ge.silu"(%x : !pdl.value) -> (%t : !pdl.type)
    pdl.replace %mul with %silu
  }
}
pdl.pattern @sigmoid_mul_to_silu : benefit(2) {
  %t = pdl.type
  %x = pdl.operand
  %sigmoid = pdl.operation "ge.sigmoid"(%x : !pdl.value) -> (%t : !pdl.type)
  %s = pdl.result 0 of %sigmoid
  %mul = pdl.operation "ge.mul"(%s, %x : !pdl.value, !pdl.value) -> (%t : !pdl.type)
  pdl.rewrite %mul {
    %silu = pdl.operation "ge.silu"(%x : !pdl.value) -> (%t : !pdl.type)
    pdl.replace %mul with %silu
  }
}

// relu(relu(x)) -> relu(x)
pdl.pattern @relu_relu : benefit(1) {
  %t = pdl.type
  %x = pdl.operand
  %inner = pdl.operation "ge.relu"(%x : !pdl.value) -> (%t : !pdl.type)
  %r = pdl.result 0 of %inner
  %outer = pdl.operation "ge.relu"(%r : !pdl.value) -> (%t : !pdl.type)
  pdl.rewrite %outer {
    pdl.replace %outer with (%r : !pdl.value)
  }
}

// clip(x, 0, 6) -> relu6(x): properties match as attributes.
pdl.pattern @clip_0_6_to_relu6 : benefit(1) {
  %t = pdl.type
  %x = pdl.operand
  %lo = pdl.attribute = 0.0 : f32
  %hi = pdl.attribute = 6.0 : f32
  %clip = pdl.operation "ge.clip"(%x : !pdl.value) {"min" = %lo, "max" = %hi} -> (%t : !pdl.type)
  pdl.rewrite %clip {
    %relu6 = pdl.operation "ge.relu6"(%x : !pdl.value) -> (%t : !pdl.type)
    pdl.replace %clip with %relu6
  }
}
