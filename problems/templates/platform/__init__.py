"""Platform family: the numbers a GPU platform team answers to. What an owned server costs
per useful GPU-hour against renting, how a shared pool's bill is charged back to the
teams that use it, and how Kubernetes shares one GPU between pods (MIG, time-slicing and
MPS).
"""
