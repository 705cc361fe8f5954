"""The IR: the dialects `ge`, `stream` and `npu` (`dialects/`), the storage-format and
constant-data attributes they share (`encodings`), the locating parser, verification, the
cost of an op, moving weights, the reference interpreter, and the dialect registry.

It imports xDSL, numpy and `ge_dialect.utils` only; never a pass, a frontend or the
simulator.
"""
