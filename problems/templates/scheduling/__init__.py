"""Scheduling family: reading why a GPU job waits (Slurm's squeue and sinfo, the
Kubernetes scheduler's events), which Kubernetes object asks for what kind of GPU
placement, and how Ray packs fractional-GPU actors onto nodes.
"""
