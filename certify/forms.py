"""A certification exam's form, assembled per attempt (issue 41, item 3).

Connected to assess's certification_form signal: when a track's exam starts, its scored
slots get one template each from certify.psychometrics.assembly (information at the cut,
the expected-score band, exposure control), on the parameters of the calibration the
track's cut was set on (else the latest calibration, at the default cut theta 0.5).
Until every scored template of the pools is calibrated on MIN_ITEM_RESPONSES answers the
receiver returns None and each slot draws from its pool at random, as the raw-score rule
then decides too. Drill slots always draw from their pool (drills are not 2PL items).
The generator's seed is an HMAC of the attempt under SECRET_KEY: a learner can neither
predict nor choose a form. Two queries.
"""

from __future__ import annotations

import hashlib
import hmac
import random

from django.conf import settings

from assess.skills import is_drill
from certify.models import Calibration, StandardSetting, Track
from certify.psychometrics.assembly import Form, assemble
from certify.services.exam_decisions import MIN_ITEM_RESPONSES

DEFAULT_CUT = 0.5


def form_seed(attempt_id: int) -> int:
    message = f"certification-form:{attempt_id}".encode()
    digest = hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def scale_for(track: Track) -> tuple[dict[str, tuple[float, float, int]], float] | None:
    """({template: (a, b, n)}, cut) the track's forms are assembled on, or None before
    any calibration."""
    setting = (
        StandardSetting.objects.filter(track=track)
        .select_related("calibration")
        .order_by("-version")
        .first()
    )
    if setting is not None:
        calibration, cut = setting.calibration, setting.cut_theta
    else:
        calibration = Calibration.objects.order_by("-fitted_at", "-id").first()
        cut = DEFAULT_CUT
    if calibration is None:
        return None
    params = {
        t: (a, b, n)
        for t, a, b, n in calibration.items.values_list(
            "template_slug", "discrimination", "difficulty", "n"
        )
    }
    return params, cut


def form_for(
    *, track: Track, pools: list[list[str]], withheld: frozenset[str], attempt_id: int
) -> Form | None:
    """The assembled form of the scored slots (`pools`, drills left out), or None."""
    scale = scale_for(track)
    if scale is None:
        return None
    params, cut = scale
    kept = [[t for t in pool if t not in withheld] or pool for pool in pools]
    needed = {t for pool in kept for t in pool}
    if any(t not in params or params[t][2] < MIN_ITEM_RESPONSES for t in needed):
        return None
    ab = {t: params[t][:2] for t in needed}
    return assemble(kept, ab, cut, random.Random(form_seed(attempt_id)))


def assemble_form(*, quiz, attempt_id: int, slots, withheld, **_kwargs) -> list | None:
    """Receiver of assess.signals.certification_form: a template per slot (None for a
    drill slot: its pool draws), or None to leave every slot to its pool."""
    track = getattr(quiz, "certification_track", None)
    if track is None:
        return None
    scored = [i for i, s in enumerate(slots) if not all(is_drill(t) for t in s.templates)]
    if not scored:
        return None
    pools = [[t for t in slots[i].templates if not is_drill(t)] for i in scored]
    form = form_for(track=track, pools=pools, withheld=withheld, attempt_id=attempt_id)
    if form is None:
        return None
    chosen = dict(zip(scored, form.templates, strict=True))
    return [chosen.get(i) for i in range(len(slots))]
