"""`torchair.inference`: `set_dim_gears`, the gears (sizes) a dynamic dimension may take.

    from ge_dialect import torchair as tng
    x = torch.randn(4, 16)
    tng.inference.set_dim_gears(x, dim_gears={0: [2, 4, 8]})
    model = torch.compile(model, backend=npu_backend, dynamic=True)
    model(x)          # compiles one program per gear now: batch 2, 4 and 8
    model(x[:2])      # runs the batch-2 program; batch 3 is refused (or padded to 4)

`set_dim_gears` checks `dim_gears` as TorchAir does (with its messages, as
`AssertionError`), marks each dimension dynamic (`torch._dynamo.mark_dynamic`) and stores
the gears on the tensor (`t.dim_gears`).  The backend reads them from Dynamo's example
inputs: at the first call it compiles one static program per gear, and a later call whose
sizes are not a gear is refused (`inference_config.pad_to_gear`: padded up to the next
gear, see `ge_dialect.torchair.configs.compiler_config`).  Several dimensions (of one or
more tensors) combine by `inference_config.dynamic_gears_merge_policy`: "zip" (the n-th
gear of each, lists of one length) or "product" (every combination), at most 100 gears.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional

from ge_dialect.utils.errors import GeError

__all__ = ["GearPlan", "gear_combinations", "get_dim_gears", "set_dim_gears"]

MAX_GEARS = 100


def set_dim_gears(t: torch.Tensor, dim_gears: dict[int, list[int] | tuple[int, ...]]) -> None:
    """TorchAir's `set_dim_gears`: the sizes each dimension `dim_index` of `t` may take."""
    if get_dim_gears(t) is not None and get_dim_gears(t) != dim_gears:
        raise AssertionError(
            f"Tensor {t} already has set dim gears, and it is not supported to set it again."
        )
    for dim_index, gears in dim_gears.items():
        if not isinstance(dim_index, int):
            raise AssertionError(
                f"Dim index in dim_gears must be an integer, but got {type(dim_index)}."
            )
        if dim_index < 0 or dim_index >= len(t.shape):
            raise AssertionError(
                f"Dim index in dim_gears must be in range [0, {len(t.shape) - 1}], "
                f"but got {dim_index}."
            )
        if not isinstance(gears, list | tuple):
            raise AssertionError(
                f"Gears for dim index {dim_index} in dim_gears must be a list or tuple, "
                f"but got {type(gears)}."
            )
        for index, gear in enumerate(gears):
            if not isinstance(gear, int):
                raise AssertionError(
                    f"Element at index {index} of value for dim index {dim_index} in "
                    f"dim_gears must be an integer, but got {type(gear)}."
                )
            if gear == 0:
                raise AssertionError(
                    f"Gear value at index {index} for dim index {dim_index} must "
                    f"not be 0, but got {gear}."
                )
        if not 2 <= len(gears) <= MAX_GEARS:
            raise AssertionError(
                f"Length of gears for dim index {dim_index} in dim_gears must be in "
                f"range [2, 100], but got {len(gears)}."
            )
        torch._dynamo.mark_dynamic(t, dim_index)
    t.dim_gears = dim_gears  # type: ignore[attr-defined]


def get_dim_gears(t: object) -> dict[int, list[int] | tuple[int, ...]] | None:
    """The gears `set_dim_gears` stored on `t`, if any."""
    return getattr(t, "dim_gears", None)


def gear_combinations(gear_lists: Sequence[Sequence[int]], policy: str) -> list[tuple[int, ...]]:
    """The gears of several dimensions together (TorchAir's `ge.dynamicDims`): "zip" takes
    the n-th value of each list, "product" every combination; duplicates dropped, in order
    of first appearance."""
    if policy == "zip":
        if any(len(g) != len(gear_lists[0]) for g in gear_lists):
            raise AssertionError(
                "when dynamic_gears_merge_policy is zip, input gears len must same."
            )
        combos = list(zip(*gear_lists, strict=True))
    elif policy == "product":
        combos = list(itertools.product(*gear_lists))
    else:
        raise AssertionError("dynamic_gears_merge_policy only support zip and product.")
    unique = list(dict.fromkeys(combos))
    if len(unique) > MAX_GEARS:
        raise AssertionError(
            "The total number of gears set cannot exceed 100, "
            f"and the current number of gears is: {len(unique)}"
        )
    return unique


def _expr(size: object) -> Any:
    """The sympy expression of a size of Dynamo's graph (an int for a static one)."""
    return size.node.expr if isinstance(size, torch.SymInt) else int(size)  # type: ignore[call-overload]


def _sizes(value: object) -> list[Any] | None:
    """The size expressions of a placeholder's example value: a tensor's dims, or [n] for
    a SymInt input; None for anything else."""
    if isinstance(value, torch.Tensor):
        return [_expr(d) for d in value.shape]
    if isinstance(value, torch.SymInt):
        return [_expr(value)]
    return None


def _evaluate(expr: Any, env: dict[Any, int]) -> int | None:
    if isinstance(expr, int):
        return expr
    if not expr.free_symbols <= env.keys():
        return None
    return int(expr.xreplace(env))


@dataclass
class GearPlan:
    """The gears of one Dynamo graph: which input dims have gears (`dims`: position, dim,
    input name, gear list, in TorchAir's order: by input name, then dim), their
    combinations (`gears`), the symbolic sizes of the graph's inputs and outputs."""

    dims: list[tuple[int, int, str, list[int]]]
    gears: list[tuple[int, ...]]
    inputs: list[list[Any] | None]
    outputs: list[list[Any] | None]
    pad: bool

    @staticmethod
    def read(
        placeholders: Sequence[torch.fx.Node],
        example_inputs: Sequence[object],
        names: Sequence[str],
        outputs: Sequence[object],
        policy: str,
        pad: bool,
    ) -> GearPlan | None:
        """The plan of a graph whose example inputs carry `dim_gears`, else None."""
        dims = []
        for i, t in enumerate(example_inputs):
            for d, gears in sorted((get_dim_gears(t) or {}).items()):
                dims.append((i, d, names[i], list(gears)))
        if not dims:
            return None
        dims.sort(key=lambda x: (x[2], x[1]))
        return GearPlan(
            dims,
            gear_combinations([g for *_, g in dims], policy),
            [_sizes(n.meta.get("example_value")) for n in placeholders],
            [
                _sizes(o.meta.get("example_value")) if isinstance(o, torch.fx.Node) else None
                for o in outputs
            ],
            pad,
        )

    def symbol(self, k: int) -> Any:
        """The symbol of gear dim `k` in Dynamo's graph (None if it is static there)."""
        i, d, *_ = self.dims[k]
        sizes = self.inputs[i]
        expr = sizes[d] if sizes is not None else None
        return expr if expr is not None and not isinstance(expr, int) and expr.is_Symbol else None

    def check_outputs(self) -> None:
        """pad_to_gear: every output keeps a padded dim, and no other dim depends on one."""
        symbols = {self.symbol(k) for k in range(len(self.dims))} - {None}
        for n, sizes in enumerate(self.outputs):
            sizes = sizes or []
            kept = [e for e in sizes if not isinstance(e, int) and e in symbols]
            mixed = [
                e
                for e in sizes
                if not isinstance(e, int) and e not in symbols and e.free_symbols & symbols
            ]
            if not kept or mixed:
                raise GeError(
                    f"<torch.compile>: error: inference_config.pad_to_gear needs every output "
                    f"to keep the padded dimension, but output {n} has sizes "
                    f"({', '.join(map(str, sizes))}) (gear sizes: "
                    f"{', '.join(sorted(map(str, symbols)))})"
                )

    def bindings(self, args: Sequence[object]) -> dict[Any, int]:
        """The values of the graph's symbols in a call (from its plain-symbol sizes)."""
        env: dict[Any, int] = {}
        for sizes, a in zip(self.inputs, args, strict=True):
            actual = list(a.shape) if isinstance(a, torch.Tensor) else [a]
            for e, v in zip(sizes or [], actual, strict=False):
                if not isinstance(e, int) and e.is_Symbol and isinstance(v, int):
                    env.setdefault(e, v)
        return env

    def call_gear(self, args: Sequence[object]) -> tuple[int, ...]:
        return tuple(args[i].shape[d] for i, d, *_ in self.dims)  # type: ignore[attr-defined]

    def choose(self, args: Sequence[object]) -> tuple[int, ...]:
        """The gear a call runs at: its own sizes, or (pad) the smallest gear above them;
        a call that fits none is refused with TorchAir's message."""
        sizes = self.call_gear(args)
        if sizes in self.gears:
            return sizes
        fits = [g for g in self.gears if all(a <= b for a, b in zip(sizes, g, strict=True))]
        if self.pad and fits:
            return min(fits, key=lambda g: (math.prod(g), g))
        for (_, d, name, gears), size in zip(self.dims, sizes, strict=True):
            if size not in gears and not (self.pad and size <= max(gears)):
                raise GeError(
                    f"<torch.compile>: error: The index {size} of the current tensor shape "
                    f"is not within the range {gears} (input '{name}', dim {d})"
                )
        raise GeError(
            f"<torch.compile>: error: the sizes {list(sizes)} of "
            f"{', '.join(f'{n} dim {d}' for _, d, n, _ in self.dims)} are not one of the "
            f"gears {[list(g) for g in self.gears]}"
        )

    def arguments(self, args: Sequence[object], gear: tuple[int, ...], frozen: set[int]) -> list:
        """The call `args` at `gear`: tensors padded with zeros (or zeros of the gear's
        shape, when compiling ahead), SymInt inputs at the gear's values."""
        env = self.bindings(args)
        bound: dict[Any, int] = {}
        for k, value in enumerate(gear):
            symbol = self.symbol(k)
            i, d, name, _ = self.dims[k]
            if symbol is None:
                if self.inputs[i] is not None and self.inputs[i][d] != value:  # type: ignore[index]
                    raise GeError(
                        f"<torch.compile>: error: input '{name}' dim {d} is static in the "
                        f"captured graph ({self.inputs[i][d]}), so it cannot take gear "  # type: ignore[index]
                        f"{value}: compile with dynamic=True"
                    )
                continue
            if bound.setdefault(symbol, value) != value:
                raise GeError(
                    f"<torch.compile>: error: gear {list(gear)} gives input '{name}' dim {d} "
                    f"the size {value}, but the graph needs it equal to another gear dim"
                )
        env.update(bound)
        out: list = []
        for i, (sizes, a) in enumerate(zip(self.inputs, args, strict=True)):
            if i in frozen or sizes is None:
                out.append(a)
                continue
            target = [_evaluate(e, env) for e in sizes]
            if not isinstance(a, torch.Tensor):
                out.append(target[0] if target[0] is not None else a)
                continue
            shape = [t if t is not None else s for t, s in zip(target, a.shape, strict=True)]
            if list(a.shape) == shape:
                out.append(a)
            elif all(s <= t for s, t in zip(a.shape, shape, strict=True)):
                pairs = reversed(list(zip(a.shape, shape, strict=True)))  # last dim first
                out.append(torch.nn.functional.pad(a, [w for s, t in pairs for w in (0, t - s)]))
            else:
                out.append(torch.zeros(shape, dtype=a.dtype))
        return out

    def rows(self, gear: Sequence[int]) -> int:
        """The rows of a gear: the product of its distinct symbols' sizes."""
        seen: dict[Any, int] = {}
        for k, value in enumerate(gear):
            seen.setdefault(self.symbol(k) or k, value)
        return math.prod(seen.values())

    def unpad(self, outputs: Sequence[torch.Tensor], args: Sequence[object]) -> tuple:
        """The outputs of a padded call sliced back to the call's sizes."""
        env = self.bindings(args)
        result = []
        for t, sizes in zip(outputs, self.outputs, strict=True):
            for d, e in enumerate(sizes or []):
                if not isinstance(e, int) and e in env and t.shape[d] != env[e]:
                    t = t.narrow(d, 0, env[e])
            result.append(t)
        return tuple(result)
