"""The simulated NPU: it runs `npu` programs (`program`, read once into plain data) in a start
order (`order`), computing numbers with numpy kernels on the stored layouts (`kernels/`,
`executor`), time on a device profile (`profile`, `kernel_model`, `timing`), races
(`checker`), figures (`report`), traces (`trace`), and several ranks on a topology
(`topology`).
"""
