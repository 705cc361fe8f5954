"""ge-tune's study (`ge_dialect.tune.study.tune`), in-process, seeded, small budgets:

- on the zoo's Inception and on a tiny Llama (transformers, built from a config) the best
  setting is at least as good as ge-run's default pipeline (trial 0, whose figures equal a
  plain default compile), and its pipeline reproduces its makespan and peak exactly;
- `objective="both"` returns a Pareto front: no point dominates another, and every
  completed trial is dominated by or equal to a point of it;
- warm start: a new study of a graph similar to an earlier one starts (after the baseline)
  from the earlier study's best setting, the nearest of several;
- patience stops a study early; invalid settings are pruned with their reason and never
  simulated; the same seed gives the same trials;
- optuna-dashboard reads the storage as ge-tune writes it.
"""

from __future__ import annotations

import optuna
import pytest
from helpers.support import ROOT

from ge_dialect import api
from ge_dialect.tune import space
from ge_dialect.tune.evaluate import Figures, measure
from ge_dialect.tune.study import tune

INCEPTION = f"{ROOT}/examples/zoo/inception.onnx"
ENCODER = f"{ROOT}/examples/zoo/encoder.onnx"
DEFAULT = f"{api.DEFAULT_PIPELINE},lower-to-device,plan-memory"


def storage(tmp_path) -> str:
    return f"sqlite:///{tmp_path}/tune.db"


def dominates(a: Figures, b: Figures) -> bool:
    return (
        a.makespan_us <= b.makespan_us
        and a.peak_bytes <= b.peak_bytes
        and (a.makespan_us, a.peak_bytes) != (b.makespan_us, b.peak_bytes)
    )


def test_inception_best_beats_the_default_and_reproduces(tmp_path):
    module = api.load(INCEPTION)
    result = tune(module, trials=8, storage=storage(tmp_path), seed=0)
    assert result.baseline.number == 0
    assert result.baseline.figures == measure(api.load(INCEPTION), DEFAULT)
    [best] = result.best
    assert best.figures.makespan_us <= result.baseline.figures.makespan_us
    assert best.figures.makespan_us < 0.9 * result.baseline.figures.makespan_us
    assert measure(api.load(INCEPTION), best.pipeline) == best.figures
    # the same seed, a fresh storage: the same trials
    again = tune(api.load(INCEPTION), trials=8, storage=f"sqlite:///{tmp_path}/again.db", seed=0)
    assert again.best == result.best


def tiny_llama():
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from ge_dialect.frontend.torch_import import import_torch

    torch.manual_seed(0)
    config = transformers.LlamaConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=128,
        max_position_embeddings=64,
        attn_implementation="eager",
        use_cache=False,
    )
    model = transformers.LlamaModel(config).eval()
    return import_torch(model, (torch.randint(0, 128, (1, 16)),))


def test_transformer_best_beats_the_default_and_reproduces(tmp_path):
    module = tiny_llama()
    result = tune(module, trials=6, storage=storage(tmp_path), seed=0)
    [best] = result.best
    assert result.baseline.figures == measure(module, DEFAULT)
    assert best.figures.makespan_us <= result.baseline.figures.makespan_us
    assert measure(module, best.pipeline) == best.figures


def test_both_objectives_give_a_pareto_front(tmp_path):
    result = tune(api.load(INCEPTION), trials=10, objective="both", storage=storage(tmp_path))
    front = [p.figures for p in result.best]
    assert front
    assert not any(dominates(a, b) for a in front for b in front)
    study = optuna.load_study(study_name=result.study, storage=storage(tmp_path))
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    for t in done:
        figures = Figures(t.user_attrs["makespan_us"], t.user_attrs["peak_bytes"])
        assert figures in front or any(dominates(p, figures) for p in front)
    assert [f.makespan_us for f in front] == sorted(f.makespan_us for f in front)


def test_warm_start_takes_the_nearest_studys_best(tmp_path):
    db = storage(tmp_path)
    first = tune(api.load(INCEPTION), trials=6, storage=db, seed=0)
    tune(api.load(ENCODER), trials=3, storage=db, seed=0)
    similar = api.load(INCEPTION)
    api.compile(similar, "canonicalize,cse,fuse")  # fewer ops, the same network
    second = tune(similar, trials=2, storage=db, seed=1)
    study = optuna.load_study(study_name=second.study, storage=db)
    trials = sorted(study.trials, key=lambda t: t.number)
    assert trials[0].user_attrs["role"] == "baseline"
    assert trials[1].user_attrs["role"] == "warm start"
    assert trials[1].params == first.best[0].setting


def test_patience_stops_early(tmp_path):
    result = tune(api.load(INCEPTION), trials=40, patience=2, storage=storage(tmp_path), seed=0)
    study = optuna.load_study(study_name=result.study, storage=storage(tmp_path))
    assert 3 <= len(study.trials) < 40


def test_invalid_settings_are_pruned_with_their_reason(tmp_path):
    module = api.load(f"{ROOT}/examples/torchair_multistream.mlir")
    result = tune(module, trials=10, ranks=4, storage=storage(tmp_path), seed=0)
    study = optuna.load_study(study_name=result.study, storage=storage(tmp_path))
    pruned = [t for t in study.trials if t.state == optuna.trial.TrialState.PRUNED]
    assert pruned, "ep and splits that do not divide 4 are offered"
    for t in pruned:
        assert t.user_attrs["pruned"]
        assert "makespan_us" not in t.user_attrs  # never simulated
        context = space.Context(ranks=4, labelled=True)
        reason = space.problem(dict(t.params), context)
        assert t.user_attrs["pruned"] == reason or (
            reason is None and "error:" in t.user_attrs["pruned"]
        )
    assert result.pruned == {t.number: t.user_attrs["pruned"] for t in pruned}


def test_a_ranks_winner_reproduces_with_its_run_flags(tmp_path, capsys):
    """On 2 ranks the space adds the split, comm streams, overlap and the collectives'
    algorithm (a ge-run flag): the best point's pipeline and flags reproduce its figures,
    and `ge-run --tuned` runs the same setting (the same makespan)."""
    from ge_dialect.tools.ge_run import main as ge_run

    path = f"{ROOT}/examples/torchair_multistream.mlir"
    db = storage(tmp_path)
    result = tune(api.load(path), trials=12, ranks=2, storage=db, seed=5)
    [best] = result.best
    assert best.flags == space.run_flags(best.setting) == ("--hccl-algo", "ring")
    assert measure(api.load(path), best.pipeline, 2, None, best.flags) == best.figures
    assert ge_run([path, "--tuned", f"{tmp_path}/tune.db", "--timing-only"]) == 0
    out = capsys.readouterr().out
    assert f"makespan {best.figures.makespan_us:.2f} us" in out
    assert "ring over HCCS" in out  # the stored flag, not HCCL's choice (mesh)


def test_every_trial_pruned_names_the_most_common_reason(tmp_path):
    """Inception has batch 1: on 2 ranks data parallel cannot split it, so every setting
    is pruned; the one error line says why most were."""
    from ge_dialect.tune.study import TuneError

    with pytest.raises(TuneError, match=r"every setting was pruned: most often .+"):
        tune(api.load(INCEPTION), trials=4, ranks=2, storage=storage(tmp_path), seed=0)


def test_optuna_dashboard_reads_the_study(tmp_path):
    """optuna-dashboard opens ge-tune's storage as it is: its JSON API lists the study and
    the trials with their figures."""
    import io
    import json

    wsgi = pytest.importorskip("optuna_dashboard").wsgi
    result = tune(api.load(ENCODER), trials=2, storage=storage(tmp_path), seed=0)
    app = wsgi(storage(tmp_path))

    def get(path: str) -> dict:
        status: list[str] = []
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": path,
            "QUERY_STRING": "",
            "SERVER_NAME": "localhost",
            "SERVER_PORT": "80",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(),
            "wsgi.errors": io.StringIO(),
        }
        body = b"".join(app(environ, lambda s, headers, exc_info=None: status.append(s)))
        assert status == ["200 OK"], body[:200]
        return json.loads(body)

    [summary] = get("/api/studies")["study_summaries"]
    assert summary["study_name"] == result.study
    trials = get(f"/api/studies/{summary['study_id']}")["trials"]
    assert len(trials) == 2
    attrs = {a["key"]: a["value"] for a in trials[0]["user_attrs"]}
    assert float(attrs["makespan_us"]) == result.baseline.figures.makespan_us
