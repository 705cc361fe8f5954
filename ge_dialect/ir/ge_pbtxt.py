"""A `ge` graph as GE's `GraphDef` in protobuf text format (`ge_dialect/ir/ge_ir.proto`).

What TorchAir hands GE, written without protobuf (the text is printed directly, in field
number order, map entries sorted by key, as `text_format.MessageToString` prints them):

    %add_result = ge.add %in1, %in2 : ...
    %0 = stream.wait_tensor %in4 after %add_result
        {stream.label = #stream.label<"1", priority = 3, inner_parallel = true>} : ...
    %mm_result = ge.matmul %in3, %0 {stream.label = ...} : ...
    func.return %add_result, %mm_result : ...

becomes

    name: "main"
    input: "in1"  ...
    output: "add_result:0"  ...
    op { name: "in1"  type: "Data"  attr { key: "index" value { i: 0 } }  ... }
    op { name: "add_result"  type: "Add"  input: "in1:0"  input: "in2:0"  ... }
    op { name: "Identity"  type: "Identity"  input: "in4:0"  input: "^add_result"
         attr { key: "_enable_inner_parallel" value { b: true } }
         attr { key: "_user_stream_label" value { s: "1" } }
         attr { key: "_user_stream_priority" value { s: "3" } }  ... }
    op { name: "mm_result"  type: "MatMulV2"  input: "in3:0"  input: "Identity:0"  ... }
    op { name: "NetOutput"  type: "NetOutput"  input: "add_result:0"  ... }

- Nodes, in program order: one `Data` per function argument (attr `index`, named by its
  `ge.name` or SSA name), one node per op (named by its first result's SSA name, else by
  its GE type, `Identity`, `Identity_1`, ... as TorchAir's `next_unique_name`), `NetOutput`
  for the return.  A name already taken gets `_1`, `_2`, ...
- Inputs are `"src:index"`; a control input is `"^src"`, as TorchAir's pbtxt dump writes it
  (`controls="^"`, the default), or `"src:-1"`, GE's own spelling in a `GraphDef` and
  TorchAir's txt dump (`controls=":-1"`, its `ControlTensor.controller`).
- `stream.wait_tensor %x after %dep` is TorchAir's `npu_wait_tensor`: an `Identity` of `%x`
  with a control input from `%dep`'s node.  After stream assignment, `stream.record` is a
  `Send` (control inputs from the recorded values' nodes) and `stream.wait` a `Recv` (a
  control input from its `Send`), both with attr `event_id`; `stream.id` is `stream_id`.
- `stream.label` is TorchAir's scope attributes: `_user_stream_label` and
  `_user_stream_priority` as strings, `_enable_inner_parallel` as a bool.  Other
  discardable attributes named `_...` (and TorchAir's scope attributes,
  `utils.scope_attrs.SCOPE_ATTRS`) print as `s` when strings (`_op_aicore_num`), as `b`
  when bools (`_op_exec_never_timeout`).
  An op's properties print under their own names (ints `i`, floats `f`, strings and enums
  `s`, unit attributes `b: true`, integer arrays `list { i ... }`).
- Each output has a `TensorDescriptor`: dtype, stored shape and layout (the tensor's format:
  ND, NCHW, NC1HWC0, FRACTAL_NZ, ...); a non-default format also records `origin_format`
  and `origin_shape` (the logical shape) in its `attr`.  Inputs repeat their producer's
  descriptor under the operand's name.
- A `Const` node describes its value (`attr value { t { desc ... } }`) without its bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from typing import Literal

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseArrayBase,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    i1,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, VariadicDef

from ge_dialect.ir.dialects import stream
from ge_dialect.ir.dialects.npu.program import PROGRAM
from ge_dialect.ir.encodings import Format, physical_shape, tensor_format
from ge_dialect.utils.dtypes import type_name
from ge_dialect.utils.errors import op_error
from ge_dialect.utils.scope_attrs import SCOPE_ATTRS

__all__ = ["GE_TYPES", "ge_type", "print_graph_def"]

GE_TYPES: dict[str, str] = {
    "ge.const": "Const",
    "ge.conv2d": "Conv2D",
    "ge.fused_conv2d": "Conv2D",
    "ge.batch_norm": "BatchNorm",
    "ge.relu": "Relu",
    "ge.relu6": "Relu6",
    "ge.leaky_relu": "LeakyRelu",
    "ge.sigmoid": "Sigmoid",
    "ge.clip": "ClipByValue",
    "ge.add": "Add",
    "ge.sub": "Sub",
    "ge.mul": "Mul",
    "ge.div": "RealDiv",
    "ge.trans_data": "TransData",
    "ge.silu": "Swish",
    "ge.max_pool": "MaxPoolV3",
    "ge.avg_pool": "AvgPoolV2",
    "ge.global_avg_pool": "GlobalAveragePool",
    "ge.concat": "ConcatV2",
    "ge.reshape": "Reshape",
    "ge.flatten": "Flatten",
    "ge.transpose": "Transpose",
    "ge.softmax": "SoftmaxV2",
    "ge.identity": "Identity",
    "ge.cast": "Cast",
    "ge.hcom_all_reduce": "HcomAllReduce",
    "ge.hcom_all_gather": "HcomAllGather",
    "ge.hcom_reduce_scatter": "HcomReduceScatter",
    "ge.hcom_all_to_all": "HcomAllToAll",
    "ge.hcom_broadcast": "HcomBroadcast",
    "ge.hcom_send": "HcomSend",
    "ge.hcom_receive": "HcomReceive",
    "ge.exp": "Exp",
    "ge.log": "Log",
    "ge.tanh": "Tanh",
    "ge.erf": "Erf",
    "ge.sqrt": "Sqrt",
    "ge.rsqrt": "Rsqrt",
    "ge.neg": "Neg",
    "ge.reciprocal": "Reciprocal",
    "ge.gelu": "GeluV2",
    "ge.maximum": "Maximum",
    "ge.minimum": "Minimum",
    "ge.pow": "Pow",
    "ge.sin": "Sin",
    "ge.cos": "Cos",
    "ge.equal": "Equal",
    "ge.not_equal": "NotEqual",
    "ge.less": "Less",
    "ge.less_equal": "LessEqual",
    "ge.greater": "Greater",
    "ge.greater_equal": "GreaterEqual",
    "ge.logical_not": "LogicalNot",
    "ge.logical_and": "LogicalAnd",
    "ge.logical_or": "LogicalOr",
    "ge.where": "SelectV2",
    "ge.reduce_sum": "ReduceSum",
    "ge.reduce_mean": "ReduceMean",
    "ge.reduce_max": "ReduceMax",
    "ge.reduce_min": "ReduceMin",
    "ge.layer_norm": "LayerNormV4",
    "ge.rms_norm": "RmsNorm",
    "ge.gather": "GatherV2",
    "ge.slice": "StridedSliceV2",
    "ge.expand": "BroadcastTo",
    "ge.scatter_update": "ScatterUpdate",
    "ge.topk": "TopKV2",
    "ge.scatter_add": "ScatterElements",
    "ge.swi_glu": "SwiGlu",
    "ge.moe_gating_top_k": "MoeGatingTopK",
    "ge.grouped_matmul": "GroupedMatmul",
    "ge.flash_attention": "FlashAttentionScore",
    "ge.rotary_mul": "RotaryMul",
    "stream.wait_tensor": "Identity",
    "stream.record": "Send",
    "stream.wait": "Recv",
}
"""GE's operator type of each op (`ge.matmul` is decided by rank, see `ge_type`)."""

_DTYPES = {
    "f32": "DT_FLOAT",
    "f16": "DT_FLOAT16",
    "bf16": "DT_BF16",
    "f64": "DT_DOUBLE",
    "i1": "DT_BOOL",
    "i8": "DT_INT8",
    "si8": "DT_INT8",
    "ui8": "DT_UINT8",
    "i16": "DT_INT16",
    "si16": "DT_INT16",
    "ui16": "DT_UINT16",
    "i32": "DT_INT32",
    "si32": "DT_INT32",
    "ui32": "DT_UINT32",
    "i64": "DT_INT64",
    "si64": "DT_INT64",
    "ui64": "DT_UINT64",
}

_ORIGIN = {Format.NC1HWC0, Format.FRACTAL_Z, Format.FRACTAL_NZ, Format.NHWC}
"""The formats whose stored shape is not the logical one (or not in its order)."""


def ge_type(op: Operation) -> str:
    """GE's type name of `op`: from `GE_TYPES`, `MatMulV2` / `BatchMatMulV2` by rank,
    `HcomAllToAllV` for an all-to-all with uneven counts, else derived (`ge.foo_bar` ->
    `FooBar`, `my.op` -> `MyOp`)."""
    if op.name == "ge.matmul":
        ranks = [t.get_num_dims() for t in op.operand_types if isinstance(t, TensorType)]
        return "MatMulV2" if all(r == 2 for r in ranks) else "BatchMatMulV2"
    if op.name == "ge.hcom_all_to_all" and "send_counts" in op.properties:
        return "HcomAllToAllV"
    known = GE_TYPES.get(op.name)
    if known is not None:
        return known
    short = op.name.removeprefix("ge.")
    return "".join(p[:1].upper() + p[1:] for p in short.replace(".", "_").split("_") if p)


def print_graph_def(
    module: Operation, label: str = "<unknown>", controls: Literal["^", ":-1"] = "^"
) -> str:
    """The one `func.func` of `module` as a `GraphDef` in protobuf text format, control
    inputs spelt `^src` or `src:-1` (`controls`).  A module with no function or several,
    or an npu program, is a `GeError` located at the module or the function (in `label`
    when it has no location)."""
    functions = [op for op in _body(module) if isinstance(op, func.FuncOp)]
    if not functions:
        raise op_error(module, "has no func.func to print as a GE graph", label)
    if len(functions) > 1:
        raise op_error(
            functions[1],
            f"is a second function: a GE graph dump prints one graph (the module has "
            f"{len(functions)})",
            label,
        )
    if PROGRAM in functions[0].attributes:
        raise op_error(
            functions[0],
            "is an npu program (lowered to the device), not a GE graph: print the graph "
            "before lower-to-device",
            label,
        )
    return _GraphPrinter(functions[0], label, controls).text()


def _body(module: Operation) -> list[Operation]:
    if isinstance(module, ModuleOp):
        return list(module.ops)
    return [module]


class _Text:
    """Protobuf text format lines, two spaces per level."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.depth = 0

    def field(self, key: str, value: str) -> None:
        self.lines.append(f"{'  ' * self.depth}{key}: {value}")

    def string(self, key: str, value: str | bytes) -> None:
        self.field(key, _quote(value))

    def open(self, key: str) -> None:
        self.lines.append(f"{'  ' * self.depth}{key} {{")
        self.depth += 1

    def close(self) -> None:
        self.depth -= 1
        self.lines.append(f"{'  ' * self.depth}}}")


def _quote(value: str | bytes) -> str:
    """A string as protobuf's text format writes it (C escapes, UTF-8 bytes in octal)."""
    out = []
    for byte in value.encode("utf-8") if isinstance(value, str) else value:
        ch = chr(byte)
        if ch in "\"'\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _float(value: float) -> str:
    """A 32-bit float field as `text_format` prints it: the shortest of 6 to 9 significant
    digits that reads back as the same float32."""
    if value != value:
        return "nan"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    (single,) = struct.unpack("<f", struct.pack("<f", value))
    for digits in range(6, 10):
        text = f"{single:.{digits}g}"
        if struct.unpack("<f", struct.pack("<f", float(text)))[0] == single:
            return str(float(text))
    return str(single)


AttrValue = tuple[str, object]
"""One `AttrDef`: ("s", str or bytes), ("i", int), ("f", float), ("b", bool), ("list_i", [ints])
or ("t", TensorType) (a tensor's description, no data)."""


def _property_value(attr: Attribute) -> AttrValue | None:
    """An op property as an `AttrDef`, or None for a kind GE has no attribute for."""
    if isinstance(attr, UnitAttr):
        return ("b", True)
    if isinstance(attr, IntegerAttr) and isinstance(attr.value, IntAttr):
        if attr.type == IntegerAttr.from_bool(True).type:
            return ("b", bool(attr.value.data))
        return ("i", attr.value.data)
    if isinstance(attr, FloatAttr):
        return ("f", float(attr.value.data))
    if isinstance(attr, StringAttr):
        return ("s", attr.data)
    if isinstance(attr, DenseArrayBase) and attr.elt_type == IntegerAttr(0, 64).type:
        return ("list_i", list(attr.get_values()))
    if isinstance(attr, ArrayAttr) and all(isinstance(a, IntegerAttr) for a in attr.data):
        return ("list_i", [a.value.data for a in attr.data])
    if isinstance(attr, EnumAttribute):
        return ("s", str(attr.data.value))
    return None


class _GraphPrinter:
    def __init__(self, function: func.FuncOp, label: str, controls: str) -> None:
        self.function = function
        self.label = label
        self.controls = controls
        self.names: dict[SSAValue, tuple[str, int]] = {}
        self.taken: set[str] = set()
        self.counters: dict[str, int] = {}
        self.events: dict[SSAValue, int] = {}
        self.out = _Text()

    # -- names --

    def unique(self, wanted: str | None, base: str) -> str:
        """`wanted` if free, else TorchAir's `next_unique_name` scheme on `wanted or base`."""
        if wanted and wanted not in self.taken:
            self.taken.add(wanted)
            return wanted
        stem = wanted or base
        counter = self.counters.get(stem, 0)
        candidate = stem if counter == 0 and stem not in self.taken else None
        while candidate is None or candidate in self.taken:
            counter += 1
            candidate = f"{stem}_{counter}"
        self.counters[stem] = counter
        self.taken.add(candidate)
        return candidate

    def ref(self, value: SSAValue, user: Operation) -> str:
        found = self.names.get(value)
        if found is None:
            raise op_error(user, "uses a value defined outside its function's graph", self.label)
        return f"{found[0]}:{found[1]}"

    def control(self, value: SSAValue, user: Operation) -> str:
        source = self.ref(value, user).rsplit(":", 1)[0]
        return f"^{source}" if self.controls == "^" else f"{source}:-1"

    # -- the graph --

    def text(self) -> str:
        f = self.function
        ops = list(f.body.ops) if f.body.blocks else []
        arg_names = []
        arg_attrs = f.arg_attrs.data if f.arg_attrs is not None else ()
        for i, arg in enumerate(f.args):
            attrs = arg_attrs[i].data if i < len(arg_attrs) else {}
            hint = attrs.get("ge.name")
            wanted = hint.data if isinstance(hint, StringAttr) else arg.name_hint
            name = self.unique(wanted, "Data")
            self.names[arg] = (name, 0)
            arg_names.append(name)
        nodes = []
        for op in ops:
            if isinstance(op, func.ReturnOp):
                continue
            result_name = next((r.name_hint for r in op.results if r.name_hint), None)
            name = self.unique(result_name, ge_type(op))
            for index, result in enumerate(op.results):
                self.names[result] = (name, index)
            nodes.append((name, op))
        ret = next((op for op in ops if isinstance(op, func.ReturnOp)), None)
        returned = [self.ref(v, ret) for v in ret.operands] if ret is not None else []

        out = self.out
        out.string("name", f.sym_name.data)
        for name in arg_names:
            out.string("input", name)
        for ref in returned:
            out.string("output", ref)
        for i, arg in enumerate(f.args):
            self.data_node(arg_names[i], i, arg.type)
        for name, op in nodes:
            self.node(name, op)
        if ret is not None:
            self.net_output(ret)
        return "\n".join(out.lines) + "\n"

    def data_node(self, name: str, index: int, t: Attribute) -> None:
        out = self.out
        out.open("op")
        out.string("name", name)
        out.string("type", "Data")
        self.attrs([("index", ("i", index))])
        self.desc("input_desc", "x", t)
        self.desc("output_desc", "y", t)
        out.close()

    def net_output(self, ret: Operation) -> None:
        out = self.out
        out.open("op")
        out.string("name", self.unique("NetOutput", "NetOutput"))
        out.string("type", "NetOutput")
        for v in ret.operands:
            out.string("input", self.ref(v, ret))
        for i, v in enumerate(ret.operands):
            self.desc("input_desc", f"x{i}", v.type)
        out.close()

    def node(self, name: str, op: Operation) -> None:
        out = self.out
        out.open("op")
        out.string("name", name)
        out.string("type", ge_type(op))
        data, controls = self.inputs(op)
        for v in data:
            out.string("input", self.ref(v, op))
        for v in controls:
            out.string("input", self.control(v, op))
        self.attrs(self.attributes(op))
        stream_id = op.attributes.get(stream.ID)
        if isinstance(stream_id, stream.StreamIdAttr) and stream_id.id.data:
            out.field("stream_id", str(stream_id.id.data))
        operand_names = _names(op, "operands", len(data), "x")
        for v, n in zip(data, operand_names, strict=True):
            self.desc("input_desc", n, v.type)
        result_names = _names(op, "results", len(op.results), "y")
        for r, n in zip(op.results, result_names, strict=True):
            if isinstance(r.type, TensorType):
                self.desc("output_desc", n, r.type)
        out.close()

    def inputs(self, op: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
        """The data and the control inputs of `op`'s node."""
        if isinstance(op, stream.WaitTensorOp):
            return [op.input], [op.dependency]
        if isinstance(op, stream.RecordOp | stream.WaitOp):
            return [], list(op.operands)
        return list(op.operands), []

    def attributes(self, op: Operation) -> list[tuple[str, AttrValue]]:
        attrs: list[tuple[str, AttrValue]] = []
        if op.name == "ge.const":
            attrs.append(("value", ("t", op.results[0].type)))
        else:
            for key in sorted(op.properties):
                value = _property_value(op.properties[key])
                if value is not None:
                    attrs.append((key, value))
        if isinstance(op, stream.RecordOp | stream.WaitOp):
            event = op.results[0] if isinstance(op, stream.RecordOp) else op.operands[0]
            attrs.append(("event_id", ("i", self.event_id(event))))
        label = op.attributes.get(stream.LABEL)
        if isinstance(label, stream.LabelAttr):
            attrs.append(("_user_stream_label", ("s", label.label.data)))
            attrs.append(("_user_stream_priority", ("s", str(label.priority.data))))
            attrs.append(("_enable_inner_parallel", ("b", bool(label.inner_parallel.data))))
        for key, attribute in op.attributes.items():
            # (xDSL parses a string with escapes as bytes)
            if not key.startswith("_") and key not in SCOPE_ATTRS:
                continue
            if isinstance(attribute, StringAttr | BytesAttr):
                attrs.append((key, ("s", attribute.data)))
            elif isinstance(attribute, IntegerAttr) and attribute.type == i1:
                attrs.append((key, ("b", bool(attribute.value.data))))
        return attrs

    def event_id(self, event: SSAValue) -> int:
        """Events are numbered in program order of their records."""
        if not self.events:
            records = (op for op in self.function.walk() if isinstance(op, stream.RecordOp))
            self.events = {op.event: k for k, op in enumerate(records)}
        return self.events.get(event, -1)

    # -- messages --

    def attrs(self, attrs: Iterable[tuple[str, AttrValue]]) -> None:
        out = self.out
        for key, (kind, value) in sorted(dict(attrs).items()):
            out.open("attr")
            out.string("key", key)
            out.open("value")
            if kind == "s":
                out.string("s", value)  # type: ignore[arg-type]
            elif kind == "i":
                out.field("i", str(value))
            elif kind == "f":
                out.field("f", _float(value))  # type: ignore[arg-type]
            elif kind == "b":
                out.field("b", "true" if value else "false")
            elif kind == "list_i":
                out.open("list")
                for v in value:  # type: ignore[attr-defined]
                    out.field("i", str(v))
                out.field("val_type", "VT_LIST_INT")
                out.close()
            else:  # "t"
                out.open("t")
                self.desc("desc", "", value)  # type: ignore[arg-type]
                out.close()
            out.close()
            out.close()

    def desc(self, key: str, name: str, t: Attribute) -> None:
        """A `TensorDescriptor` of type `t` (only the name for a non-tensor)."""
        out = self.out
        out.open(key)
        if name:
            out.string("name", name)
        if isinstance(t, TensorType):
            dtype = _DTYPES.get(type_name(t.element_type), "DT_UNDEFINED")
            if dtype != "DT_UNDEFINED":
                out.field("dtype", dtype)
            fmt = tensor_format(t)
            logical = [int(d) for d in t.get_shape()]
            dims = logical
            if fmt in _ORIGIN and all(d >= 0 for d in logical):
                dims = list(physical_shape(t))
            if dims:
                out.open("shape")
                for d in dims:
                    out.field("dim", str(d))
                out.close()
            out.string("layout", fmt.value)
            if fmt in _ORIGIN:
                origin = Format.NCHW if len(logical) == 4 else Format.ND
                self.attrs(
                    [("origin_format", ("s", origin.value)), ("origin_shape", ("list_i", logical))]
                )
        out.close()


def _names(op: Operation, kind: str, count: int, stem: str) -> list[str]:
    """The operand (result) names of `op`'s definition, `name0`, `name1`, ... for a variadic
    one (sized by the op's segment sizes, or the one variadic taking what the others
    leave); else `x0`, `x1`, ... (`y0`, ...), or `x` (`y`) for one value."""
    if isinstance(op, IRDLOperation):
        defs = getattr(type(op).get_irdl_definition(), kind)
        segments = op.properties.get(
            "operandSegmentSizes" if kind == "operands" else "resultSegmentSizes"
        )
        sizes: list[int] = [1] * len(defs)
        variadic = [i for i, (_, d) in enumerate(defs) if isinstance(d, VariadicDef)]
        if isinstance(segments, DenseArrayBase):
            sizes = [int(v) for v in segments.get_values()]
        elif len(variadic) == 1:
            sizes[variadic[0]] = count - (len(defs) - 1)
        names = []
        for (name, _), size in zip(defs, sizes, strict=False):
            names += [name] if size == 1 else [f"{name}{i}" for i in range(max(size, 0))]
        if len(names) == count:
            return names
    if count == 1:
        return [stem]
    return [f"{stem}{i}" for i in range(count)]
