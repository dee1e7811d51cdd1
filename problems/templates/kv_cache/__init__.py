"""KV-cache family: the bytes the key/value cache takes per token and for a batch,
how many sequences fit beside the weights, and how many GPUs the weights need.

Together they are the serving memory budget: the weights first (and how many devices
hold them with tensor parallelism), then the cache in what is left. The cache is the
standard (MHA/GQA) one, 2 x L x H_kv x d_h x b bytes per token.
"""
