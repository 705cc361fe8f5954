"""ge-tune's throughput and what it finds, by simulation (seeded TPE, small budgets).

1. Trials per second on the zoo's Inception (objective latency, `--throughput-trials` each):
   in this process, with 2 local worker processes sharing the SQLite storage, and on a
   local Ray instance with 2 CPUs (`ray.init(num_cpus=2)`, batches of 2 trials), and the
   scaling ratios against in-process.
2. The makespan the study finds against the default pipeline (trial 0) on three zoo models
   (ResNet-18, Inception, the encoder), two transformers built from configs (tiny Llama
   and GPT-2, imported from PyTorch) and, on 4 ranks, a MoE layer (bench/ranks.py's, 512
   tokens, 16 experts, top 4): baseline and best makespan (us), their ratio, the best's
   peak over the baseline's, and the best pipeline.
3. Dimension gears: the tiny Llama with a dynamic batch, tuned over a trace of decode batch
   sizes (`--calls`, 1-16, most of them small), at most 4 gears: the expected makespan per
   call of the default pipeline and of the best, and for the best pipeline what the gears
   are worth: every call padded to the largest batch (one graph), the 4 chosen gears, and
   a graph for every size (the bound no gear set beats).

Storages are temporary SQLite files.  It asserts nothing.

    python bench/tune.py [--trials 16] [--throughput-trials 64] [--skip-ray] [--skip-found]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from typing import Any

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, os.path.join(ROOT, "examples", "zoo"))

from make_zoo import zoo_model  # noqa: E402
from ranks import moe_layer, moe_weights  # noqa: E402

from ge_dialect import api  # noqa: E402
from ge_dialect.tune.study import tune  # noqa: E402


def throughput(trials: int, skip_ray: bool) -> None:
    module = api.load(zoo_model("inception"))
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        runs: list[tuple[str, dict[str, Any]]] = [("in-process", {}), ("2 workers", {"workers": 2})]
        if not skip_ray:
            runs.append(("Ray, 2 CPUs", {"ray_address": "local", "workers": 2}))
        for k, (name, options) in enumerate(runs):
            if name.startswith("Ray"):
                import ray

                ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            start = time.perf_counter()
            tune(module, trials=trials, storage=f"sqlite:///{tmp}/{k}.db", seed=0, **options)
            seconds = time.perf_counter() - start
            if name.startswith("Ray"):
                ray.shutdown()
            rates[name] = trials / seconds
            print(
                f"{name:<12} {trials} trials in {seconds:6.2f} s: {rates[name]:5.2f} trials/s"
                f" ({rates[name] / rates['in-process']:.2f}x in-process)"
            )
            sys.stdout.flush()


def transformer(name: str, batch: int = 1):
    import torch
    import transformers

    from ge_dialect.frontend.torch_import import import_torch

    torch.manual_seed(0)
    eager = {"attn_implementation": "eager", "use_cache": False}
    model: Any
    if name == "llama":
        config: Any = transformers.LlamaConfig(
            hidden_size=128,
            intermediate_size=344,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=256,
            max_position_embeddings=64,
            **eager,
        )
        model = transformers.LlamaModel(config)
    else:
        config = transformers.GPT2Config(
            n_embd=128, n_layer=2, n_head=4, n_positions=64, vocab_size=256, **eager
        )
        model = transformers.GPT2Model(config)
    return import_torch(model.eval(), (torch.randint(0, 256, (batch, 32)),))


def found(trials: int) -> None:
    print(
        f"{'graph':<16}{'ranks':>6}{'default us':>12}{'best us':>10}{'ratio':>8}{'peak':>7}"
        "  pipeline"
    )

    def zoo(name: str) -> Any:
        return api.load(zoo_model(name))

    def moe() -> Any:
        return moe_layer(512, 4, moe_weights(256, 16, 512))

    graphs: list[tuple[str, Callable[[], Any], int]] = [
        (n, partial(zoo, n), 1) for n in ("resnet18", "inception", "encoder")
    ]
    graphs += [(n, partial(transformer, n), 1) for n in ("llama", "gpt2")]
    graphs.append(("moe layer", moe, 4))
    with tempfile.TemporaryDirectory() as tmp:
        for k, (name, make, ranks) in enumerate(graphs):
            result = tune(
                make(), trials=trials, ranks=ranks, storage=f"sqlite:///{tmp}/{k}.db", seed=0
            )
            base, best = result.baseline.figures, result.best[0].figures
            peak = best.peak_bytes / base.peak_bytes if base.peak_bytes else 1.0
            print(
                f"{name:<16}{ranks:>6}{base.makespan_us:>12.1f}{best.makespan_us:>10.1f}"
                f"{best.makespan_us / base.makespan_us:>8.3f}{peak:>7.2f}"
                f"  {result.best[0].pipeline}"
            )
            sys.stdout.flush()


CALLS = (1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 8, 8, 10, 12, 16)


def geared(trials: int) -> None:
    from ge_dialect.tune.evaluate import Geared
    from ge_dialect.tune.gears import Workload, choose, expected

    workload = Workload((("input_ids", 0),), tuple((c,) for c in CALLS), 4)
    graph = Geared(workload, {p: transformer("llama", p[0]) for p in workload.candidates()})
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        result = tune(graph, trials=trials, storage=f"sqlite:///{tmp}/gears.db", seed=0)
        seconds = time.perf_counter() - start
    base, best = result.baseline.figures, result.best[0]
    cost = {
        key[-1]: outcome.makespan_us
        for key, outcome in graph.memo.items()
        if key[0] == best.pipeline and not isinstance(outcome, str)
    }
    every = Workload(workload.dims, workload.calls, len(workload.points()))
    _, bound = choose(every, cost)
    print(
        f"llama, {len(CALLS)} calls of {len(workload.points())} batch sizes, at most "
        f"{workload.max_gears} gears: {trials} trials in {seconds:.1f} s"
    )
    print(
        f"  expected makespan per call: default pipeline {base.makespan_us:.1f} us, best "
        f"{best.figures.makespan_us:.1f} us ({best.figures.makespan_us / base.makespan_us:.3f})"
    )
    top = expected(workload, [workload.top()], cost)
    print(
        f"  best pipeline: one graph at batch {workload.top()[0]} {top:.1f} us; gears "
        f"{','.join(str(g[0]) for g, _, _ in best.figures.gears)} "
        f"{best.figures.makespan_us:.1f} us ({best.figures.makespan_us / top:.3f}); a graph "
        f"per size {bound:.1f} us ({bound / top:.3f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=16, help="trials per tuned graph")
    parser.add_argument(
        "--throughput-trials", type=int, default=64, help="trials of each throughput run"
    )
    parser.add_argument("--skip-ray", action="store_true")
    parser.add_argument(
        "--skip-found", action="store_true", help="only the throughput and the gears"
    )
    args = parser.parse_args()
    throughput(args.throughput_trials, args.skip_ray)
    if not args.skip_found:
        found(args.trials)
    geared(args.trials)


if __name__ == "__main__":
    main()
