"""Makes docs/walkthrough.md's pictures ("ResNet-18 end to end"): the timeline pictures
`docs/walkthrough_resnet18.png` and `docs/walkthrough_inception_auto.png`, and prints the
IR excerpts and the reports it quotes.

    python docs/make_walkthrough.py

The model is the zoo's ResNet-18 (`examples/zoo`, exported by PyTorch into `build/zoo/` on
first use).  The script runs ge-run's default pipeline one pass at a time, printing the
first lines of the function body after the import and after each pass with constants of
more than 16 elements elided (what `ge-opt --elide-constants-if-larger=16 -p PASSES
model.onnx | head` shows), then simulates the device program on seeded inputs as `ge-run
--check-numbers` does, compares it with onnxruntime, prints the report and draws the timeline.
Then the same for the zoo's Inception with `assign-streams{mode=auto}` (four streams, their
events), report and timeline only.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from ge_dialect import api

DOCS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(DOCS)
sys.path.insert(0, os.path.join(ROOT, "examples", "zoo"))

from make_zoo import zoo_model  # noqa: E402

PASSES = [*api.DEFAULT_PIPELINE.split(","), "lower-to-device", "plan-memory"]
LINES = {"import": 4, "fuse": 4, "to-nc1hwc0": 4, "lower-to-device": 5, "plan-memory": 6}
"""How many body lines to print after each step (the others are skipped: canonicalize and
cse change nothing visible at the top of ResNet-18, assign-streams adds `stream.id`s)."""
PNG = os.path.join(DOCS, "walkthrough_resnet18.png")
AUTO_PNG = os.path.join(DOCS, "walkthrough_inception_auto.png")
AUTO = "canonicalize,cse,fuse,to-nc1hwc0,assign-streams{mode=auto},lower-to-device,plan-memory"


def excerpt(module, lines: int) -> str:
    copy = module.clone()
    api.elide(copy, 16)
    text = api.print_module(copy).splitlines()
    return "\n".join(text[2 : 2 + lines])  # after `builtin.module {` and `func.func @main`


def main() -> None:
    path = zoo_model("resnet18")
    print(f"$ ge-opt --elide-constants-if-larger=16 {os.path.relpath(path, ROOT)}")
    module = api.load(path)
    print(excerpt(module, LINES["import"]))
    for index, name in enumerate(PASSES):
        api.compile(module, name)
        if name in LINES:
            print(f"\n// after {name} (-p {','.join(PASSES[: index + 1])})")
            print(excerpt(module, LINES[name]))

    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    result = api.simulate(module, {"input": x})
    expected = api.onnxruntime_outputs(path, {"input": x})["output"]
    print(
        f"\nmax |error| against onnxruntime {api.max_error(result.outputs['output'], expected):.3g}"
    )
    print(f"memory findings: {len(result.findings)}")
    print(result.report.text())
    api.draw_timeline(result, PNG, title="ResNet-18 (zoo), ge-run's default pipeline")
    print(f"\nwrote {os.path.relpath(PNG, ROOT)}")

    path = zoo_model("inception")
    module = api.load(path)
    api.compile(module, AUTO)
    result = api.simulate(module)
    expected = api.onnxruntime_outputs(path, result.inputs)["output"]
    print(f"\n$ ge-run --check-numbers -p '{AUTO}' {os.path.relpath(path, ROOT)}")
    print(
        f"max |error| against onnxruntime {api.max_error(result.outputs['output'], expected):.3g}"
    )
    print(f"memory findings: {len(result.findings)}")
    print(result.report.text())
    api.draw_timeline(result, AUTO_PNG, title="Inception (zoo), assign-streams{mode=auto}")
    print(f"\nwrote {os.path.relpath(AUTO_PNG, ROOT)}")


if __name__ == "__main__":
    main()
