"""Imports only point downwards (docs/architecture.md, "Layers"): the folders are the layers.

Every module of `ge_dialect/` and `transforms/` is parsed with `ast`; each import of the
project (module level, inside functions, under `if TYPE_CHECKING:`) is checked against the
table below, one row per folder, and the module-level imports must not form a cycle.  A
module the table does not cover fails, so a new folder has to be classified.

    folder                 layer       may import
    ge_dialect/utils/      utils       nothing of the project but utils
    ge_dialect/ir/         ir          utils, ir; `ir.dialects.stream` and `ir.dialects.npu`
                                       never import `ir.dialects.ge`
    ge_dialect/sim/        sim         utils, sim, and of ir only `ir.dialects.npu`
    ge_dialect/frontend/   frontend    utils, ir, frontend
    transforms/            transforms  utils, ir, transforms
    ge_dialect/api.py      api         utils, ir, sim, frontend, transforms
    ge_dialect/torchair/   torchair    everything below it
    ge_dialect/tune/       tune        utils, api, tune (ge-tune's Optuna study)
    ge_dialect/tools/      tools       the API, the errors and files utilities, the registries
                                       (dialects, passes), the parser's error type, and pass
                                       reports

A dialect (`ir.dialects.*`) may import `transforms.canonicalization` inside a function:
canonicalization patterns are loaded lazily by the op, as xDSL does.  The API may import
`ge_dialect.tune` inside a function only (`api.tune`: Optuna stays off the start-up path);
tools may import it too.  `ge_dialect.torchair`
(TorchAir's API: the `torch.compile` backend) is a client of `ge_dialect.api`; no tool
imports it.  It and `ge_dialect.frontend.torch_import` import torch at module level, so
nothing on ge-opt's start-up path may import them (`api.load` does so inside a function).
`ge_dialect` itself (the package `__init__`, which only provides `__version__`) imports
nothing of the project.

Cycles are looked for among module-level imports only (imports inside functions or under
`if TYPE_CHECKING:` run later or never).  Importing `a.b.c` first runs the `__init__` of `a`
and `a.b`, so those packages count as imported too, except the importer's own ancestors
(always initialised before it).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

import pytest
from helpers.support import ROOT

PROJECT = ("ge_dialect", "transforms")

PACKAGE, UTILS, IR, SIM, FRONTEND, TRANSFORMS, API, TORCHAIR, TUNE, TOOLS = (
    "package", "utils", "ir", "sim", "frontend", "transforms", "api", "torchair", "tune",
    "tools")

# (folder or module, layer), one row per folder: an entry covers the module and, if a
# package, its submodules.
TABLE: tuple[tuple[str, str], ...] = (
    ("ge_dialect", PACKAGE),  # only the package itself: every folder has its own row
    ("ge_dialect.utils", UTILS),
    ("ge_dialect.ir", IR),
    ("ge_dialect.sim", SIM),
    ("ge_dialect.frontend", FRONTEND),
    ("transforms", TRANSFORMS),
    ("ge_dialect.api", API),
    ("ge_dialect.torchair", TORCHAIR),
    ("ge_dialect.tune", TUNE),
    ("ge_dialect.tools", TOOLS),
)

# the layers a layer may import (beyond the specific rules of `layer_problem`)
ALLOWED: dict[str, frozenset[str]] = {
    PACKAGE: frozenset(),
    UTILS: frozenset({UTILS}),
    IR: frozenset({UTILS, IR}),
    SIM: frozenset({UTILS, SIM}),
    FRONTEND: frozenset({UTILS, IR, FRONTEND}),
    TRANSFORMS: frozenset({UTILS, IR, TRANSFORMS}),
    API: frozenset({UTILS, IR, SIM, FRONTEND, TRANSFORMS, API}),
    TORCHAIR: frozenset({UTILS, IR, SIM, FRONTEND, TRANSFORMS, API, TORCHAIR}),
    TUNE: frozenset({UTILS, API, TUNE}),
    TOOLS: frozenset({TOOLS}),
}

DIALECTS = "ge_dialect.ir.dialects"
GE = "ge_dialect.ir.dialects.ge"
NEVER_IMPORT_GE = ("ge_dialect.ir.dialects.stream", "ge_dialect.ir.dialects.npu")
SIM_MAY_IMPORT_OF_IR = "ge_dialect.ir.dialects.npu"
LAZY_CANONICALIZATION = "transforms.canonicalization"
LAZY_TUNE = "ge_dialect.tune"  # the API imports it inside a function only
# what a tool may import beyond the tools: (module or package, with its submodules?)
TOOL_IMPORTS: tuple[tuple[str, bool], ...] = (
    ("ge_dialect", False),
    ("ge_dialect.api", True),
    ("ge_dialect.utils.errors", True),
    ("ge_dialect.utils.files", True),
    ("ge_dialect.ir.parser", True),
    ("ge_dialect.ir.registry", True),
    ("transforms", False),
    ("transforms.reports", True),
    ("ge_dialect.tune", True),
)


def under(module: str, package: str) -> bool:
    """`module` is `package` or one of its submodules."""
    return module == package or module.startswith(package + ".")


def layer_of(module: str) -> str | None:
    """The layer of `module` by TABLE, or None if the table does not cover it."""
    best: tuple[int, str] | None = None
    for entry, layer in TABLE:
        covers = module == entry if entry == "ge_dialect" else under(module, entry)
        if covers and (best is None or len(entry) > best[0]):
            best = (len(entry), layer)
    return best[1] if best else None


# --------------------------------------------------------------------------------------
# Collecting imports
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    """One project import of `importer`, resolved to the module it loads."""

    importer: str
    target: str
    line: int
    lazy: bool  # inside a function: runs when the function is called
    typing_only: bool  # under `if TYPE_CHECKING:`: never runs

    @property
    def eager(self) -> bool:
        return not self.lazy and not self.typing_only

    def where(self) -> str:
        kind = " (in a function)" if self.lazy else " (TYPE_CHECKING)" if self.typing_only else ""
        return f"{self.importer}:{self.line}{kind}"


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_nodes(body: Sequence[ast.AST], lazy: bool = False, typing_only: bool = False
                  ) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool, bool]]:
    """Every import statement below `body`, with (inside a function, under TYPE_CHECKING)."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, lazy, typing_only
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _import_nodes(list(ast.iter_child_nodes(node)), True, typing_only)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _import_nodes(node.body, lazy, True)
            yield from _import_nodes(node.orelse, lazy, typing_only)
        else:
            yield from _import_nodes(list(ast.iter_child_nodes(node)), lazy, typing_only)


def _is_project(name: str) -> bool:
    return name.split(".")[0] in PROJECT


def imports_of(module: str, source: str, modules: Collection[str],
               packages: Collection[str]) -> list[Import]:
    """The project imports of `module` (whose text is `source`), resolved to module names.

    `modules` are the names of the project's modules and `packages` those that are
    packages.  `from a import b` loads `a.b` if that is a module, else `a`; relative
    imports are resolved against `module`'s package.  Self-imports are dropped.
    """
    found: list[Import] = []
    tree = ast.parse(source, filename=module)
    package = module if module in packages else module.rpartition(".")[0]
    for node, lazy, typing_only in _import_nodes(tree.body):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                origin = f"{base}.{node.module}" if node.module else base
            else:
                origin = node.module or ""
            for alias in node.names:
                sub = f"{origin}.{alias.name}"
                targets.append(sub if sub in modules else origin)
        for target in dict.fromkeys(targets):
            if _is_project(target) and target != module:
                found.append(Import(module, target, node.lineno, lazy, typing_only))
    return found


# --------------------------------------------------------------------------------------
# The checks
# --------------------------------------------------------------------------------------


def layer_problem(imp: Import) -> str | None:
    """Why `imp` breaks the layering, or None if it is allowed."""
    src, dst = imp.importer, imp.target
    src_layer, dst_layer = layer_of(src), layer_of(dst)
    if dst_layer is None:
        return f"{imp.where()}: imports {dst}, which the layer table does not cover"
    assert src_layer is not None
    what = f"{imp.where()}: {src_layer} module {src} imports {dst} ({dst_layer})"
    if any(under(src, m) for m in NEVER_IMPORT_GE) and under(dst, GE):
        return f"{what}: {src.split('.')[-1]} never imports ge"
    if src_layer == TOOLS:
        if dst_layer == TOOLS or any(under(dst, m) if sub else dst == m
                                     for m, sub in TOOL_IMPORTS):
            return None
        return (f"{what}: tools import only ge_dialect.api, ge_dialect.utils.errors and "
                ".files, the registries (ge_dialect.ir.registry, transforms), the parser's "
                "error, pass reports and ge_dialect.tune")
    if src_layer == SIM and under(dst, SIM_MAY_IMPORT_OF_IR):
        return None
    if imp.lazy and under(dst, LAZY_CANONICALIZATION) and under(src, DIALECTS):
        return None  # canonicalization patterns loaded lazily by a dialect's op
    if imp.lazy and src_layer == API and under(dst, LAZY_TUNE):
        return None  # api.tune: Optuna only when called
    if dst_layer in ALLOWED[src_layer]:
        return None
    return f"{what}: {src_layer} imports only {', '.join(sorted(ALLOWED[src_layer]))}"


def import_graph(imports: Mapping[str, Sequence[Import]], modules: Collection[str]
                 ) -> dict[str, dict[str, Import]]:
    """Module-level edges: importer -> {module it runs on import: the import statement}.

    Importing `a.b.c` runs `a` and `a.b` first: those packages are edges too, unless they
    are the importer or its ancestors.
    """
    graph: dict[str, dict[str, Import]] = {m: {} for m in modules}
    for src, imps in imports.items():
        for imp in imps:
            if not imp.eager:
                continue
            parts = imp.target.split(".")
            for k in range(1, len(parts) + 1):
                dst = ".".join(parts[:k])
                if dst in modules and not under(src, dst):
                    graph[src].setdefault(dst, imp)
    return graph


def strongly_connected(graph: Mapping[str, Mapping[str, object]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one member, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def check_layers(sources: Mapping[str, str], packages: Collection[str] = ()) -> list[str]:
    """Every layering problem of the modules `sources` (module name -> source text).

    `packages` names the modules that are packages (an `__init__.py`); a module with a
    submodule in `sources` is a package too.  The problems: modules the table does not
    cover, imports it forbids, and cycles among module-level imports.
    """
    modules = set(sources)
    packages = set(packages) | {m.rpartition(".")[0] for m in modules if "." in m}
    problems: list[str] = []
    imports: dict[str, list[Import]] = {}
    for module in sorted(modules):
        if layer_of(module) is None:
            problems.append(f"{module}: not covered by the layer table (classify it)")
            continue
        try:
            imports[module] = imports_of(module, sources[module], modules, packages)
        except SyntaxError as e:
            problems.append(f"{module}:{e.lineno}: does not parse: {e.msg}")
            continue
        for imp in imports[module]:
            problem = layer_problem(imp)
            if problem:
                problems.append(problem)
    graph = import_graph(imports, modules)
    for component in strongly_connected(graph):
        members = set(component)
        edges = [f"{imp.where()} -> {dst}" for src in component
                 for dst, imp in sorted(graph[src].items()) if dst in members]
        problems.append(f"import cycle among module-level imports: {', '.join(component)} "
                        f"({'; '.join(edges)})")
    return problems


def project_sources(root: str = ROOT) -> tuple[dict[str, str], set[str]]:
    """(module name -> source, packages) for every module of the project under `root`."""
    sources: dict[str, str] = {}
    packages: set[str] = set()
    for top in PROJECT:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            rel = os.path.relpath(dirpath, root).split(os.sep)
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                if name == "__init__.py":
                    module = ".".join(rel)
                    packages.add(module)
                else:
                    module = ".".join([*rel, name[:-3]])
                with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                    sources[module] = f.read()
    return sources, packages


# --------------------------------------------------------------------------------------
# The project
# --------------------------------------------------------------------------------------


def test_project_imports_follow_the_layers():
    sources, packages = project_sources()
    assert "ge_dialect.tools.ge_opt" in sources and "transforms.fuse" in sources
    assert {layer_of(m) for m in sources} == {layer for _, layer in TABLE}  # no row unused
    problems = check_layers(sources, packages)
    if problems:
        pytest.fail("layering problems (docs/architecture.md, Layers):\n" + "\n".join(problems),
                    pytrace=False)


# --------------------------------------------------------------------------------------
# The checker, on a small made-up project
# --------------------------------------------------------------------------------------

# one module of every layer, every import allowed
CLEAN: dict[str, str] = {
    "ge_dialect": "from importlib.metadata import version\n__version__ = version('ge-opt')\n",
    "ge_dialect.utils": "",
    "ge_dialect.utils.dtypes": "import numpy as np\n",
    "ge_dialect.utils.shapes": "from ge_dialect.utils.dtypes import np\nfrom . import dtypes\n",
    "ge_dialect.utils.layout": "import numpy as np\n",
    "ge_dialect.utils.errors": "import bisect\n",
    "ge_dialect.ir": "",
    "ge_dialect.ir.dialects": "",
    "ge_dialect.ir.dialects.ge": "from ge_dialect.ir.dialects.ge.ops import AddOp\n",
    "ge_dialect.ir.dialects.ge.attributes": (
        "from ge_dialect.utils import layout\nfrom ...utils import dtypes\n"),
    "ge_dialect.ir.dialects.ge.ops": (
        "from ge_dialect.ir.dialects.ge.attributes import Format\n"
        "from ge_dialect.utils.errors import op_error\n"
        "def get_canonicalization_patterns():\n"
        "    from transforms.canonicalization.ge import patterns\n"
        "    from ge_dialect.ir.weights import const_logical\n"
        "    return patterns\n"),
    "ge_dialect.ir.dialects.stream": "from ge_dialect.utils.errors import op_error\n",
    "ge_dialect.ir.dialects.npu": (
        "from ge_dialect.ir.dialects import stream\nfrom ge_dialect.utils import dtypes\n"),
    "ge_dialect.ir.weights": "from ge_dialect.ir.dialects.ge.attributes import Format\n",
    "ge_dialect.ir.cost": "from ge_dialect.ir.dialects import ge\n",
    "ge_dialect.ir.interpreter": (
        "from ge_dialect.ir.dialects import ge, stream\nfrom ge_dialect.ir import weights\n"),
    "ge_dialect.ir.parser": "from ge_dialect.utils.errors import GeError\n",
    "ge_dialect.ir.verify": "from ge_dialect.ir.dialects.stream import verify_streams\n",
    "ge_dialect.ir.registry": (
        "def _ge():\n    from ge_dialect.ir.dialects.ge import GE\n    return GE\n"),
    "ge_dialect.sim": "",
    "ge_dialect.sim.kernels": (
        "from ge_dialect.ir.dialects.npu import Kernel\nfrom ge_dialect.utils import layout\n"),
    "ge_dialect.sim.run": "from .kernels import run\n",
    "ge_dialect.frontend": "from ge_dialect.frontend.onnx_import import import_onnx\n",
    "ge_dialect.frontend.onnx_import": "from ge_dialect.frontend.builder import GraphBuilder\n",
    "ge_dialect.frontend.builder": (
        "from ge_dialect.ir.dialects import ge, stream\nfrom ge_dialect.ir.verify import v\n"),
    "ge_dialect.frontend.scope": "from ge_dialect.frontend.builder import GraphBuilder\n",
    "transforms": "def _fuse():\n    from transforms.fuse import FusePass\n",
    "transforms.fuse": (
        "from ge_dialect.ir.dialects import ge\nfrom ge_dialect.ir import weights\n"
        "from transforms.common import c\n"),
    "transforms.common": "from ge_dialect.ir.cost import op_cost\n",
    "transforms.reports": "import weakref\n",
    "transforms.canonicalization": "",
    "transforms.canonicalization.ge": "from ge_dialect.ir.dialects import ge\n",
    "ge_dialect.api": (
        "from ge_dialect.frontend import import_onnx\nfrom ge_dialect.sim import run\n"
        "from transforms import get_all_passes\nfrom ge_dialect.ir.interpreter import run\n"),
    "ge_dialect.torchair": "from ge_dialect import api\nfrom ge_dialect.frontend import scope\n",
    "ge_dialect.tools": "",
    "ge_dialect.tools.ge_opt": (
        "from ge_dialect import __version__\n"
        "from ge_dialect.api import compile\n"
        "from ge_dialect.utils.errors import GeError\n"
        "from ge_dialect.ir.registry import get_all_dialects\n"
        "from transforms.reports import reports_of\n"
        "def passes():\n    from transforms import get_all_passes\n"),
    "ge_dialect.tools.ge_run": "from ge_dialect.tools.ge_opt import main\n",
}


def planted(**changes: str) -> list[str]:
    """The problems of CLEAN with modules added or replaced (`ge_dialect__x` is
    `ge_dialect.x`)."""
    sources = dict(CLEAN)
    sources.update({name.replace("__", "."): text for name, text in changes.items()})
    return check_layers(sources)


def test_the_clean_project_passes():
    assert check_layers(CLEAN) == []


@pytest.mark.parametrize("changes, expected", [
    # utils importing upwards, also relatively and through `import a.b`
    ({"ge_dialect__utils__bad": "from transforms import fuse\n"},
     "ge_dialect.utils.bad:1: utils module ge_dialect.utils.bad imports transforms.fuse "
     "(transforms): utils imports only utils"),
    ({"ge_dialect__utils__bad": "from ..ir.dialects.ge import ops\n"},
     "ge_dialect.utils.bad:1: utils module ge_dialect.utils.bad imports "
     "ge_dialect.ir.dialects.ge.ops (ir)"),
    ({"ge_dialect__utils__bad": "import numpy\nimport ge_dialect.ir.parser\n"},
     "ge_dialect.utils.bad:2: utils module ge_dialect.utils.bad imports ge_dialect.ir.parser"),
    ({"ge_dialect__utils__errors": "def f():\n    from ge_dialect.ir.dialects import ge\n"},
     "ge_dialect.utils.errors:2 (in a function): utils module ge_dialect.utils.errors imports "
     "ge_dialect.ir.dialects.ge (ir)"),
    # the package itself imports nothing of the project
    ({"ge_dialect": "from ge_dialect.utils import dtypes\n"},
     "ge_dialect:1: package module ge_dialect imports ge_dialect.utils.dtypes (utils)"),
    # stream and npu never import ge, not even lazily or for typing
    ({"ge_dialect__ir__dialects__stream": "from ge_dialect.ir.dialects.ge import parse\n"},
     "ge_dialect.ir.dialects.stream:1: ir module ge_dialect.ir.dialects.stream imports "
     "ge_dialect.ir.dialects.ge (ir): stream never imports ge"),
    ({"ge_dialect__ir__dialects__stream": "def f():\n    from ge_dialect.ir.dialects import ge\n"},
     "ge_dialect.ir.dialects.stream:2 (in a function): ir module ge_dialect.ir.dialects.stream "
     "imports ge_dialect.ir.dialects.ge"),
    ({"ge_dialect__ir__dialects__npu": (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ge_dialect.ir.dialects.ge.attributes import Format\n")},
     "ge_dialect.ir.dialects.npu:3 (TYPE_CHECKING): ir module ge_dialect.ir.dialects.npu imports "
     "ge_dialect.ir.dialects.ge.attributes (ir): npu never imports ge"),
    # ir importing transforms, a frontend, sim; the lazy canonicalization exception
    ({"ge_dialect__ir__weights": "from transforms.common import c\n"},
     "ge_dialect.ir.weights:1: ir module ge_dialect.ir.weights imports transforms.common "
     "(transforms): ir imports only ir, utils"),
    ({"ge_dialect__ir__dialects__stream": "from transforms.canonicalization.stream import p\n"},
     "ge_dialect.ir.dialects.stream:1: ir module ge_dialect.ir.dialects.stream imports "
     "transforms.canonicalization.stream (transforms)"),
    ({"ge_dialect__ir__cost": "def f():\n    from transforms.canonicalization import ge\n"},
     "ge_dialect.ir.cost:2 (in a function): ir module ge_dialect.ir.cost imports "
     "transforms.canonicalization.ge (transforms)"),
    ({"ge_dialect__ir__interpreter": "from ge_dialect.frontend.builder import GraphBuilder\n"},
     "ge_dialect.ir.interpreter:1: ir module ge_dialect.ir.interpreter imports "
     "ge_dialect.frontend.builder (frontend)"),
    ({"ge_dialect__ir__verify": "import ge_dialect.sim.kernels\n"},
     "ge_dialect.ir.verify:1: ir module ge_dialect.ir.verify imports ge_dialect.sim.kernels "
     "(sim)"),
    # sim: npu, utils and sim only
    ({"ge_dialect__sim__kernels": "from ge_dialect.ir.dialects import ge\n"},
     "ge_dialect.sim.kernels:1: sim module ge_dialect.sim.kernels imports "
     "ge_dialect.ir.dialects.ge (ir)"),
    ({"ge_dialect__sim__kernels": "from ge_dialect.ir import cost\n"},
     "ge_dialect.sim.kernels:1: sim module ge_dialect.sim.kernels imports ge_dialect.ir.cost "
     "(ir)"),
    ({"ge_dialect__sim__run": "from ge_dialect.frontend import import_onnx\n"},
     "ge_dialect.sim.run:1: sim module ge_dialect.sim.run imports ge_dialect.frontend "
     "(frontend)"),
    # frontends and transforms do not import each other, nor the API
    ({"ge_dialect__frontend__builder": "from transforms.fuse import FusePass\n"},
     "ge_dialect.frontend.builder:1: frontend module ge_dialect.frontend.builder imports "
     "transforms.fuse (transforms)"),
    ({"transforms__fuse": "from ge_dialect.frontend.builder import GraphBuilder\n"},
     "transforms.fuse:1: transforms module transforms.fuse imports ge_dialect.frontend.builder "
     "(frontend)"),
    ({"transforms__common": "def f():\n    import ge_dialect.api\n"},
     "transforms.common:2 (in a function): transforms module transforms.common imports "
     "ge_dialect.api (api)"),
    # the API does not import the tools nor TorchAir's API
    ({"ge_dialect__api": "def f():\n    from ge_dialect.tools.ge_opt import main\n"},
     "ge_dialect.api:2 (in a function): api module ge_dialect.api imports "
     "ge_dialect.tools.ge_opt (tools)"),
    ({"ge_dialect__api": "def f():\n    from ge_dialect import torchair\n"},
     "ge_dialect.api:2 (in a function): api module ge_dialect.api imports ge_dialect.torchair "
     "(torchair)"),
    # the API imports ge_dialect.tune only inside a function; tune: utils, api, tune only
    ({"ge_dialect__api": "import ge_dialect.tune.study\n"},
     "ge_dialect.api:1: api module ge_dialect.api imports ge_dialect.tune.study (tune)"),
    ({"ge_dialect__tune__study": "from transforms.fuse import FusePass\n"},
     "ge_dialect.tune.study:1: tune module ge_dialect.tune.study imports transforms.fuse "
     "(transforms)"),
    # tools: the API, the errors, the registries and reports only
    ({"ge_dialect__tools__ge_opt": "def f():\n    from ge_dialect.ir import weights\n"},
     "ge_dialect.tools.ge_opt:2 (in a function): tools module ge_dialect.tools.ge_opt imports "
     "ge_dialect.ir.weights (ir): tools import only"),
    ({"ge_dialect__tools__ge_opt": "from ge_dialect.frontend import import_onnx\n"},
     "ge_dialect.tools.ge_opt:1: tools module ge_dialect.tools.ge_opt imports "
     "ge_dialect.frontend (frontend)"),
    ({"ge_dialect__tools__ge_opt": "from transforms.fuse import FusePass\n"},
     "ge_dialect.tools.ge_opt:1: tools module ge_dialect.tools.ge_opt imports transforms.fuse"),
    ({"ge_dialect__tools__ge_opt": "from ge_dialect.utils import layout\n"},
     "ge_dialect.tools.ge_opt:1: tools module ge_dialect.tools.ge_opt imports "
     "ge_dialect.utils.layout (utils)"),
    ({"ge_dialect__tools__ge_opt": "from ge_dialect import torchair\n"},
     "ge_dialect.tools.ge_opt:1: tools module ge_dialect.tools.ge_opt imports "
     "ge_dialect.torchair (torchair)"),
    # modules and imports outside the table
    ({"ge_dialect__misc": "import numpy\n"},
     "ge_dialect.misc: not covered by the layer table (classify it)"),
    ({"transforms__fuse": "from ge_dialect.mystery import x\n"},
     "transforms.fuse:1: imports ge_dialect.mystery, which the layer table does not cover"),
    ({"ge_dialect__ir__cost": "def f(:\n"}, "ge_dialect.ir.cost:1: does not parse"),
])
def test_planted_problems_are_reported(changes, expected):
    problems = planted(**changes)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_a_cycle_between_two_ir_modules_names_its_members():
    problems = planted(ge_dialect__ir__cost="from ge_dialect.ir import interpreter\n",
                       ge_dialect__ir__interpreter="from ge_dialect.ir import weights, cost\n")
    assert problems == [
        "import cycle among module-level imports: ge_dialect.ir.cost, ge_dialect.ir.interpreter "
        "(ge_dialect.ir.cost:1 -> ge_dialect.ir.interpreter; "
        "ge_dialect.ir.interpreter:1 -> ge_dialect.ir.cost)"]


def test_a_cycle_through_a_package_init_is_found():
    # weights needs ge.attributes, which first runs ge/__init__, which imports ge.ops,
    # which imports weights
    problems = planted(
        ge_dialect__ir__dialects__ge__ops="from ge_dialect.ir.weights import const_logical\n")
    assert len(problems) == 1, problems
    assert problems[0].startswith(
        "import cycle among module-level imports: ge_dialect.ir.dialects.ge, "
        "ge_dialect.ir.dialects.ge.ops, ge_dialect.ir.weights ("), problems


def test_lazy_and_type_checking_imports_make_no_cycle():
    # ge.ops already imports weights inside a function (CLEAN); under TYPE_CHECKING too:
    typing_only = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                   "    from ge_dialect.ir.weights import const_logical\n")
    assert planted(ge_dialect__ir__dialects__ge__ops=typing_only) == []
    assert planted(ge_dialect__ir__dialects__ge__ops=typing_only.replace(
        "if TYPE_CHECKING", "if typing.TYPE_CHECKING")) == []
    # ...but an `else:` branch of it runs
    problems = planted(
        ge_dialect__ir__dialects__ge__ops=typing_only + "else:\n    import ge_dialect.ir.weights\n")
    assert len(problems) == 1 and problems[0].startswith("import cycle"), problems


def test_a_planted_upward_import_is_reported_on_the_real_project():
    sources, packages = project_sources()
    before = set(check_layers(sources, packages))
    sources["ge_dialect.utils.bad"] = "from transforms import fuse\n"
    new = set(check_layers(sources, packages)) - before
    assert new == {"ge_dialect.utils.bad:1: utils module ge_dialect.utils.bad imports "
                   "transforms.fuse (transforms): utils imports only utils"}


def test_imports_are_resolved():
    modules = {"ge_dialect", "ge_dialect.ge", "ge_dialect.ge.ops", "ge_dialect.ge.attributes",
               "ge_dialect.weights", "transforms", "transforms.fuse"}
    packages = {"ge_dialect", "ge_dialect.ge", "transforms"}
    source = (
        "import os\n"
        "from ge_dialect import ge, weights\n"        # modules of a package
        "from ge_dialect.ge import AddOp, ops\n"      # a name of a package, and a module
        "from . import attributes\n"                  # relative, in ge_dialect.ge.ops
        "from .. import weights as w\n"
        "from ..ge.attributes import Format\n"
        "import transforms.fuse\n"
        "from ge_dialect import __version__\n"
        "from xdsl.ir import Operation\n")
    found = [(i.target, i.line) for i in
             imports_of("ge_dialect.ge.ops", source, modules, packages)]
    assert found == [
        ("ge_dialect.ge", 2), ("ge_dialect.weights", 2), ("ge_dialect.ge", 3),
        ("ge_dialect.ge.attributes", 4), ("ge_dialect.weights", 5),
        ("ge_dialect.ge.attributes", 6), ("transforms.fuse", 7), ("ge_dialect", 8)]
    # in a package's __init__, `.` is the package itself
    targets = [i.target for i in
               imports_of("ge_dialect.ge", "from .ops import AddOp\n", modules, packages)]
    assert targets == ["ge_dialect.ge.ops"]
