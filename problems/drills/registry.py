"""Drill slugs, one per fault kind, and `generate(slug, seed)`: the same drill for the
same slug and seed, always (every draw comes from random.Random seeded with both)."""

from __future__ import annotations

import random
from types import MappingProxyType

from problems.drills.actions import by_id
from problems.drills.catalogue import catalogue
from problems.drills.cluster import draw
from problems.drills.drill import DEFAULT_WEIGHTS, Answer, Drill
from problems.drills.faults import FAULTS
from problems.drills.faults.base import FAULT_KINDS, REMEDIES, locations

DRILLS = {m.SLUG: m for m in FAULTS.values()}


def slugs() -> tuple[str, ...]:
    return tuple(DRILLS)


def generate(slug: str, seed: int) -> Drill:
    try:
        module = DRILLS[slug]
    except KeyError:
        raise ValueError(f"no drill {slug!r}; known: {', '.join(DRILLS)}") from None
    state = draw(seed, getattr(module, "NODES", None), getattr(module, "PLATFORMS", ()))
    planted = module.plant(state, random.Random(f"drill|{slug}|{seed}"))
    actions = catalogue(planted.state)
    known = by_id(actions)
    missing = [a for a in (*planted.expert_path, *planted.handling) if a not in known]
    if missing:
        raise AssertionError(f"{slug} seed {seed}: expert path names unknown actions {missing}")
    return Drill(
        slug=slug,
        seed=seed,
        alert=planted.alert,
        state=planted.state,
        actions=actions,
        answer=Answer(planted.fault, planted.location, planted.remedy),
        expert_path=planted.expert_path,
        handling=planted.handling,
        fault_kinds=MappingProxyType(dict(FAULT_KINDS)),
        locations=MappingProxyType(locations(planted.state)),
        remedies=MappingProxyType(dict(REMEDIES)),
        weights=MappingProxyType({**DEFAULT_WEIGHTS, **getattr(module, "WEIGHTS", {})}),
    )
