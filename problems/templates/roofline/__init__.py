"""Roofline family: where a kernel sits between the bandwidth roof and the compute roof."""
