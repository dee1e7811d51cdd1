"""Planning family: choosing how to lay out and serve a model, and what client behaviour
costs the servers: which parallelism a model and cluster call for first, which batching
policy meets a latency target, how retries amplify load on an overloaded endpoint, and
how much decode work abandoned streams waste.
"""
