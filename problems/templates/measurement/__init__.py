"""Measurement family: reading measurement data a serving system produced (a load
generator's per-request log, a benchmark sweep of concurrency against throughput and
latency) and turning it into the numbers an engineer reports or sets: latency
percentiles with outcome counts, the max-num-seqs a latency SLO allows, and a fleet sized
from measured rather than assumed capacity.
"""
