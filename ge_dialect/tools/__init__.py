"""Command-line drivers (the top layer): ge-opt (`ge_opt/`), ge-run, and the generator of
docs/dialects.md."""
