"""Serving family: the decode and prefill floors of one sequence, speculative decoding,
and Little's law for requests in flight and replicas.
"""
