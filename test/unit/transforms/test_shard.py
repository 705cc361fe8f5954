"""`--shard` (transforms/shard/) on the project's own inputs, through ge-opt in-process.

- Data mode splits activations along their batch only: TorchAir's example keeps its
  weight-like input (a matmul's right-hand operand, whose dim 0 is the contraction dim) and
  what is added to it whole, and splits the inputs that are only added; an op that would mix
  a split batch is one located error naming the pass, never a verifier error afterwards.
- Tensor mode splits a bias added by a `ge.add` after the column-parallel matmul with it
  (`shard_bias_rhs.mlir`, `sharded_mlp.mlir`: ONNX's MatMul + Add), and adds the bias after
  the row-parallel matmul once, after the all-reduce.
- A module already assigned to streams is refused, as `--fuse` refuses it.

The numbers of the sharded programs on several ranks are checked in
test/unit/sim/test_ranks.py.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers.support import ROOT
from xdsl.dialects import func

from ge_dialect import api
from ge_dialect.ir.dialects import ge
from ge_dialect.tools.ge_opt import main

NEWCOMER = f"{ROOT}/test/unit/data/newcomer"
TORCHAIR = f"{ROOT}/examples/torchair_multistream.mlir"
BIAS_RHS = f"{NEWCOMER}/shard_bias_rhs.mlir"
MLP = f"{NEWCOMER}/sharded_mlp.mlir"


def shard(path: str, passes: str):
    """The module of `path` after `passes`, and its rank functions in rank order."""
    module = api.load(path)
    api.compile(module, passes)
    ranks = [op for op in module.walk() if isinstance(op, func.FuncOp)]
    return module, ranks


def shard_attr(fn: func.FuncOp) -> dict:
    from ge_dialect.sim.program import python_value

    value = python_value(fn.attributes["ge.shard"])
    assert isinstance(value, dict)
    return value


def ops_of(fn: func.FuncOp, cls: type) -> list:
    return [op for op in fn.walk() if isinstance(op, cls)]


def run_ge_opt(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------------------
# data mode: activations split along the batch, weights whole
# --------------------------------------------------------------------------------------


def test_torchair_example_splits_only_the_activations():
    """in4 is mm's right-hand operand (K = its dim 0) and in3 is added to it: both stay
    whole; in1 and in2 are split, and add_result, the only output built from them, is
    gathered.  The result verifies (it used to fail: contraction dims differ, K = 4 vs 2)."""
    module, ranks = shard(TORCHAIR, "shard{ranks=2 mode=data}")
    api.verify(module)
    assert [fn.sym_name.data for fn in ranks] == ["main_rank0", "main_rank1"]
    for r, fn in enumerate(ranks):
        assert shard_attr(fn) == {
            "rank": r,
            "ranks": 2,
            "mode": "data",
            "split": {"in1": 0, "in2": 0},
        }
        shapes = [list(a.type.get_shape()) for a in fn.body.block.args]
        assert shapes == [[2, 4], [2, 4], [4, 4], [4, 4]]
        for mm in ops_of(fn, ge.MatMulOp):
            assert mm.a.type.get_shape() == mm.b.type.get_shape() == (4, 4)
        (gather,) = ops_of(fn, ge.HcomAllGatherOp)
        assert gather.input.type.get_shape() == (2, 4)
        assert list(fn.function_type.outputs.data) == [fn.body.block.args[2].type] * 4


def test_ge_opt_torchair_data_mode(capsys, tmp_path):
    out_path = tmp_path / "sharded.mlir"
    code, _, err = run_ge_opt(capsys, [TORCHAIR, "--shard=ranks=2,mode=data", "-o", str(out_path)])
    assert code == 0 and err == ""
    assert "split = {in1 = 0 : i64, in2 = 0 : i64}" in out_path.read_text()


def test_a_mixed_batch_is_one_located_error(capsys, tmp_path):
    path = tmp_path / "softmax.mlir"
    path.write_text(
        'func.func @f(%x: tensor<4x8xf32> {ge.name = "x"}) -> tensor<4x8xf32> {\n'
        "  %r = ge.relu %x : tensor<4x8xf32>\n"
        "  %y = ge.softmax %r axis 0 : tensor<4x8xf32>\n"
        "  func.return %y : tensor<4x8xf32>\n"
        "}\n"
    )
    code, out, err = run_ge_opt(capsys, [str(path), "--shard=ranks=2,mode=data"])
    assert (code, out) == (1, "")
    assert err == (
        f"{path}:3:3: error: 'ge.softmax' op --shard: cannot split input 'x' along the batch: "
        "this softmax normalises over dim 0 (mode=data)\n"
    )


def test_a_transposed_weight_input_stays_whole(tmp_path):
    """A transpose and a softmax over dim 0 of a weight (their result a matmul's right-hand
    operand) are no error: the weight stays whole, x is split."""
    path = tmp_path / "weight.mlir"
    path.write_text(
        'func.func @f(%x: tensor<4x8xf32> {ge.name = "x"}, %w: tensor<8x8xf32> {ge.name = "w"})'
        " -> tensor<4x8xf32> {\n"
        "  %t = ge.transpose %w perm [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>\n"
        "  %s = ge.softmax %t axis 0 : tensor<8x8xf32>\n"
        "  %y = ge.matmul %x, %s : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>\n"
        "  func.return %y : tensor<4x8xf32>\n"
        "}\n"
    )
    module, ranks = shard(str(path), "shard{ranks=2 mode=data}")
    api.verify(module)
    for fn in ranks:
        assert shard_attr(fn)["split"] == {"x": 0}
        (mm,) = ops_of(fn, ge.MatMulOp)
        assert mm.a.type.get_shape() == (2, 8) and mm.b.type.get_shape() == (8, 8)


# --------------------------------------------------------------------------------------
# tensor mode: a bias added after the column-parallel matmul is split with it
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [BIAS_RHS, MLP], ids=["shard_bias_rhs", "sharded_mlp"])
def test_bias_add_is_split_with_the_column_parallel_matmul(path):
    whole = api.load(path)
    (original,) = [op for op in whole.walk() if isinstance(op, func.FuncOp)]
    first_add = ops_of(original, ge.AddOp)[0]
    bias = next(
        o.owner.logical_array() for o in first_add.operands if isinstance(o.owner, ge.ConstOp)
    )
    hidden = bias.shape[0]
    module, ranks = shard(path, "shard{ranks=2 mode=tensor}")
    api.verify(module)
    for r, fn in enumerate(ranks):
        adds = ops_of(fn, ge.AddOp)
        (reduce,) = ops_of(fn, ge.HcomAllReduceOp)
        consts = [o.owner for o in adds[0].operands if isinstance(o.owner, ge.ConstOp)]
        np.testing.assert_array_equal(
            consts[0].logical_array(), bias[r * hidden // 2 : (r + 1) * hidden // 2]
        )
        assert adds[0].results[0].type.get_shape()[-1] == hidden // 2
        # the second bias (sharded_mlp.mlir) is added once, after the all-reduce
        after = [a for a in adds[1:] if reduce.output in a.operands]
        assert len(after) == len(adds) - 1


def test_ge_opt_bias_rhs_tensor_mode(capsys):
    code, out, err = run_ge_opt(capsys, [BIAS_RHS, "--shard=ranks=2"])
    assert code == 0, err
    assert out.count("ge.hcom_all_reduce") == 2
    assert (
        re.findall(r"ge\.add %\w+, %\w+ : \((tensor<[^)]*)\)", out)
        == ["tensor<8x16xf32>, tensor<16xf32>"] * 2
    )


# --------------------------------------------------------------------------------------
# an assigned module
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["tensor", "data"])
@pytest.mark.parametrize("streams", ["labels", "auto"])
def test_shard_refuses_an_assigned_module(capsys, mode, streams):
    """Stream assignment, then shard: one located line, as --fuse words it (it used to be
    a verifier error: 'ge.const' op has no 'stream.id', but the function is assigned)."""
    code, out, err = run_ge_opt(
        capsys, [MLP, f"--assign-streams=mode={streams}", f"--shard=ranks=2,mode={mode}"]
    )
    assert (code, out) == (1, "")
    assert err == (
        f"{MLP}:7:5: error: 'ge.const' op is assigned to a stream: --shard rewrites graphs "
        "before stream assignment; run it before --assign-streams\n"
    )
    code, _, fuse_err = run_ge_opt(capsys, [MLP, "--assign-streams", "--fuse"])
    assert code == 1 and fuse_err == err.replace("--shard", "--fuse")
