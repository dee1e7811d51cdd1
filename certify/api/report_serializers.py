"""The psychometrics report of a track (certify.report), as its JSON API sends it."""

from __future__ import annotations

from rest_framework import serializers

from certify.api.serializers import TrackRefSerializer


class ItemHistorySerializer(serializers.Serializer):
    calibration = serializers.IntegerField()
    fitted_at = serializers.DateTimeField()
    discrimination = serializers.FloatField()
    difficulty = serializers.FloatField()
    n = serializers.IntegerField()


class ItemRowSerializer(serializers.Serializer):
    template = serializers.CharField()
    discrimination = serializers.FloatField(
        allow_null=True, help_text="2PL a in the latest calibration (logistic scale); null "
        "when that calibration left the template out."
    )  # fmt: skip
    difficulty = serializers.FloatField(allow_null=True, help_text="2PL b, likewise.")
    se_discrimination = serializers.FloatField(allow_null=True)
    se_difficulty = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField(help_text="Responses the latest calibration fitted it on.")
    exposure = serializers.FloatField(
        allow_null=True,
        help_text="Share of the exam's finished attempts whose form drew it; null before any.",
    )
    history = ItemHistorySerializer(many=True, help_text="Its parameters in every calibration.")
    variant_spread = serializers.FloatField(
        allow_null=True,
        help_text="How much its variants differ in difficulty: the standard deviation, in "
        "logits of ability, of the difficulty shift the variant's parameters explain; null "
        "when the latest calibration could not test it (too few answers, nothing varies).",
    )
    variant_spread_se = serializers.FloatField(allow_null=True)
    infit = serializers.FloatField(
        allow_null=True,
        help_text="Infit mean square of its answers under the latest calibration (about 1 "
        "when the model fits; above 1.3 noisier than it allows); null when not computed.",
    )
    outfit = serializers.FloatField(
        allow_null=True, help_text="Outfit mean square, likewise (sensitive to outliers)."
    )
    variants_flagged = serializers.BooleanField(
        help_text="Its variants differ in difficulty beyond the stated amount (spread over "
        "0.5 logits and over twice its standard error): it leaves the certification pools."
    )
    pool_status = serializers.ChoiceField(
        choices=["drawn", "withheld", "kept"],
        help_text="drawn; withheld (flagged, left out of its slots' pools); kept (flagged, "
        "but the only template of a slot, so still drawn until the pool is widened).",
    )


class StandardSettingSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    cut_theta = serializers.FloatField()
    borderline_score = serializers.FloatField()
    calibration = serializers.IntegerField(source="calibration_id")
    created_at = serializers.DateTimeField()


class FormSpreadSerializer(serializers.Serializer):
    forms = serializers.IntegerField(help_text="Finished attempts whose forms are calibrated.")
    min = serializers.FloatField()
    max = serializers.FloatField()
    sd = serializers.FloatField()


class TrackReportSerializer(serializers.Serializer):
    track = TrackRefSerializer()
    calibration = serializers.IntegerField(
        source="calibration.pk",
        allow_null=True,
        help_text="The latest calibration; null before any.",
    )
    calibrated_at = serializers.DateTimeField(allow_null=True)
    standard_setting = StandardSettingSerializer(allow_null=True)
    cut = serializers.FloatField(help_text="The cut on theta the figures are computed at.")
    cut_source = serializers.CharField()
    items = ItemRowSerializer(many=True)
    attempts = serializers.IntegerField(help_text="Finished attempts of the track's exam.")
    sem_at_cut = serializers.FloatField(
        allow_null=True,
        help_text="1/sqrt(test information) at the cut of the reference form.",
    )
    reference_form = serializers.ListField(
        child=serializers.CharField(),
        help_text="The calibrated templates assembled to the most information at the cut, "
        "one per slot (drills and uncalibrated slots left out); empty before any "
        "calibration. The per-track figures are this form's.",
    )
    reference_expected_score = serializers.FloatField(
        allow_null=True, help_text="The reference form's expected score at the cut, in items."
    )
    form_expected_scores = FormSpreadSerializer(
        allow_null=True,
        help_text="The expected score at the cut of the forms finished attempts drew (their "
        "difficulty spread); null before any calibrated form.",
    )
    expected_accuracy = serializers.FloatField(
        allow_null=True, help_text="Rudner's expected classification accuracy of that form."
    )
    expected_consistency = serializers.FloatField(
        allow_null=True, help_text="Rudner's expected decision consistency of that form."
    )
    required_length = serializers.IntegerField(
        allow_null=True,
        help_text="Items a form of this pool needs for an expected accuracy of 0.9; null when "
        "60 do not reach it or nothing is calibrated.",
    )
    decided_on_ability = serializers.IntegerField()
    marginal_reliability = serializers.FloatField(allow_null=True)
    observed_accuracy = serializers.FloatField(allow_null=True)
    observed_consistency = serializers.FloatField(allow_null=True)
