"""Parse, verify and print speed of ge-opt on generated graphs, against xDSL's own.

For graphs of 1k and 10k `ge` ops (a ResNet-like mix of conv2d, batch_norm, relu, add and
trans_data on NCHW/NC1HWC0 activations) it prints, in one process:

- ge-opt's parse (LocatingParser), verify (`verify_module`: op verifiers, dominance, stream
  rules) and print of the custom form;
- xDSL's plain parse + print of the same graph in generic form with unregistered ops
  (what `xdsl-opt --allow-unregistered-dialect` does), as the baseline of the ratio;
- the parse time of the custom form with type aliases (`!t0 = tensor<...>`) for repeated
  tensor types, against without;
- the two command-line tools end to end (start-up included): `ge-opt` on the custom form
  and `xdsl-opt --allow-unregistered-dialect` on the generic form, as a ratio.

    python bench/parse_print.py [--sizes 1000 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

from timer import measure
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.func import Func
from xdsl.parser import Parser
from xdsl.printer import Printer

from ge_dialect.ir.parser import LocatingParser
from ge_dialect.ir.registry import make_context
from ge_dialect.ir.verify import verify_module

ACT = "tensor<1x64x28x28xf32>"
ACT5 = "tensor<1x64x28x28xf32, #ge.format<NC1HWC0>>"
W = "tensor<64x64x3x3xf32>"
P = "tensor<64xf32>"


def generate(n_ops: int) -> str:
    """A function of about `n_ops` ge ops: repeated conv-bn-relu-add blocks with layout moves."""
    lines = [f"func.func @main(%x: {ACT}, %w: {W}, %p: {P}) -> {ACT} {{"]
    cur, count, k = "%x", 0, 0
    while count < n_ops:
        lines += [
            f"  %c{k} = ge.conv2d {cur}, %w pads [1, 1, 1, 1] : {ACT}, {W} -> {ACT}",
            f"  %b{k} = ge.batch_norm %c{k}, %p, %p, %p, %p : ({ACT}, {P}, {P}, {P}, {P}) -> {ACT}",
            f"  %r{k} = ge.relu %b{k} : {ACT}",
            f"  %a{k} = ge.add %r{k}, {cur} : ({ACT}, {ACT}) -> {ACT}",
            f"  %t{k} = ge.trans_data %a{k} : {ACT} -> {ACT5}",
            f"  %s{k} = ge.sigmoid %t{k} : {ACT5}",
            f"  %u{k} = ge.trans_data %s{k} : {ACT5} -> {ACT}",
        ]
        cur, count, k = f"%u{k}", count + 7, k + 1
    lines += [f"  func.return {cur} : {ACT}", "}", ""]
    return "\n".join(lines)


def alias_types(text: str) -> str:
    """The same IR with `!tN = tensor<...>` aliases for every tensor type used twice or more."""
    counts: dict[str, int] = {}
    for m in re.finditer(r"tensor<[^<>]*(?:<[^<>]*>[^<>]*)?>", text):
        counts[m.group(0)] = counts.get(m.group(0), 0) + 1
    aliases = {t: f"!t{i}" for i, t in enumerate(t for t, c in counts.items() if c > 1)}
    header = "".join(f"{a} = {t}\n" for t, a in aliases.items())
    pattern = re.compile("|".join(re.escape(t) for t in sorted(aliases, key=len, reverse=True)))
    return header + pattern.sub(lambda m: aliases[m.group(0)], text)


def xdsl_context() -> Context:
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Func)
    return ctx


def print_op(op, generic: bool = False) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(op)
    return out.getvalue()


def run(n_ops: int, repeat: int) -> None:
    text = generate(n_ops)
    ge_ctx = make_context()
    t_parse, module = measure(lambda: LocatingParser(ge_ctx, text, "bench.mlir").parse_module(),
                              repeat)
    t_verify, _ = measure(lambda: verify_module(module), repeat)
    t_print, printed = measure(lambda: print_op(module), repeat)
    generic = print_op(module, generic=True)
    n = sum(1 for op in module.walk() if op.name.startswith("ge."))

    x_ctx = xdsl_context()
    t_xparse, xmodule = measure(lambda: Parser(x_ctx, generic, "bench.mlir").parse_module(),
                                repeat)
    t_xprint, _ = measure(lambda: print_op(xmodule, generic=True), repeat)

    aliased = alias_types(text)
    t_alias, amodule = measure(
        lambda: LocatingParser(ge_ctx, aliased, "bench.mlir").parse_module(), repeat)
    assert print_op(amodule) == printed, "aliased text parses to a different module"

    ours = t_parse + t_verify + t_print
    base = t_xparse + t_xprint
    print(f"{n} ge ops ({len(text) / 1e6:.2f} MB custom, {len(generic) / 1e6:.2f} MB generic)")
    print(f"  ge-opt   parse {t_parse:7.3f} s  verify {t_verify:7.3f} s  print {t_print:7.3f} s"
          f"  total {ours:7.3f} s  ({n / ours:,.0f} ops/s)")
    print(f"  xDSL     parse {t_xparse:7.3f} s  (generic, unregistered)      "
          f"print {t_xprint:7.3f} s  total {base:7.3f} s")
    print(f"  ratio    ge-opt / xDSL = {ours / base:.2f}x")
    print(f"  aliases  parse {t_alias:7.3f} s vs {t_parse:.3f} s without: "
          f"{t_parse / t_alias:.2f}x faster")
    xdsl_opt = shutil.which(
        "xdsl-opt", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    if xdsl_opt:
        with tempfile.TemporaryDirectory() as tmp:
            custom, generic_path = os.path.join(tmp, "g.mlir"), os.path.join(tmp, "generic.mlir")
            with open(custom, "w") as f:
                f.write(text)
            with open(generic_path, "w") as f:
                f.write(generic)
            ge_opt = [sys.executable, "-m", "ge_dialect.tools.ge_opt", custom]
            x_opt = [xdsl_opt, "--allow-unregistered-dialect", generic_path]
            t_ge, _ = measure(lambda: subprocess.run(ge_opt, check=True, capture_output=True),
                              repeat)
            t_x, _ = measure(lambda: subprocess.run(x_opt, check=True, capture_output=True),
                             repeat)
        print(f"  CLI      ge-opt {t_ge:7.3f} s  xdsl-opt {t_x:7.3f} s  ratio {t_ge / t_x:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for size in args.sizes:
        run(size, args.repeat)


if __name__ == "__main__":
    main()
