"""Capstone memos: the learner's brief, the bodies that submit a memo, add a version and
decide on it, and a memo as its learner and its instructors read it.

Every response field is always present, so the schema lists them all as required; what
may be null says so (a review, and its scores, are null until a worker has written it).
The brief and the review are stored or built as dicts (Brief.as_dict(), Review.as_dict())
and sent as they are; their serializers only document them, and tests/assess/api/
test_memos.py fails when a key is added or dropped on either side. Request fields take
their JSON type only (api_common/fields.py), as the schema says.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api_common.errors import FlatErrorsListSerializer
from api_common.fields import StrictCharField, StrictFloatField
from api_common.request_serializers import FlatRequest
from assess.api.schema import NamedChoiceField
from capstone.models import Memo, MemoDecision, MemoVersion
from capstone.services import MAX_MEMO_CHARS, adjusted_score

MAX_COMMENT = 5000
MAX_ADJUSTMENT_COMMENT = 2000
MAX_ADJUSTMENTS = 100
MAX_CRITERION = 64

MEMO_STATUS_HELP = (
    "`in_review` from each submitted version until an instructor decides; "
    "`changes_requested` after an instructor asked for changes (a new version puts it "
    "back in review); `approved` is final: the memo takes no more versions."
)
REVIEW_STATUS_HELP = (
    "The automatic review of this version: `queued` (waiting for a worker), `running`, "
    "`done` (`review`, `score` and `max_score` are set) or `failed` (`review_error` says "
    "why; a new version is reviewed afresh)."
)
MARKDOWN_HELP = (
    f"The memo as Markdown, 1 to {MAX_MEMO_CHARS:,} characters, kept as sent (leading "
    "and trailing whitespace included). It should have the brief's sections "
    "(assumptions; weights and state budget; demand; capacity per replica; fleet; "
    "measurement plan; failure-case test; what would change the plan) and its block of "
    "key figures with units. A text that is only whitespace, or holds a NUL character, "
    "is a 400 on `markdown`."
)


def _validate_markdown(text: str) -> str:
    """The service refuses a memo that is only whitespace: say so here, before the brief
    is drawn. (NUL is refused by DRF's CharField itself, lone surrogates by the JSON
    parser, api_common/parsers.py.)"""
    if not text.strip():
        raise serializers.ValidationError(
            "The memo is empty: send its Markdown text.", code="blank"
        )
    return text


# ----------------------------------------------------------------------------- brief


def _int(help_text: str) -> serializers.IntegerField:
    return serializers.IntegerField(help_text=help_text)


def _float(help_text: str) -> serializers.FloatField:
    return serializers.FloatField(help_text=help_text)


def _str(help_text: str) -> serializers.CharField:
    return serializers.CharField(help_text=help_text)


class BriefCandidateSerializer(serializers.Serializer):
    """An accelerator the memo may choose, with the figures and the list price to use."""

    slug = _str("The accelerator's slug in the hardware catalogue (/api/hardware/).")
    name = _str("Its name.")
    usable_gib = _float("Memory a model may use per GPU, in GiB.")
    mem_bw_tb_s = _float("Memory bandwidth per GPU, in TB/s.")
    dense_tflops = _float("Dense compute per GPU in `dense_dtype`, in TFLOP/s.")
    dense_dtype = _str("The number format of `dense_tflops` (`bf16` or `fp8`).")
    usd_per_gpu_hour = _float("The on-demand list price per GPU-hour, in USD.")
    provider = _str("The cloud whose list price this is.")
    instance_type = _str("The instance the price is for.")
    gpus_per_instance = _int("GPUs in that instance.")
    instance_usd_per_hour = _float("The instance's price per hour, in USD.")
    price_source = serializers.ListField(
        child=serializers.CharField(), help_text="URLs the price was read from."
    )
    price_as_of = serializers.DateField(help_text="The date the price was read.")


class BriefDerivedSerializer(serializers.Serializer):
    """Figures that follow from the brief, given so that everyone starts from the same."""

    min_context_tokens = _int("Tokens one sequence must hold: p99 prompt plus p99 output.")
    mean_requests_per_s = _float("Average requests per second over the day.")
    peak_requests_per_s = _float("Peak requests per second (average times peak-to-average).")
    slot_seconds = _float(
        "How long a request holds a sequence slot: the TTFT target plus the mean output "
        "at the time-per-output-token target, in seconds."
    )
    max_tensor_parallel = _int(
        "The most GPUs one replica may span: one 8-GPU server, and no more than the KV"
        " heads; a candidate priced per smaller instance allows at most its GPUs."
    )
    hours_per_month = _int("Hours in a month for the monthly cost (730).")


class BriefSerializer(serializers.Serializer):
    """The brief as data; `markdown` beside it says the same in words."""

    seed = _int("The seed the brief was drawn from.")
    workload = _str("The product served (chat, coding or customer-support assistant).")
    model_slug = _str("The model's slug in the hardware catalogue.")
    model_name = _str("The model's name.")
    n_params = _int("Parameters.")
    n_layers = _int("Transformer layers.")
    n_kv_heads = _int("Key-value heads per layer.")
    head_dim = _int("Dimension of one attention head.")
    max_context = _int(
        "The model's context window, in tokens: the window it was trained at or ships "
        "with (Mistral 7B v0.1: 8,192), not its config's longest position."
    )
    n_heads = _int(
        "Query heads per layer, for the attention FLOPs (0 in a brief drawn before they "
        "were given)."
    )
    weight_dtype = _str("The weights' number format (`bf16` or `fp8`).")
    kv_dtype = _str("The KV cache's number format (`bf16` or `fp8`).")
    sessions_per_day = _int("Sessions a day.")
    messages_per_session = _int("Requests per session.")
    peak_to_average = _float("Peak request rate over the day's average.")
    prompt_tokens_mean = _int("Mean prompt length, in tokens.")
    prompt_tokens_p99 = _int("99th-percentile prompt length, in tokens.")
    output_tokens_mean = _int("Mean output length, in tokens.")
    output_tokens_p99 = _int("99th-percentile output length, in tokens.")
    ttft_p99_ms = _int("SLO: time to first token at the 99th percentile, in ms.")
    tpot_ms = _int("SLO: time per output token, in ms.")
    gpu_memory_utilization = _float("Share of GPU memory the server may use (as vLLM's).")
    kv_reserve_fraction = _float(
        "Share of each GPU's usable memory kept free of weights (for the KV cache and"
        " activations) when sizing tensor parallelism."
    )
    candidates = BriefCandidateSerializer(
        many=True, help_text="The accelerators to choose from (2 or 3)."
    )
    derived = BriefDerivedSerializer(help_text="Figures that follow from the brief.")


class CapstoneBriefSerializer(serializers.Serializer):
    seed = serializers.IntegerField(
        source="capstone.seed",
        help_text="The seed the brief was drawn from (with `brief_version`).",
    )
    brief_version = serializers.IntegerField(
        source="capstone.brief_version",
        allow_null=True,
        help_text="The version of the brief generator that drew the brief. The capstone "
        "keeps its brief: a later generator never changes it.",
    )
    course = serializers.CharField(
        source="capstone.course.slug",
        help_text="The slug of the course the capstone belongs to.",
    )
    brief = serializers.SerializerMethodField()
    markdown = serializers.SerializerMethodField()
    memo = serializers.IntegerField(
        source="memo_id",
        allow_null=True,
        help_text="The id of your memo for this brief; null until you submit one "
        "(POST /api/memos/).",
    )

    @extend_schema_field(BriefSerializer(help_text="The brief as data."))
    def get_brief(self, data) -> dict:
        return data["brief"].as_dict()

    @extend_schema_field(
        serializers.CharField(help_text="The brief as the page shows it, in Markdown.")
    )
    def get_markdown(self, data) -> str:
        return data["brief"].markdown()


# ------------------------------------------------------------------------- requests


class MemoInputSerializer(FlatRequest, serializers.Serializer):
    markdown = StrictCharField(
        max_length=MAX_MEMO_CHARS,
        trim_whitespace=False,
        validators=[_validate_markdown],
        help_text=MARKDOWN_HELP,
    )


class AdjustmentSerializer(serializers.Serializer):
    criterion = StrictCharField(
        max_length=MAX_CRITERION,
        help_text="A criterion `code` of the reviewed version's review; any other is a 400.",
    )
    points = StrictFloatField(
        min_value=0.0,
        help_text="The criterion's points as the instructor sets them, from 0 to the "
        "criterion's `max_points` (more is a 400).",
    )
    comment = StrictCharField(
        max_length=MAX_ADJUSTMENT_COMMENT, help_text="Why the points changed; required."
    )

    class Meta:
        ref_name = "MemoAdjustment"  # the request component: MemoAdjustmentRequest
        list_serializer_class = FlatErrorsListSerializer  # errors of the list name it


class MemoDecisionInputSerializer(serializers.Serializer):
    decision = NamedChoiceField(
        enum_name="MemoDecisionEnum",
        choices=MemoDecision.Decision.choices,
        help_text="`approve` makes the memo final; `request_changes` asks the learner for "
        "a new version.",
    )
    comment = StrictCharField(
        max_length=MAX_COMMENT,
        required=False,
        allow_blank=True,
        default="",
        help_text="What the learner should read first.",
    )
    adjustments = AdjustmentSerializer(
        many=True,
        required=False,
        default=list,
        max_length=MAX_ADJUSTMENTS,
        help_text="Criteria whose points the instructor changes, each with a comment; "
        "the adjusted score is the review's with these points in place of the review's.",
    )


# ------------------------------------------------------------------------ responses


class ReviewCriterionSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="The criterion's code (what adjustments name).")
    title = serializers.CharField(help_text="What the criterion checks, in words.")
    points = serializers.FloatField(help_text="Points the review gave.")
    max_points = serializers.FloatField(help_text="Points the criterion is worth.")
    evidence = serializers.CharField(
        allow_blank=True, help_text="Quoted from the memo; empty when nothing was found."
    )
    comment = serializers.CharField(allow_blank=True, help_text="What the reviewer found.")
    misconception = serializers.CharField(
        allow_null=True,
        help_text="The code of the mistake the memo shows here (e.g. `gb-vs-gib`); null "
        "when none was named.",
    )


class MemoReviewSerializer(serializers.Serializer):
    criteria = ReviewCriterionSerializer(many=True, help_text="The rubric, criterion by criterion.")
    score = serializers.FloatField(help_text="The sum of the criteria's points.")
    max_score = serializers.FloatField(help_text="The sum of the criteria's `max_points`.")
    notes = serializers.ListField(
        child=serializers.CharField(),
        help_text="Remarks on the memo as a whole (for example that it was cut at the "
        "length limit); often empty.",
    )


class MemoVersionSerializer(serializers.ModelSerializer):
    review_status = NamedChoiceField(
        enum_name="MemoReviewStatusEnum",
        choices=MemoVersion.ReviewStatus.choices,
        read_only=True,
        help_text=REVIEW_STATUS_HELP,
    )
    review_error = serializers.CharField(
        read_only=True, help_text="Why the review failed; empty unless `failed`."
    )
    review = serializers.SerializerMethodField()
    score = serializers.FloatField(read_only=True, allow_null=True, help_text="Null until done.")
    max_score = serializers.FloatField(
        read_only=True, allow_null=True, help_text="Null until done."
    )
    started_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When a worker last started the review."
    )
    reviewed_at = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="When the review was written."
    )
    number = serializers.IntegerField(read_only=True, help_text="1 for the first version.")
    created_at = serializers.DateTimeField(read_only=True, help_text="When it was submitted.")
    queued_at = serializers.DateTimeField(
        read_only=True, help_text="When its review was last queued."
    )
    markdown = serializers.CharField(read_only=True, help_text="The text as submitted.")
    deliveries = serializers.IntegerField(
        read_only=True,
        help_text="How many times a worker started this review (more than 1 after a "
        "redelivery); the review itself is written once.",
    )

    class Meta:
        model = MemoVersion
        fields = [
            "number",
            "created_at",
            "review_status",
            "review_error",
            "score",
            "max_score",
            "review",
            "queued_at",
            "started_at",
            "reviewed_at",
            "deliveries",
            "markdown",
        ]
        read_only_fields = fields

    @extend_schema_field(
        MemoReviewSerializer(allow_null=True, help_text="The rubric; null until `done`.")
    )
    def get_review(self, version: MemoVersion) -> dict | None:
        if version.review_status != MemoVersion.ReviewStatus.DONE or version.review is None:
            return None
        return version.review


class MemoAdjustmentSerializer(serializers.Serializer):
    criterion = serializers.CharField(help_text="The criterion's `code` in the review.")
    points = serializers.FloatField(help_text="Its points as the instructor set them.")
    comment = serializers.CharField(help_text="Why the points changed.")


class MemoDecisionSerializer(serializers.ModelSerializer):
    instructor = serializers.CharField(
        source="instructor.get_username", read_only=True, help_text="Who decided (username)."
    )
    decision = NamedChoiceField(
        enum_name="MemoDecisionEnum",
        choices=MemoDecision.Decision.choices,
        read_only=True,
        help_text="`approve` or `request_changes`.",
    )
    comment = serializers.CharField(
        read_only=True, help_text="The instructor's comment; may be empty."
    )
    created_at = serializers.DateTimeField(read_only=True, help_text="When it was made.")
    version = serializers.IntegerField(
        source="version.number", read_only=True, help_text="The version number decided on."
    )
    adjustments = MemoAdjustmentSerializer(
        many=True, read_only=True, help_text="Criteria whose points the instructor changed."
    )

    class Meta:
        model = MemoDecision
        fields = ["instructor", "decision", "comment", "adjustments", "created_at", "version"]
        read_only_fields = fields


def _latest(memo: Memo) -> tuple[MemoVersion | None, MemoDecision | None]:
    """The latest version and the latest decision on it, from the prefetched rows."""
    versions = list(memo.versions.all())
    version = max(versions, key=lambda v: v.number) if versions else None
    decisions = [d for d in memo.decisions.all() if version and d.version_id == version.pk]
    return version, (decisions[-1] if decisions else None)


ADJUSTED_HELP = (
    "The latest version's score with the latest instructor decision's adjustments on "
    "that version applied; null until that version's review is done."
)


class _MemoBase(serializers.ModelSerializer):
    id = serializers.IntegerField(read_only=True, help_text="The memo's id.")
    created_at = serializers.DateTimeField(
        read_only=True, help_text="When version 1 was submitted."
    )
    updated_at = serializers.DateTimeField(
        read_only=True, help_text="The last version or decision."
    )
    status = NamedChoiceField(
        enum_name="MemoStatusEnum",
        choices=Memo.Status.choices,
        read_only=True,
        help_text=MEMO_STATUS_HELP,
    )
    learner = serializers.CharField(
        source="capstone.learner.get_username", read_only=True, help_text="Username."
    )
    course = serializers.CharField(
        source="capstone.course.slug", read_only=True, help_text="The course's slug."
    )
    adjusted_score = serializers.SerializerMethodField()

    @extend_schema_field(serializers.FloatField(allow_null=True, help_text=ADJUSTED_HELP))
    def get_adjusted_score(self, memo: Memo) -> float | None:
        version, decision = _latest(memo)
        return None if version is None else adjusted_score(version, decision)


class MemoSerializer(_MemoBase):
    """A memo with every version (oldest first) and every decision (oldest first)."""

    versions = MemoVersionSerializer(
        many=True, read_only=True, help_text="Every version, oldest first."
    )
    decisions = MemoDecisionSerializer(
        many=True, read_only=True, help_text="Every instructor decision, oldest first."
    )

    class Meta:
        model = Memo
        fields = [
            "id",
            "status",
            "learner",
            "course",
            "created_at",
            "updated_at",
            "versions",
            "decisions",
            "adjusted_score",
        ]
        read_only_fields = fields


class MemoVersionSummarySerializer(serializers.ModelSerializer):
    review_status = NamedChoiceField(
        enum_name="MemoReviewStatusEnum",
        choices=MemoVersion.ReviewStatus.choices,
        read_only=True,
        help_text=REVIEW_STATUS_HELP,
    )
    score = serializers.FloatField(read_only=True, allow_null=True, help_text="Null until done.")
    max_score = serializers.FloatField(
        read_only=True, allow_null=True, help_text="Null until done."
    )

    class Meta:
        model = MemoVersion
        fields = ["number", "created_at", "review_status", "score", "max_score"]
        extra_kwargs = {
            "number": {"help_text": "1 for the first version."},
            "created_at": {"help_text": "When it was submitted."},
        }
        read_only_fields = fields


class MemoSummarySerializer(_MemoBase):
    """A memo as listed: its latest version's state, without the texts."""

    latest_version = serializers.SerializerMethodField()

    class Meta:
        model = Memo
        fields = [
            "id",
            "status",
            "learner",
            "course",
            "created_at",
            "updated_at",
            "latest_version",
            "adjusted_score",
        ]
        read_only_fields = fields

    @extend_schema_field(
        MemoVersionSummarySerializer(help_text="The latest version and its review state.")
    )
    def get_latest_version(self, memo: Memo) -> dict:
        version, _ = _latest(memo)
        return MemoVersionSummarySerializer(version).data
