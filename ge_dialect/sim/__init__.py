"""The simulated NPU: numpy kernels on physical layouts (`kernels`), run by the executor."""
