"""Software-stack family: the layers between a GPU and a training job (kernel driver, CUDA
runtime, math and collective libraries, framework build, container runtime, launcher),
which CUDA builds a driver runs, and what changes when CUDA code moves to ROCm and HIP on
AMD Instinct GPUs.
"""
