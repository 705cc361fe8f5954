"""Leaf utilities: dtypes, shapes, floats, the format maths, graph algorithms, offsets, task
order, walks, parsing helpers, the JSON reader and errors.

Nothing here imports the rest of the project (xDSL, numpy, scipy and the standard library
only): the bottom layer.
"""
