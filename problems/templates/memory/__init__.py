"""Memory family: how many bytes a model's weights take, and the training state per
GPU under mixed-precision Adam and ZeRO.
"""
