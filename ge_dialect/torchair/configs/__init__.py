"""TorchAir's `torchair.configs`: `compiler_config.CompilerConfig`."""
