"""Frontends that produce `ge` modules: the ONNX importer.

    from ge_dialect.frontend import import_onnx
    module = import_onnx("model.onnx", input_shapes={"x": [1, 3, 224, 224]})

The `onnx` package is an optional extra and is imported only when a model is imported.
"""

from ge_dialect.frontend.onnx_import import import_onnx

__all__ = ["import_onnx"]
