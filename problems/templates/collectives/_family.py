"""What the collectives templates share: bandwidths are stated in decimal GB/s."""

from __future__ import annotations

GB = 1e9
