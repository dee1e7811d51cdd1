"""Fabric family: reading the tools that validate a GPU server's interconnect, the way a
bring-up engineer does: `nvidia-smi topo -m` for how GPUs and NICs attach to the PCIe
tree, NVLink and CPU sockets, and nccl-tests for what bandwidth the collectives reach.
"""
