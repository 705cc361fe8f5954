"""--to-fractal-nz: run matmuls on FRACTAL_NZ operands where that is cheaper, weights converted
at compile time.

**Why.**  FRACTAL_NZ stores an ND matrix [..., M, N] as [..., N1, M1, 16, C0] fractals with
zero padding (`ge_dialect.utils.layout`): the cube's operand format.  `ge.matmul` reads ND
operands too, but the device converts them on their way into L1 (ND2NZ), one row segment per
transfer, and a transfer shorter than a burst (512 bytes) costs a whole burst's time; an NZ
operand loads whole fractals (`ge_dialect.sim.kernel_model`, `memory.burst` of the profile).

**Weights.**  Every constant operand `a` or `b` of a `ge.matmul` becomes a FRACTAL_NZ
constant at compile time, whatever the cut decides: it costs no run-time bytes, and one copy
serves every matmul reading it.

**What an op computes on its stored arrays.**  As for `--to-nc1hwc0` (its module docstring),
an op may run in FRACTAL_NZ only where its kernel on the stored arrays gives the logical
result (padding lanes stay zero):

- matmul: the cube on the fractals of both operands; its bias stays ND.
- the unary ops of `--to-nc1hwc0`'s table (relu ... gelu, sin, cos): f on every lane,
  padding lanes written 0.
- add, sub, mul, div, maximum, minimum, pow: numpy broadcasting of the stored operands.  The
  logical result when every operand read in FRACTAL_NZ has the result's last two dims M and
  N (leading dims broadcast lane by lane), or, for mul only, an ND operand of lower rank whose
  dims are all 1 (a scalar).  A constant of another shape (a bias [N] broadcast over M) is
  made legal at compile time: a FRACTAL_NZ constant of the result's M and N (its shape
  left-padded with 1s, replicated over M and N).  A computed operand that broadcasts along
  M or N keeps the op ND (the verifier refuses a broadcast along a blocked dim).

Any other op keeps its layout.

**Placement: a minimum cut**, `--to-nc1hwc0`'s (`ge_dialect.utils.hypercut.min_hypercut`)
with its conventions: the matmuls and the ops above are free nodes, the source side is
FRACTAL_NZ, the sink side the original layout; all other ops, the function arguments and the
results are fixed to their layout.  A value costs one conversion when its producer and its
readers do not all agree, shared by its readers in the other layout, weighted by the bytes
it moves (physical bytes read + written; constants 0); a user's own trans_data into or out
of FRACTAL_NZ counts as a reader or producer in FRACTAL_NZ.  A matmul left in the original
layout pays, for each non-constant ND operand, the ND2NZ penalty: a hyperedge [SOURCE,
matmul] weighted by the operand's bytes times `BURST_BYTES / row - 1` (`row`: its stored
last dim padded to 16, in bytes; 0 from 512 bytes on), the longer loads as bytes at the same
bandwidth (one load; the tile, which may cut a row further, is the device's choice).  Ties go
to fewer conversions and penalised matmuls, then to fewer constants replicated, then to the
most ops in FRACTAL_NZ; an op that no chain of values joins to a penalised matmul (or to a
trans_data of the input into or out of FRACTAL_NZ) keeps its layout.  A function without a
matmul is left alone.

**Rewrite.**  `--to-nc1hwc0`'s: constants are converted at compile time, other values get
one `ge.trans_data` after their definition, shared by the users that need it; function
arguments and results keep their layout; inverse trans_data pairs cancel (the input's first,
so that the cut sees the graph without them), siblings merge, and the constants and
conversions left unused are erased.  An assigned module is refused.

    %w = ge.const dense<...> : tensor<32x32xf32>
    %h = ge.matmul %x, %w : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
    %g = ge.gelu %h : tensor<16x32xf32>
    %y = ge.matmul %g, %w : tensor<16x32xf32>, tensor<32x32xf32> -> tensor<16x32xf32>
  ->
    %x1 = ge.trans_data %x : tensor<16x32xf32> -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
    %w = ge.const dense<...> : tensor<2x2x16x16xf32> -> tensor<32x32xf32, #ge.format<FRACTAL_NZ>>
    %h = ge.matmul %x1, %w : ... -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
    %g = ge.gelu %h : tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
    %y1 = ge.matmul %g, %w : ... -> tensor<16x32xf32, #ge.format<FRACTAL_NZ>>
    %y = ge.trans_data %y1 : tensor<16x32xf32, #ge.format<FRACTAL_NZ>> -> tensor<16x32xf32>
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from ge_dialect.ir.dialects import ge
from ge_dialect.utils.dtypes import itemsize
from ge_dialect.utils.errors import op_error
from ge_dialect.utils.hypercut import SINK, SOURCE, Hyperedge, min_hypercut
from ge_dialect.utils.layout import M0, default_c0
from ge_dialect.utils.walk import block_ops, walk_ops
from transforms import reports
from transforms.common import refuse_assigned
from transforms.to_nc1hwc0 import (
    _BINARY,
    _UNARY,
    Shape,
    _Converter,
    _is_constant,
    _replicates_a_constant,
    _shape,
    _simplify_conversions,
)

BURST_BYTES = 512
"""The burst of the default device profile (`memory.burst`): the pass runs without a device,
so the ND2NZ penalty of its cut uses this figure."""

_DEFAULT = (ge.Format.ND, ge.Format.NCHW)


def _storable(value: SSAValue) -> bool:
    """A tensor of rank >= 2 in the default layout (ND/NCHW), or already FRACTAL_NZ with its
    dtype's C0 (the C0 of the values the pass makes)."""
    t = value.type
    if not isinstance(t, TensorType) or t.get_num_dims() < 2:
        return False
    if ge.tensor_format(t) == ge.Format.FRACTAL_NZ:
        return ge.tensor_c0(t) == default_c0(itemsize(t.element_type))
    return ge.tensor_format(t) in _DEFAULT


def _is_default(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and ge.tensor_format(value.type) in _DEFAULT


@dataclass
class _Layout:
    """What the pass decided: the ops running in FRACTAL_NZ, and for each op that may, the
    operands it reads in FRACTAL_NZ there with their logical shapes."""

    nz: set[Operation] = field(default_factory=set)
    operands: dict[Operation, dict[int, Shape]] = field(default_factory=dict)
    _types: dict[Attribute, TensorType] = field(default_factory=dict)

    def nz_type(self, t: Attribute) -> TensorType:
        """`t` stored as FRACTAL_NZ (the dtype's C0)."""
        found = self._types.get(t)
        if found is None:
            assert isinstance(t, TensorType)
            nz = ge.tensor_format(t) == ge.Format.FRACTAL_NZ
            found = self._types[t] = t if nz else ge.with_format(t, ge.Format.FRACTAL_NZ)
        return found

    def conversion_bytes(self, value: SSAValue) -> int:
        """The bytes converting `value` between its type and FRACTAL_NZ moves (read +
        written), 0 when no run-time conversion is needed (a constant, already NZ)."""
        t = value.type
        if _is_constant(value) or not _storable(value):
            return 0
        assert isinstance(t, TensorType)
        nz = self.nz_type(t)
        if nz == t:
            return 0
        elements = math.prod(ge.physical_shape(t)) + math.prod(ge.physical_shape(nz))
        return elements * itemsize(t.element_type)

    def enters(self, op: Operation) -> bool:
        """A trans_data from its input's layout to the FRACTAL_NZ type the pass would give it."""
        return (
            isinstance(op, ge.TransDataOp)
            and _is_default(op.input)
            and _storable(op.input)
            and self.nz_type(op.input.type) == op.output.type
        )

    def leaves(self, op: Operation) -> bool:
        """A trans_data from the FRACTAL_NZ type the pass gives its result to that result."""
        return (
            isinstance(op, ge.TransDataOp)
            and _is_default(op.output)
            and _storable(op.output)
            and self.nz_type(op.output.type) == op.input.type
        )


def _binary_operands(op: ge.BinaryElementwiseOp) -> dict[int, Shape] | None:
    """The operands an elementwise op reads in FRACTAL_NZ, with their logical shapes there, or
    None when its stored arrays would not broadcast to the logical result (module docstring)."""
    y = _shape(op.output)
    operands: dict[int, Shape] = {}
    for i, value in enumerate(op.operands):
        shape = _shape(value)
        padded = (1,) * (len(y) - len(shape)) + shape
        if _storable(value) and shape[-2:] == y[-2:]:
            operands[i] = shape  # stored [..., N1, M1, 16, C0]: broadcasts lane by lane
        elif len(shape) < len(y) and all(d == 1 for d in shape) and isinstance(op, ge.MulOp):
            continue  # an ND scalar: broadcasts, and 0 * s keeps the padding lanes zero
        elif _is_constant(value):
            operands[i] = (*padded[:-2], *y[-2:])  # reshaped and replicated over M and N
        else:
            return None  # a computed broadcast along M or N
    return operands


def _nz_operands(op: Operation) -> dict[int, Shape] | None:
    """The operands `op` reads in FRACTAL_NZ when it runs there (each with its logical shape
    there), or None when it cannot run in FRACTAL_NZ (the module docstring's table).  A
    matmul's constant operands are not among them: they are FRACTAL_NZ in either label."""
    if isinstance(op, ge.MatMulOp):
        pair = ((0, op.a), (1, op.b))
        return {i: _shape(v) for i, v in pair if not _is_constant(v) and _is_default(v)}
    if not op.results or not _storable(op.results[0]) or not _is_default(op.results[0]):
        return None
    if isinstance(op, _UNARY):
        return {0: _shape(op.operands[0])} if _storable(op.operands[0]) else None
    if isinstance(op, _BINARY):
        return _binary_operands(op)
    return None


def _nd2nz_penalty(op: ge.MatMulOp, operands: dict[int, Shape]) -> int:
    """The cut's weight of `op` reading its non-constant ND `operands` through ND2NZ: each
    one's bytes times `BURST_BYTES / row - 1`, its stored rows padded to the fractal."""
    penalty = 0
    for i in operands:
        t = op.operands[i].type
        assert isinstance(t, TensorType)
        size = itemsize(t.element_type)
        row = -(-t.get_shape()[-1] // M0) * M0 * size
        if row < BURST_BYTES:
            penalty += -(-math.prod(t.get_shape()) * size * (BURST_BYTES - row) // row)
    return penalty


_Nodes = dict[Operation, int]
"""The free nodes of the cut: an op, and its number."""


def _decide_layout(fn: func.FuncOp) -> _Layout:
    """The ops of `fn`'s body that run in FRACTAL_NZ: a minimum hyperedge cut (module
    docstring).  Free nodes are the ops that may run there, each value that may need a
    conversion is a hyperedge, and each matmul's ND2NZ penalty one more."""
    layout = _Layout()
    block = fn.body.block
    ops = block_ops(block)
    if not any(isinstance(op, ge.MatMulOp) for op in ops):
        return layout
    nodes: _Nodes = {}
    prefer_sink: list[int] = []
    hyperedges: list[Hyperedge] = []
    for op in ops:
        operands = _nz_operands(op)
        if operands is None:
            continue
        layout.operands[op] = operands
        nodes[op] = len(nodes)
        if _replicates_a_constant(op, operands):
            prefer_sink.append(nodes[op])
        if isinstance(op, ge.MatMulOp):
            hyperedges.append(([SOURCE, nodes[op]], _nd2nz_penalty(op, operands)))
    for value in (*block.args, *(r for op in ops for r in op.results)):
        weight = layout.conversion_bytes(value)
        if not weight or not value.uses:
            continue
        members = [_producer_node(value, layout, nodes)]
        for use in value.uses:
            member = _reader_node(use.operation, use.index, layout, nodes)
            if member not in members:
                members.append(member)
        hyperedges.append((members, weight))
    labels = min_hypercut(len(nodes), hyperedges, prefer_sink)
    layout.nz.update(op for op, index in nodes.items() if labels[index])
    return layout


def _producer_node(value: SSAValue, layout: _Layout, nodes: _Nodes) -> int:
    """The node defining `value`: a free op's; the source for a trans_data out of FRACTAL_NZ
    (the pass's conversion back would cancel against it); else the sink."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return SINK  # an argument keeps its layout
    if layout.leaves(owner):
        return SOURCE
    return nodes.get(owner, SINK)


def _reader_node(op: Operation, index: int, layout: _Layout, nodes: _Nodes) -> int:
    """The node reading operand `index` of `op`: the op's free node when it reads it in
    FRACTAL_NZ there; the source for a trans_data into FRACTAL_NZ (the pass's conversion
    would cancel against it); else the sink (the return too: results keep their layout)."""
    if op in layout.operands and index in layout.operands[op]:
        return nodes[op]
    return SOURCE if layout.enters(op) else SINK


class _Rewrite(_Converter):
    """Applies a `_Layout` to one function body."""

    def __init__(self, fn: func.FuncOp, layout: _Layout):
        super().__init__(fn)
        self.layout = layout

    def run(self) -> None:
        layout = self.layout
        for op in block_ops(self.block):
            if isinstance(op, ge.MatMulOp):  # weights: FRACTAL_NZ at compile time, always
                for i, value in ((0, op.a), (1, op.b)):
                    if _is_constant(value) and _is_default(value):
                        self.set_operand(op, i, layout.nz_type(value.type))
            read = layout.operands.get(op, {}) if op in layout.nz else {}
            for i, shape in read.items():
                t = op.operands[i].type
                assert isinstance(t, TensorType)
                if tuple(t.get_shape()) != shape:
                    t = TensorType(t.element_type, shape)
                self.set_operand(op, i, layout.nz_type(t))
            for i, operand in enumerate(op.operands):  # the others: in their original type
                if i not in read and operand in self.original:
                    self.set_operand(op, i, self.original[operand])
            if op in layout.nz:
                for result in op.results:
                    self.retype_result(result, layout.nz_type(result.type))

    def constants(self) -> int:
        """The constants converted to FRACTAL_NZ (for the pass statistics)."""
        return sum(_is_constant(value) for value, _ in self.converted)


@dataclass(frozen=True)
class ToFractalNZPass(ModulePass):
    """Runs matmuls on FRACTAL_NZ where a minimum cut says so, weights converted at compile time."""

    name = "to-fractal-nz"

    STATISTICS: ClassVar[dict[str, str]] = {
        "trans-data-inserted": "ge.trans_data inserted around FRACTAL_NZ ops",
        "trans-data-cancelled": "ge.trans_data cancelled, merged or left unused",
        "fractal-nz-ops": "ops that run in FRACTAL_NZ",
        "constants-converted": "ge.const converted to FRACTAL_NZ at compile time",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        refuse_assigned(op, self.name)
        functions = [o for o in walk_ops(op) if isinstance(o, func.FuncOp)]
        for fn in functions:
            if len(fn.body.blocks) > 1:
                raise op_error(
                    fn,
                    f"has {len(fn.body.blocks)} blocks: --{self.name} handles function "
                    "bodies of one block only",
                )
        conversions = sum(isinstance(o, ge.TransDataOp) for o in walk_ops(op))
        if conversions:
            _simplify_conversions(op)  # the input's own inverse pairs, before the cut
        inserted = in_nz = constants = 0
        for fn in functions:
            if fn.body.blocks:
                layout = _decide_layout(fn)
                rewrite = _Rewrite(fn, layout)
                rewrite.run()
                inserted += rewrite.inserted
                constants += rewrite.constants()
                in_nz += len(layout.nz)
        _simplify_conversions(op)
        left = sum(isinstance(o, ge.TransDataOp) for o in walk_ops(op))
        reports.count(op, self.name, "trans-data-inserted", inserted)
        reports.count(op, self.name, "trans-data-cancelled", conversions + inserted - left)
        reports.count(op, self.name, "fractal-nz-ops", in_nz)
        reports.count(op, self.name, "constants-converted", constants)
