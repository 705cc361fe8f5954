"""The Optuna study of ge-tune: ask a setting, measure it on the simulator, tell the result.

`tune(...)` opens (or continues) a study in `storage` (SQLite by default; any URL Optuna
accepts), named after the graph's fingerprint unless `study` names it.  A new study first
runs the default pipeline (trial 0, the baseline) and, when the storage holds studies of
other graphs, the best setting of the nearest one (warm start).  Then trials are asked
from a seeded sampler (TPE for one objective, NSGA-II for latency and memory together),
each setting checked (`space.problem`: pruned with its reason, never simulated), compiled
and simulated timing-only (`evaluate.measure`), and told back.  It stops after `trials`
trials, after `timeout` seconds, or after `patience` trials without a better value.

Trials run in this process (`workers=1`), in `workers` local processes sharing the storage
(each runs its own ask/tell loop), or as Ray tasks (`ray_address`): the driver asks a batch
of settings, Ray evaluates them on the cluster (the graph put in the object store once),
and the driver tells the results.  The best setting and its pipeline are stored on the
study (user attributes `fingerprint`, `best_pipeline`, `best_setting`): `best_for(storage,
module)` finds them again (ge-opt/ge-run `--tuned`).

The graph may be geared (`evaluate.Geared`: a dynamic dim and the sizes calls take there):
then each trial also chooses its gears (`gears.choose`), its figures are the expected
makespan per call and the largest gear's peak, and the trial keeps the gears with their
figures (user attributes `gears`, `padded_us`); the best prints with ge-run's `--gears`.
"""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import optuna
from xdsl.dialects.builtin import ModuleOp

from ge_dialect import api
from ge_dialect.tune import space
from ge_dialect.tune.evaluate import (
    Figures,
    Graph,
    distance,
    fingerprint,
    graph_fingerprint,
    land,
    measure_graph,
    ship,
)
from ge_dialect.tune.gears import Workload
from ge_dialect.utils.errors import GeError

optuna.logging.set_verbosity(optuna.logging.WARNING)

OBJECTIVES = ("latency", "memory", "both")
PRUNED = "pruned"  # the user attribute holding a pruned trial's reason


class TuneError(GeError):
    """A bad tuning request (objective, storage, Ray address, plugin): one clear line."""


@dataclass
class Point:
    """A finished trial: its number, setting, pipeline and figures."""

    number: int
    setting: space.Setting
    pipeline: str
    figures: Figures
    flags: tuple[str, ...] = ()  # ge-run's flags beyond the pipeline (`space.run_flags`)


@dataclass
class TuneResult:
    study: str
    storage: str
    objective: str
    baseline: Point
    best: list[Point]  # one point; with objective both, the Pareto front
    trials: int
    pruned: dict[int, str] = field(default_factory=dict)


def _values(figures: Figures, objective: str) -> list[float]:
    if objective == "latency":
        return [figures.makespan_us]
    if objective == "memory":
        return [float(figures.peak_bytes)]
    return [figures.makespan_us, float(figures.peak_bytes)]


def context_of(module: ModuleOp, ranks: int) -> space.Context:
    """What the search space depends on, from one walk of the graph: stream labels (with
    their priorities) and MoE layers."""
    labelled = moe = False
    labels: dict[str, int] = {}
    for op in module.walk():
        label: Any = op.attributes.get("stream.label")  # a stream.LabelAttr
        labelled = labelled or label is not None or op.name.startswith("stream.")
        moe = moe or "moe" in op.name
        if label is not None and hasattr(label, "priority"):
            labels.setdefault(label.label.data, label.priority.data)
    return space.Context(ranks=ranks, labelled=labelled, moe=moe, labels=tuple(labels.items()))


def _sampler(objective: str, seed: int) -> optuna.samplers.BaseSampler:
    if objective == "both":
        return optuna.samplers.NSGAIISampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed)


def open_study(
    storage: str, name: str | None, objective: str, seed: int, print_key: str
) -> optuna.Study:
    if objective not in OBJECTIVES:
        raise TuneError(f"error: unknown objective '{objective}' (choose {', '.join(OBJECTIVES)})")
    directions: list[Literal["minimize", "maximize"]] = ["minimize"] * (
        2 if objective == "both" else 1
    )
    try:
        return optuna.create_study(
            storage=storage,
            study_name=name or f"ge-tune-{print_key}-{objective}",
            directions=directions,
            sampler=_sampler(objective, seed),
            load_if_exists=True,
        )
    except (ValueError, ImportError, optuna.exceptions.OptunaError) as e:
        raise TuneError(f"error: cannot open storage '{storage}': {e}") from None
    except Exception as e:  # SQLAlchemy's errors: a path that cannot be opened
        raise TuneError(f"error: cannot open storage '{storage}': {e}".splitlines()[0]) from None


def _nearest_setting(storage: str, study: optuna.Study, fp: dict[str, Any]) -> dict | None:
    """The best parameters of the other study in `storage` whose fingerprint is nearest."""
    best: tuple[float, str, dict] | None = None
    for summary in optuna.get_all_study_summaries(storage):
        other = summary.user_attrs.get("fingerprint")
        params = summary.user_attrs.get("best_params")
        if summary.study_name == study.study_name or not other or not params:
            continue
        d = distance(fp, other)
        if best is None or (d, summary.study_name) < best[:2]:
            best = (d, summary.study_name, params)
    return None if best is None else best[2]


def _evaluate(
    graph: Graph, setting: space.Setting, context: space.Context, topology: Any
) -> Figures | str:
    """The figures of `setting`, or why it cannot run (pruned)."""
    reason = space.problem(setting, context)
    if reason is not None:
        return reason
    try:
        return measure_graph(
            graph,
            space.pipeline(setting, context),
            context.ranks,
            topology,
            space.run_flags(setting),
        )
    except GeError as e:
        return str(e).splitlines()[0]


def _tell(study: optuna.Study, trial: optuna.Trial, outcome: Figures | str, objective: str) -> None:
    if isinstance(outcome, str):
        trial.set_user_attr(PRUNED, outcome)
        study.tell(trial, state=optuna.trial.TrialState.PRUNED)
        return
    trial.set_user_attr("makespan_us", outcome.makespan_us)
    trial.set_user_attr("peak_bytes", outcome.peak_bytes)
    if outcome.gears:
        trial.set_user_attr("gears", [[list(g), us, peak] for g, us, peak in outcome.gears])
        trial.set_user_attr("padded_us", outcome.padded_us)
    study.tell(trial, _values(outcome, objective))


class _Stopper:
    """Stops after `trials` told trials, `timeout` seconds or `patience` trials without a
    better value (one objective; with two, without a new Pareto point)."""

    def __init__(self, trials: int, timeout: float | None, patience: int | None):
        self.left = trials
        self.deadline = None if timeout is None else time.monotonic() + timeout
        self.patience = patience
        self.stale = 0
        self.best: float | None = None

    def told(self, study: optuna.Study, values: list[float] | None) -> None:
        self.left -= 1
        if values is None or self.patience is None:
            return
        score = values[0] if len(values) == 1 else len(study.best_trials)
        better = self.best is None or (
            score < self.best if len(values) == 1 else score != self.best
        )
        self.best = score if better else self.best
        self.stale = 0 if better else self.stale + 1

    def done(self) -> bool:
        if self.left <= 0:
            return True
        if self.deadline is not None and time.monotonic() > self.deadline:
            return True
        return self.patience is not None and self.stale >= self.patience


def _run_local(
    study: optuna.Study,
    graph: Graph,
    context: space.Context,
    objective: str,
    stopper: _Stopper,
    topology: Any,
) -> None:
    while not stopper.done():
        _run_one(study, graph, context, objective, stopper, topology)


def _worker(args: tuple) -> None:
    """A local worker process: its own ask/tell loop on the shared storage."""
    (shipped, storage, name, objective, seed, ranks, trials, timeout, patience, topology,
     plugins) = args  # fmt: skip
    for path in plugins:
        space.load_plugin(path)
    graph = land(shipped)
    study = optuna.load_study(storage=storage, study_name=name, sampler=_sampler(objective, seed))
    _run_local(
        study,
        graph,
        context_of(_module(graph), ranks),
        objective,
        _Stopper(trials, timeout, patience),
        topology,
    )


def _module(graph: Graph) -> ModuleOp:
    return graph if isinstance(graph, ModuleOp) else graph.module


def _run_ray(
    study: optuna.Study,
    graph: Graph,
    context: space.Context,
    objective: str,
    stopper: _Stopper,
    topology: Any,
    address: str,
    batch: int,
    plugins: tuple[str, ...] = (),
) -> None:
    from ge_dialect.tune import ray_executor

    ray_executor.run(study, graph, context, objective, stopper, topology, address, batch, plugins)


def tune(
    graph: Graph,
    *,
    trials: int = 20,
    objective: str = "latency",
    storage: str = "sqlite:///ge-tune.db",
    study: str | None = None,
    workers: int = 1,
    ray_address: str | None = None,
    timeout: float | None = None,
    patience: int | None = None,
    ranks: int = 1,
    topology: Any = None,
    seed: int = 0,
    plugins: tuple[str, ...] = (),
    progress: Callable[[str], None] | None = None,
) -> TuneResult:
    """Tunes `graph`'s pass settings (and gears) on the simulator (see the module
    docstring)."""
    for path in plugins:
        try:
            space.load_plugin(path)
        except Exception as e:
            raise TuneError(f"{path}: error: the search-space plugin raised: {e}") from None
    fp = graph_fingerprint(graph)
    context = context_of(_module(graph), ranks)
    the_study = open_study(storage, study, objective, seed, fp["key"])
    the_study.set_user_attr("fingerprint", fp)
    if not the_study.trials:
        the_study.enqueue_trial(space.default_setting(context), user_attrs={"role": "baseline"})
        warm = _nearest_setting(storage, the_study, fp)
        if warm is not None:
            the_study.enqueue_trial(warm, user_attrs={"role": "warm start"}, skip_if_exists=True)
    stopper = _Stopper(trials, timeout, patience)
    if ray_address is not None:
        _run_ray(
            the_study,
            graph,
            context,
            objective,
            stopper,
            topology,
            ray_address,
            max(workers, 1),
            plugins,
        )
    elif workers > 1:
        # the enqueued trials first, here, then the workers share the rest
        while not stopper.done() and _waiting(the_study):
            _run_one(the_study, graph, context, objective, stopper, topology)
        left = 0 if stopper.done() else stopper.left
        text = ship(graph)
        # each worker gets the time still left, not the whole timeout again
        deadline = stopper.deadline
        remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        jobs = [
            (
                text,
                storage,
                the_study.study_name,
                objective,
                seed + 1 + k,
                ranks,
                left // workers + (k < left % workers),
                remaining,
                patience,
                topology,
                plugins,
            )
            for k in range(workers)
        ]
        processes = [
            multiprocessing.get_context("spawn").Process(target=_worker, args=(j,))
            for j in jobs
            if j[6] > 0  # no process for a worker with no trial to run
        ]
        for p in processes:
            p.start()
        for p in processes:
            p.join()
        failed = [p.exitcode for p in processes if p.exitcode != 0]
        if failed:
            raise TuneError(f"error: a tuning worker process failed (exit code {failed[0]})")
    else:
        _run_local(the_study, graph, context, objective, stopper, topology)
    return _result(the_study, storage, objective, context, graph)


def _waiting(study: optuna.Study) -> bool:
    return any(t.state == optuna.trial.TrialState.WAITING for t in study.get_trials(deepcopy=False))


def _run_one(
    study: optuna.Study,
    graph: Graph,
    context: space.Context,
    objective: str,
    stopper: _Stopper,
    topology: Any,
) -> None:
    """Asks one trial, measures its setting here and tells the result."""
    trial = study.ask()
    setting = space.sample(trial, context)
    outcome = _evaluate(graph, setting, context, topology)
    _tell(study, trial, outcome, objective)
    stopper.told(study, None if isinstance(outcome, str) else _values(outcome, objective))


def _point(trial: optuna.trial.FrozenTrial, context: space.Context, graph: Graph) -> Point:
    setting = dict(trial.params)
    attrs = trial.user_attrs
    gears = tuple((tuple(g), us, peak) for g, us, peak in attrs.get("gears", ()))
    flags = space.run_flags(setting)
    if not isinstance(graph, ModuleOp):
        flags += graph.workload.gear_flags([g for g, _, _ in gears])
    return Point(
        trial.number,
        setting,
        space.pipeline(setting, context),
        Figures(attrs["makespan_us"], attrs["peak_bytes"], gears, attrs.get("padded_us")),
        flags,
    )


def _result(
    study: optuna.Study, storage: str, objective: str, context: space.Context, graph: Graph
) -> TuneResult:
    done = [
        t for t in study.get_trials(deepcopy=False) if t.state == optuna.trial.TrialState.COMPLETE
    ]
    if not done:
        reasons = Counter(
            t.user_attrs.get(PRUNED, "")
            for t in study.get_trials(deepcopy=False)
            if t.state == optuna.trial.TrialState.PRUNED
        )
        common = f": most often {reasons.most_common(1)[0][0]}" if reasons else ""
        raise TuneError(f"error: no trial completed (every setting was pruned{common})")
    baseline = min(done, key=lambda t: t.number)
    if objective == "both":
        best = sorted(study.best_trials, key=lambda t: (t.values, t.number))
    else:
        best = [min(done, key=lambda t: (t.values[0], t.number))]
    points = [_point(t, context, graph) for t in best]
    study.set_user_attr("best_params", dict(best[0].params))
    study.set_user_attr("best_pipeline", points[0].pipeline)
    study.set_user_attr("best_flags", list(points[0].flags))
    study.set_user_attr("best_gears", [list(g) for g, _, _ in points[0].figures.gears])
    pruned = {
        t.number: t.user_attrs.get(PRUNED, "")
        for t in study.get_trials(deepcopy=False)
        if t.state == optuna.trial.TrialState.PRUNED
    }
    return TuneResult(
        study.study_name,
        storage,
        objective,
        _point(baseline, context, graph),
        points,
        len(done),
        pruned,
    )


def best_for(storage: str, module: ModuleOp) -> str:
    """The best pipeline stored for `module`'s fingerprint (ge-opt/ge-run `--tuned`)."""
    return str(_tuned(storage, module)["best_pipeline"])


def best_flags_for(storage: str, module: ModuleOp) -> tuple[str, ...]:
    """The ge-run flags stored with that pipeline (`--hccl-algo ALGO`, or none)."""
    return tuple(str(f) for f in _tuned(storage, module).get("best_flags", ()))


def tuned_gear_specs(
    storage: str, model: str, shapes: Mapping[str, Sequence[int | None]]
) -> list[str]:
    """The `--gears` specs of the best setting stored for the ONNX `model` whose dynamic
    dims are the `None` dims of `shapes` (ge-run `--tuned` without `--gears`): the studies
    of a workload on those dims, by name, each tried by importing the model at its first
    gear and matching the fingerprint."""
    dims = sorted(
        [name, d] for name, sizes in shapes.items() for d, s in enumerate(sizes) if s is None
    )
    for summary in sorted(_summaries(storage), key=lambda s: s.study_name):
        fp = summary.user_attrs.get("fingerprint") or {}
        gears = [tuple(g) for g in summary.user_attrs.get("best_gears") or ()]
        workload = Workload(tuple((n, d) for n, d in fp.get("workload", {}).get("dims", [])), ())
        if not gears or sorted(map(list, workload.dims)) != dims:
            continue
        first = dict(zip(workload.dims, gears[0], strict=True))
        at = {
            name: [first[name, d] if s is None else s for d, s in enumerate(sizes)]
            for name, sizes in shapes.items()
        }
        try:
            key = fingerprint(api.load(model, input_shapes=at))["key"]
        except GeError:
            continue  # another model's study
        if key in _keys(fp):
            return list(workload.gear_flags(gears)[1::2])
    raise TuneError(
        f"error: '{storage}' holds no tuned gears for this model's '?' dims (give --gears)"
    )


def _summaries(storage: str) -> list[optuna.study.StudySummary]:
    try:
        return optuna.get_all_study_summaries(storage)
    except Exception as e:
        raise TuneError(f"error: cannot open storage '{storage}': {e}".splitlines()[0]) from None


def _keys(fp: dict[str, Any]) -> list[str]:
    return [fp.get("key"), *fp.get("gear_keys", ())]


def _tuned(storage: str, module: ModuleOp) -> dict[str, Any]:
    """The user attributes of the study of `module`'s fingerprint with a stored best (the
    first by name when several objectives were tuned)."""
    key = fingerprint(module)["key"]  # a geared graph's study also knows each gear's key
    summaries = _summaries(storage)
    found = [
        s
        for s in summaries
        if _keys(s.user_attrs.get("fingerprint") or {}).count(key)
        and s.user_attrs.get("best_pipeline")
    ]
    if not found:
        raise TuneError(
            f"error: '{storage}' holds no tuned setting for this graph (fingerprint {key})"
        )
    return dict(sorted(found, key=lambda s: s.study_name)[0].user_attrs)
