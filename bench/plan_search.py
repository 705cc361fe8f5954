"""plan-memory's exact offset search on the lowered zoo models: peaks against the bound.

Each zoo model (`examples/zoo`, generated into build/zoo on first use) is compiled with
`canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=M},lower-to-device` for the stream
modes M = single and auto, then planned twice, with `plan-memory{search=none}` (the
heuristic alone, before) and `plan-memory` (search=exact, its default budget; after).
Per program it prints the buffers, the stream-aware bound, each plan's peak over the bound
and whether it is proven optimal, and the two passes' times (best of --repeat).  It asserts
nothing.

    python bench/plan_search.py [--repeat 3] [--models resnet18 inception ...]
"""

from __future__ import annotations

import argparse
import os
import sys

from timer import measure

from ge_dialect import api

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples", "zoo"))

from make_zoo import NAMES, zoo_model  # noqa: E402

LOWER = "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{{mode={mode}}},lower-to-device"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--models", nargs="+", default=list(NAMES))
    args = parser.parse_args()
    print(
        f"{'model':<14}{'streams':<8}{'buffers':>8}{'bound MiB':>10}"
        f"{'none':>8}{'optimal':>8}{'time s':>8}{'exact':>8}{'optimal':>8}{'time s':>8}"
    )
    for name in args.models:
        path = zoo_model(name)
        for mode in ("single", "auto"):
            lowered = api.load(path)
            api.compile(lowered, LOWER.format(mode=mode))
            memory = {}
            seconds = {}
            for search in ("none", "exact"):
                t, planned = measure(
                    lambda m, s=search: api.compile(m, f"plan-memory{{search={s}}}"),
                    args.repeat,
                    setup=lowered.clone,
                )
                seconds[search] = t
                memory[search] = api.device_program(planned).memory
            bound = memory["none"]["stream_bound"]
            cells = "".join(
                f"{memory[s]['peak'] / bound:>8.4f}{'yes' if memory[s]['optimal'] else 'no':>8}"
                f"{seconds[s]:>8.2f}"
                for s in ("none", "exact")
            )
            print(
                f"{name:<14}{mode:<8}{memory['none']['buffers']:>8}{bound / 2**20:>10.2f}{cells}"
            )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
