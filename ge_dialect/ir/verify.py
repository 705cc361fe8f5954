"""Whole-module verification with located diagnostics.

`verify_module` is what `ge_dialect.api.verify` runs, and ge-opt after parsing and after
every pass: op verifiers (innermost first), SSA dominance (xDSL 0.75 does not check it),
then the module-wide stream rules and the whole-program rules of each device program (a
`func.func` carrying `npu.program`).  The first failure is raised as a `GeError` located at
its op.

- `verify_located` verifies innermost ops first and reports the first failure as
  `file:line:col: error: 'ge.conv2d' op <message>`; an op whose verifier passed with the
  same inputs is not verified again;
- `check_dominance` rejects a use that its definition does not dominate.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ModuleOp,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import ConstantLike, IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

from ge_dialect.ir.dialects.npu.program import is_program, verify_program
from ge_dialect.ir.dialects.stream import verify_streams
from ge_dialect.utils.errors import GeError, location_str, op_error
from ge_dialect.utils.walk import walk_ops


def verify_module(module: Operation, fallback: str = "<unknown>") -> None:
    """Raises a located GeError for the first rule `module` breaks."""
    check_function_bodies(module, fallback)
    verify_located(module, fallback)
    check_dominance(module, fallback)
    verify_streams(module)
    for program in _programs(module):
        verify_program(program, fallback)


def _programs(op: Operation) -> list[func.FuncOp]:
    """The device programs of `op`: itself, or functions of its (nested) modules (no walk
    through function bodies)."""
    if is_program(op):
        assert isinstance(op, func.FuncOp)
        return [op]
    found: list[func.FuncOp] = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                if isinstance(inner, func.FuncOp):
                    if is_program(inner):
                        found.append(inner)
                elif isinstance(inner, ModuleOp):
                    found.extend(_programs(inner))
    return found


def _functions(op: Operation) -> Iterator[func.FuncOp]:
    """The functions in `op` (itself included), without walking through function bodies
    (a function holds no function): one pass over the module's top level."""
    if isinstance(op, func.FuncOp):
        yield op
        return
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                yield from _functions(inner)


def check_function_bodies(module: Operation, fallback: str = "<unknown>") -> None:
    """MLIR's rules for function bodies that xDSL 0.75 does not check.

    A block of a body must hold at least its terminator (mlir-opt: "empty block: expect at
    least a terminator"), and a function without a body is a declaration, which must not be
    public (xDSL parses `func.func @f() {}` as one, and would print text mlir-opt rejects).
    """
    for op in _functions(module):
        if not op.body.blocks:
            visibility = op.sym_visibility
            if visibility is None or visibility.data == "public":
                raise op_error(
                    op,
                    "symbol declaration cannot have public visibility (a function without "
                    "a body is a declaration: give it a body or make it private)",
                    fallback,
                )
        for block in op.body.blocks:
            if block.first_op is None:
                raise op_error(op, "empty block: expect at least a terminator", fallback)


# properties.  A `ge` op's verifier reads nothing else (not its neighbours, not its
# discardable attributes), so an op whose key is unchanged needs no second run.
_VERIFIED: weakref.WeakKeyDictionary[Operation, tuple[object, ...]] = weakref.WeakKeyDictionary()

# The same knowledge by content, shared by every op of a class: `(class, key)` of non-constant
# `ge` ops that passed (a graph's convs mostly share their types and properties, and a pass
# that rebuilds an op makes a new one of the same kind).  A constant's key would hold its
# data: a constant takes part only through `verifier_key_without_data()`, when its verifier
# does not read the data (None when it does).  Bounded: emptied at `_PASSED_LIMIT` entries.
_PASSED: dict[tuple[object, ...], None] = {}
_PASSED_LIMIT = 4096

# `_PASSED`'s keys hold attributes as numbers: equal attributes get the same number, once per
# attribute object (`_BY_ID`, which holds the object, so that its id is not reused meanwhile).
# Hashing an attribute walks all its parameters, and a pass keeps most of its type and
# property objects (or shares them among ops), so most objects are numbered in an earlier
# verification or by an op before.  Bounded: emptied, with `_PASSED`, at `_NUMBERED_LIMIT`.
_NUMBERS: dict[Attribute, int] = {}
_BY_ID: dict[int, tuple[Attribute, int]] = {}
_NUMBERED_LIMIT = 1 << 15


_OTHER, _GE, _CONSTANT, _FUNCTION = range(4)
_KINDS: dict[type[Operation], int] = {func.FuncOp: _FUNCTION}
"""Per op class (its name and traits are the class's): not a `ge` op, a `ge` op, a `ge`
constant (`ConstantLike`) or a `func.func`, looked up once per class rather than once per
op."""


def _function_inputs(op: Operation) -> tuple[object, ...] | None:
    """What the verifier of `func.func` reads but the ops in its body: its properties and
    its blocks' count and entry argument types (None: not memoised, when it is not in a
    module, whose body needs no terminator: the one rule that reads its place).  Attributes
    and numbers only: the key of a function in `_VERIFIED` must not hold the function, or
    the weak dictionary would keep it (and its module) alive."""
    block = op.parent
    if block is None or not isinstance(block.parent_op(), ModuleOp):
        return None
    blocks = op.regions[0].blocks
    first = blocks.first
    return (
        *op.properties.items(),
        len(blocks),
        *([] if first is None else [a.type for a in first.args]),
    )


def forget_verified() -> None:
    """Forgets which ops passed (benchmarks start each run from an empty memory)."""
    _VERIFIED.clear()
    _PASSED.clear()
    _NUMBERS.clear()
    _BY_ID.clear()


def _by_content(key: tuple[object, ...]) -> tuple[object, ...]:
    """`key` with each attribute replaced by its number (equal attributes, equal numbers),
    each property `(name, value)` by its name and its value's number, other items (None,
    classes) as they are."""
    by_id = _BY_ID
    out: list[object] = []
    for x in key:
        found = by_id.get(id(x))
        if found is not None:
            out.append(found[1])
        elif type(x) is tuple:  # a property: (name, value)
            name, value = x
            found = by_id.get(id(value))
            out.append(name)
            out.append(found[1] if found is not None else _number(value))
        elif isinstance(x, Attribute):
            out.append(_number(x))
        else:
            out.append(x)
    return tuple(out)


def _number(x: Attribute) -> int:
    number = _NUMBERS.setdefault(x, len(_NUMBERS))
    _BY_ID[id(x)] = (x, number)
    return number


def _verifier_inputs(op: Operation) -> tuple[object, ...]:
    # list displays, not generators: this runs for every op at every verification
    return (
        *[v.type for v in op.operands],
        None,
        *[r.type for r in op.results],
        None,
        *op.properties.items(),
    )


def verify_located(module: Operation, fallback: str = "<unknown>") -> None:
    """Verifies innermost ops first and raises the first failure as a located GeError.

    A `ge` op is not verified again when it passed before with the same types and
    properties, or when another op of its class passed with equal ones (a constant: with
    equal types, when its verifier does not read its data), unless it ends its block (the
    terminator rule depends on its position).  Nor is a `func.func` of a module whose
    properties, blocks and argument types are those it passed with: the rule of its
    `IsolatedFromAbove` trait, the one part of its verifier that reads its body (every
    operand of every op in it), is left to `check_dominance`, which `verify_module` runs
    next, and checks it too.

    (This loop runs for every op after every pass: the look-ups that skip an op verified
    before stay in it, and the steps after a miss are functions.)
    """
    kinds = _KINDS
    for op in walk_ops(module, region_first=True):
        kind = kinds.get(type(op))
        if kind is None:
            kind = _kind_of(op)
        if kind == _FUNCTION:
            key = _function_inputs(op)
            if key is None or _VERIFIED.get(op) != key:
                _verify_and_remember(op, key, None, fallback)
        elif kind == _OTHER or op.regions or op.successors:
            _verify_and_remember(op, None, None, fallback)
        else:
            key = _verifier_inputs(op)
            block = op.parent
            ends_block = block is not None and block.last_op is op
            if ends_block or _VERIFIED.get(op) != key:  # items compare by identity first
                _verify_memoised(op, kind, key, not ends_block, fallback)


def _kind_of(op: Operation) -> int:
    """The kind of `op` (`_OTHER`, `_GE` or `_CONSTANT`), learnt for its class in `_KINDS`
    (but for an unregistered op, whose name may be the op's own)."""
    if not op.name.startswith("ge."):
        kind = _OTHER
    else:
        kind = _CONSTANT if op.has_trait(ConstantLike) else _GE
    if not isinstance(op, UnregisteredOp):
        _KINDS[type(op)] = kind
    return kind


def _verify_memoised(
    op: Operation, kind: int, key: tuple[object, ...], shareable: bool, fallback: str
) -> None:
    """Verifies the `ge` op `op` (of `kind`, with verifier inputs `key`), which has not
    passed with these inputs itself, unless another op of its class passed with equal ones
    (looked up only when `shareable`: when `op` does not end its block)."""
    shared = _shared_key(op, kind, key) if shareable else None
    if shared is not None and shared in _PASSED:
        _VERIFIED[op] = key
        return
    _verify_and_remember(op, key, shared, fallback)


def _shared_key(op: Operation, kind: int, key: tuple[object, ...]) -> tuple[object, ...] | None:
    """The key of `op` in `_PASSED`, by content: its class and verifier inputs (`key`), or
    for a constant its `verifier_key_without_data()`; None when there is none (a constant
    whose verifier reads its data)."""
    if kind == _GE:
        return (type(op), *_by_content(key))
    data_free = getattr(op, "verifier_key_without_data", None)
    if data_free is None:
        return None
    shared = data_free()
    return None if shared is None else _by_content(shared)


def _verify_and_remember(
    op: Operation,
    key: tuple[object, ...] | None,
    shared: tuple[object, ...] | None,
    fallback: str,
) -> None:
    """Verifies `op` alone (its nested ops were verified before it), raising a located
    GeError; then remembers that it passed with `key` (in `_VERIFIED`) and that `shared`
    passed (in `_PASSED`), and empties the memories that reached their bounds."""
    try:
        op.verify(verify_nested_ops=False)
    except VerifyException as e:
        # One line: some of xDSL's messages span several.
        message = str(e).strip().replace("\n", " ")
        raise op_error(op, message, fallback) from None
    if key is not None:
        _VERIFIED[op] = key
    if shared is not None:
        if len(_PASSED) >= _PASSED_LIMIT:
            _PASSED.clear()
        _PASSED[shared] = None
    if len(_BY_ID) >= _NUMBERED_LIMIT:  # numbers go: so do the keys made of them
        _PASSED.clear()
        _NUMBERS.clear()
        _BY_ID.clear()


def check_dominance(module: Operation, fallback: str = "<unknown>") -> None:
    """Raises a located GeError for the first use not dominated by its definition.

    Within a block, a value is visible after its defining op; values of enclosing blocks
    are visible to nested regions from their definition on, except in the regions of an
    `IsolatedFromAbove` op (a function), which see none: this check implies that trait's
    rule, which `verify_located` leaves to it for a function it verified before.
    Multi-block regions are checked per block only (values of other blocks of the region
    are accepted).  The module body is a graph region: its ops need no order, only their
    bodies are checked.
    """
    ops = module.ops if isinstance(module, ModuleOp) else (module,)
    for op in ops:
        for region in op.regions:
            for block in region.blocks:
                _check_block(block, set(), fallback)


def _check_block(block: Block, visible: set[int], fallback: str) -> None:
    """Checks that every operand in `block` (and in the regions of its ops) is visible
    where it is used.  `visible`: the ids of the values visible on entry, to which the
    block's own are added meanwhile and from which they are taken out at the end (an SSA
    value hashes by its id, with a call to Python's `SSAValue.__hash__`; the values stay
    alive meanwhile, so their ids are theirs)."""
    added: list[int] = [id(arg) for arg in block.args]
    visible.update(added)
    for op in block.ops:
        for i, operand in enumerate(op.operands):
            if id(operand) not in visible and not _defined_in_sibling_block(operand, block):
                raise _not_dominated(op, i, operand, fallback)
        if op.regions:
            _check_regions(op, visible, fallback)
        for result in op.results:
            visible.add(id(result))
            added.append(id(result))
    visible.difference_update(added)


def _check_regions(op: Operation, visible: set[int], fallback: str) -> None:
    """Checks the blocks of `op`'s regions, which see the values `visible` before `op`,
    or none if `op` is `IsolatedFromAbove`."""
    seen = set() if op.has_trait(IsolatedFromAbove) else visible
    for region in op.regions:
        for inner in region.blocks:
            _check_block(inner, seen, fallback)


def _defined_in_sibling_block(value: SSAValue, block: Block) -> bool:
    """Whether `value` is defined in another block of `block`'s region (accepted: the
    check is per block)."""
    region = block.parent
    if region is None or len(region.blocks) < 2:
        return False
    owner = value.owner
    owner_block = owner if isinstance(owner, Block) else owner.parent_block()
    return owner_block is not None and owner_block is not block and owner_block.parent is region


def _not_dominated(op: Operation, index: int, operand: SSAValue, fallback: str) -> GeError:
    """The error for operand `index` of `op`, which its definition does not dominate."""
    owner = operand.owner
    where = ""
    if isinstance(owner, Operation):
        where = f" (defined by '{owner.name}' at {location_str(owner.location)})"
    return op_error(op, f"operand #{index} does not dominate this use{where}", fallback)
