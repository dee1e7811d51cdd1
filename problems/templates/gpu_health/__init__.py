"""GPU health family: scenario questions read from NVIDIA tool output (the default
`nvidia-smi` table and its CSV queries, `nvidia-smi -q` ECC and row-remapper sections,
`dcgmi dmon` profiling fields) for an 8-GPU HGX node, each with one planted fault or
none; and AMD's `amd-smi monitor` and `amd-smi process` for an eight-GPU MI300X node
whose job may not sit where it was meant to.
"""
