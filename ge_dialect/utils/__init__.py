"""Leaf utilities below the dialects: dtypes, shape maths, parser helpers, graph algorithms.

Nothing here imports the rest of the project (xDSL, numpy and the standard library only).
"""
