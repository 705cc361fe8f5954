"""The project's dialects: `ge` (graph ops, a package as xDSL's linalg), `stream` (labels,
wait edges, events) and `npu` (GE's task list, the device program).

    from ge_dialect.ir.dialects import ge, npu, stream

`stream` and `npu` never import `ge`: a device dialect must be testable alone.
"""
