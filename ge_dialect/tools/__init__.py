"""Command-line drivers (the top layer): ge-opt."""
