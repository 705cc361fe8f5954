"""Canonicalization patterns of the project's dialects, one module per dialect.

Ops load them lazily from `get_canonicalization_patterns` (as xDSL does), so xDSL's
`canonicalize` pass applies them.
"""
