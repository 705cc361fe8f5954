"""The PyTorch frontend: aten-level FX graphs -> `ge` modules, and `import_torch`.

    from ge_dialect.frontend.torch_import import import_torch
    module = import_torch(model.eval(), (torch.randn(1, 3, 32, 32),))

`import_torch` exports the module with `torch.export` (static shapes, the example inputs'),
decomposes it to core ATen and converts the graph through the `GraphBuilder`; parameters
and buffers become `ge.const`s (their values at import: the graph is for inference),
except a buffer the graph writes (a KV cache: `cache[:, :, pos] = new`, `index_copy_`, a
static slice assignment, each a `ge.scatter_update`), which is state: an input named
after the buffer, and its new value an output named `<buffer>_new`.
`FxConverter` is the conversion itself, shared with the `torch.compile` backend
(`ge_dialect.torchair`), which traces Dynamo's graph to ATen with `make_fx`.

Folded at import: a call whose tensor operands are all known at import (parameters,
buffers, earlier folded calls; or that has none, as arange, full, scalar_tensor; the
operand of full_like/zeros_like/ones_like gives only its static shape) is evaluated with
torch itself (the node's target on the known tensors), and its value becomes a `ge.const`
at its first use by a converted op.  So the attention masks and position ids that
Hugging Face models build from arange/full/cumsum/eq/index/any on static shapes leave no
op in the graph.  Never folded: a call that depends on a graph input, a scope op, a random
op (torch's `nondeterministic_seeded` tag), an uninitialised `empty*`, a call whose result
takes more than `FOLD_LIMIT_BYTES` (64 MiB), a call torch rejects or one that gives no
tensor: those convert as usual.  Parameters and buffers are known values too: a weight
used only by folded calls (a transposed weight) leaves only the folded constant.

TorchAir's scope ops (`ge_scope.scope_enter` / `scope_exit` / `wait_tensor`, registered by
`ge_dialect.torchair`) become the builder's `enter_stream` / `exit_stream` / `wait_tensor`:
every `ge` op converted between an enter and its exit carries the scope's `stream.label`,
and a wait rebinds the waited tensor, so every later use of it (in FX order) reads the
wait's result, even when the model discarded what `npu_wait_tensor` returned.  Any other
scope's keys (`limit_core_num`'s `_op_aicore_num`, `super_kernel`'s `_super_kernel_scope`,
...) become string attributes of the ops converted inside it (not the constants), by
TorchAir's names and rules (`ge_dialect.utils.scope_attrs`); `op_never_timeout`'s
`_op_exec_never_timeout` is a bool, as TorchAir sets it.  TorchAir's explicit events
(`ge_scope.tagged_event_record` / `tagged_event_wait`, `record` / `wait`): a record marks
the last op converted on the current stream, and a wait puts `stream.wait_tensor`s after it
on the tensor operands of the next op converted on its stream (see
`ge_dialect.torchair.ops`).

Each op is located at the model's source line (the FX node's `stack_trace`: the innermost
frame outside torch and ge_dialect).  An op that cannot be converted raises one `GeError`
naming the op and that line; no module is returned.  `torch` is imported by this module:
import it only when a PyTorch model is at hand (never on ge-opt's start-up path).
"""

from __future__ import annotations

import contextlib
import linecache
import operator
import os
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.fx
from xdsl.dialects.builtin import BoolAttr, FileLineColLoc, IntAttr, ModuleOp, StringAttr, i1
from xdsl.ir import Attribute

from ge_dialect.frontend.builder import GraphBuilder, Tensor
from ge_dialect.utils import dtypes, shapes
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.scope_attrs import NEVER_TIMEOUT

SCOPE_NAMESPACE = "ge_scope"
"""The `torch.library` namespace of the scope ops (`ge_dialect.torchair` defines them)."""

_NUMPY_DTYPES: dict[torch.dtype, np.dtype] = {
    getattr(torch, row.torch): row.numpy
    for row in map(dtypes.row, dtypes.GRAPH_TYPES)
    if row.torch is not None
}
"""The torch dtypes a graph may hold (the dtype table's graph types), in its order."""


def numpy_dtype(dtype: torch.dtype, what: str = "a tensor") -> np.dtype:
    """The numpy dtype of a torch dtype the graph supports, else a `GeError`."""
    try:
        return _NUMPY_DTYPES[dtype]
    except KeyError:
        supported = ", ".join(str(d).removeprefix("torch.") for d in _NUMPY_DTYPES)
        raise GeError(
            f"error: {what} has dtype {str(dtype).removeprefix('torch.')}, which ge does not "
            f"support ({supported})"
        ) from None


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """A detached CPU copy of `t` as a numpy array (a `GeError` for an unsupported dtype)."""
    numpy_dtype(t.dtype)
    return t.detach().cpu().contiguous().numpy()


# ---- source locations -------------------------------------------------------------------------

_TORCH_DIR = os.path.join(os.path.dirname(os.path.abspath(torch.__file__)), "")
_OWN_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "")
_LIBRARY_FILES = (os.path.abspath(contextlib.__file__),)  # a scope's `with` goes through it
_CARETS = re.compile(r"^\s*[\^~]+\s*$")
_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>.*)$')


@dataclass(frozen=True)
class SourceLine:
    """Where the model's code created an FX node: file, line, column and the line's text."""

    file: str
    line: int
    col: int
    text: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


def source_line(node: torch.fx.Node) -> SourceLine | None:
    """The innermost frame of `node`'s stack trace outside torch and ge_dialect."""
    trace = node.meta.get("stack_trace")
    if not isinstance(trace, str):
        return None
    lines = trace.splitlines()
    best: SourceLine | None = None
    fallback: SourceLine | None = None
    for i, line in enumerate(lines):
        m = _FRAME.match(line)
        if m is None:
            continue
        code = lines[i + 1] if i + 1 < len(lines) and not _FRAME.match(lines[i + 1]) else ""
        carets = lines[i + 2] if i + 2 < len(lines) and _CARETS.match(lines[i + 2]) else ""
        original = linecache.getline(m["file"], int(m["line"]))
        indent = len(original) - len(original.lstrip()) if original.strip() else 0
        # a traceback prints the stripped line indented by 4, its carets under it
        offset = len(carets) - len(carets.lstrip()) - 4 if carets else 0
        here = SourceLine(m["file"], int(m["line"]), indent + max(offset, 0) + 1, code.strip())
        fallback = here
        path = os.path.abspath(m["file"])
        if not path.startswith((_TORCH_DIR, _OWN_DIR)) and path not in _LIBRARY_FILES:
            best = here
    return best or fallback


# ---- the converter ----------------------------------------------------------------------------


class _Unsupported(Exception):
    """An op (or a use of one) the converter cannot express in `ge`."""


Value = Any  # a Tensor handle, a tuple of them (multi-result ops), or None


@dataclass
class Converted:
    """A converted graph: the module and how to feed and read it."""

    module: ModuleOp
    inputs: list[str]  # runtime input names, in placeholder order
    outputs: list[str]  # output names, in the graph's output order
    output_dtypes: list[torch.dtype | None]
    scopes: list[tuple[str, SourceLine | None]] = field(default_factory=list)
    """Each `npu_stream_switch` of the graph: its stream tag and the line that opens it."""
    attribute_scopes: list[tuple[dict[str, str], SourceLine | None]] = field(default_factory=list)
    """Each other scope (`limit_core_num`, `super_kernel`, ...): its attributes and its line."""


class FxConverter:
    """Converts one aten-level `torch.fx.Graph` into a `ge` function through `GraphBuilder`.

    `constants` gives the value of a placeholder that is a parameter or buffer (it becomes a
    `ge.const`); every other placeholder is an input named by `input_names` (its FX name
    otherwise).  `owner` resolves `get_attr` nodes.  `label` prefixes errors that have no
    source line.
    """

    def __init__(
        self,
        graph: torch.fx.Graph,
        *,
        owner: torch.nn.Module | None = None,
        constants: Mapping[str, torch.Tensor] | None = None,
        input_names: Mapping[str, str] | None = None,
        output_names: Sequence[str] | None = None,
        name: str = "main",
        label: str = "<torch>",
    ):
        self.graph = graph
        self.owner = owner
        self.constants = dict(constants or {})
        self.input_names = dict(input_names or {})
        self.output_names = list(output_names) if output_names is not None else None
        self.label = label
        self.b = GraphBuilder(name, locate=False)
        self.scopes: list[tuple[str, SourceLine | None]] = []
        self.attribute_scopes: list[tuple[dict[str, str], SourceLine | None]] = []
        self.open_scopes: list[tuple[bool, dict[str, str]]] = []
        """The scopes entered and not exited, outermost first: whether each is a stream
        scope, and its other attributes (TorchAir's, which the ops converted inside get)."""
        self.env: dict[torch.fx.Node, Value] = {}
        self.last_op: dict[str | None, Tensor] = {}
        """Per stream tag (None: the default stream), the last op converted on it: what a
        record of TorchAir's explicit events (`tng.ops`) marks."""
        self.recorded: dict[str, Tensor | None] = {}
        """Each tagged event's latest record (None: it had no op before it)."""
        self.pending_waits: dict[str | None, list[Tensor]] = {}
        """Per stream tag, what the next op converted on it must wait for."""
        self.known: dict[torch.fx.Node, Any] = {}
        """Values known at import (parameters, buffers, folded nodes) as torch tensors; each
        becomes a `ge.const` at its first use by a converted op (`value`)."""

    # -- driver --

    def convert(self) -> Converted:
        inputs: list[str] = []
        outputs: list[Tensor] = []
        out_dtypes: list[torch.dtype | None] = []
        for node in self.graph.nodes:
            if node.op == "placeholder" and node.name in self.constants:
                self.known[node] = self.constants[node.name]
            elif node.op == "placeholder":
                self.env[node] = self._placeholder(node, inputs)
            elif node.op == "get_attr":
                self.known[node] = self._attr(node)
            elif node.op == "call_function":
                if not node.users and not _is_scope_op(node.target):
                    continue  # dead (the unused results of batch norm, assertions, ...)
                if not self._fold(node):
                    self._call(node)
            elif node.op == "output":
                flat = _flatten(node.args[0])
                for item in flat:
                    value = self.value(item) if isinstance(item, torch.fx.Node) else None
                    if not isinstance(value, Tensor):
                        raise self._error(node, f"graph output {item!r} is not a tensor")
                    assert isinstance(item, torch.fx.Node)
                    outputs.append(value)
                    out_dtypes.append(_meta_dtype(item))
            else:
                raise self._error(node, f"unsupported FX node kind '{node.op}'")
        names = self._unique_output_names(outputs)
        module = self.b.build(outputs, names)
        return Converted(module, inputs, names, out_dtypes, self.scopes, self.attribute_scopes)

    def _unique_output_names(self, outputs: Sequence[Tensor]) -> list[str]:
        given = self.output_names or []
        names: list[str] = []
        for i in range(len(outputs)):
            base = given[i] if i < len(given) and given[i] else f"out{i}"
            candidate, k = base, 1
            while candidate in names or candidate in self.b_inputs():
                candidate, k = f"{base}_{k}", k + 1
            names.append(candidate)
        return names

    def b_inputs(self) -> set[str]:
        return {n for n, _ in self.b._inputs}

    # -- placeholders and constants --

    def _placeholder(self, node: torch.fx.Node, inputs: list[str]) -> Value:
        if node.name in self.constants:
            return self._const_of(self.constants[node.name], node.name)
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            raise self._error(node, f"input '{node.name}' is not a tensor ({type(val).__name__})")
        name = self.input_names.get(node.name, node.name)
        shape = [_static_dim(d, node) for d in val.shape]
        dtype = numpy_dtype(val.dtype, f"input '{name}'")
        inputs.append(name)
        return self.b.input(name, shape, dtype)

    def _attr(self, node: torch.fx.Node) -> torch.Tensor:
        obj: Any = self.owner
        for part in str(node.target).split("."):
            obj = getattr(obj, part, None)
        if not isinstance(obj, torch.Tensor):
            raise self._error(node, f"attribute '{node.target}' is not a tensor")
        return obj

    def _const_of(self, t: torch.Tensor, name: str) -> Tensor:
        return self.b.const(to_numpy(t), name=name)

    # -- folding at import --

    def _fold(self, node: torch.fx.Node) -> bool:
        """Evaluates `node` with torch when its value is known at import (see the module
        docstring); records it in `known` and says whether it did."""
        op_name = _op_name(node.target)
        if not _foldable(node, op_name, self.known):
            return False

        def arg(n: torch.fx.Node) -> Any:
            if n in self.known:
                return self.known[n]
            val = n.meta["val"]  # the shape-only operand of a *_like op
            return torch.zeros(val.shape, dtype=val.dtype)

        args = torch.fx.node.map_arg(node.args, arg)
        kwargs = torch.fx.node.map_arg(node.kwargs, arg)
        target = node.target
        assert callable(target)  # `_foldable` checked it
        try:
            with torch.no_grad():
                value = target(*args, **kwargs)
        except Exception:  # noqa: BLE001 - torch rejects it: convert the node as usual
            return False
        flat = _flatten(value) if isinstance(value, tuple | list) else [value]
        tensors = [t for t in flat if isinstance(t, torch.Tensor)]
        if len(tensors) != len(flat):
            return False
        if sum(t.numel() * t.element_size() for t in tensors) > FOLD_LIMIT_BYTES:
            return False
        self.known[node] = value
        return True

    # -- one call --

    def _call(self, node: torch.fx.Node) -> None:
        target = node.target
        op_name = _op_name(target)
        handler = _HANDLERS.get(op_name) or _HANDLERS.get(op_name.rsplit(".", 1)[0])
        if handler is None:
            raise self._error(node, f"unsupported PyTorch op '{op_name}'")
        first = len(self.b.block.ops)
        scope_op = _is_scope_op(target)
        try:
            if not scope_op:
                self._apply_waits(node)
            self.env[node] = handler(self, node, *node.args, **node.kwargs)
        except _Unsupported as e:
            raise self._error(node, f"unsupported PyTorch op '{op_name}': {e}") from None
        except GeError as e:
            message = str(e).removeprefix("error: ")
            raise self._error(node, f"cannot convert PyTorch op '{op_name}': {message}") from None
        where = source_line(node)
        if where is not None:
            loc = FileLineColLoc(StringAttr(where.file), IntAttr(where.line), IntAttr(where.col))
            for op in list(self.b.block.ops)[first:]:
                op.location = loc
        scope_attrs = self._scope_attributes()
        if scope_attrs:
            for op in list(self.b.block.ops)[first:]:
                if op.name != "ge.const":
                    op.attributes.update(scope_attrs)
        if not scope_op:
            for op in reversed(list(self.b.block.ops)[first:]):
                if op.results and op.name not in ("ge.const", "stream.wait_tensor"):
                    self.last_op[self.b.stream_tag] = Tensor(self.b, op.results[0])
                    break

    def _apply_waits(self, node: torch.fx.Node) -> None:
        """The pending waits of the current stream (`tng.ops` events) on `node`'s tensor
        operands: each becomes a `stream.wait_tensor` after every dependency, rebinding the
        operand as `npu_wait_tensor` does.  A node without converted tensor operands (a
        constant's) leaves them pending for the next one."""
        tag = self.b.stream_tag
        deps = self.pending_waits.get(tag)
        if not deps:
            return
        operands = [
            self.env[n] for n in node.all_input_nodes if isinstance(self.env.get(n), Tensor)
        ]
        if not operands:
            return
        for x in dict.fromkeys(operands):
            for dep in deps:
                if x.value is not dep.value:
                    self.b.wait_tensor(x, dep)
        del self.pending_waits[tag]

    def _scope_attributes(self) -> dict[str, Attribute]:
        """The attributes of the open scopes, as TorchAir applies them: outermost first, so
        the innermost value of a key wins, and a `super_kernel(None)` scope (an empty
        `_super_kernel_scope`) removes the super kernel attributes of those around it."""
        attrs: dict[str, str] = {}
        for _, scope in self.open_scopes:
            for key, value in scope.items():
                if key == "_super_kernel_scope" and value == "":
                    attrs.pop("_super_kernel_scope", None)
                    attrs.pop("_super_kernel_options", None)
                    break
                attrs[key] = value
        return {
            # TorchAir sets `_op_exec_never_timeout` as a bool, the others as strings
            key: BoolAttr(value == "True", i1) if key == NEVER_TIMEOUT else StringAttr(value)
            for key, value in attrs.items()
        }

    def wait_for(self, deps: Sequence[Tensor | None]) -> None:
        """The next op converted on the current stream waits for `deps` (None: nothing)."""
        pending = self.pending_waits.setdefault(self.b.stream_tag, [])
        pending.extend(d for d in deps if d is not None)

    def _error(self, node: torch.fx.Node, message: str) -> GeError:
        where = source_line(node)
        if where is None:
            return GeError(f"{self.label}: error: {message} (FX node '{node.name}')")
        code = f"\n    {where.text}" if where.text else ""
        return GeError(f"{where}: error: {message}{code}")

    # -- helpers for handlers --

    def name(self, node: torch.fx.Node) -> str:
        """The SSA name hint of `node`'s result: the model's variable name when the node
        was traced from a Dynamo graph (`from_node`), else the node's own name."""
        origin = node.meta.get("from_node")
        if (
            isinstance(origin, list)
            and origin
            and isinstance(getattr(origin[0], "name", None), str)
        ):
            return origin[0].name
        return node.name

    def value(self, node: torch.fx.Node) -> Value:
        """The converted value of `node`; a value known at import becomes a `ge.const` here,
        at its first use (a parameter keeps its placeholder's name)."""
        known = self.known.get(node)
        if node not in self.env and isinstance(known, torch.Tensor):
            name = self.name(node) if node.op == "call_function" else node.name
            self.env[node] = self._const_of(known, name)
        return self.env.get(node)

    def t(self, arg: object) -> Tensor:
        """The handle of an FX argument that must be a tensor."""
        if isinstance(arg, torch.fx.Node):
            value = self.value(arg)
            if isinstance(value, Tensor):
                return value
            raise _Unsupported(f"its operand '{arg.name}' has no converted value")
        raise _Unsupported(f"expected a tensor operand, got {arg!r}")

    def scalar_like(self, value: object, like: Tensor) -> Tensor:
        if not isinstance(value, int | float | bool):
            raise _Unsupported(f"expected a tensor or a number, got {value!r}")
        return self.b.const(np.asarray(value, dtype=dtypes.np_dtype(like.element_type)))

    def operand(self, arg: object, like: Tensor) -> Tensor:
        return self.t(arg) if isinstance(arg, torch.fx.Node) else self.scalar_like(arg, like)


FOLD_LIMIT_BYTES = 64 * 2**20
"""A node is folded at import only if its result takes at most this many bytes."""

_SHAPE_ONLY = ("aten.full_like", "aten.zeros_like", "aten.ones_like")
"""Ops whose tensor operand gives only a shape and dtype (static): foldable on inputs."""


def _foldable(node: torch.fx.Node, op_name: str, known: Mapping[torch.fx.Node, Any]) -> bool:
    """Whether `node` may be evaluated at import: a deterministic op (never a scope op, a
    random one or an uninitialised `empty`) whose tensor operands are all known (or only
    give a shape), and whose result (by its metadata) fits `FOLD_LIMIT_BYTES`."""
    if _is_scope_op(node.target) or not callable(node.target):
        return False
    if torch.Tag.nondeterministic_seeded in getattr(node.target, "tags", ()):
        return False
    if "empty" in op_name:
        return False
    operands = node.all_input_nodes
    shape_only = op_name.rsplit(".", 1)[0] in _SHAPE_ONLY
    if shape_only and operands and isinstance(operands[0].meta.get("val"), torch.Tensor):
        operands = operands[1:]
    if any(n not in known for n in operands):
        return False
    val = node.meta.get("val")
    vals = _flatten(val) if isinstance(val, tuple | list) else [val]
    size = sum(v.numel() * v.element_size() for v in vals if isinstance(v, torch.Tensor))
    return size <= FOLD_LIMIT_BYTES


def _is_scope_op(target: object) -> bool:
    return _op_name(target).startswith(SCOPE_NAMESPACE + ".")


def _op_name(target: object) -> str:
    if target is operator.getitem:
        return "getitem"
    if isinstance(target, torch._ops.OpOverload | torch._ops.OpOverloadPacket):
        return str(target)
    return getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or str(target)


def _flatten(value: object) -> list[object]:
    if isinstance(value, list | tuple):
        return [x for v in value for x in _flatten(v)]
    return [value]


def _meta_dtype(node: torch.fx.Node) -> torch.dtype | None:
    val = node.meta.get("val")
    return val.dtype if isinstance(val, torch.Tensor) else None


def _meta_shape(node: torch.fx.Node) -> list[int] | None:
    val = node.meta.get("val")
    if isinstance(val, torch.Tensor):
        return [_static_dim(d, node) for d in val.shape]
    return None


def _static_dim(d: object, node: torch.fx.Node) -> int:
    if isinstance(d, int):
        return d
    raise _Unsupported(f"'{node.name}' has a dynamic dimension {d} (compile with dynamic=False)")


# ---- handlers: (converter, node, *args, **kwargs) -> value ------------------------------------

Handler = Callable[..., Value]
_HANDLERS: dict[str, Handler] = {}


def _handles(*names: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for n in names:
            _HANDLERS[n] = fn
        return fn

    return register


@_handles(f"{SCOPE_NAMESPACE}.scope_enter")
def _scope_enter(c: FxConverter, node, keys, values, *rest) -> None:
    attrs = dict(zip(keys, values, strict=True))
    label = attrs.pop("_user_stream_label", None)
    if label is not None:
        c.scopes.append((label, source_line(node)))
        c.b.enter_stream(
            label,
            int(attrs.pop("_user_stream_priority", "0")),
            attrs.pop("_enable_inner_parallel", "True") == "True",
        )
    if attrs:
        c.attribute_scopes.append((attrs, source_line(node)))
    c.open_scopes.append((label is not None, attrs))


@_handles(f"{SCOPE_NAMESPACE}.scope_exit")
def _scope_exit(c: FxConverter, node, *rest) -> None:
    if not c.open_scopes:
        raise _Unsupported("a scope exit without a matching scope enter")
    is_stream, _ = c.open_scopes.pop()
    if is_stream:
        c.b.exit_stream()


@_handles(f"{SCOPE_NAMESPACE}.wait_tensor")
def _wait_tensor(c: FxConverter, node, x, dependency) -> Tensor:
    # the builder rebinds the handle of `x`: every later use of `x` reads the wait's result
    return c.b.wait_tensor(c.t(x), c.t(dependency))


@_handles(f"{SCOPE_NAMESPACE}.tagged_event_record")
def _tagged_event_record(c: FxConverter, node, tag, created_inside=False) -> None:
    c.recorded[tag] = c.last_op.get(c.b.stream_tag)


@_handles(f"{SCOPE_NAMESPACE}.tagged_event_wait")
def _tagged_event_wait(c: FxConverter, node, tag, created_inside=False) -> None:
    if tag not in c.recorded:
        raise GeError(
            f"error: npu_tagged_event_wait: tagged event '{tag}' is not recorded before this "
            "wait (call npu_tagged_event_record on it earlier in forward)"
        )
    c.wait_for([c.recorded[tag]])


@dataclass
class _Recorded:
    """What `tng.ops.record()` returns: the op it marks (None: none before it)."""

    value: Tensor | None


@_handles(f"{SCOPE_NAMESPACE}.record")
def _record(c: FxConverter, node, device=None) -> _Recorded:
    return _Recorded(c.last_op.get(c.b.stream_tag))


@_handles(f"{SCOPE_NAMESPACE}.wait")
def _wait(c: FxConverter, node, tensors) -> None:
    deps: list[Tensor | None] = []
    for t in tensors:
        value = c.env.get(t) if isinstance(t, torch.fx.Node) else None
        if isinstance(value, _Recorded):
            deps.append(value.value)
        elif isinstance(value, Tensor):  # a snapshot: a later wait on it does not move it
            deps.append(Tensor(c.b, value.value))
        # else a value known at import (a constant): nothing to wait for
    c.wait_for(deps)


@_handles("getitem")
def _getitem(c: FxConverter, node, value, index) -> Value:
    converted = c.env.get(value) if isinstance(value, torch.fx.Node) else None
    if not isinstance(converted, tuple):
        raise _Unsupported(f"indexing {value!r}")
    item = converted[index]
    if item is None:
        raise _Unsupported(f"result {index} of '{value.name}' is not supported")
    return item


@_handles("aten.convolution", "aten.conv2d")
def _convolution(
    c: FxConverter,
    node,
    x,
    w,
    bias=None,
    stride=(1, 1),
    padding=(0, 0),
    dilation=(1, 1),
    transposed=False,
    output_padding=(0, 0),
    groups=1,
) -> Tensor:
    if (
        node.target == torch.ops.aten.conv2d.default
    ):  # conv2d(x, w, b, stride, padding, dil, groups)
        groups, transposed = transposed or 1, False
    if transposed:
        raise _Unsupported("transposed convolution")
    if isinstance(padding, str):
        raise _Unsupported(f"padding='{padding}'")
    xt = c.t(x)
    if len(xt.shape) != 4:
        raise _Unsupported(f"only 2-D convolution (NCHW), got an input of rank {len(xt.shape)}")
    ph, pw = _pair(padding)
    return c.b.conv2d(
        xt,
        c.t(w),
        None if bias is None else c.t(bias),
        _pair(stride),
        [ph, ph, pw, pw],
        _pair(dilation),
        groups,
        name=c.name(node),
    )


def _pair(v: object) -> list[int]:
    items = list(v) if isinstance(v, list | tuple) else [v]
    if len(items) == 1:
        items = items * 2
    ints = [i for i in items if isinstance(i, int)]
    if len(items) != 2 or len(ints) != 2:
        raise _Unsupported(f"expected two integers, got {v!r}")
    return ints


def _batch_norm(c: FxConverter, node, x, weight, bias, mean, var, eps) -> Tensor:
    xt = c.t(x)
    if mean is None or var is None:
        raise _Unsupported("batch norm without running statistics (training mode)")
    channels = xt.shape[1]
    dt = dtypes.np_dtype(xt.element_type)
    scale = c.t(weight) if weight is not None else c.b.const(np.ones(channels, dt))
    offset = c.t(bias) if bias is not None else c.b.const(np.zeros(channels, dt))
    return c.b.batch_norm(xt, scale, offset, c.t(mean), c.t(var), float(eps), name=c.name(node))


@_handles("aten._native_batch_norm_legit_no_training")
def _bn_no_training(c, node, x, weight, bias, mean, var, momentum, eps) -> tuple:
    return (_batch_norm(c, node, x, weight, bias, mean, var, eps), None, None)


@_handles("aten.native_batch_norm", "aten._native_batch_norm_legit")
def _bn(c, node, x, weight, bias, mean, var, training, momentum, eps) -> tuple:
    if training:
        raise _Unsupported("training-mode batch norm (call model.eval())")
    return (_batch_norm(c, node, x, weight, bias, mean, var, eps), None, None)


@_handles("aten.batch_norm")
def _bn_plain(c, node, x, weight, bias, mean, var, training, momentum, eps, *rest) -> Tensor:
    if training:
        raise _Unsupported("training-mode batch norm (call model.eval())")
    return _batch_norm(c, node, x, weight, bias, mean, var, eps)


@_handles("aten.hardtanh")
def _hardtanh(c, node, x, min_val=-1.0, max_val=1.0) -> Tensor:
    if min_val == 0 and max_val == 6:
        return c.b.relu6(c.t(x), name=c.name(node))
    return c.b.clip(c.t(x), float(min_val), float(max_val), name=c.name(node))


@_handles("aten.clamp")
def _clamp(c, node, x, min=None, max=None) -> Tensor:
    if (
        min is None
        or max is None
        or isinstance(min, torch.fx.Node)
        or isinstance(max, torch.fx.Node)
    ):
        raise _Unsupported("clamp needs both a constant min and max")
    return c.b.clip(c.t(x), float(min), float(max), name=c.name(node))


@_handles("aten.leaky_relu")
def _leaky_relu(c, node, x, negative_slope=0.01) -> Tensor:
    return c.b.leaky_relu(c.t(x), float(negative_slope), name=c.name(node))


def _unary(method: str) -> Handler:
    """The handler of an ATen op that is the builder's one-input op `method`."""

    def handle(c, node, x) -> Tensor:
        return getattr(c.b, method)(c.t(x), name=c.name(node))

    return handle


for _method in (
    "relu",
    "relu6",
    "sigmoid",
    "silu",
    "exp",
    "log",
    "tanh",
    "erf",
    "sqrt",
    "rsqrt",
    "neg",
    "reciprocal",
):
    _handles(f"aten.{_method}")(_unary(_method))


@_handles("aten.gelu")
def _gelu(c, node, x, approximate="none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise _Unsupported(f"approximate={approximate!r} (only 'none' and 'tanh')")
    return c.b.gelu(c.t(x), str(approximate), name=c.name(node))


def _check_same_dtype(node, *tensors: Tensor) -> None:
    kinds = {str(t.element_type) for t in tensors}
    expected = _meta_dtype(node)
    if len(kinds) > 1:
        raise _Unsupported(f"operands of different dtypes ({', '.join(sorted(kinds))})")
    if expected is not None:
        if numpy_dtype(expected) != dtypes.np_dtype(tensors[0].element_type):
            raise _Unsupported(f"a result of dtype {expected} from {sorted(kinds)[0]} operands")


def _binary(kind: str) -> Handler:
    def convert(c: FxConverter, node, a, b, alpha=1, rounding_mode=None) -> Tensor:
        if rounding_mode is not None:
            raise _Unsupported(
                f"rounding_mode={rounding_mode!r} (only true division, rounding_mode=None)"
            )
        if not isinstance(a, torch.fx.Node):  # a number first: 2 - x, 2 * x
            if kind in ("add", "mul", "maximum", "minimum"):
                a, b = b, a
            elif alpha == 1:  # 1.0 - mask: the number in the tensor's type
                bt = c.t(b)
                at = c.scalar_like(a, bt)
                _check_same_dtype(node, at, bt)
                return getattr(c.b, kind)(at, bt, name=c.name(node))
            else:
                raise _Unsupported(f"a number as the first operand of {kind} with alpha {alpha}")
        at = c.t(a)
        if kind == "div" and not isinstance(b, torch.fx.Node) and b != 0:
            bt = c.scalar_like(1.0 / b, at)  # x / 0 stays a division: inf, -inf or NaN
            _check_same_dtype(node, at, bt)
            return c.b.mul(at, bt, name=c.name(node))
        bt = c.operand(b, at)
        if alpha != 1:
            if isinstance(b, torch.fx.Node):
                bt = c.b.mul(bt, c.scalar_like(alpha, bt))
            else:
                bt = c.scalar_like(b * alpha, at)
        _check_same_dtype(node, at, bt)
        return getattr(c.b, kind)(at, bt, name=c.name(node))

    return convert


for _kind in ("add", "sub", "mul", "div"):
    _HANDLERS[f"aten.{_kind}.Tensor"] = _HANDLERS[f"aten.{_kind}.Scalar"] = _binary(_kind)
_HANDLERS["aten.div.Tensor_mode"] = _HANDLERS["aten.div.Scalar_mode"] = _binary("div")
_HANDLERS["aten.maximum"] = _binary("maximum")
_HANDLERS["aten.minimum"] = _binary("minimum")
_HANDLERS["aten.pow.Tensor_Tensor"] = _HANDLERS["aten.pow.Tensor_Scalar"] = _binary("pow")

_handles("aten.sin")(_unary("sin"))
_handles("aten.cos")(_unary("cos"))


def _compare(kind: str) -> Handler:
    """The handler of `aten.<eq|ne|lt|le|gt|ge>` (.Tensor or .Scalar): an i1 result."""

    def convert(c: FxConverter, node, a, b) -> Tensor:
        if not isinstance(a, torch.fx.Node):
            raise _Unsupported(f"a number as the first operand of {kind}")
        at = c.t(a)
        bt = c.operand(b, at)
        if at.element_type != bt.element_type:
            raise _Unsupported(
                f"operands of different dtypes ({at.element_type} and {bt.element_type})"
            )
        return c.b.compare(kind, at, bt, name=c.name(node))

    return convert


for _aten, _kind in (
    ("eq", "equal"),
    ("ne", "not_equal"),
    ("lt", "less"),
    ("le", "less_equal"),
    ("gt", "greater"),
    ("ge", "greater_equal"),
):
    _HANDLERS[f"aten.{_aten}.Tensor"] = _HANDLERS[f"aten.{_aten}.Scalar"] = _compare(_kind)


def _require_bool(x: Tensor, what: str) -> None:
    if dtypes.type_name(x.element_type) != "i1":
        raise _Unsupported(f"{what} of a {x.element_type} tensor (only of bool)")


@_handles("aten.logical_not", "aten.bitwise_not")
def _logical_not(c, node, x) -> Tensor:
    xt = c.t(x)
    _require_bool(xt, "a logical not")
    return c.b.logical_not(xt, name=c.name(node))


def _logical(kind: str) -> Handler:
    """`aten.logical_<kind>`, and `aten.bitwise_<kind>` on bool: an i1 result."""

    def convert(c: FxConverter, node, a, b) -> Tensor:
        at = c.t(a)
        bt = c.operand(b, at)
        _require_bool(at, f"a logical {kind}")
        _require_bool(bt, f"a logical {kind}")
        return getattr(c.b, f"logical_{kind}")(at, bt, name=c.name(node))

    return convert


for _kind in ("and", "or"):
    _HANDLERS[f"aten.logical_{_kind}"] = _logical(_kind)
    _HANDLERS[f"aten.bitwise_{_kind}.Tensor"] = _logical(_kind)
    _HANDLERS[f"aten.bitwise_{_kind}.Scalar"] = _logical(_kind)


@_handles("aten.where.self", "aten.where.ScalarSelf", "aten.where.ScalarOther")
def _where(c, node, cond, a, b) -> Tensor:
    ct = c.t(cond)
    _require_bool(ct, "a where condition")
    if isinstance(a, torch.fx.Node):
        at = c.t(a)
        bt = c.operand(b, at)
    else:
        bt = c.t(b)
        at = c.operand(a, bt)
    if at.element_type != bt.element_type:
        raise _Unsupported(
            f"operands of different dtypes ({at.element_type} and {bt.element_type})"
        )
    return c.b.where(ct, at, bt, name=c.name(node))


@_handles("aten.rsub")
def _rsub(c, node, x, other, alpha=1) -> Tensor:
    xt = c.t(x)
    if alpha != 1:
        xt = c.b.mul(xt, c.scalar_like(alpha, xt))
    return c.b.sub(c.operand(other, xt), xt, name=c.name(node))


@_handles("aten.mm", "aten.bmm", "aten.matmul")
def _mm(c, node, a, b) -> Tensor:
    at, bt = c.t(a), c.t(b)
    if len(at.shape) < 2 or len(bt.shape) < 2:
        raise _Unsupported("matmul of a 1-D operand")
    return c.b.matmul(at, bt, name=c.name(node))


@_handles("aten.addmm")
def _addmm(c, node, bias, a, b, beta=1, alpha=1) -> Tensor:
    if beta != 1 or alpha != 1:
        raise _Unsupported(f"addmm with beta={beta}, alpha={alpha}")
    at, bt, ct = c.t(a), c.t(b), c.t(bias)
    if len(ct.shape) == 1 and ct.shape[0] == bt.shape[-1]:
        return c.b.matmul(at, bt, ct, name=c.name(node))
    return c.b.add(c.b.matmul(at, bt), ct, name=c.name(node))


@_handles("aten.linear")
def _linear(c, node, x, w, bias=None) -> Tensor:
    xt, wt = c.t(x), c.t(w)
    bt = None if bias is None else c.t(bias)
    return c.b.matmul(xt, wt, bt, transpose_b=True, name=c.name(node))


def _pool_args(kernel, stride, padding) -> tuple[list[int], list[int], list[int]]:
    k = _pair(kernel)
    s = _pair(stride) if stride not in (None, [], ()) else k
    ph, pw = _pair(padding)
    return k, s, [ph, ph, pw, pw]


@_handles("aten.max_pool2d_with_indices", "aten.max_pool2d")
def _max_pool(c, node, x, kernel, stride=None, padding=0, dilation=1, ceil_mode=False) -> Value:
    if _pair(dilation) != [1, 1]:
        raise _Unsupported(f"dilation {dilation}")
    k, s, p = _pool_args(kernel, stride, padding)
    y = c.b.max_pool(c.t(x), k, s, p, bool(ceil_mode), name=c.name(node))
    return (y, None) if "with_indices" in _op_name(node.target) else y


@_handles("aten.avg_pool2d")
def _avg_pool(
    c,
    node,
    x,
    kernel,
    stride=None,
    padding=0,
    ceil_mode=False,
    count_include_pad=True,
    divisor_override=None,
) -> Tensor:
    if divisor_override is not None:
        raise _Unsupported(f"divisor_override={divisor_override}")
    k, s, p = _pool_args(kernel, stride, padding)
    return c.b.avg_pool(
        c.t(x), k, s, p, bool(ceil_mode), bool(count_include_pad), name=c.name(node)
    )


@_handles("aten._adaptive_avg_pool2d", "aten.adaptive_avg_pool2d")
def _adaptive_avg_pool(c, node, x, output_size) -> Tensor:
    if _pair(output_size) != [1, 1]:
        raise _Unsupported(f"adaptive average pooling to {output_size} (only to 1x1)")
    return c.b.global_avg_pool(c.t(x), name=c.name(node))


@_handles("aten.mean")
def _mean(c, node, x, dims=None, keepdim=False, dtype=None) -> Tensor:
    """The mean over the spatial dims of an NCHW tensor is a `ge.global_avg_pool` (which
    can run on NC1HWC0); any other mean is a `ge.reduce_mean`."""
    xt = c.t(x)
    rank = len(xt.shape)
    _check_reduce_dtype(xt, dtype)
    if rank == 4 and dims is not None and sorted(d % 4 for d in dims) == [2, 3]:
        y = c.b.global_avg_pool(xt, name=c.name(node))
        return y if keepdim else c.b.reshape(y, list(xt.shape[:2]))
    return c.b.reduce("mean", xt, _reduce_dims(dims), bool(keepdim), name=c.name(node))


def _reduce_dims(dims: int | Sequence[int] | None) -> list[int]:
    """A reduction's `dim` argument as a list (None, [] or (): every dim)."""
    if dims is None:
        return []
    return [int(dims)] if isinstance(dims, int) else [int(d) for d in dims]


def _check_reduce_dtype(x: Tensor, dtype: torch.dtype | None) -> None:
    if dtype is not None and numpy_dtype(dtype) != dtypes.np_dtype(x.element_type):
        raise _Unsupported(f"a reduction with a dtype change (to {dtype})")


@_handles("aten.sum")
def _sum(c, node, x, dims=None, keepdim=False, dtype=None) -> Tensor:
    xt = c.t(x)
    _check_reduce_dtype(xt, dtype)
    return c.b.reduce("sum", xt, _reduce_dims(dims), bool(keepdim), name=c.name(node))


def _extra_outputs_used(node: torch.fx.Node) -> list[torch.fx.Node]:
    """The users of `node` that read a result other than its first (a getitem of one that
    nothing reads, as `make_fx` leaves, is no use)."""
    return [
        user
        for user in node.users
        if user.target is not operator.getitem or (user.args[1] != 0 and user.users)
    ]


def _extremum(kind: str) -> Handler:
    """amax/amin (values over dims), max/min.default (over every dim) and max/min.dim
    (values and indices: only the values are converted, a use of the indices is refused)."""

    def handler(c, node, x, dims=None, keepdim=False) -> Value:
        xt = c.t(x)
        with_indices = _op_name(node.target).endswith(".dim")
        if with_indices:
            for user in _extra_outputs_used(node):
                raise _Unsupported(
                    f"its indices are used by '{user.name}' (only the values of "
                    f"{kind}.dim are supported: use amax/amin)"
                )
        y = c.b.reduce(kind, xt, _reduce_dims(dims), bool(keepdim), name=c.name(node))
        return (y, None) if with_indices else y

    return handler


_HANDLERS["aten.amax"] = _HANDLERS["aten.max.dim"] = _HANDLERS["aten.max.default"] = _extremum(
    "max"
)
_HANDLERS["aten.amin"] = _HANDLERS["aten.min.dim"] = _HANDLERS["aten.min.default"] = _extremum(
    "min"
)


def _layer_norm_args(xt: Tensor, normalized_shape) -> int:
    """The first normalised axis, checking `normalized_shape` is the input's last dims."""
    shape = [int(d) for d in normalized_shape]
    rank = len(xt.shape)
    if not 0 < len(shape) <= rank or list(xt.shape[rank - len(shape) :]) != shape:
        raise _Unsupported(
            f"normalized_shape {shape} is not the last dims of an input of shape {list(xt.shape)}"
        )
    return rank - len(shape)


@_handles("aten.layer_norm")
def _layer_norm(c, node, x, normalized_shape, weight=None, bias=None, eps=1e-5, *rest) -> Tensor:
    xt = c.t(x)
    axis = _layer_norm_args(xt, normalized_shape)
    w = None if weight is None else c.t(weight)
    b = None if bias is None else c.t(bias)
    return c.b.layer_norm(xt, w, b, axis, float(eps), name=c.name(node))


@_handles("aten.native_layer_norm")
def _native_layer_norm(c, node, x, normalized_shape, weight, bias, eps) -> Value:
    """Only output 0 (the normalised tensor) is converted: a use of the mean or the rstd
    is refused."""
    for user in _extra_outputs_used(node):
        raise _Unsupported(
            f"its mean or rstd output is used by '{user.name}' (only output 0 is supported)"
        )
    y = _layer_norm(c, node, x, normalized_shape, weight, bias, eps)
    return (y, None, None)


@_handles("aten.cat", "aten.concat")
def _cat(c, node, tensors, dim=0) -> Tensor:
    ts = [c.t(t) for t in tensors]
    _check_same_dtype(node, *ts)
    return c.b.concat(ts, dim, name=c.name(node))


@_handles("aten.stack")
def _stack(c, node, tensors, dim=0) -> Tensor:
    """Each tensor with a new dim of size 1 at `dim` (a reshape), concatenated along it."""
    ts = [c.t(t) for t in tensors]
    _check_same_dtype(node, *ts)
    rank = len(ts[0].shape) + 1
    if not -rank <= dim < rank:
        raise _Unsupported(f"dim {dim} is out of range for rank {rank}")
    d = dim % rank
    pieces = [c.b.reshape(t, [*t.shape[:d], 1, *t.shape[d:]]) for t in ts]
    return c.b.concat(pieces, d, name=c.name(node))


def _reshape_to_meta(c: FxConverter, node, x, *rest, **kwargs) -> Tensor:
    xt = c.t(x)
    shape = _meta_shape(node)
    if shape is None:
        if node.target in (
            torch.ops.aten.view.default,
            torch.ops.aten._unsafe_view.default,
            torch.ops.aten.reshape.default,
        ):
            shape = list(rest[0])
        else:
            raise _Unsupported("the result shape is unknown")
    if list(shape) == list(xt.shape):
        return Tensor(c.b, xt.value, c.name(node))
    return c.b.reshape(xt, shape, name=c.name(node))


for _name in (
    "aten.view",
    "aten._unsafe_view",
    "aten.reshape",
    "aten.flatten",
    "aten.squeeze",
    "aten.unsqueeze",
    "aten.view_copy",
):
    _HANDLERS[_name] = _reshape_to_meta


@_handles("aten.permute", "aten.permute_copy")
def _permute(c, node, x, dims) -> Tensor:
    xt = c.t(x)
    rank = len(xt.shape)
    return c.b.transpose(xt, [d % rank for d in dims], name=c.name(node))


@_handles("aten.transpose")
def _transpose(c, node, x, dim0, dim1) -> Tensor:
    xt = c.t(x)
    rank = len(xt.shape)
    perm = list(range(rank))
    a, b = dim0 % rank, dim1 % rank
    perm[a], perm[b] = perm[b], perm[a]
    return c.b.transpose(xt, perm, name=c.name(node))


@_handles("aten.t", "aten.numpy_T")
def _t(c, node, x) -> Tensor:
    xt = c.t(x)
    if len(xt.shape) < 2:
        return Tensor(c.b, xt.value, c.name(node))
    return c.b.transpose(xt, list(range(len(xt.shape)))[::-1], name=c.name(node))


@_handles("aten._softmax", "aten.softmax")
def _softmax(c, node, x, dim, half_to_float_or_dtype=None) -> Tensor:
    xt = c.t(x)
    if half_to_float_or_dtype not in (None, False):
        raise _Unsupported(f"softmax with a dtype change ({half_to_float_or_dtype})")
    return c.b.softmax(xt, dim, name=c.name(node))


@_handles("aten.topk")
def _topk(c, node, x, k, dim=-1, largest=True, sorted=True) -> Value:
    """`ge.topk`: the values and i64 indices (ties go to the lower index, ONNX's rule; torch
    leaves their order unspecified)."""
    return c.b.topk(c.t(x), int(k), dim, bool(largest), bool(sorted), name=c.name(node))


@_handles("aten.scatter_add")
def _scatter_add(c, node, x, dim, index, src) -> Tensor:
    xt, src_t = c.t(x), c.t(src)
    _check_same_dtype(node, xt, src_t)
    if list(src_t.shape) != list(c.t(index).shape):
        raise _Unsupported(
            f"src of shape {list(src_t.shape)} and index of shape {list(c.t(index).shape)} "
            "differ (only the part of src the index covers would be read)"
        )
    return c.b.scatter_add(xt, c.t(index), src_t, dim, name=c.name(node))


@_handles("aten.scaled_dot_product_attention")
def _sdpa(
    c,
    node,
    query,
    key,
    value,
    attn_mask=None,
    dropout_p=0.0,
    is_causal=False,
    scale=None,
    enable_gqa=False,
) -> Tensor:
    """`scaled_dot_product_attention` -> `ge.flash_attention` (TorchAir maps it to
    FlashAttentionScore).  PyTorch's `is_causal` aligns the mask top-left: it is the
    op's `causal` when Sq == Skv, else an i1 constant mask."""
    qt, kt, vt = c.t(query), c.t(key), c.t(value)
    if dropout_p:
        raise _Unsupported(f"dropout_p={dropout_p} (inference only: 0)")
    for t, what in ((qt, "query"), (kt, "key"), (vt, "value")):
        if len(t.shape) != 4:
            raise _Unsupported(f"a {what} of rank {len(t.shape)} (only [B, N, S, D])")
    _check_same_dtype(node, qt, kt, vt)
    n, nkv = qt.shape[1], kt.shape[1]
    if n != nkv and not (enable_gqa and n % nkv == 0):
        raise _Unsupported(f"{n} query heads for {nkv} key heads (enable_gqa={enable_gqa})")
    sq, skv = qt.shape[2], kt.shape[2]
    mask = None
    if attn_mask is not None:
        if is_causal:
            raise _Unsupported("both attn_mask and is_causal")
        mask = c.t(attn_mask)
        kind = dtypes.type_name(mask.element_type)
        if kind != "i1" and mask.element_type != qt.element_type:
            raise _Unsupported(f"a {kind} attn_mask for a {qt.element_type} query")
        scores = (qt.shape[0], n, sq, skv)
        if len(mask.shape) > 4 or shapes.broadcast_shape(mask.shape, scores) != scores:
            raise _Unsupported(
                f"an attn_mask of shape {list(mask.shape)} for scores {list(scores)}"
            )
    causal = bool(is_causal)
    if causal and sq != skv:
        mask, causal = c.b.const(np.tril(np.ones((sq, skv), dtype=np.bool_))), False
    scale = None if scale is None else float(scale)
    return c.b.flash_attention(qt, kt, vt, mask, scale, causal, name=c.name(node))


@_handles("aten._scaled_dot_product_flash_attention_for_cpu")
def _sdpa_for_cpu(
    c, node, query, key, value, dropout_p=0.0, is_causal=False, attn_mask=None, scale=None
) -> tuple:
    """What `make_fx` traces `scaled_dot_product_attention` to on a CPU (the TorchAir
    backend): its output; a use of its logsumexp is refused (by `getitem`)."""
    y = _sdpa(c, node, query, key, value, attn_mask, dropout_p, is_causal, scale)
    return (y, None)


@_handles("aten.clone")
def _clone(c, node, x, memory_format=None) -> Tensor:
    return c.b.identity(c.t(x), name=c.name(node))


@_handles(
    "aten.alias",
    "aten.detach",
    "aten.contiguous",
    "aten.lift_fresh_copy",
    "aten.lift_fresh",
)
def _passthrough(c, node, x, *rest, **kwargs) -> Tensor:
    xt = c.t(x)
    shape = _meta_shape(node)
    if shape is not None and list(shape) != list(xt.shape):
        raise _Unsupported(f"a broadcast from {list(xt.shape)} to {shape}")
    return Tensor(c.b, xt.value, c.name(node))  # a new handle: a wait on it rebinds only it


# ---- indexing and slicing: ge.gather, ge.slice, ge.expand ----------------------------------------

INT64_MAX = 2**63 - 1
"""The end ATen writes for a slice "to the end" (`x[1:]`)."""


@_handles("aten.expand")
def _expand(c, node, x, sizes, implicit=False) -> Tensor:
    """`expand` to the exported result shape (its -1 entries keep the input's dim)."""
    xt = c.t(x)
    shape = _meta_shape(node)
    if shape is None:
        raise _Unsupported("the result shape is unknown")
    if list(shape) == list(xt.shape):
        return Tensor(c.b, xt.value, c.name(node))
    return c.b.expand(xt, shape, name=c.name(node))


@_handles("aten.embedding")
def _embedding(c, node, weight, indices, padding_idx=-1, *rest) -> Tensor:
    """An embedding lookup: the rows of `weight` (padding_idx matters only for training)."""
    return c.b.gather(c.t(weight), c.t(indices), 0, name=c.name(node))


@_handles("aten.index_select")
def _index_select(c, node, x, dim, index) -> Tensor:
    return c.b.gather(c.t(x), c.t(index), dim, name=c.name(node))


@_handles("aten.select")
def _select(c, node, x, dim, index) -> Tensor:
    """`x.select(dim, index)`: a one-element slice along `dim`, then that dim dropped."""
    xt = c.t(x)
    rank = len(xt.shape)
    dim %= rank
    size = xt.shape[dim]
    if not -size <= index < size:
        raise _Unsupported(f"index {index} is out of range for dim {dim} of size {size}")
    index %= size
    part = c.b.slice(xt, [index], [index + 1], [dim])
    shape = [d for i, d in enumerate(xt.shape) if i != dim]
    return c.b.reshape(part, shape, name=c.name(node))


@_handles("aten.slice")
def _slice(c, node, x, dim=0, start=None, end=None, step=1) -> Tensor:
    xt = c.t(x)
    start = 0 if start is None else start
    end = INT64_MAX if end is None else min(end, INT64_MAX)
    dim %= len(xt.shape)
    if (start, step) == (0, 1) and end >= xt.shape[dim]:
        return Tensor(c.b, xt.value, c.name(node))  # the whole dim (`x[:, :]`)
    return c.b.slice(xt, [start], [end], [dim], [step], name=c.name(node))


def _split_parts(c, node, x, sizes: Sequence[int], dim: int) -> tuple[Tensor, ...]:
    """One `ge.slice` per part of `sizes` along `dim` (each getitem reads its own)."""
    xt = c.t(x)
    dim %= len(xt.shape)
    if sum(sizes) != xt.shape[dim] or any(s < 0 for s in sizes):
        raise _Unsupported(f"sizes {list(sizes)} do not split dim {dim} of size {xt.shape[dim]}")
    parts, start = [], 0
    for i, size in enumerate(sizes):
        parts.append(c.b.slice(xt, [start], [start + size], [dim], name=f"{c.name(node)}_{i}"))
        start += size
    return tuple(parts)


@_handles("aten.split_with_sizes")
def _split_with_sizes(c, node, x, sizes, dim=0) -> tuple[Tensor, ...]:
    return _split_parts(c, node, x, list(sizes), dim)


@_handles("aten.split")
def _split(c, node, x, split_size, dim=0) -> tuple[Tensor, ...]:
    """`split(x, n)`: parts of n along `dim`, the last one smaller; a list is split_with_sizes."""
    if not isinstance(split_size, int):
        return _split_parts(c, node, x, list(split_size), dim)
    size = c.t(x).shape[dim % len(c.t(x).shape)]
    if split_size < 1:
        raise _Unsupported(f"split size {split_size}")
    sizes = [min(split_size, size - s) for s in range(0, size, split_size)] or [0]
    return _split_parts(c, node, x, sizes, dim)


@_handles("aten.chunk")
def _chunk(c, node, x, chunks, dim=0) -> tuple[Tensor, ...]:
    """`chunk(x, k)`: parts of ceil(size / k) along `dim` (fewer when they run out)."""
    size = c.t(x).shape[dim % len(c.t(x).shape)]
    step = max(1, -(-size // chunks))
    return _split(c, node, x, step, dim)


def _cast(c: FxConverter, node, x, dtype) -> Tensor:
    xt = c.t(x)
    if dtype is None:
        return Tensor(c.b, xt.value, c.name(node))
    target = numpy_dtype(dtype, f"the cast '{node.name}'")
    if dtypes.np_dtype(xt.element_type) == target:
        return Tensor(c.b, xt.value, c.name(node))
    if target == np.bool_:  # a mask: x != 0
        return c.b.compare("not_equal", xt, c.scalar_like(0, xt), name=c.name(node))
    return c.b.cast(xt, target, name=c.name(node))


@_handles("aten._to_copy", "aten.to", "aten._to_dtype")
def _to_copy(c, node, x, *args, dtype=None, **kwargs) -> Tensor:
    if dtype is None:
        dtype = next((a for a in args if isinstance(a, torch.dtype)), None)
    return _cast(c, node, x, dtype)


@_handles("aten.type_as")
def _type_as(c, node, x, other) -> Tensor:
    return _cast(c, node, x, _meta_dtype(other) if isinstance(other, torch.fx.Node) else None)


# ---- KV cache writes: ge.scatter_update --------------------------------------------------------


def _cache_update(c: FxConverter, node, cache: Tensor, pos: Tensor, values: Tensor, axis: int):
    """`cache` with `values` written at the one position `pos` (an integer tensor of one
    element) along `axis` for every batch row: `ge.scatter_update` with the position
    broadcast to the batch and `values` reshaped to one position (torch lets them drop or
    add dims of size 1)."""
    if axis == 0:
        raise _Unsupported("a write along the batch dim 0 (positions are per batch row)")
    if list(pos.shape) != [1] or dtypes.type_name(pos.element_type) not in ("i32", "i64"):
        raise _Unsupported(
            f"positions of shape {list(pos.shape)} and type {pos.element_type} (one i32 or "
            "i64 position, as a decode step writes)"
        )
    target = [*cache.shape[:axis], 1, *cache.shape[axis + 1 :]]  # one position
    if [d for d in values.shape if d != 1] != [d for d in target if d != 1]:
        raise _Unsupported(f"values of shape {list(values.shape)} for positions {target}")
    if values.element_type != cache.element_type:
        raise _Unsupported(f"{values.element_type} values for a {cache.element_type} cache")
    if list(values.shape) != target:
        values = c.b.reshape(values, target)
    batch = cache.shape[0]
    positions = pos if batch == 1 else c.b.expand(pos, [batch])
    return c.b.scatter_update(cache, positions, values, axis, name=c.name(node))


@_handles("aten.index_put")
def _index_put(c, node, x, indices, values, accumulate=False) -> Tensor:
    """`cache[:, :, pos] = new` (and `index_copy_`, which torch.export decomposes to this):
    one index tensor after full slices (None), one position -> `ge.scatter_update`."""
    if accumulate:
        raise _Unsupported("accumulate=True (index_put_ that adds)")
    given = [i for i, index in enumerate(indices) if index is not None]
    if len(given) != 1 or given[0] != len(indices) - 1:
        raise _Unsupported("indices other than full slices then one index tensor")
    return _cache_update(c, node, c.t(x), c.t(indices[-1]), c.t(values), given[0])


@_handles("aten.index_copy")
def _index_copy(c, node, x, dim, index, source) -> Tensor:
    """`cache.index_copy(dim, pos, new)` with one position -> `ge.scatter_update`."""
    xt = c.t(x)
    return _cache_update(c, node, xt, c.t(index), c.t(source), _axis_of(dim, len(xt.shape)))


@_handles("aten.slice_scatter")
def _slice_scatter(c, node, x, src, dim=0, start=None, end=None, step=1) -> Tensor:
    """`cache[:, :, p:p + k] = new` with a static p: `ge.scatter_update` at the constant
    position p of every batch row."""
    xt, st = c.t(x), c.t(src)
    axis = _axis_of(dim, len(xt.shape))
    size = xt.shape[axis]
    first = range(size)[slice(start, end, step)]
    if step != 1 or not first:
        raise _Unsupported(f"a slice {start}:{end}:{step} (only step 1, not empty)")
    if axis == 0:
        raise _Unsupported("a write along the batch dim 0 (positions are per batch row)")
    positions = c.b.const(np.full(xt.shape[0], first[0], dtype=np.int64))
    return c.b.scatter_update(xt, positions, st, axis, name=c.name(node))


@_handles("aten.copy")
def _copy(c, node, x, src, non_blocking=False) -> Tensor:
    """`x.copy_(src)` as a value: `src` broadcast to `x`'s shape in `x`'s dtype."""
    xt, st = c.t(x), c.t(src)
    if list(st.shape) != list(xt.shape):
        st = c.b.expand(st, xt.shape)
    if st.element_type != xt.element_type:
        return c.b.cast(st, dtypes.np_dtype(xt.element_type), name=c.name(node))
    return c.b.identity(st, name=c.name(node))


def _axis_of(dim: object, rank: int) -> int:
    if not isinstance(dim, int) or not -rank <= dim < rank:
        raise _Unsupported(f"dim {dim!r} for rank {rank}")
    return dim % rank


# ---- torch.export -----------------------------------------------------------------------------


def export_decompositions() -> dict:
    """The decomposition table `import_torch` runs: core ATen, but silu, hardtanh and
    scaled_dot_product_attention kept whole."""
    table = torch.export.default_decompositions()
    for op in (
        torch.ops.aten.silu.default,
        torch.ops.aten.hardtanh.default,
        torch.ops.aten.scaled_dot_product_attention.default,
    ):
        table.pop(op, None)
    return table


def import_torch(
    module: torch.nn.Module,
    example_inputs: Sequence[torch.Tensor] | torch.Tensor,
    *,
    name: str = "main",
) -> ModuleOp:
    """A verified `ge` module of `module` (for inference) exported on `example_inputs`.

    Inputs are named after `forward`'s parameters, outputs after the exported graph's
    values; parameters and buffers are constants, but a buffer the model writes is an
    input named after it (first, in the buffers' order), and its new value an output
    `<buffer>_new` (first, likewise).  Stream scopes and waits written with
    `ge_dialect.torchair.scope` are kept.  An op that cannot be converted (or that
    `torch.export` rejects) raises a `GeError`.
    """
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    was_training = module.training
    module.eval()
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*isinstance.treespec, LeafSpec", FutureWarning)
            program = torch.export.export(module, tuple(example_inputs), strict=False)
            program = program.run_decompositions(export_decompositions())
    except Exception as e:  # torch reports its own mistakes: one GeError
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise GeError(f"<torch.export>: error: cannot export the model: {first}") from e
    finally:
        module.train(was_training)
    return _convert_exported(program, name)


def _convert_exported(program: Any, name: str) -> ModuleOp:
    from torch.export.graph_signature import InputKind, OutputKind

    signature = program.graph_signature
    mutated = {s.target for s in signature.output_specs if s.kind == OutputKind.BUFFER_MUTATION}
    state = dict(program.state_dict)
    constants = dict(getattr(program, "constants", {}) or {})
    values: dict[str, torch.Tensor] = {}
    input_names: dict[str, str] = {}
    for spec in signature.input_specs:
        arg_name = getattr(spec.arg, "name", None)
        if arg_name is None:
            continue
        if spec.kind == InputKind.USER_INPUT:
            input_names[arg_name] = arg_name
            continue
        target = spec.target
        if spec.kind == InputKind.BUFFER and target in mutated:
            input_names[arg_name] = target  # state the graph updates: an input
            continue
        if target in state:
            values[arg_name] = state[target]
        elif target in constants and isinstance(constants[target], torch.Tensor):
            values[arg_name] = constants[target]
    outputs = [
        f"{s.target}_new" if s.kind == OutputKind.BUFFER_MUTATION else getattr(s.arg, "name", "")
        for s in signature.output_specs
    ]
    converter = FxConverter(
        program.graph_module.graph,
        owner=program.graph_module,
        constants=values,
        input_names=input_names,
        output_names=outputs,
        name=name,
        label="<torch.export>",
    )
    return converter.convert().module


__all__ = ["Converted", "FxConverter", "SourceLine", "import_torch", "numpy_dtype", "source_line"]
