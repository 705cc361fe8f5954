"""Where ge-tune's trials run, beyond the in-process loop:

- on a local Ray cluster (started here, 2 CPUs) a study asks and tells the same trials as
  in-process with the same random seed (batch 1), so it ends at the same best setting and
  figures; the graph is put in the object store once per study, also with batch 2; the
  cluster this process started is used, not shut down; search-space plugins are shipped
  to the workers (as text) and change what they measure;
- each Ray worker process parses the graph once (the cache keyed by the text's hash);
- an unreachable or malformed Ray address is one error line, quickly, and the study's
  earlier trials stay in the storage; so is Ray not being installed;
- `workers=2` (local processes sharing the SQLite storage) runs the requested number of
  trials, and its best is at least as good as the baseline (trial 0); no process starts
  when no trial is left for it, and a worker process that fails is one error line; each
  worker applies `patience` to its own trials;
- a geared graph (a dynamic batch) runs on Ray to the same best, gears included.
"""

from __future__ import annotations

import sys

import optuna
import pytest
from helpers.support import ROOT

from ge_dialect import api
from ge_dialect.tune import ray_executor, space, study
from ge_dialect.tune.study import TuneError, context_of, tune

ray = pytest.importorskip("ray")

INCEPTION = f"{ROOT}/examples/zoo/inception.onnx"


@pytest.fixture(scope="module")
def inception():
    return api.load(INCEPTION)


@pytest.fixture(scope="module")
def local_ray():
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


def storage(tmp_path, name: str) -> str:
    return f"sqlite:///{tmp_path / name}.db"


def trials_of(url: str, name: str) -> list[tuple[int, str, dict, tuple | None]]:
    loaded = optuna.load_study(storage=url, study_name=name)
    return [(t.number, t.state.name, t.params, t.values and tuple(t.values)) for t in loaded.trials]


def test_ray_study_matches_the_in_process_one(tmp_path, inception, local_ray):
    here = tune(inception, trials=6, storage=storage(tmp_path, "here"), seed=0)
    there = tune(inception, trials=6, storage=storage(tmp_path, "ray"), seed=0, ray_address="auto")
    assert there.trials == here.trials == 6
    assert there.best == here.best
    assert there.baseline == here.baseline
    # not only the best: every trial asked and told is the same, in the same order
    assert trials_of(there.storage, there.study) == trials_of(here.storage, here.study)
    assert local_ray.is_initialized()  # the test's cluster is used, not shut down


def test_graph_is_put_in_the_object_store_once(tmp_path, inception, local_ray, monkeypatch):
    puts: list[object] = []
    real_put = local_ray.put

    def spy(value, *args, **kwargs):
        puts.append(value)
        return real_put(value, *args, **kwargs)

    monkeypatch.setattr(local_ray, "put", spy)
    # workers=2 with a Ray address: batches of two tasks
    result = tune(
        inception, trials=5, storage=storage(tmp_path, "put"), workers=2, ray_address="auto"
    )
    assert result.trials + len(result.pruned) == 5
    assert puts == [api.print_module(inception)]


SERIAL_PLUGIN = (
    "from ge_dialect.tune import space\n"
    "def apply(setting, passes):\n"
    "    if setting['serial']:\n"
    "        passes[:] = ['assign-streams{mode=single}' if p.startswith('assign-streams') else p\n"
    "                     for p in passes]\n"
    "space.register(space.Parameter('serial', (True,), True, 'one stream'), apply)\n"
)


def test_plugins_are_shipped_to_the_ray_workers(tmp_path, inception, local_ray):
    plugin = tmp_path / "serial.py"
    plugin.write_text(SERIAL_PLUGIN)
    runs = []
    for where, address in (("here", None), ("ray", "auto")):
        try:
            runs.append(
                tune(
                    inception,
                    trials=4,
                    storage=storage(tmp_path, where),
                    seed=0,
                    ray_address=address,
                    plugins=(str(plugin),),
                )
            )
        finally:
            space.unregister("serial")
    here, there = runs
    trials = trials_of(there.storage, there.study)
    # the same figures as in-process, also for settings the plugin changes (without it,
    # streams=auto measures a multi-stream pipeline)
    assert trials == trials_of(here.storage, here.study)
    assert any(params.get("streams") == "auto" for _, _, params, _ in trials)


def test_worker_parses_the_graph_once(inception, monkeypatch):
    parsed: list[str] = []
    real_parse = api.parse

    def spy(text):
        parsed.append(text)
        return real_parse(text)

    monkeypatch.setattr(api, "parse", spy)
    monkeypatch.setattr(ray_executor, "_PARSED", {})
    context = context_of(inception, 1)
    text = api.print_module(inception)
    first = ray_executor._trial(text, space.default_setting(context), context, None)
    again = ray_executor._trial(text, space.default_setting(context), context, None)
    assert first == again
    assert not isinstance(first, str) and first.makespan_us > 0
    assert len(parsed) == 1


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("127.0.0.1:1", "error: cannot reach the Ray cluster at '127.0.0.1:1': "),
        ("ray://127.0.0.1:1", "error: cannot reach the Ray cluster at 'ray://127.0.0.1:1': "),
        ("no-port", "error: bad Ray address 'no-port' (expected auto, host:port"),
    ],
    ids=["host-port", "ray-client", "malformed"],
)
def test_unreachable_ray_address_is_one_line_and_keeps_trials(
    tmp_path, inception, monkeypatch, address, message
):
    url = storage(tmp_path, "kept")
    first = tune(inception, trials=3, storage=url, seed=0)
    before = trials_of(url, first.study)
    assert [state for _, state, _, _ in before] == ["COMPLETE"] * 3
    # as if no Ray instance ran in this process (another test may have started one)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    with pytest.raises(TuneError) as caught:
        tune(inception, trials=3, storage=url, seed=0, ray_address=address)
    text = str(caught.value)
    assert text.startswith(message)
    assert "\n" not in text
    assert trials_of(url, first.study) == before


def test_ray_missing_is_one_error_line(tmp_path, inception, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(TuneError) as caught:
        tune(inception, trials=2, storage=storage(tmp_path, "noray"), ray_address="auto")
    assert str(caught.value) == (
        "error: running trials on Ray needs Ray (pip install 'ray[default]')"
    )


def test_local_worker_processes_share_the_storage(tmp_path, inception):
    result = tune(inception, trials=6, storage=storage(tmp_path, "workers"), workers=2, seed=0)
    trials = trials_of(result.storage, result.study)
    assert len(trials) == 6
    assert {state for _, state, _, _ in trials} <= {"COMPLETE", "PRUNED"}
    assert result.trials + len(result.pruned) == 6
    assert result.baseline.number == 0
    assert result.best[0].figures.makespan_us <= result.baseline.figures.makespan_us


def test_no_worker_process_when_the_baseline_is_the_only_trial(tmp_path, inception, monkeypatch):
    def no_process(*args, **kwargs):
        raise AssertionError("a worker process was started with no trial to run")

    monkeypatch.setattr(study.multiprocessing, "get_context", no_process)
    result = tune(inception, trials=1, storage=storage(tmp_path, "one"), workers=2)
    assert [number for number, _, _, _ in trials_of(result.storage, result.study)] == [0]
    assert result.best[0].number == result.baseline.number == 0


def test_a_failing_worker_process_is_one_error_line(tmp_path, inception):
    plugin = tmp_path / "fails_in_workers.py"
    plugin.write_text(
        "import multiprocessing\n"
        "if multiprocessing.parent_process() is not None:\n"
        "    raise RuntimeError('only in a worker process')\n"
    )
    with pytest.raises(TuneError) as caught:
        tune(
            inception,
            trials=3,
            storage=storage(tmp_path, "fails"),
            workers=2,
            plugins=(str(plugin),),
        )
    assert str(caught.value) == "error: a tuning worker process failed (exit code 1)"


def test_local_workers_apply_patience(tmp_path, inception):
    """Each worker process stops after `patience` of its own trials without a better value,
    long before the trials requested run out."""
    result = tune(inception, trials=40, patience=2, storage=storage(tmp_path, "patient"), workers=2)
    assert len(trials_of(result.storage, result.study)) < 20


def test_a_geared_study_on_ray_matches_the_in_process_one(tmp_path, local_ray):
    """A graph with a dynamic batch ships to the Ray workers with its gears' graphs: the
    same trials, gears and figures as in-process."""
    from helpers.onnx_ref import dynamic_batch_mlp

    from ge_dialect.tune.evaluate import load_geared

    model = dynamic_batch_mlp(str(tmp_path / "mlp.onnx"))

    def graph():
        return load_geared(model, {"x": [None, 64]}, {("x", 0): [1, 2, 2, 8, 16]}, 2)

    here = tune(graph(), trials=4, storage=storage(tmp_path, "here"), seed=0)
    there = tune(graph(), trials=4, storage=storage(tmp_path, "ray"), seed=0, ray_address="auto")
    assert there.best == here.best and there.best[0].figures.gears
