"""TorchAir's scope attributes on ops: their names, and what `limit_core_num` and
`super_kernel` mean for a launch (`op_never_timeout`'s and `data_dump`'s attributes are
carried along too: `NEVER_TIMEOUT`, `DATA_DUMP`).

TorchAir's `torchair.scope` puts string attributes on every op built in a `with` block;
ge-opt keeps them, under TorchAir's names, as discardable string attributes of the `ge` ops
and then of their `npu.launch`es:

    %y = ge.matmul %a, %b {_op_aicore_num = "16", _op_vectorcore_num = "0"} : ...
    npu.launch "relu"(%y) -> (%z) stream 1 ... attrs {}
        attributes {_super_kernel_scope = "sk1", _super_kernel_options = ""}

- `limit_core_num(op_aicore_num, op_vectorcore_num)`: `_op_aicore_num`, `_op_vectorcore_num`;
  the launch uses at most that many AI (cube) cores and vector cores.  TorchAir documents the
  ranges `[1, max_aicore]` and `[1, max_vectorcore]`, and `op_vectorcore_num` = 0 only on a
  device whose AI cores hold the vector units (no separate vector cores: a profile with
  `cores.shared`), where `op_aicore_num` limits every kernel (`core_limits`).
- `super_kernel(scope, options)`: `_super_kernel_scope`, `_super_kernel_options`; the
  scope's consecutive launches on a stream are one kernel (one launch); an empty scope (a
  `super_kernel(None)` block) is none.  `options` are `name=value` pairs separated by `:`
  (`stream-fusion=1` lets the super kernel span streams: `stream_fusion`).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "AICORE_NUM",
    "DATA_DUMP",
    "NEVER_TIMEOUT",
    "SCOPE_ATTRS",
    "SUPER_KERNEL_OPTIONS",
    "SUPER_KERNEL_SCOPE",
    "VECTORCORE_NUM",
    "core_limits",
    "stream_fusion",
    "super_kernel_scope",
]

AICORE_NUM = "_op_aicore_num"
VECTORCORE_NUM = "_op_vectorcore_num"
SUPER_KERNEL_SCOPE = "_super_kernel_scope"
SUPER_KERNEL_OPTIONS = "_super_kernel_options"
NEVER_TIMEOUT = "_op_exec_never_timeout"
"""`op_never_timeout(enable)`: a bool attribute (TorchAir sets it as one), not a string."""
DATA_DUMP = "torchair_enable_data_dump"
"""`data_dump()`: "True" on the ops whose results are dumped on each run."""

SCOPE_ATTRS: tuple[str, ...] = (
    AICORE_NUM,
    VECTORCORE_NUM,
    SUPER_KERNEL_SCOPE,
    SUPER_KERNEL_OPTIONS,
    NEVER_TIMEOUT,
    DATA_DUMP,
)
"""The scope attributes ops keep through the passes (a fused op keeps those its pieces
share) and the lowering copies onto launches, in the order they are printed."""


def _count(attrs: Mapping[str, object], key: str) -> int | None:
    raw = attrs.get(key)
    if raw is None:
        return None
    text = str(raw).strip()
    if not text.isdecimal():
        name = key.removeprefix("_")
        raise ValueError(f"limit_core_num: {name} must be a whole number, got {str(raw)!r}")
    return int(text)


def core_limits(
    attrs: Mapping[str, object], cube_cores: int, vector_cores: int, shared: bool
) -> tuple[int | None, int | None]:
    """The (AI cores, vector cores) `limit_core_num` allows a launch whose attributes are
    `attrs` on a device of `cube_cores` AI cores and `vector_cores` vector cores (`shared`:
    the vector units are in the AI cores); None where it sets no limit.  On a shared device
    the vector limit is 0 and the AI-core limit applies to every kernel.  A value out of
    TorchAir's documented range raises `ValueError` with the reason."""
    aicore = _count(attrs, AICORE_NUM)
    vectorcore = _count(attrs, VECTORCORE_NUM)
    if aicore is not None and not 1 <= aicore <= cube_cores:
        raise ValueError(
            f"limit_core_num: op_aicore_num must be in [1, {cube_cores}] (the device's AI "
            f"cores), got {aicore}"
        )
    if shared and vectorcore:
        raise ValueError(
            "limit_core_num: op_vectorcore_num must be 0 on a device without separate vector "
            f"cores (its vector units are in the AI cores, which op_aicore_num limits), got "
            f"{vectorcore}"
        )
    if not shared and vectorcore is not None and not 1 <= vectorcore <= vector_cores:
        raise ValueError(
            f"limit_core_num: op_vectorcore_num must be in [1, {vector_cores}] (the device's "
            f"vector cores), got {vectorcore}"
        )
    return aicore, (None if shared else vectorcore)


def super_kernel_scope(attrs: Mapping[str, object]) -> str:
    """The super kernel scope a launch belongs to ("" for none)."""
    return str(attrs.get(SUPER_KERNEL_SCOPE, ""))


def stream_fusion(options: str) -> bool:
    """Whether super kernel `options` (`name=value` pairs separated by `:`) hold
    `stream-fusion=1`, which lets a super kernel span streams."""
    pairs = (item.partition("=") for item in options.split(":"))
    return any(k.strip() == "stream-fusion" and v.strip() == "1" for k, _, v in pairs)
