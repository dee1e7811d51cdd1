"""Every GPU UUID any statement or solution prints is a real one: GPU- and 32 lower-case
hex digits in 8-4-4-4-12 groups, as `nvidia-smi -L`, `nvidia-smi -q` and the driver's
"GPU at PCI" kernel line print it."""

from __future__ import annotations

import re

from problems.engine import registry
from problems.engine.variants import Variant

TOKEN = re.compile(r"GPU-[0-9a-fA-F]{4}[0-9a-zA-Z-]*")
UUID = re.compile(r"^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def test_every_printed_gpu_uuid_is_8_4_4_4_12_hex():
    printed = 0
    for template in registry.all_templates():
        for seed in range(30):
            v = Variant.from_seed(template.slug, seed)
            for token in TOKEN.findall(v.statement_markdown() + v.solution_markdown()):
                assert UUID.match(token), (template.slug, seed, token)
                printed += 1
    assert printed > 50  # stack-layer-error's nvidia-smi -L and xid-triage's kernel log
