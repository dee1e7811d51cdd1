"""Incident drills over one simulated cluster (issue 39)."""
