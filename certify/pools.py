"""What the certification pools leave out: templates whose variants differ in difficulty
(issue 41), by the latest calibration. Connected to assess's certification_withholding
signal, so assess draws an exam without knowing why a template is withheld."""

from __future__ import annotations

from certify.models import Calibration, ItemParameters


def flagged_templates() -> frozenset[str]:
    """The templates the latest calibration flagged: one query."""
    latest = Calibration.objects.order_by("-fitted_at", "-id").values("pk")[:1]
    return frozenset(
        ItemParameters.objects.filter(calibration__in=latest, variants_flagged=True).values_list(
            "template_slug", flat=True
        )
    )


def withhold_flagged(**_kwargs) -> frozenset[str]:
    """Receiver of assess.signals.certification_withholding."""
    return flagged_templates()
