"""Kernel signatures: what `npu.launch "K"` may give kernel K, checked by the launch's verifier.

A kernel's signature is declared once, by the `ge` op it is named after: kernel `conv2d` is
`ge.conv2d`.  Its IRDL definition gives the operands (which are optional, which variadic),
the results, the properties and their types; its verifier gives ranks, element types,
formats and the result's shape.  `verify_launch` rebuilds that op from the launch, undoing
what `--lower-to-device` did to make the launch:

- each operand is a throwaway SSA value of the launch's logical type, and each result has
  its out type, with `#npu.format` turned back into `#ge.format` (both are
  `ge_dialect.ir.encodings.FormatEncoding`);
- each entry of `attrs` becomes the property of its name: a string becomes the property's
  enum attribute, `true` a unit attribute (`false`: the unit attribute is absent), anything
  else is taken as it is and must satisfy the property's constraint;
- `has_<operand>` (`has_bias`, `has_residual`) says which optional operands are present
  (without it, optional operands are present in their order as the input count allows), and
  `operandSegmentSizes` is rebuilt for an op that has it;

and verifies it.  Every failure is one `VerifyException` naming the kernel, the operand or
attribute, what was expected and what was found:

    kernel 'conv2d': result has shape [2, 16, 4, 4], expected [2, 16, 2, 2]
    kernel 'concat': attribute 'axis' must be an integer (i64), got "one"
    kernel 'relu': has no attribute 'alpha' (its attributes: none)
    unknown kernel 'foo' (a kernel is named after a ge op: 'conv2d' runs ge.conv2d)

Kernels no `ge` op names are declared in `DECLARED`, explicitly (`copy`).  The `ge`
dialect is looked up by name in the dialect registry (`ge_dialect.ir.registry`) on first
use: this package imports no `ge` module.  A signature that passed is remembered by its
kernel, types and attributes (bounded), so that verifying a program after every pass does
not rebuild an op per launch each time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    UnitAttr,
    i32,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    AttrSizedOperandSegments,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    OpDef,
    OptOperandDef,
    OptPropertyDef,
    ParamAttrConstraint,
    RangeLengthConstraint,
    RangeOf,
    VarConstraint,
    VarOperandDef,
    VerificationContext,
)
from xdsl.traits import ConstantLike
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from ge_dialect.ir.dialects.npu.attrs import FormatAttr
from ge_dialect.ir.registry import get_all_dialects

if TYPE_CHECKING:
    from ge_dialect.ir.dialects.npu.ops import LaunchOp

SEGMENTS = AttrSizedOperandSegments.attribute_name
"""`operandSegmentSizes`: rebuilt from the operands, never a kernel attribute."""

Types = Sequence[TensorType]
Attrs = Mapping[str, Attribute]
Signature = Callable[[Types, Types, Attrs], None]
"""A declared signature: checks (in_types, out_types, attrs), raising VerifyException."""


# --------------------------------------------------------------------------------------
# Declared signatures (kernels without a ge op)
# --------------------------------------------------------------------------------------


def _copy_signature(in_types: Types, out_types: Types, attrs: Attrs) -> None:
    """`copy`: one input, one output of the same logical type, no attributes (the kernel of
    `npu.copy`, also launchable)."""
    if len(in_types) != 1 or len(out_types) != 1:
        raise VerifyException(
            f"takes 1 input and produces 1 output, got {_count(len(in_types), 'input')} and "
            f"{_count(len(out_types), 'output')}"
        )
    if out_types[0] != in_types[0]:
        raise VerifyException(
            f"result has type {out_types[0]}, expected {in_types[0]} (the input's)"
        )
    _no_attributes(attrs)


def _no_attributes(attrs: Attrs) -> None:
    """A kernel without attributes is given none (the first given is named)."""
    if attrs:
        name = next(iter(attrs))
        raise VerifyException(f"has no attribute '{name}' (its attributes: none)")


DECLARED: dict[str, Signature] = {"copy": _copy_signature}
"""The kernels no `ge` op names, with their signatures."""


# --------------------------------------------------------------------------------------
# The ge dialect, by name
# --------------------------------------------------------------------------------------


@functools.cache
def _ge_ops() -> dict[str, type[IRDLOperation]]:
    """Kernel name -> the `ge` op class it is named after (constants are not kernels: a
    `ge.const` lowers to `npu.weight`)."""
    dialect = get_all_dialects()["ge"]()
    ops: dict[str, type[IRDLOperation]] = {}
    for op in dialect.operations:
        if issubclass(op, IRDLOperation) and not op.has_trait(ConstantLike):
            ops[op.name.removeprefix("ge.")] = op
    return ops


@functools.cache
def _ge_format() -> type[FormatAttr]:
    """The class of `#ge.format` (a FormatEncoding, as `#npu.format`)."""
    dialect = get_all_dialects()["ge"]()
    found = next(a for a in dialect.attributes if a.name == "ge.format")
    return found  # type: ignore[return-value]  # a FormatEncoding subclass, as FormatAttr


def known_kernels() -> list[str]:
    """Every kernel name a launch may use, sorted: the `ge` ops' and the declared ones."""
    return sorted({*_ge_ops(), *DECLARED})


# --------------------------------------------------------------------------------------
# Verifying a launch
# --------------------------------------------------------------------------------------

_PASSED: dict[tuple[object, ...], None] = {}
_PASSED_LIMIT = 4096


def verify_launch(launch: LaunchOp) -> None:
    """Checks `launch` against its kernel's signature; one VerifyException if it breaks it."""
    in_types = launch.in_types
    out_types = launch.out_types
    key = (launch.kernel, in_types, out_types, launch.attrs)
    if key in _PASSED:
        return
    inputs = [t for t in in_types.data if isinstance(t, TensorType)]
    outputs = [t for t in out_types.data if isinstance(t, TensorType)]
    verify_signature(launch.kernel.data, inputs, outputs, launch.attrs.data)
    if len(_PASSED) >= _PASSED_LIMIT:
        _PASSED.clear()
    _PASSED[key] = None


def verify_signature(kernel: str, in_types: Types, out_types: Types, attrs: Attrs) -> None:
    """Checks a launch of `kernel` with these logical types (`#npu.format` encodings) and
    kernel attributes; one VerifyException (`kernel 'K': ...`) if its signature is broken."""
    declared = DECLARED.get(kernel)
    op_class = _ge_ops().get(kernel)
    if declared is None and op_class is None:
        raise VerifyException(
            f"unknown kernel '{kernel}' (a kernel is named after a ge op: 'conv2d' runs ge.conv2d)"
        )
    try:
        if declared is not None:
            declared(in_types, out_types, attrs)
        else:
            assert op_class is not None
            _verify_as_op(op_class, in_types, out_types, attrs)
    except VerifyException as e:
        text = str(e).replace("#ge.format<", "#npu.format<")
        raise VerifyException(f"kernel '{kernel}': {text}") from None


def _verify_as_op(
    op_class: type[IRDLOperation], in_types: Types, out_types: Types, attrs: Attrs
) -> None:
    """Rebuilds the `ge` op of the launch and verifies it (IRDL constraints and verify_)."""
    op_def = op_class.get_irdl_definition()
    sizes = _operand_sizes(op_def, len(in_types), attrs)
    _check_result_count(op_def, len(out_types))
    properties = _properties(op_def, attrs)
    segments = DenseArrayBase.from_list(i32, sizes)
    attributes: dict[str, Attribute] = {}
    for option in op_def.options:
        if isinstance(option, AttrSizedOperandSegments):
            (properties if option.as_property else attributes)[SEGMENTS] = segments
    operands = [create_ssa_value(_ge_type(t)) for t in in_types]
    op = op_class.create(
        operands=operands,
        result_types=[_ge_type(t) for t in out_types],
        properties=properties,
        attributes=attributes,
    )
    try:
        _check_same_types(op_def, op, sizes)
        op.verify_()
    finally:
        op.drop_all_references()


def _ge_type(t: TensorType) -> TensorType:
    """A launch's logical type as the `ge` op's: `#npu.format` as `#ge.format`."""
    enc = t.encoding
    if not isinstance(enc, FormatAttr):
        return t
    fmt = _ge_format()(enc.fmt, enc.c0.data, enc.groups.data)
    return TensorType(t.element_type, t.get_shape(), fmt)


# --------------------------------------------------------------------------------------
# Operands and results
# --------------------------------------------------------------------------------------


def _flag(attrs: Attrs, name: str) -> bool | None:
    """The boolean attribute `name` (None when absent); anything but true/false is an error."""
    value = attrs.get(name)
    if value is None:
        return None
    if not _is_bool(value):
        raise VerifyException(f"attribute '{name}' must be true or false, got {value}")
    assert isinstance(value, IntegerAttr)
    return bool(value.value.data)


def _is_bool(value: Attribute) -> bool:
    return (
        isinstance(value, IntegerAttr)
        and isinstance(value.type, IntegerType)
        and value.type.width.data == 1
    )


def _operand_sizes(op_def: OpDef, count: int, attrs: Attrs) -> list[int]:
    """How many of the launch's `count` inputs each operand of the op takes.

    An optional operand X is present as `has_X` says; without `has_X`, optional operands
    are present in their order while inputs are left over.  A variadic operand takes the
    rest; otherwise the count must be exact."""
    defs = op_def.operands
    optional = [n for n, d in defs if isinstance(d, OptOperandDef)]
    variadic = [
        n for n, d in defs if isinstance(d, VarOperandDef) and not isinstance(d, OptOperandDef)
    ]
    single = [n for n, d in defs if not isinstance(d, VarOperandDef)]
    flags = {n: _flag(attrs, f"has_{n}") for n in optional}
    spare = count - len(single) - sum(1 for f in flags.values() if f)
    present: dict[str, bool] = {}
    for n in optional:
        flag = flags[n]
        present[n] = flag if flag is not None else spare > 0
        if flag is None and spare > 0:
            spare -= 1
    taken = [n for n, _ in defs if n in single or present.get(n)]
    rest = count - len(taken)
    if rest < 0 or (rest and not variadic):
        given = ", ".join(f"has_{n} = {str(v).lower()}" for n, v in flags.items() if v is not None)
        names = ", ".join(taken) + ("" if not variadic else f", {variadic[0]}...")
        raise VerifyException(
            f"takes {_count(len(taken), 'input')}{' or more' if variadic else ''} ({names})"
            f"{f' with {given}' if given else ''}, got {count}"
        )
    return [rest if n in variadic else int(n in single or present.get(n, False)) for n, _ in defs]


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _check_result_count(op_def: OpDef, count: int) -> None:
    names = [n for n, _ in op_def.results]
    if count != len(names):
        raise VerifyException(
            f"produces {_count(len(names), 'output')} ({', '.join(names)}), got {count}"
        )


def _var_name(constr: object) -> str | None:
    """The type variable (`T`) an operand or result definition binds, if any."""
    while True:
        if isinstance(constr, RangeLengthConstraint):
            constr = constr.constraint
        elif isinstance(constr, RangeOf):
            constr = constr.constr
        elif isinstance(constr, VarConstraint):
            return constr.name
        else:
            return None


def _check_same_types(op_def: OpDef, op: Operation, sizes: list[int]) -> None:
    """Operands and results bound to one type variable have one type (the op's `T`: a
    relu's result has its input's type), in the words of the `ge` verifiers."""
    values: list[tuple[str, str, str | None, SSAValue]] = []
    index = 0
    for (name, operand), size in zip(op_def.operands, sizes, strict=True):
        for v in op.operands[index : index + size]:
            values.append((f"operand '{name}'", name, _var_name(operand.constr), v))
        index += size
    for (_, result), r in zip(op_def.results, op.results, strict=True):
        values.append(("result", "result", _var_name(result.constr), r))
    first: dict[str, tuple[str, Attribute]] = {}
    for what, name, var, v in values:
        if var is None:
            continue
        if var not in first:
            first[var] = (name, v.type)
        elif v.type != first[var][1]:
            whose, expected = first[var]
            raise VerifyException(f"{what} has type {v.type}, expected {expected} (the {whose}'s)")


# --------------------------------------------------------------------------------------
# Attributes -> properties
# --------------------------------------------------------------------------------------


def _properties(op_def: OpDef, attrs: Attrs) -> dict[str, Attribute]:
    """The op's properties from the launch's `attrs` (the inverse of the lowering's
    `kernel_attrs`); an unknown, ill-typed or missing attribute is an error."""
    optional = [n for n, d in op_def.operands if isinstance(d, OptOperandDef)]
    flags = {f"has_{n}" for n in optional}
    names = sorted({*(n for n in op_def.properties if n != SEGMENTS), *flags})
    properties: dict[str, Attribute] = {}
    for name, value in attrs.items():
        if name in flags:
            continue  # read by _operand_sizes
        prop = op_def.properties.get(name)
        if prop is None or name == SEGMENTS:
            raise VerifyException(
                f"has no attribute '{name}' (its attributes: {', '.join(names) or 'none'})"
            )
        converted = _property(name, value, prop.constr)
        if converted is not None:
            properties[name] = converted
    for name, prop in op_def.properties.items():
        required = not isinstance(prop, OptPropertyDef) and prop.default_value is None
        if required and name != SEGMENTS and name not in properties:
            raise VerifyException(f"attribute '{name}' is missing ({_expected(prop.constr)})")
    return properties


def _base_class(constr: object) -> type[Attribute] | None:
    if isinstance(constr, BaseAttr):
        return constr.attr
    if isinstance(constr, ParamAttrConstraint):
        return constr.base_attr
    return None


def _property(name: str, value: Attribute, constr: object) -> Attribute | None:
    """The property `name` from the attribute `value` (None: a unit attribute that is
    false, i.e. absent)."""
    base = _base_class(constr)
    if base is UnitAttr:
        if not _is_bool(value):
            raise VerifyException(f"attribute '{name}' must be true or false, got {value}")
        assert isinstance(value, IntegerAttr)
        return UnitAttr() if value.value.data else None
    if base is not None and issubclass(base, EnumAttribute):
        choices = [str(member) for member in base.enum_type]
        if not isinstance(value, StringAttr) or value.data not in choices:
            raise VerifyException(f"attribute '{name}' must be {_expected(constr)}, got {value}")
        return base(base.enum_type(value.data))
    assert hasattr(constr, "verify")
    try:
        constr.verify(value, VerificationContext())
    except VerifyException:
        raise VerifyException(
            f"attribute '{name}' must be {_expected(constr)}, got {value}"
        ) from None
    return value


_KIND_NAMES: dict[type[Attribute], str] = {
    IntegerAttr: "an integer",
    FloatAttr: "a float",
    DenseArrayBase: "an array of integers",
    StringAttr: "a string",
    UnitAttr: "true or false",
}


def _expected(constr: object) -> str:
    """What a property's constraint accepts, in words: `an integer (i64)`, `one of "none",
    "relu"`, ..."""
    base = _base_class(constr)
    if base is not None and issubclass(base, EnumAttribute):
        return "one of " + ", ".join(f'"{member}"' for member in base.enum_type)
    text = _KIND_NAMES.get(base, f"a {base.name} attribute") if base else str(constr)
    element = _element_type(constr)
    return f"{text} ({element})" if element else text


def _element_type(constr: object) -> str | None:
    """The type parameter a property's constraint fixes (`i64` of `IntegerAttr[I64]`,
    `f32` of `FloatAttr[Float32Type]`, `i64` of an i64 dense array), if any."""
    if not isinstance(constr, ParamAttrConstraint):
        return None
    for param in constr.param_constrs:
        if isinstance(param, EqAttrConstraint) and isinstance(param.attr, TypeAttribute):
            return str(param.attr)
        if isinstance(param, BaseAttr) and issubclass(param.attr, TypeAttribute):
            try:
                return str(param.attr())
            except TypeError:  # a type with parameters
                return None
    return None


__all__ = ["DECLARED", "known_kernels", "verify_launch", "verify_signature"]
