"""Economics family: what AI infrastructure costs per unit of work, such as the price of
a million generated tokens from a GPU-hour price and a replica's throughput.
"""
