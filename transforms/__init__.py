"""Passes of ge-opt (one module per pass) and the pass registry (`transforms.registry`).

    import transforms
    transforms.get_all_passes()            # name -> factory, as xdsl.transforms' registry
    transforms.register_pass(MyPass)       # a plugin's or a pattern pass
    transforms.parse_pipeline("fuse,assign-streams{mode=auto}")

This package's face: the registry's public names, so that a plugin writes
`transforms.register_pass` and the tools need no other module of the layer.
"""

from transforms.registry import (
    describe_pass,
    get_all_passes,
    load_plugin,
    parse_pipeline,
    plugin_error,
    plugin_passes,
    register_pass,
)

__all__ = [
    "describe_pass",
    "get_all_passes",
    "load_plugin",
    "parse_pipeline",
    "plugin_error",
    "plugin_passes",
    "register_pass",
]
