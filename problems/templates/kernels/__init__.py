"""Kernels family: what a CUDA kernel's launch configuration does on one GPU — how many
blocks fit on a streaming multiprocessor, the occupancy that gives, and how many waves the
grid runs in.
"""
