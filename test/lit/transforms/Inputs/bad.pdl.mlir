// Not valid PDL (test/lit/transforms/apply-pdl.mlir checks the located error).
pdl.pattern @broken : benefit(1) {
  %t = pdl.type
  %x = pdl.operand
  %op = pdl.operation "ge.relu"(%x : !pdl.value) -> (%t : !pdl.type
}
