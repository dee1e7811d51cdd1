"""Collectives family: the time of a ring all-reduce in the alpha-beta model, and the
algorithm and bus bandwidths nccl-tests prints.
"""
