"""The dialects ge-opt knows, as lazy factories, and a ready-made context."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect


def _builtin() -> Dialect:
    from xdsl.dialects.builtin import Builtin

    return Builtin


def _func() -> Dialect:
    from xdsl.dialects.func import Func

    return Func


def _ge() -> Dialect:
    from ge_dialect.ir.dialects.ge import Ge

    return Ge


def _npu() -> Dialect:
    from ge_dialect.ir.dialects.npu import Npu

    return Npu


def _pdl() -> Dialect:
    from xdsl.dialects.pdl import PDL

    return PDL


def _stream() -> Dialect:
    from ge_dialect.ir.dialects.stream import Stream

    return Stream


def _test() -> Dialect:
    from xdsl.dialects.test import Test

    return Test


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Name -> factory for every dialect ge-opt parses (`test` gives `"test.op"` values,
    `pdl` the patterns of `apply-pdl`)."""
    return {
        "builtin": _builtin,
        "func": _func,
        "ge": _ge,
        "npu": _npu,
        "stream": _stream,
        "test": _test,
        "pdl": _pdl,
    }


def make_context(allow_unregistered: bool = False) -> Context:
    """A context with every ge-opt dialect registered (loaded on first use)."""
    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx
