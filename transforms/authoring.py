"""Pattern authoring: GE fusions as a declarative match and a rewrite.

A pattern declares the ops it matches as a tree (or a small DAG) of matchers rooted at the
op it replaces, and builds the replacement from what matched:

    class MatMulBias(Pattern):
        \"\"\"matmul(a, b) + bias -> matmul(a, b) bias\"\"\"

        name = "matmul-add-bias"
        match = op(
            ge.AddOp,
            op(ge.MatMulOp, bias=None, single_use=True, shape=(..., "N"), bind="mm"),
            const(shape=("N",), bind="bias"),
        )

        def rewrite(self, m: Match) -> Operation:
            return ge.MatMulOp(m.mm.a, m.mm.b, m.bias, m.mm.output.type,
                               m.mm.transpose_a is not None, m.mm.transpose_b is not None)

    FuseMatMulBias = pattern_pass("fuse-matmul-bias", [MatMulBias], summary="...")

Matchers (`op`, `const`, `value`, a bare string as `value(name)`, and `one_of` for
alternatives: an optional op in a chain) check an op's kind,
its operands (positionally, or by operand name; both orders of a `Commutative` op's two
operands are tried), its properties (by name: a Python value, an attribute, None for
"absent" or a predicate), the type of its result (`shape`, with `...` for any leading dims,
None for any dim and a string for a dim that must be the same wherever that name appears;
`rank`; `dtype`), `single_use` (its result has one use, so it can go) and any `where`
predicate.  `bind="name"` makes the op (for `op`) or the value (for `const`, `value`)
available to the rewrite as `m.name`; a name bound twice must match the same op or value
(`op(ge.MulOp, "x", op(ge.SigmoidOp, "x"))` is `x * sigmoid(x)`).

`rewrite` returns the new op, or a list of new ops (the last one's results replace the
root's), or an existing value; None declines the match.  The framework then, without the
author doing anything:

- refuses a match whose ops carry different stream labels, and gives new ops the label
  the matched ops share;
- gives new ops (not constants) each TorchAir scope attribute the matched ops share
  (`common.inherit_scope_attrs`: core limit, super kernel);
- gives new ops with no location of their own the matched ops' locations, fused;
- verifies each new op and checks that the replacement's types are those of the values it
  replaces (a mistake is a `GeError` naming the pattern);
- replaces the root, then erases the matched ops and the constants that became dead;
- turns an exception raised by a pattern into a `GeError` naming the pattern and the
  location of the op it was matching (the pass stops there);
- counts `"<pattern name> applied"` in the pass's statistics.

`pattern_pass(name, patterns, summary=...)` makes the patterns a registered `ModulePass`,
which refuses an assigned module and drives the patterns with xDSL's
`PatternRewriteWalker(GreedyRewritePatternApplier(...))`.  The tutorial is
docs/patterns.md.
"""

from __future__ import annotations

import abc
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import EllipsisType
from typing import Any, ClassVar, cast

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Data, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.traits import Commutative

from ge_dialect.ir.dialects import stream
from ge_dialect.utils import dtypes
from ge_dialect.utils.errors import GeError, op_error
from transforms import register_pass
from transforms.common import (
    constant_of,
    erase_dead,
    fused_location,
    inherit_scope_attrs,
    refuse_assigned,
    same_label,
)
from transforms.reports import count

__all__ = [
    "Match",
    "Matcher",
    "Pattern",
    "const",
    "one_of",
    "op",
    "pattern",
    "pattern_pass",
    "run_patterns",
    "value",
]

Dim = int | str | None
ShapeSpec = Sequence[Dim | EllipsisType]


# --------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------


class Match:
    """What a pattern matched: `root` (the op it replaces), every bound op or value as an
    attribute (`m.mm`, `m.bias`) or item (`m["mm"]`), `ops` (the matched ops, producers
    before their users, the root last) and `dims` (the named dims of `shape` constraints)."""

    def __init__(self, root: Operation):
        self.root = root
        self.bound: dict[str, Operation | SSAValue] = {}
        self.dims: dict[str, int] = {}
        self.ops: list[Operation] = []
        self.also: list[tuple[Operation, tuple[SSAValue, ...]]] = []

    def replace(self, other: Operation, *values: SSAValue) -> None:
        """From `rewrite`: also replace the results of `other`, an op after the root in its
        block (a user the match looked ahead to), by `values` (the new ops' results, or
        existing values), once the root is replaced."""
        self.also.append((other, values))

    def __getattr__(self, name: str) -> Any:
        bound = self.__dict__.get("bound", {})
        if name in bound:
            return bound[name]
        raise AttributeError(f"nothing was bound to '{name}' (bound: {sorted(bound)})")

    def __getitem__(self, name: str) -> Any:
        return self.bound[name]

    def _save(self) -> tuple[dict[str, Operation | SSAValue], dict[str, int], int]:
        return dict(self.bound), dict(self.dims), len(self.ops)

    def _restore(self, saved: tuple[dict[str, Operation | SSAValue], dict[str, int], int]) -> None:
        self.bound, self.dims = dict(saved[0]), dict(saved[1])
        del self.ops[saved[2] :]


class Matcher(abc.ABC):
    """Matches one value (and, for `op`, the op defining it): the base of `op`, `const`
    and `value`, holding the constraints on the value's type."""

    def __init__(
        self,
        bind: str | None,
        shape: ShapeSpec | None,
        rank: int | None,
        dtype: str | Attribute | None,
    ):
        self.bind = bind
        self.shape = None if shape is None else tuple(shape)
        if self.shape is not None and Ellipsis in self.shape[1:]:
            raise ValueError("shape: `...` may only come first")
        self.rank = rank
        self.dtype = None if dtype is None else _element_type(dtype)

    @abc.abstractmethod
    def match_value(self, v: SSAValue, m: Match) -> bool:
        """Whether `v` matches, binding names in `m`."""

    def _type_ok(self, t: Attribute, m: Match) -> bool:
        if self.shape is None and self.rank is None and self.dtype is None:
            return True
        if not isinstance(t, TensorType):
            return False
        if self.dtype is not None and t.element_type != self.dtype:
            return False
        dims = tuple(t.get_shape())
        if self.rank is not None and len(dims) != self.rank:
            return False
        return self.shape is None or _shape_ok(self.shape, dims, m)

    def _bind_value(self, v: SSAValue, m: Match) -> bool:
        """Binds `v` (False if the name is bound to something else)."""
        if self.bind is None:
            return True
        bound = m.bound.get(self.bind)
        if bound is None:
            m.bound[self.bind] = v
            return True
        return bound is v


def _shape_ok(spec: tuple[Dim | EllipsisType, ...], dims: tuple[int, ...], m: Match) -> bool:
    if spec and spec[0] is Ellipsis:
        spec = spec[1:]
        if len(dims) < len(spec):
            return False
        dims = dims[len(dims) - len(spec) :]
    elif len(dims) != len(spec):
        return False
    for want, got in zip(spec, dims, strict=True):
        if want is None:
            continue
        if isinstance(want, str):
            if m.dims.setdefault(want, got) != got:
                return False
        elif want != got:
            return False
    return True


def _element_type(dtype: str | Attribute) -> Attribute:
    if isinstance(dtype, Attribute):
        return dtype
    return dtypes.element_type(dtype, dtypes.GRAPH_TYPES)


class ValueMatcher(Matcher):
    """Any value meeting the type constraints (see `value`)."""

    def __init__(self, bind, shape, rank, dtype, where: Callable[[SSAValue], bool] | None):
        super().__init__(bind, shape, rank, dtype)
        self.where = where

    def match_value(self, v: SSAValue, m: Match) -> bool:
        if not self._type_ok(v.type, m):
            return False
        if self.where is not None and not self.where(v):
            return False
        return self._bind_value(v, m)


class ConstMatcher(Matcher):
    """A value defined by a readable `ge.const` (see `const`)."""

    def __init__(self, bind, shape, rank, dtype, where: Callable[[np.ndarray], bool] | None):
        super().__init__(bind, shape, rank, dtype)
        self.where = where

    def match_value(self, v: SSAValue, m: Match) -> bool:
        const_op = constant_of(v)
        if const_op is None or not self._type_ok(v.type, m):
            return False
        if self.where is not None and not self.where(const_op.logical_array()):
            return False
        return self._bind_value(v, m)


class OpMatcher(Matcher):
    """An op of some kinds with constraints on its operands, properties and result (see
    `op`)."""

    def __init__(
        self,
        kinds: tuple[type[Operation] | str, ...],
        operands: tuple[Matcher | None, ...],
        named: dict[str, Matcher | None],
        properties: dict[str, object],
        single_use: bool,
        commutative: bool | None,
        where: Callable[[Operation], bool] | None,
        bind: str | None,
        shape: ShapeSpec | None,
        rank: int | None,
        dtype: str | Attribute | None,
    ):
        super().__init__(bind, shape, rank, dtype)
        self.classes = tuple(k for k in kinds if isinstance(k, type))
        self.names = frozenset(k for k in kinds if isinstance(k, str))
        self.operands = operands
        self.named = named
        self.properties = properties
        self.single_use = single_use
        self.commutative = commutative
        self.where = where

    def kind_ok(self, operation: Operation) -> bool:
        return isinstance(operation, self.classes) or operation.name in self.names

    def match_value(self, v: SSAValue, m: Match) -> bool:
        owner = v.owner
        return isinstance(owner, Operation) and self.match_op(owner, m)

    def match_op(self, operation: Operation, m: Match) -> bool:
        if not self.kind_ok(operation):
            return False
        if self.bind is not None and (bound := m.bound.get(self.bind)) is not None:
            return bound is operation  # the same op, already matched
        if self.single_use and not (
            len(operation.results) == 1 and operation.results[0].has_one_use()
        ):
            return False
        if (self.shape, self.rank, self.dtype) != (None, None, None) and (
            len(operation.results) != 1 or not self._type_ok(operation.results[0].type, m)
        ):
            return False
        for key, want in self.properties.items():
            have = operation.properties.get(key, operation.attributes.get(key))
            if not _property_ok(want, have):
                return False
        if self.where is not None and not self.where(operation):
            return False
        for key, sub in self.named.items():
            operand = getattr(operation, key)
            if sub is None:
                if operand is not None:
                    return False
            elif operand is None or not sub.match_value(operand, m):
                return False
        if self.operands and not self._operands_ok(operation, m):
            return False
        if self.bind is not None:
            m.bound[self.bind] = operation
        m.ops.append(operation)
        return True

    def _operands_ok(self, operation: Operation, m: Match) -> bool:
        values = tuple(operation.operands)
        if len(values) != len(self.operands):
            return False
        orders = [values]
        swap = self.commutative
        if swap is None:
            swap = operation.has_trait(Commutative)
        if swap and len(values) == 2:
            orders.append((values[1], values[0]))
        saved = m._save()
        for order in orders:
            if all(
                sub is None or sub.match_value(v, m)
                for sub, v in zip(self.operands, order, strict=True)
            ):
                return True
            m._restore(saved)
        return False


class OneOfMatcher(Matcher):
    """The first of several matchers that matches a value (see `one_of`)."""

    def __init__(self, alternatives: tuple[Matcher, ...]):
        super().__init__(None, None, None, None)
        self.alternatives = alternatives

    def match_value(self, v: SSAValue, m: Match) -> bool:
        saved = m._save()
        for alternative in self.alternatives:
            if alternative.match_value(v, m):
                return True
            m._restore(saved)
        return False


def _property_ok(want: object, have: Attribute | None) -> bool:
    if want is None:
        return have is None
    if have is None:
        return want is False
    if isinstance(want, Attribute):
        return have == want
    if callable(want):
        return bool(want(_python(have)))
    return _python(have) == want


def _python(attr: Attribute) -> object:
    """An attribute as a Python value (a number, a string, True for a unit attribute, a
    tuple for an array), for comparing with what a pattern wrote; else the attribute."""
    if isinstance(attr, UnitAttr):
        return True
    if isinstance(attr, IntegerAttr | FloatAttr):
        return attr.value.data
    if isinstance(attr, StringAttr):
        return attr.data
    if isinstance(attr, ArrayAttr):
        return tuple(_python(a) for a in attr.data)
    if hasattr(attr, "get_values"):  # DenseArrayBase
        return tuple(attr.get_values())
    if isinstance(attr, Data):
        data = attr.data
        return str(data) if isinstance(data, str) else data
    return attr


def _operand(spec: Matcher | str | None) -> Matcher | None:
    return ValueMatcher(spec, None, None, None, None) if isinstance(spec, str) else spec


def op(
    kind: type[Operation] | str | tuple[type[Operation] | str, ...],
    *operands: Matcher | str | None,
    single_use: bool = False,
    bind: str | None = None,
    shape: ShapeSpec | None = None,
    rank: int | None = None,
    dtype: str | Attribute | None = None,
    where: Callable[[Operation], bool] | None = None,
    commutative: bool | None = None,
    **constraints: object,
) -> OpMatcher:
    """Matches an op of `kind` (an op class, an op name such as `"ge.add"`, or a tuple).

    - `operands`: one matcher per operand, in order (a string binds any value; None takes
      any); both orders are tried for a `Commutative` op of two operands (`commutative`
      forces it on or off);
    - keywords naming an operand of the op class (`bias=None`, `lhs=op(...)`): a matcher
      for it, None for an optional operand that must be absent;
    - keywords naming a property or attribute (`transpose_a=None`, `alpha=0.2`,
      `activation="relu"`, `epsilon=lambda e: e < 1e-3`): a Python value compared with
      the attribute's, an attribute, None for absent, or a predicate;
    - `single_use`: its result has exactly one use (the op it feeds; so not a function
      result either): what an intermediate op the rewrite removes must have;
    - `shape`, `rank`, `dtype`: constraints on its result type (see `Matcher`);
    - `where`: any other predicate on the op; `bind`: the name the rewrite reads it by.
    """
    kinds = kind if isinstance(kind, tuple) else (kind,)
    named: dict[str, Matcher | None] = {}
    properties: dict[str, object] = {}
    operand_names = _operand_names(kinds)
    for key, spec in constraints.items():
        if key in operand_names:
            if spec is not None and not isinstance(spec, Matcher | str):
                raise TypeError(f"operand '{key}' takes a matcher, a name or None, got {spec!r}")
            named[key] = _operand(spec)
        else:
            properties[key] = spec
    return OpMatcher(
        tuple(kinds),
        tuple(_operand(o) for o in operands),
        named,
        properties,
        single_use,
        commutative,
        where,
        bind,
        shape,
        rank,
        dtype,
    )


def _operand_names(kinds: Sequence[type[Operation] | str]) -> set[str]:
    names: set[str] = set()
    for kind in kinds:
        definition = getattr(kind, "get_irdl_definition", None)
        if definition is not None:
            names.update(name for name, _ in definition().operands)
    return names


def one_of(*alternatives: Matcher | str) -> OneOfMatcher:
    """Matches a value with the first of `alternatives` that matches it, keeping only what
    that one bound: an optional op in a chain is
    `one_of(op(ge.IdentityOp, x, single_use=True), x)`.  The choice is final: a match that
    fails later does not come back to try the next alternative, so put the more specific
    ones first."""
    if not alternatives:
        raise ValueError("one_of needs at least one alternative")
    return OneOfMatcher(
        tuple(
            ValueMatcher(a, None, None, None, None) if isinstance(a, str) else a
            for a in alternatives
        )
    )


def const(
    bind: str | None = None,
    *,
    shape: ShapeSpec | None = None,
    rank: int | None = None,
    dtype: str | Attribute | None = None,
    where: Callable[[np.ndarray], bool] | None = None,
) -> ConstMatcher:
    """Matches a value defined by a `ge.const` whose data is readable (not elided), with
    constraints on its type; `where` is a predicate on its logical array.  The rewrite
    reads the value as `m.<bind>`."""
    return ConstMatcher(bind, shape, rank, dtype, where)


def value(
    bind: str | None = None,
    *,
    shape: ShapeSpec | None = None,
    rank: int | None = None,
    dtype: str | Attribute | None = None,
    where: Callable[[SSAValue], bool] | None = None,
) -> ValueMatcher:
    """Matches any value (with constraints on its type); `value("x")` twice in a match is
    the same value twice."""
    return ValueMatcher(bind, shape, rank, dtype, where)


# --------------------------------------------------------------------------------------
# Patterns
# --------------------------------------------------------------------------------------

Replacement = Operation | Sequence[Operation] | SSAValue | None


class Pattern(abc.ABC):
    """A fusion: `match` (an `op(...)` matcher, rooted at the op the rewrite replaces) and
    `rewrite(m)`, which builds the replacement (see the module's docstring).  `name`
    (default: the class name in kebab case) names it in errors and statistics."""

    name: ClassVar[str] = ""
    match: ClassVar[OpMatcher]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.__dict__.get("name"):
            cls.name = re.sub(r"(?<!^)(?=[A-Z])", "-", cls.__name__).lower()

    @abc.abstractmethod
    def rewrite(self, m: Match) -> Replacement:
        """The replacement of the matched ops (every pattern defines it)."""

    def matches(self, root: Operation) -> Match | None:
        """The match rooted at `root`, or None (different labels do not match)."""
        m = Match(root)
        if not self.match.match_op(root, m):
            return None
        if len(m.ops) > 1 and not same_label(m.ops):
            return None
        return m

    def apply(self, root: Operation, rewriter: PatternRewriter) -> bool:
        """Matches at `root` and rewrites; whether it did.  Raises `GeError` for a
        replacement that does not verify or has the wrong types."""
        m = self.matches(root)
        if m is None:
            return False
        built = self.rewrite(m)
        if built is None:
            return False
        if isinstance(built, SSAValue):
            new_ops: list[Operation] = []
            new_results: Sequence[SSAValue] = [built]
        else:
            new_ops = [built] if isinstance(built, Operation) else list(built)
            if not new_ops:
                raise op_error(root, f"pattern '{self.name}' built no op")
            new_results = new_ops[-1].results
        self._check(root, new_ops, new_results)
        self._check_also(root, m)
        label = root.attributes.get(stream.LABEL)
        location = fused_location([*m.ops, *(other for other, _ in m.also)])
        for new in new_ops:
            if label is not None and stream.LABEL not in new.attributes:
                new.attributes[stream.LABEL] = label
            inherit_scope_attrs(new, [*m.ops, *(other for other, _ in m.also)])
            if isinstance(new.location, UnknownLoc):
                new.location = location
        rewriter.replace(root, new_ops, list(new_results))
        for other, values in m.also:
            rewriter.replace(other, [], list(values))
        # the other matched ops the replacement left unused (users first), then the
        # constants and other producers left dead
        erase_dead(reversed(m.ops[:-1]), rewriter=rewriter)
        return True

    def _check_also(self, root: Operation, m: Match) -> None:
        """The ops `m.replace` names come after the root in its block, share its label
        and get values of their results' types."""
        block = root.parent_block()
        assert block is not None
        for other, values in m.also:
            if other.parent_block() is not block or block.get_operation_index(
                other
            ) <= block.get_operation_index(root):
                raise op_error(
                    root, f"pattern '{self.name}' replaces '{other.name}', which is not after it"
                )
            if not same_label([root, other]):
                raise op_error(
                    root, f"pattern '{self.name}' replaces '{other.name}' on another stream label"
                )
            types = [v.type for v in values]
            if types != [r.type for r in other.results]:
                raise op_error(
                    root,
                    f"pattern '{self.name}' replaces '{other.name}' by values of types "
                    f"{', '.join(map(str, types))}",
                )

    def _check(
        self, root: Operation, new_ops: Sequence[Operation], results: Sequence[SSAValue]
    ) -> None:
        for new in new_ops:
            try:
                new.verify()
            except Exception as e:  # a VerifyException, or a verifier that raised
                raise op_error(
                    root, f"pattern '{self.name}' built an invalid '{new.name}': {e}"
                ) from None
        if len(results) != len(root.results):
            raise op_error(
                root,
                f"pattern '{self.name}' built {len(results)} results for the "
                f"{len(root.results)} of '{root.name}'",
            )
        for new_value, old in zip(results, root.results, strict=True):
            if new_value.type != old.type:
                raise op_error(
                    root,
                    f"pattern '{self.name}' built {new_value.type} for a value of type {old.type}",
                )


def pattern(
    name: str, match: OpMatcher
) -> Callable[[Callable[[Match], Replacement]], type[Pattern]]:
    """A pattern from a rewrite function, as a decorator:

    @pattern("mul-sigmoid-silu", op(ge.MulOp, "x", op(ge.SigmoidOp, "x", single_use=True)))
    def silu(m: Match) -> Operation:
        return ge.SiluOp(m.x)
    """

    def make(function: Callable[[Match], Replacement]) -> type[Pattern]:
        def rewrite(self: Pattern, m: Match) -> Replacement:
            return function(m)

        cls = type(
            function.__name__,
            (Pattern,),
            {
                "name": name,
                "match": match,
                "rewrite": rewrite,
                "__doc__": function.__doc__,
                "__module__": function.__module__,
            },
        )
        return cast("type[Pattern]", cls)

    return make


# --------------------------------------------------------------------------------------
# Driving patterns
# --------------------------------------------------------------------------------------


class _Abort(BaseException):
    """Carries a pattern's `GeError` through xDSL's walker, which would otherwise catch
    it and print the whole module into its notes (and a broken one may not print)."""

    def __init__(self, error: GeError):
        super().__init__(str(error))
        self.error = error


@dataclass(eq=False)
class _Counting(RewritePattern):
    """A `Pattern` as an xDSL `RewritePattern`: counts its rewrites, and turns what it
    raises into a `GeError` naming it and the op it was matching."""

    pattern: Pattern
    applied: int = 0

    def match_and_rewrite(self, root: Operation, rewriter: PatternRewriter) -> None:
        if not self.pattern.match.kind_ok(root):
            return
        try:
            if self.pattern.apply(root, rewriter):
                self.applied += 1
        except GeError as e:
            raise _Abort(e) from None
        except Exception as e:
            error = op_error(root, f"pattern '{self.pattern.name}' raised {type(e).__name__}: {e}")
            error.__cause__ = e
            raise _Abort(error) from None


def run_patterns(module: ModuleOp, patterns: Sequence[Pattern], pass_name: str) -> int:
    """Applies `patterns` to `module` until none applies (xDSL's greedy walker, which also
    erases dead pure ops), as pass `pass_name`: refuses an assigned module, counts each
    pattern's `"<name> applied"` statistic.  Returns the number of rewrites."""
    refuse_assigned(module, pass_name)
    counting = [_Counting(p) for p in patterns]
    walker = PatternRewriteWalker(GreedyRewritePatternApplier(list(counting)))
    try:
        walker.rewrite_module(module)
    except _Abort as abort:
        raise abort.error from abort.error.__cause__
    finally:
        for c in counting:
            count(module, pass_name, f"{c.pattern.name} applied", c.applied)
    return sum(c.applied for c in counting)


def pattern_pass(
    name: str,
    patterns: Sequence[Pattern | type[Pattern]],
    *,
    summary: str | None = None,
    register: bool = True,
) -> type[ModulePass]:
    """A `ModulePass` named `name` applying `patterns` (classes or instances) with
    `run_patterns`; `summary` is its help line.  Registered with
    `transforms.register_pass` (unless `register=False`), so `--<name>` and `-p <name>`
    run it once the module defining it is imported."""
    instances = tuple(p() if isinstance(p, type) else p for p in patterns)
    names = [p.name for p in instances]
    if len(set(names)) != len(names):
        raise ValueError(f"pass '{name}': two patterns have the same name ({names})")

    def apply(self: ModulePass, ctx: Context, module: ModuleOp) -> None:
        run_patterns(module, instances, name)

    caller = sys._getframe(1).f_globals.get("__name__", __name__)
    class_name = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", name)) + "Pass"
    cls = type(
        class_name,
        (ModulePass,),
        {
            "name": name,
            "__doc__": summary or f"Applies the patterns {', '.join(names)}.",
            "__module__": caller,
            "apply": apply,
            "patterns": instances,
        },
    )
    pass_cls = cast("type[ModulePass]", dataclass(frozen=True)(cls))
    if register:
        register_pass(pass_cls)
    return pass_cls
