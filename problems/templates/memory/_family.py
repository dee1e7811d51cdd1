"""What the memory templates share: the GB/GiB unit pair and naming the real model
behind a parameter count.
"""

from __future__ import annotations

from typing import Literal

from problems.templates._common import model_with_params

SizeUnit = Literal["GB", "GiB"]

OTHER_UNIT = {"GB": "GiB", "GiB": "GB"}


def model_name(n_params: float) -> str | None:
    """The real model this parameter count belongs to, so the statement can name it."""
    model = model_with_params(n_params)
    return model.name if model else None


def unit_note(unit: str) -> str:
    if unit == "GiB":
        return "GiB ($2^{30}$ bytes)"
    return "GB ($10^{9}$ bytes)"
