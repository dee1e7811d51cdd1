"""Incidents family: scenario and concept questions an on-call engineer meets.

Each template shows real-format evidence (a kernel log with an Xid, two scrapes of a
vLLM /metrics endpoint, a failed rollout's event or log line) and asks what it means and
what to do first. Outputs are generated from the parameters with at most one planted
fault, so the answer can always be read from the evidence alone.
"""
