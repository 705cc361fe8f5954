"""The search space of ge-tune: the pass settings a trial may choose, declared in one place.

A *setting* is a dict of parameter name -> value.  `PARAMETERS` lists them (name, choices,
the default pipeline's value, when it applies, what it does); `sample(trial, context)` draws
a setting from an Optuna trial (anything with `suggest_categorical`), asking only for the
parameters that apply; `problem(setting, context)` names why a setting cannot run (the trial
is pruned with that reason before anything is simulated); `pipeline(setting, context)` is
the ge-opt pipeline the setting stands for; `default_setting(context)` is ge-run's default
pipeline as a setting (trial 0 of every study).

    fuse, fuse_attention, fuse_mlp   the fusion passes on or off
    layout                           to-nc1hwc0 on or off
    streams                          assign-streams mode: single, auto or labels
    max_streams                      assign-streams max-streams (auto and labels)
    comm_streams                     assign-streams comm-streams (with ranks)
    schedule                         the schedule pass (priority topological order)
    in_place                         plan-memory in-place
    memory_search                    plan-memory search: none or exact
    priority:LABEL                   each user stream label's priority (0-3; graphs with labels)
    tp, ep, pp                       the shard split (with ranks; tp * ep * pp divides ranks)
    micro_batches                    shard micro-batches (pp > 1)
    overlap                          overlap chunks, 1 for none (with ranks)
    hccl_algo                        the collectives' algorithm (with ranks; a ge-run flag)

With a dynamic dim (ge-tune `--dim-sizes`) each setting also has dimension gears: they are
not sampled but chosen for the setting's pipeline, exactly, from the measured sizes
(`ge_dialect.tune.gears`), and print as ge-run's `--gears`.

A plugin extends the space as pass plugins extend ge-opt: a Python file that calls
`register(Parameter(...), apply=fn)` when loaded (`load_plugin(path)`, ge-tune
`--space-plugin FILE`); `apply(setting, passes)` edits the list of pass specs.
"""

from __future__ import annotations

import runpy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

Value = bool | int | str
Setting = dict[str, Value]


class Trial(Protocol):
    def suggest_categorical(self, name: str, choices: Sequence[Any]) -> Any: ...


@dataclass(frozen=True)
class Context:
    """What the space depends on: the rank count (1: one device), whether the graph has
    stream labels, and whether it has MoE layers (expert parallel needs them)."""

    ranks: int = 1
    labelled: bool = False
    moe: bool = False
    labels: tuple[tuple[str, int], ...] = ()
    """The graph's user stream labels with their own priorities, in order of appearance."""


@dataclass(frozen=True)
class Parameter:
    """One dimension: its choices, the default pipeline's value, when it applies."""

    name: str
    choices: tuple[Value, ...]
    default: Value
    help: str
    applies: Callable[[Setting, Context], bool] = field(default=lambda s, c: True)


def _divisors(n: int) -> tuple[int, ...]:
    return tuple(d for d in range(1, n + 1) if n % d == 0)


def _ranked(s: Setting, c: Context) -> bool:
    return c.ranks > 1


PARAMETERS: list[Parameter] = [
    Parameter("fuse", (True, False), True, "fuse (Conv-BN-ReLU and friends)"),
    Parameter("fuse_attention", (True, False), True, "fuse-attention (GE's fused attention)"),
    Parameter("fuse_mlp", (True, False), True, "fuse-mlp (GE's fused MLP ops)"),
    Parameter("layout", (True, False), True, "to-nc1hwc0 (NC1HWC0 by minimum cut)"),
    Parameter("streams", ("labels", "auto", "single"), "labels", "assign-streams mode"),
    Parameter(
        "max_streams",
        (2, 4, 8),
        8,
        "assign-streams max-streams",
        lambda s, c: s.get("streams") != "single",
    ),
    Parameter("comm_streams", (1, 2), 1, "assign-streams comm-streams", _ranked),
    Parameter("schedule", (False, True), False, "schedule (communication first)"),
    Parameter("in_place", (True, False), True, "plan-memory in-place"),
    Parameter("memory_search", ("exact", "none"), "exact", "plan-memory search"),
    Parameter("tp", (), 0, "shard tp (0: what is left of ranks)", _ranked),
    Parameter("ep", (), 1, "shard ep", _ranked),
    Parameter("pp", (), 1, "shard pp", _ranked),
    Parameter(
        "micro_batches",
        (1, 2, 4, 8),
        1,
        "shard micro-batches",
        lambda s, c: c.ranks > 1 and int(s.get("pp", 1)) > 1,
    ),
    Parameter("overlap", (1, 2, 4), 1, "overlap chunks (1: no overlap pass)", _ranked),
    Parameter(
        "hccl_algo",
        ("auto", "ring", "mesh", "double-binary-tree", "halving-doubling"),
        "auto",
        "the collectives' algorithm (ge-run --hccl-algo, as HCCL_ALGO; auto: HCCL's choice)",
        _ranked,
    ),
]

_APPLY: dict[str, Callable[[Setting, list[str]], None]] = {}


def register(parameter: Parameter, apply: Callable[[Setting, list[str]], None]) -> None:
    """Adds a plugin's parameter; `apply(setting, passes)` edits the pass specs for it."""
    if any(p.name == parameter.name for p in PARAMETERS):
        raise ValueError(f"search space: parameter '{parameter.name}' exists already")
    if not parameter.choices:
        raise ValueError(f"search space: parameter '{parameter.name}' has no choices")
    PARAMETERS.append(parameter)
    _APPLY[parameter.name] = apply


def unregister(name: str) -> None:
    """Removes a plugin's parameter (tests, or a plugin loaded twice on purpose)."""
    PARAMETERS[:] = [p for p in PARAMETERS if p.name != name or name not in _APPLY]
    _APPLY.pop(name, None)


def load_plugin(path: str) -> None:
    """Runs a search-space plugin file (it calls `register`)."""
    runpy.run_path(path, run_name="ge_tune_plugin")


def choices(parameter: Parameter, context: Context) -> tuple[Value, ...]:
    """The parameter's choices on this graph: the split over the rank count's divisors;
    mode labels only with stream labels (without them it is mode single), mode single only
    without them (GE refuses labels on one stream)."""
    if parameter.name in ("tp", "ep", "pp"):
        return _divisors(context.ranks)
    if parameter.name == "streams":
        # without labels, labels is single; with them, single is refused (GE E10055)
        return ("labels", "auto") if context.labelled else ("single", "auto")
    return parameter.choices


PRIORITIES = (0, 1, 2, 3)
"""The priorities a user label may take (`priority:LABEL`, one parameter per label)."""


def sample(trial: Trial, context: Context) -> Setting:
    """A setting drawn from `trial`, only the parameters that apply given the earlier ones."""
    setting: Setting = {}
    for p in PARAMETERS:
        if p.applies(setting, context):
            setting[p.name] = trial.suggest_categorical(p.name, choices(p, context))
    for label, _ in context.labels:
        setting[f"priority:{label}"] = trial.suggest_categorical(f"priority:{label}", PRIORITIES)
    return setting


def default_setting(context: Context) -> Setting:
    """ge-run's default pipeline (with ranks: data parallel over all of them)."""
    setting: Setting = {}
    for p in PARAMETERS:
        if p.applies(setting, context):
            default = p.default
            if p.name == "tp":
                default = 1
            if p.name == "streams" and not context.labelled:
                default = "single"  # what mode labels does without labels
            setting[p.name] = default
    for label, priority in context.labels:
        setting[f"priority:{label}"] = priority
    return setting


def problem(setting: Setting, context: Context) -> str | None:
    """Why `setting` cannot run on this graph, or None."""
    if context.ranks > 1:
        tp, ep, pp = (int(setting.get(k, 1)) for k in ("tp", "ep", "pp"))
        if context.ranks % (tp * ep * pp):
            return f"tp*ep*pp = {tp * ep * pp} does not divide ranks = {context.ranks}"
        if ep > 1 and not context.moe:
            return "ep > 1 needs MoE layers"
        if ep > 1 and context.ranks != tp * ep * pp:
            return "ep with data parallel is not supported by shard"
        if pp > 1 and int(setting.get("micro_batches", 1)) < 1:
            return "micro-batches must be at least 1"
    return None


def run_flags(setting: Setting) -> tuple[str, ...]:
    """The ge-run flags the setting needs beyond its pipeline (the simulated run's own)."""
    algo = setting.get("hccl_algo", "auto")
    return () if algo == "auto" else ("--hccl-algo", str(algo))


def pipeline(setting: Setting, context: Context) -> str:
    """The ge-opt pipeline of `setting`, lowering and planning included (with ranks the
    shard comes first, as ge-run --ranks puts it)."""
    passes = []
    if context.ranks > 1:
        tp, ep, pp = (int(setting.get(k, 1)) for k in ("tp", "ep", "pp"))
        if (tp, ep, pp) == (1, 1, 1):
            passes.append(f"shard{{ranks={context.ranks} mode=data}}")
        else:
            options = [f"ranks={context.ranks}", f"tp={tp}", f"ep={ep}", f"pp={pp}"]
            if pp > 1:
                options.append(f"micro-batches={setting.get('micro_batches', 1)}")
            passes.append("shard{" + " ".join(options) + "}")
        if int(setting.get("overlap", 1)) > 1:
            passes.append(f"overlap{{chunks={setting['overlap']}}}")
    passes += ["canonicalize", "cse"]
    fusions = (("fuse", "fuse"), ("fuse_attention", "fuse-attention"), ("fuse_mlp", "fuse-mlp"))
    passes += [name for key, name in fusions if setting.get(key)]
    if setting.get("layout"):
        passes.append("to-nc1hwc0")
    if setting.get("schedule"):
        passes.append("schedule")
    streams = [f"mode={setting.get('streams', 'single')}"]
    if "max_streams" in setting:
        streams.append(f"max-streams={setting['max_streams']}")
    if int(setting.get("comm_streams", 1)) > 1:
        streams.append(f"comm-streams={setting['comm_streams']}")
    changed = [
        f"{label}:{setting[f'priority:{label}']}"
        for label, own in context.labels
        if setting.get(f"priority:{label}", own) != own
    ]
    if changed:
        streams.append(f'priorities="{" ".join(changed)}"')
    passes.append("assign-streams{" + " ".join(streams) + "}")
    passes.append("lower-to-device")
    in_place = "true" if setting.get("in_place", True) else "false"
    passes.append(
        f"plan-memory{{in-place={in_place} search={setting.get('memory_search', 'exact')}}}"
    )
    for name, apply in _APPLY.items():
        if name in setting:
            apply(setting, passes)
    return ",".join(passes)
