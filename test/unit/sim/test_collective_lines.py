"""The multi-rank report's line for each collective kind beyond all-reduce and all-gather
(`sim.report._collective_line`, through `Report.text()`): reduce-scatter, all-to-all,
broadcast, and a send with its receive, on 2 ranks of one server.  Each line names the
kind, its sequence number in its group, the op's location, the members, the bytes, HCCL's
algorithm for the kind (`sim/topology.py`) and the link types it crosses."""

from __future__ import annotations

import re

from ge_dialect import api

RANK = """
func.func @rank{r}(%x: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x8xf32>, tensor<4x4xf32>) {{
  %rs = ge.hcom_reduce_scatter %x reduction sum group "g" rank_size 2
    : tensor<4x4xf32> -> tensor<2x4xf32>
  %a = ge.hcom_all_to_all %x split_dim 0 concat_dim 1 group "g" rank_size 2
    : tensor<4x4xf32> -> tensor<2x8xf32>
  %b = ge.hcom_broadcast %x root 0 group "g" rank_size 2 : tensor<4x4xf32>
  {p2p}
  func.return %rs, %a, %b : tensor<2x4xf32>, tensor<2x8xf32>, tensor<4x4xf32>
}}
"""
SEND = 'ge.hcom_send %x dest_rank 1 sr_tag 0 group "pp" rank_size 2 : tensor<4x4xf32>'
RECEIVE = '%r = ge.hcom_receive src_rank 0 sr_tag 0 group "pp" rank_size 2 : tensor<4x4xf32>'


def test_each_new_collective_kind_has_its_report_line():
    source = RANK.format(r=0, p2p=SEND) + RANK.format(r=1, p2p=RECEIVE)
    module = api.parse(source, "c.mlir")
    api.compile(module, "lower-to-device,plan-memory", name="c.mlir")
    result = api.simulate_ranks(module, timing_only=True)
    lines = [line for line in result.report.text().splitlines() if line.startswith("collective")]
    cost = r", \d+\.\d\d us"
    expected = [
        r"collective reduce_scatter 0 of group 'g' \(c\.mlir:3:3\): 2 ranks, 64 bytes, "
        r"mesh over HCCS" + cost,
        r"collective all_to_all 1 of group 'g' \(c\.mlir:5:3\): 2 ranks, 64 bytes, "
        r"pairwise over HCCS" + cost,
        r"collective broadcast 2 of group 'g' \(c\.mlir:7:3\): 2 ranks, 64 bytes, "
        r"binomial-tree over HCCS" + cost,
        r"collective send 0 of group 'pp' \(c\.mlir:8:3\): 2 ranks, 64 bytes, "
        r"p2p over HCCS" + cost,
    ]
    assert len(lines) == len(expected), lines
    for line, pattern in zip(lines, expected, strict=True):
        assert re.fullmatch(pattern, line), line
    # the JSON report's rows carry the same kinds
    kinds = [c["kind"] for c in result.report.to_json()["collectives"]]
    assert kinds == ["reduce_scatter", "all_to_all", "broadcast", "send"]
