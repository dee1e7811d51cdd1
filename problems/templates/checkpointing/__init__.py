"""Checkpointing family: how often a large job should checkpoint (Young, Daly), how big
a checkpoint is and how long it takes to write, and the goodput left after
checkpoints, lost work and restarts.
"""
