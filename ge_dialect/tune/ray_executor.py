"""ge-tune's trials as Ray tasks: the driver asks, the cluster measures, the driver tells.

`run(...)` connects to the Ray cluster at `address` (or uses the Ray instance this process
already started), puts the graph's text in the object store once, and loops: ask up to
`batch` trials, sample their settings here, evaluate them as Ray tasks, and tell the
results in the order they were asked (so `batch=1` asks and tells exactly as the
in-process loop does: the same random seed gives the same trials).  Each worker process
parses the graph once (`_PARSED`).  Imported only when Ray is asked for.
"""

from __future__ import annotations

import hashlib
import socket
from pathlib import Path
from typing import Any

import optuna

from ge_dialect.tune import space, study
from ge_dialect.tune.evaluate import Figures, Graph, land, ship

CONNECT_TIMEOUT_S = 3.0  # how long an address may take to answer before it is unreachable

_PARSED: dict[str, Graph] = {}  # per worker process: the graphs parsed, by text hash
_PLUGINS: set[str] = set()  # per worker process: the plugins run, by path and text hash


def _load_plugins(sources: tuple[tuple[str, str], ...]) -> None:
    """Runs the search-space plugins shipped from the driver (their text: the path need not
    exist on the worker's node), each once per worker process."""
    for path, source in sources:
        key = hashlib.sha256(f"{path}\0{source}".encode()).hexdigest()
        if key not in _PLUGINS:
            exec(compile(source, path, "exec"), {"__name__": "ge_tune_plugin", "__file__": path})
            _PLUGINS.add(key)


def _trial(
    shipped: Any,
    setting: space.Setting,
    context: space.Context,
    topology: Any,
    plugins: tuple[tuple[str, str], ...] = (),
) -> Figures | str:
    """One trial on a Ray worker: the figures of `setting`, or why it was pruned."""
    _load_plugins(plugins)
    key = hashlib.sha256(repr(shipped).encode()).hexdigest()
    graph = _PARSED.get(key)
    if graph is None:
        graph = _PARSED[key] = land(shipped)
    return study._evaluate(graph, setting, context, topology)


def _host_port(address: str) -> tuple[str, int] | None:
    """The host and port of a `host:port` or `ray://host:port` address (None for `auto`)."""
    rest = address.removeprefix("ray://")
    if rest == "auto" or rest == "local":
        return None
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise study.TuneError(
            f"error: bad Ray address '{address}' (expected auto, host:port or ray://host:port)"
        )
    return host.strip("[]"), int(port)


def _connect(ray: Any, address: str) -> None:
    """Connects to the cluster at `address`, failing fast with one line when it is not there."""
    where = _host_port(address)
    try:
        if where is not None:
            # Ray itself retries an absent cluster for minutes: probe the port first
            socket.create_connection(where, timeout=CONNECT_TIMEOUT_S).close()
        ray.init(address=address, log_to_driver=False)
    except Exception as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise study.TuneError(
            f"error: cannot reach the Ray cluster at '{address}': {reason}"
        ) from None


def run(
    the_study: optuna.Study,
    graph: Graph,
    context: space.Context,
    objective: str,
    stopper: study._Stopper,
    topology: Any,
    address: str,
    batch: int,
    plugins: tuple[str, ...] = (),
) -> None:
    """Runs `the_study`'s trials as Ray tasks until `stopper` says done; `plugins` (files
    the driver has loaded) are shipped as text and run once in each worker process."""
    try:
        import ray
    except ImportError:
        raise study.TuneError(
            "error: running trials on Ray needs Ray (pip install 'ray[default]')"
        ) from None
    if not ray.is_initialized():
        _connect(ray, address)
    sources = tuple((path, Path(path).read_text()) for path in plugins)
    remote = ray.remote(_trial)
    ref = ray.put(ship(graph))
    while not stopper.done():
        asked = []
        for _ in range(min(batch, stopper.left)):
            trial = the_study.ask()
            asked.append((trial, space.sample(trial, context)))
        futures = [remote.remote(ref, setting, context, topology, sources) for _, setting in asked]
        for k, ((trial, _), future) in enumerate(zip(asked, futures, strict=True)):
            try:
                outcome = ray.get(future)
            except Exception as e:  # a lost worker or cluster: fail what is still open
                for open_trial, _ in asked[k:]:
                    the_study.tell(open_trial, state=optuna.trial.TrialState.FAIL)
                reason = str(e).splitlines()[0] if str(e) else type(e).__name__
                raise study.TuneError(f"error: a Ray task failed: {reason}") from None
            study._tell(the_study, trial, outcome, objective)
            values = None if isinstance(outcome, str) else study._values(outcome, objective)
            stopper.told(the_study, values)
