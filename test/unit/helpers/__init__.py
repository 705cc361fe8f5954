"""Helpers shared by the unit tests (a plain package: a test file never imports another)."""
