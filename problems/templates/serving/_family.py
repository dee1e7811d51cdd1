"""What the serving templates share: how many GPUs serve a model, the smallest of 1, 2,
4 or 8 that holds its weights with room to spare, so decode and prefill deploy a
model the same way.
"""

from __future__ import annotations

import random

from hardware_db import catalog

_GPU_COUNTS = (1, 2, 4, 8)
# Share of each GPU's memory the weights may take when choosing a realistic GPU count.
_WEIGHT_SHARE = 0.8


def gpu_count(rng: random.Random, weight_bytes: float, acc: catalog.Accelerator) -> int | None:
    """Smallest of 1, 2, 4, 8 that holds the weights with room to spare; sometimes doubled."""
    for n in _GPU_COUNTS:
        if weight_bytes <= _WEIGHT_SHARE * n * acc.usable_bytes:
            if n < 8 and rng.random() < 0.3:
                return n * 2
            return n
    return None
