"""Incident drills: the bodies that take an action and submit a diagnosis, and a drill
question's state as its reader may see it (assess.selectors.drills decides what shows)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api_common.fields import StrictCharField
from api_common.request_serializers import FlatRequest

MAX_KEY = 90  # the submission stores a response per part under KEY:part (100 at most)

KEY_HELP = (
    f"A string the client chooses, 1 to {MAX_KEY} characters, unique per request it means "
    "to send (a UUID will do). Send the same key when retrying the same request: the first "
    "result comes back with 200 and nothing is taken or stored again, so a retry never "
    "takes a disruptive action twice. The same key with a different body is a 422."
)


class DrillActionInputSerializer(FlatRequest, serializers.Serializer):
    action = StrictCharField(max_length=64, help_text="An `id` from the drill's `actions`.")
    idempotency_key = StrictCharField(max_length=MAX_KEY, help_text=KEY_HELP)


class DrillSubmitInputSerializer(FlatRequest, serializers.Serializer):
    fault = StrictCharField(max_length=64, help_text="An `id` from `choices.fault`.")
    location = StrictCharField(max_length=100, help_text="An `id` from `choices.location`.")
    remedy = StrictCharField(max_length=64, help_text="An `id` from `choices.remedy`.")
    idempotency_key = StrictCharField(max_length=MAX_KEY, help_text=KEY_HELP)


class DrillActionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Send it as `action`.")
    label = serializers.CharField(help_text="The command or act, as an on-call engineer runs it.")
    target = serializers.CharField(
        help_text='What it runs on: "cluster", "node:HOST", "gpu:HOST:INDEX", "job:ID", '
        '"pod:NAME" and the like; a page groups actions by it.'
    )
    minutes = serializers.IntegerField(help_text="Simulated minutes it costs.")
    disruptive = serializers.BooleanField(
        help_text="It changes the cluster (drain, reboot, reset, restart, requeue)."
    )


class DrillStepSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="1, 2, ... in the order taken.")
    action = serializers.CharField()
    label = serializers.CharField()
    target = serializers.CharField()
    at = serializers.IntegerField(help_text="The simulated minute it started, from 0.")
    minutes = serializers.IntegerField()
    disruptive = serializers.BooleanField()
    output = serializers.CharField(
        help_text="What it printed, as the cluster stood after every earlier step: "
        "monospace text, kept as shown."
    )


class DrillPathStepSerializer(serializers.Serializer):
    at = serializers.IntegerField()
    action = serializers.CharField()
    label = serializers.CharField()
    minutes = serializers.IntegerField()
    disruptive = serializers.BooleanField()


class DrillChoiceSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="Send it in the submission.")
    label = serializers.CharField()


class DrillChoicesSerializer(serializers.Serializer):
    fault = DrillChoiceSerializer(many=True)
    location = DrillChoiceSerializer(many=True)
    remedy = DrillChoiceSerializer(many=True)


class DrillSerializer(serializers.Serializer):
    """Read from an assess.selectors.drills.DrillView."""

    actions = serializers.SerializerMethodField()
    steps = serializers.SerializerMethodField()
    minutes = serializers.IntegerField(help_text="Simulated minutes the steps took.")
    submitted = serializers.BooleanField(help_text="The diagnosis was submitted (once only).")
    accepts = serializers.BooleanField(
        help_text="Its learner may take actions and submit now (the attempt is open and "
        "the drill not submitted)."
    )
    choices = serializers.SerializerMethodField()
    expert_path = serializers.SerializerMethodField()
    unneeded_steps = serializers.SerializerMethodField()

    @extend_schema_field(DrillActionSerializer(many=True))
    def get_actions(self, view) -> list[dict]:
        return [
            {
                "id": a.id,
                "label": a.label,
                "target": a.target,
                "minutes": a.minutes,
                "disruptive": a.disruptive,
            }
            for a in view.actions
        ]

    @extend_schema_field(DrillStepSerializer(many=True))
    def get_steps(self, view) -> list[dict]:
        return [step_body(s, t.at) for s, t in zip(view.steps, view.timeline, strict=True)]

    @extend_schema_field(DrillChoicesSerializer)
    def get_choices(self, view) -> dict:
        return {
            name: [{"id": k, "label": v} for k, v in listed.items()]
            for name, listed in view.choices.items()
        }

    @extend_schema_field(
        DrillPathStepSerializer(
            many=True,
            allow_null=True,
            help_text="The expert's actions at their simulated minutes, with the worked "
            "solution (when the feedback policy shows it); else null.",
        )
    )
    def get_expert_path(self, view) -> list[dict] | None:
        if view.expert_timeline is None:
            return None
        return [
            {"at": s.at, "action": s.action, "label": s.label, "minutes": s.minutes,
             "disruptive": s.disruptive}
            for s in view.expert_timeline
        ]  # fmt: skip

    @extend_schema_field(
        serializers.ListField(
            child=serializers.IntegerField(),
            allow_null=True,
            help_text="The `number`s of the steps that were disruptive and not needed for "
            "this fault, with the worked solution; else null.",
        )
    )
    def get_unneeded_steps(self, view) -> list[int] | None:
        return None if view.unneeded is None else list(view.unneeded)


def step_body(step, at: int) -> dict:
    return {
        "number": step.number,
        "action": step.action,
        "label": step.label,
        "target": step.target,
        "at": at,
        "minutes": step.minutes,
        "disruptive": step.disruptive,
        "output": step.output,
    }


class DrillActionResultSerializer(serializers.Serializer):
    step = DrillStepSerializer()
    minutes = serializers.IntegerField(help_text="Simulated minutes all steps took so far.")
