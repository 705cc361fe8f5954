"""Frontends that produce `ge` modules: the ONNX importer (`onnx_import`), the PyTorch
importer (`torch_import`), the Python graph builder (`builder`) and TorchAir's scope names
acting on it (`scope`).

    from ge_dialect.frontend import import_onnx
    module = import_onnx("model.onnx", input_shapes={"x": [1, 3, 224, 224]})

The `onnx` and `torch` packages are optional extras, imported only when a model is imported.
"""

from ge_dialect.frontend.onnx_import import import_onnx

__all__ = ["import_onnx"]
