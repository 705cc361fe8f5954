"""--lower-to-device: a `ge` function to an `npu` program, GE's task list.

Each function of `ge`/`stream` ops becomes a program (`npu.program`) whose arguments are
buffers of physical shape: the graph's inputs, then its outputs (written in place), named
as the function's arguments and results are (`ge.name`, else `arg<i>` / `result<i>`), each
with its logical type as `npu.type`.  In the body, in the function's op order:

- `ge.const` -> `npu.weight` (the same physical data: inline, external or elided);
- `ge.reshape`, `ge.flatten`, `ge.identity` and `stream.wait_tensor` on values of the
  default layout -> `npu.view` of their input's buffer (no task, no bytes moved: GE runs
  reshapes in place); any other `ge` op -> `npu.launch` of the kernel named after it,
  writing a fresh `npu.alloc` buffer of the result's physical shape, or the output
  argument directly when the value is returned once and nothing else returns it;
- `ge.scatter_update` (the KV-cache write) -> a launch that reads the buffer it updates
  and writes an `npu.view` of it, so the kernel moves only the update: the cache's own
  buffer when nothing reads the old cache afterwards (`_in_place_updates`; a cache argument
  whose update is returned becomes an *in-out* argument, `npu.input` and `npu.output` on
  one buffer, and has no output buffer of its own), else a copy of the cache made just
  before by an `npu.copy`;
- `stream.record` / `stream.wait` -> `npu.record` / `npu.wait`, events numbered 0..n-1 in
  the order of their records;
- a returned value that is not written by a launch (an argument, a weight, a view) or is
  returned more than once gets an `npu.copy` into its output buffer, right after it is
  defined, on the stream of its definition.

A launch runs on its op's `stream.id` (stream 0 when the function is not assigned), with
the priority of its `stream.label` (0 without one), the logical type of every operand and
result (`#ge.format` becomes `#npu.format`), the op's properties as builtin attributes
(enums as strings, unit attributes as `true`, plus `has_bias` / `has_residual` for the
optional operands) and its cost from `ge_dialect.ir.cost`.  TorchAir's scope attributes of
the op (`_op_aicore_num`, `_op_vectorcore_num`, `_super_kernel_scope`,
`_super_kernel_options`: `ge_dialect.utils.scope_attrs`) stay on the launch, as its
discardable attributes (`attributes {...}`), for the simulator.  A super kernel scope whose
launches land on several streams, without `stream-fusion=1` in its options, is reported as a
warning (`SuperKernelStreams`), located at its first launch.

Before:

    func.func @main(%x: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
      %y = ge.relu %x : tensor<1x16x4x4xf32>
      func.return %y : tensor<1x16x4x4xf32>
    }

After:

    func.func @main(%x: memref<1x16x4x4xf32> {npu.input = "arg0", ...},
                    %y: memref<1x16x4x4xf32> {npu.output = "result0", ...})
        attributes {npu.program} {
      npu.launch "relu"(%x) -> (%y) stream 0 priority 0 : ... cost <vector, ...> attrs {}
      func.return
    }
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    MemRefType,
    NoneAttr,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir import cost
from ge_dialect.ir.dialects import ge, npu, stream
from ge_dialect.ir.encodings import verify_tensor_type
from ge_dialect.ir.interpreter import io_names
from ge_dialect.utils.errors import location_str, op_error
from ge_dialect.utils.scope_attrs import (
    AICORE_NUM,
    NEVER_TIMEOUT,
    SCOPE_ATTRS,
    SUPER_KERNEL_OPTIONS,
    SUPER_KERNEL_SCOPE,
    VECTORCORE_NUM,
    stream_fusion,
)
from transforms import reports

VIEW_OPS = (ge.ReshapeOp, ge.FlattenOp, ge.IdentityOp, stream.WaitTensorOp)
"""Ops whose result is its input's bytes under another shape, when both use the default layout."""


def npu_type(t: Attribute) -> TensorType:
    """The logical type a launch names: `t` with `#ge.format` as `#npu.format`."""
    assert isinstance(t, TensorType)
    return npu.logical_type(t)


def buffer_type(t: Attribute) -> MemRefType:
    """The buffer of a value of tensor type `t`: its physical shape and element type."""
    assert isinstance(t, TensorType)
    return npu.buffer_type(t)


def _check_types(op: Operation, types: list[Attribute], what: str) -> None:
    """Every value the lowering gives a buffer is a tensor in a storage format it knows."""
    for i, t in enumerate(types):
        if not isinstance(t, TensorType):
            raise op_error(op, f"--lower-to-device: {what} #{i} has type {t}, not a tensor")
        if not isinstance(t.encoding, NoneAttr | ge.FormatAttr):
            raise op_error(
                op,
                f"--lower-to-device: {what} #{i} has type {t}, whose encoding is not a storage "
                "format (#ge.format)",
            )
        try:  # a type no op verified (a function's argument): its format must have a layout
            verify_tensor_type(t, f"{what} #{i}", ge.FormatAttr)
        except VerifyException as e:
            raise op_error(op, f"--lower-to-device: {e}") from None


def _is_default_layout(t: Attribute) -> bool:
    return isinstance(t, TensorType) and isinstance(t.encoding, NoneAttr)


def _is_view(op: Operation) -> bool:
    return isinstance(op, VIEW_OPS) and all(
        _is_default_layout(v.type) for v in (op.operands[0], op.results[0])
    )


def _shared_buffers(
    ops: list[Operation],
) -> tuple[dict[SSAValue, SSAValue], dict[SSAValue, list[SSAValue]]]:
    """Each operand's buffer, named by the value that first has it (a view's result shares
    its operand's), and each buffer's values."""
    root: dict[SSAValue, SSAValue] = {}
    members: dict[SSAValue, list[SSAValue]] = {}
    for op in ops:
        for value in op.operands:
            if value not in root:
                root[value] = value
                members[value] = [value]
        if _is_view(op):
            root[op.results[0]] = root[op.operands[0]]
            members[root[op.operands[0]]].append(op.results[0])
    return root, members


def _in_place_updates(
    ops: list[Operation], returned: Counter[SSAValue]
) -> tuple[set[Operation], dict[SSAValue, int]]:
    """The `ge.scatter_update`s that write into their cache's own buffer, and the in-out
    arguments among them (result -> the argument it updates).

    Values share a buffer through views (`_is_view`).  An update may overwrite its cache's
    buffer when nothing reads the old cache afterwards: every other use of a value in that
    buffer is by an op earlier in the function on the update's stream (stream order then
    runs it first), or is a view, and no value in that buffer is returned.  The buffer
    must also be writable and hold only the cache: an activation (a launch's allocation)
    whose update is not returned exactly once (such a result gets its own output buffer),
    or an argument whose update is returned exactly once, which then becomes an in-out
    argument (`npu.input` and `npu.output`: the graph's cache updated in place, as GE's
    RefData).  Any other update (a constant's, an argument's whose result is used inside
    the graph only, one followed by a read of the old cache) works on a copy."""
    position = {op: i for i, op in enumerate(ops)}
    root, members = _shared_buffers(ops)

    def nothing_reads_after(op: ge.ScatterUpdateOp) -> bool:
        on = stream.stream_of(op) or 0
        for value in members[root[op.cache]]:
            if returned[value]:
                return False
            for use in value.uses:
                user = use.operation
                if user is op or _is_view(user):
                    continue
                if (
                    position.get(user, len(ops)) > position[op]
                    or (stream.stream_of(user) or 0) != on
                ):
                    return False
        return True

    in_place: set[Operation] = set()
    in_out: dict[SSAValue, int] = {}
    for op in ops:
        if not isinstance(op, ge.ScatterUpdateOp) or not nothing_reads_after(op):
            continue
        cache = root[op.cache]
        if isinstance(cache, BlockArgument):
            if returned[op.output] == 1:
                in_place.add(op)
                in_out[op.output] = cache.index
        elif not isinstance(cache.owner, ge.ConstOp) and returned[op.output] != 1:
            in_place.add(op)
    return in_place, in_out


def kernel_attrs(op: Operation) -> DictionaryAttr:
    """The attributes a kernel needs: `op`'s properties as builtin attributes."""
    attrs: dict[str, Attribute] = {}
    for name, value in op.properties.items():
        if name == "operandSegmentSizes":
            continue
        if isinstance(value, EnumAttribute):
            value = StringAttr(str(value.data))
        elif isinstance(value, UnitAttr):
            value = BoolAttr.from_bool(True)
        attrs[name] = value
    if isinstance(op, ge.ConvolutionOp | ge.MatMulOp):
        attrs["has_bias"] = BoolAttr.from_bool(op.bias is not None)
    if isinstance(op, ge.FusedConv2DOp):
        attrs["has_residual"] = BoolAttr.from_bool(op.residual is not None)
    return DictionaryAttr(dict(sorted(attrs.items())))


def cost_attr(c: cost.OpCost) -> npu.CostAttr:
    return npu.CostAttr(c.unit, c.flops, c.bytes_in, c.bytes_out, c.blocks)


def copy_cost(t: MemRefType) -> npu.CostAttr:
    size = cost.nbytes(TensorType(t.element_type, t.get_shape()))
    blocks = max(1, -(-size // (cost.VECTOR_BLOCK_ELEMENTS * 4)))
    return npu.CostAttr("vector", 0, size, size, blocks)


def _priority(op: Operation) -> int:
    label = op.attributes.get(stream.LABEL)
    return label.priority.data if isinstance(label, stream.LabelAttr) else 0


def _scope_attrs(op: Operation) -> dict[str, Attribute]:
    """`op`'s TorchAir scope attributes, checked: strings, the core counts whole numbers."""
    found: dict[str, Attribute] = {}
    for name in SCOPE_ATTRS:
        value = op.attributes.get(name)
        if value is None:
            continue
        if name == NEVER_TIMEOUT:
            if not (isinstance(value, builtin.IntegerAttr) and value.type == builtin.i1):
                message = f"TorchAir's scope attribute {name} must be a bool, got {value}"
                raise op_error(op, f"--lower-to-device: {message}")
            found[name] = value
            continue
        count = name in (AICORE_NUM, VECTORCORE_NUM)
        if not isinstance(value, StringAttr) or (count and not value.data.isdecimal()):
            what = "a whole number as a string" if count else "a string"
            message = f"TorchAir's scope attribute {name} must be {what}, got {value}"
            raise op_error(op, f"--lower-to-device: {message}")
        found[name] = value
    return found


@dataclass
class _Lowering:
    """The lowering of one function: `run` replaces its body and signature."""

    fn: func.FuncOp

    def run(self) -> None:
        fn = self.fn
        if len(fn.body.blocks) != 1:
            raise op_error(
                fn,
                f"has {len(fn.body.blocks)} blocks: --lower-to-device handles function bodies "
                "of one block only",
            )
        old = fn.body.block
        ret = old.last_op
        assert isinstance(ret, func.ReturnOp)
        in_types = list(fn.function_type.inputs.data)
        out_types = list(fn.function_type.outputs.data)
        _check_types(fn, in_types, "argument")
        _check_types(fn, out_types, "result")
        in_names, out_names = io_names(fn)
        returned = Counter(ret.operands)
        self.in_place, in_out = _in_place_updates(list(old.ops), returned)
        kept = [k for k, value in enumerate(ret.operands) if value not in in_out]

        block = Block(
            arg_types=[buffer_type(t) for t in in_types] + [buffer_type(out_types[k]) for k in kept]
        )
        self.block = block
        self.buffers: dict[SSAValue, SSAValue] = {}
        self.stream_of_value: dict[SSAValue, int] = {}
        for old_arg, new_arg in zip(old.args, block.args, strict=False):
            new_arg.name_hint = old_arg.name_hint
            self.buffers[old_arg] = new_arg
            self.stream_of_value[old_arg] = 0
        outputs = block.args[len(in_types) :]
        # the output buffer a launch writes directly (a value returned exactly once)
        self.direct: dict[SSAValue, SSAValue] = {}
        self.copies: dict[SSAValue, list[SSAValue]] = {}
        for value, out in zip([ret.operands[k] for k in kept], outputs, strict=True):
            out.name_hint = value.name_hint
            owner = value.owner
            if (
                returned[value] == 1
                and isinstance(owner, Operation)
                and not isinstance(owner, ge.ConstOp)
                and not _is_view(owner)
            ):
                self.direct[value] = out
            else:
                self.copies.setdefault(value, []).append(out)
        self.events: dict[SSAValue, int] = {}

        for arg in old.args:
            self._copy_out(arg)
        for op in old.ops:
            if op is ret:
                break
            self._lower(op)
        block.add_op(func.ReturnOp())

        # an in-out argument: an input that also names the output its update returns
        updated = {in_out[v]: out_names[k] for k, v in enumerate(ret.operands) if v in in_out}
        arg_attrs = [
            DictionaryAttr(
                {"npu.input": StringAttr(n)}
                | ({"npu.output": StringAttr(updated[i])} if i in updated else {})
                | {"npu.type": npu_type(t)}
            )
            for i, (n, t) in enumerate(zip(in_names, in_types, strict=True))
        ] + [
            DictionaryAttr(
                {"npu.output": StringAttr(out_names[k]), "npu.type": npu_type(out_types[k])}
            )
            for k in kept
        ]
        fn.body.detach_block(old)
        old.erase(safe_erase=False)
        fn.body.add_block(block)
        fn.function_type = FunctionType.from_lists([a.type for a in block.args], [])
        fn.arg_attrs = ArrayAttr(arg_attrs)
        fn.res_attrs = None
        fn.attributes["npu.program"] = UnitAttr()

    def _copy_out(self, value: SSAValue) -> None:
        """The copies of `value` into the output buffers that return it."""
        for out in self.copies.get(value, ()):
            t = out.type
            assert isinstance(t, MemRefType)
            self.block.add_op(
                npu.CopyOp(self.buffers[value], out, self.stream_of_value[value], copy_cost(t))
            )

    def _lower(self, op: Operation) -> None:
        task_stream = stream.stream_of(op) or 0
        if isinstance(op, ge.ConstOp):
            value = op.value
            if isinstance(value, ge.ExternalDataAttr):
                value = npu.ExternalDataAttr(value.path.data, value.offset.data, value.length.data)
            elif isinstance(value, ge.ElidedAttr):
                value = npu.ElidedAttr()
            else:
                assert isinstance(value, DenseIntOrFPElementsAttr)
            weight = npu.WeightOp(value, buffer_type(op.output.type))
            weight.results[0].name_hint = op.output.name_hint
            weight.location = op.location
            self.block.add_op(weight)
            self._define(op.output, weight.results[0], task_stream)
        elif _is_view(op):
            view = npu.ViewOp(self.buffers[op.operands[0]], 0, buffer_type(op.results[0].type))
            view.results[0].name_hint = op.results[0].name_hint
            self.block.add_op(view)
            self._define(op.results[0], view.results[0], task_stream)
        elif isinstance(op, stream.RecordOp):
            self.events[op.event] = len(self.events)
            record = npu.RecordOp(self.events[op.event], task_stream)
            record.location = op.location
            self.block.add_op(record)
        elif isinstance(op, stream.WaitOp):
            wait = npu.WaitOp(self.events[op.event], task_stream)
            wait.location = op.location
            self.block.add_op(wait)
        elif isinstance(op, ge.ScatterUpdateOp):
            self._scatter_update(op, task_stream)
        elif op.name.startswith("ge."):
            outputs = []
            for result in op.results:
                out = self.direct.get(result)
                if out is None:
                    out = self._alloc(result)
                outputs.append(out)
            self._launch(op, [self.buffers[v] for v in op.operands], outputs, task_stream)
            for result, out in zip(op.results, outputs, strict=True):
                self._define(result, out, task_stream)
        else:
            raise op_error(op, f"--lower-to-device cannot lower '{op.name}'")

    def _alloc(self, result: SSAValue) -> SSAValue:
        alloc = npu.AllocOp(buffer_type(result.type))
        alloc.results[0].name_hint = result.name_hint
        self.block.add_op(alloc)
        return alloc.results[0]

    def _launch(
        self, op: Operation, inputs: list[SSAValue], outputs: list[SSAValue], task_stream: int
    ) -> None:
        _check_types(op, [v.type for v in op.operands], "operand")
        _check_types(op, [r.type for r in op.results], "result")
        launch = npu.LaunchOp(
            op.name.removeprefix("ge."),
            inputs,
            outputs,
            stream=task_stream,
            priority=_priority(op),
            in_types=[npu_type(v.type) for v in op.operands],
            out_types=[npu_type(r.type) for r in op.results],
            cost=cost_attr(cost.op_cost(op)),
            attrs=kernel_attrs(op),
        )
        launch.location = op.location
        launch.attributes.update(_scope_attrs(op))
        self.block.add_op(launch)

    def _scatter_update(self, op: ge.ScatterUpdateOp, task_stream: int) -> None:
        """The launch reads the buffer it updates and writes a view of it (the kernel
        writes only the update's positions there): the cache's own buffer when the update
        is in place (`_in_place_updates`), else a copy of the cache, made by an `npu.copy`
        just before into the output buffer (a result returned once) or a new allocation."""
        _check_types(op, [v.type for v in op.operands], "operand")
        cache = self.buffers[op.cache]
        if op not in self.in_place:
            target = self.direct.get(op.output) or self._alloc(op.output)
            t = target.type
            assert isinstance(t, MemRefType)
            copy = npu.CopyOp(cache, target, task_stream, copy_cost(t))
            copy.location = op.location
            self.block.add_op(copy)
            cache = target
        view = npu.ViewOp(cache, 0, buffer_type(op.output.type))
        view.results[0].name_hint = op.output.name_hint
        self.block.add_op(view)
        inputs = [cache, self.buffers[op.indices], self.buffers[op.update]]
        self._launch(op, inputs, [view.results[0]], task_stream)
        self._define(op.output, view.results[0], task_stream)

    def _define(self, value: SSAValue, buffer: SSAValue, on_stream: int) -> None:
        self.buffers[value] = buffer
        self.stream_of_value[value] = on_stream
        self._copy_out(value)


@dataclass(frozen=True)
class SuperKernelStreams:
    """A warning: the launches of one super kernel scope run on several streams, while its
    options lack `stream-fusion=1` (TorchAir: without it a super kernel's ops run on one
    stream)."""

    location: str
    scope: str
    streams: tuple[int, ...]

    def __str__(self) -> str:
        streams = ", ".join(map(str, self.streams))
        return (
            f"{self.location}: warning: super_kernel scope '{self.scope}' has kernels on "
            f"streams {streams}: a super kernel runs on one stream unless its options hold "
            "'stream-fusion=1'"
        )


def super_kernel_warnings(fn: func.FuncOp) -> list[SuperKernelStreams]:
    """A warning for each super kernel scope of program `fn` whose launches are on more
    than one stream without `stream-fusion=1`, in the order of their first launch."""
    first: dict[str, npu.LaunchOp] = {}
    streams: dict[str, set[int]] = {}
    fused: dict[str, bool] = {}
    for task in fn.body.ops:
        scope = task.attributes.get(SUPER_KERNEL_SCOPE)
        if not isinstance(task, npu.LaunchOp) or not isinstance(scope, StringAttr):
            continue
        if not scope.data:
            continue
        first.setdefault(scope.data, task)
        streams.setdefault(scope.data, set()).add(task.stream.value.data)
        options = task.attributes.get(SUPER_KERNEL_OPTIONS)
        if isinstance(options, StringAttr) and stream_fusion(options.data):
            fused[scope.data] = True
    return [
        SuperKernelStreams(location_str(launch.location), scope, tuple(sorted(streams[scope])))
        for scope, launch in first.items()
        if len(streams[scope]) > 1 and not fused.get(scope, False)
    ]


class LowerToDevicePass(ModulePass):
    """Lowers `ge` functions to `npu` programs (GE's task list) for the simulated NPU."""

    name = "lower-to-device"

    STATISTICS: ClassVar[dict[str, str]] = {
        "launches": "npu.launch tasks (one per ge op)",
        "events": "npu.record events (one per stream.record)",
        "copies": "npu.copy tasks into output buffers",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        counts = dict.fromkeys(self.STATISTICS, 0)
        for fn in functions:
            if "npu.program" in fn.attributes:
                continue
            _Lowering(fn).run()
            for warning in super_kernel_warnings(fn):
                reports.record(op, warning)
            for task in fn.body.block.ops:
                if isinstance(task, npu.LaunchOp):
                    counts["launches"] += 1
                elif isinstance(task, npu.RecordOp):
                    counts["events"] += 1
                elif isinstance(task, npu.CopyOp):
                    counts["copies"] += 1
        for statistic, n in counts.items():
            reports.count(op, self.name, statistic, n)
