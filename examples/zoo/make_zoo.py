"""Exports the zoo (`models.py`) to ONNX, into a cache reused across runs.

    python examples/zoo/make_zoo.py [NAME ...] [--bundle] [--force]

`zoo_model(name)` is what tests and benches call: it returns the path of the model's ONNX
file, exporting it first when there is no up-to-date one.  Small models are bundled in the
repo beside this file (`inception.onnx`, `encoder.onnx`); the large ones are generated into
`build/zoo/`.  Beside each `.onnx` file a `.sha256` file holds the hash of the definition it
was exported from (the source of `models.py`, the model's name and the export settings):
a file whose hash matches is reused, a stale or missing one is exported again (into
`build/zoo/`; `--bundle` rewrites the bundled copies after an edit of `models.py`).
Exporting needs torch (the `torch` extra: a CPU build, as the README says); reading a
bundled, up-to-date model does not.

The exporter is PyTorch's TorchScript one (`dynamo=False`) with `do_constant_folding=False`,
so that BatchNormalization stays a node (the importer and the fuse pass see what a real
export gives), at opset `OPSET`; the input is called `input`, the output `output`.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import sys
import warnings
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CACHE = os.path.join(ROOT, "build", "zoo")
OPSET = 17
BUNDLED = ("inception", "encoder")
NAMES = ("resnet18", "resnet50", "mobilenet_v2", "inception", "encoder")
EXPORT = f"torch.onnx.export(dynamo=False, do_constant_folding=False, opset_version={OPSET})"


def definition_hash(name: str) -> str:
    """The hash of what `name`'s export depends on: `models.py`, the name, the settings."""
    with open(os.path.join(HERE, "models.py"), "rb") as f:
        source = f.read()
    return hashlib.sha256(source + f"\n{name}\n{EXPORT}\n".encode()).hexdigest()


def _up_to_date(path: str, digest: str) -> bool:
    try:
        with open(path + ".sha256") as f:
            return os.path.exists(path) and f.read().strip() == digest
    except OSError:
        return False


def export(name: str, path: str) -> None:
    """Exports the zoo model `name` to `path` (and its hash beside it), atomically."""
    import torch

    models = _models()
    if name not in models.MODELS:
        raise KeyError(f"no zoo model '{name}' (models: {', '.join(models.MODELS)})")
    model = models.build(name)
    example = torch.zeros(models.MODELS[name].input_shape)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with warnings.catch_warnings():  # "legacy TorchScript-based exporter": chosen on purpose
            warnings.simplefilter("ignore", DeprecationWarning)
            _export(torch, model, example, tmp)
        with open(tmp + ".sha256", "w") as f:
            f.write(definition_hash(name) + "\n")
        os.replace(tmp, path)
        os.replace(tmp + ".sha256", path + ".sha256")
    finally:
        for leftover in (tmp, tmp + ".sha256"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def _models() -> Any:
    """`models.py`, loaded under a name of its own (it imports torch)."""
    module = sys.modules.get("ge_zoo_models")
    if module is None:
        path = os.path.join(HERE, "models.py")
        spec = importlib.util.spec_from_file_location("ge_zoo_models", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["ge_zoo_models"] = module
        spec.loader.exec_module(module)
    return module


def _export(torch: Any, model: Any, example: Any, path: str) -> None:
    torch.onnx.export(
        model,
        (example,),
        path,
        dynamo=False,
        do_constant_folding=False,
        opset_version=OPSET,
        input_names=["input"],
        output_names=["output"],
    )


def zoo_model(name: str, *, force: bool = False) -> str:
    """The path of zoo model `name`'s ONNX file: the bundled copy or the cached export when
    its hash matches the definition, else a fresh export into `build/zoo/`."""
    if name not in NAMES:
        raise KeyError(f"no zoo model '{name}' (models: {', '.join(NAMES)})")
    digest = definition_hash(name)
    if name in BUNDLED and not force:
        bundled = os.path.join(HERE, f"{name}.onnx")
        if _up_to_date(bundled, digest):
            return bundled
    path = os.path.join(CACHE, f"{name}.onnx")
    if force or not _up_to_date(path, digest):
        export(name, path)
    return path


def input_shape(name: str) -> tuple[int, ...]:
    """The input shape of zoo model `name` (read from its ONNX file)."""
    import onnx

    model = onnx.load(zoo_model(name), load_external_data=False)
    return tuple(d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"default: {' '.join(NAMES)}")
    parser.add_argument(
        "--bundle", action="store_true", help="rewrite the bundled models beside this file"
    )
    parser.add_argument("--force", action="store_true", help="export even when up to date")
    args = parser.parse_args()
    for name in args.names or NAMES:
        if args.bundle and name in BUNDLED:
            path = os.path.join(HERE, f"{name}.onnx")
            if args.force or not _up_to_date(path, definition_hash(name)):
                export(name, path)
        else:
            path = zoo_model(name, force=args.force)
        print(f"{name}: {os.path.relpath(path, ROOT)} ({os.path.getsize(path) / 2**20:.2f} MiB)")


if __name__ == "__main__":
    main()
