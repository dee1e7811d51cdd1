"""The capstone API's descriptions and examples for the OpenAPI schema (/api/schema/):
what each operation does, who may call it and why each refusal happens."""

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiTypes

_MEMO_ROLES = (
    "The memo's learner, the instructors of its course and staff may read it; anyone "
    "else gets 404, as if it did not exist."
)
_REVIEW = (
    "Each version is stored first, then its automatic review is queued for a worker: "
    "the version's `review_status` goes `queued` -> `running` -> `done` (with `review`, "
    "`score` and `max_score`) or `failed` (with `review_error`). Poll "
    "GET /api/memos/{id}/ to follow it; a review lost with a worker or the broker is "
    "queued again, and written once."
)
CAPSTONE_BRIEF = (
    "Your capstone brief in the Foundations course: a model, its traffic, an SLO and "
    "candidate accelerators with hourly prices, drawn once for you from a seed (the same "
    "seed always gives the same brief). A read: 404 until you have started the capstone "
    "with POST /api/capstone/brief/ (or submitted a memo). `memo` is the id of your "
    "memo, null until you submit one with POST /api/memos/."
)
CAPSTONE_START = (
    "Start your capstone: draws your brief (201), or answers the one drawn before (200: "
    "the same seed, the same brief). Starting enrols you in the Foundations course where "
    "the course allows self-enrolment (403 where it does not and you are not enrolled). "
    "No request body."
)
C404_CAPSTONE = "You have not started the capstone: POST /api/capstone/brief/ draws your brief."
MEMO_ID = OpenApiParameter(
    "id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The memo's id."
)
C403_ENROL = (
    "The capstone's course enrols learners through its instructors only, and you are not enrolled."
)
C409_NO_COURSE = "The capstone's course is not loaded on this server."
MEMO_LIST = (
    "The memos you may read, those waiting for a decision (`in_review`) first, then the "
    "most recently updated: for a learner their own memo; for an instructor, also the "
    "memos of the courses they teach (their review queue); for staff, every memo. Each "
    "item shows its latest version's review state, without the texts; read one with "
    "GET /api/memos/{id}/."
)
MEMO_SUBMIT = (
    "Submit your capstone memo: creates the memo with version 1 (201, the memo as GET "
    "/api/memos/{id}/ shows it), drawing your brief and enrolling you first if "
    "POST /api/capstone/brief/ has not. One memo per learner: when you already have one "
    "the answer is 409 and its detail names the memo, whose later versions go to "
    "POST /api/memos/{id}/versions/.\n\n" + _REVIEW + "\n\n"
    "400 on `markdown` when it is missing, blank, too long or holds a NUL character."
)
C409_SUBMIT = (
    "You already have a memo (the detail names its id and where to send a new version), "
    "or the capstone's course is not loaded on this server."
)
MEMO_GET = (
    "A memo with every version (oldest first: its Markdown, its review state and, once "
    "done, its review: each criterion with points, evidence quoted from the memo and a "
    "comment) and every instructor decision (oldest first, with its comment and "
    "criterion adjustments). `adjusted_score` is the latest version's score with the "
    "latest decision's adjustments on it applied. " + _MEMO_ROLES
)
MEMO_VERSION_ADD = (
    "Resubmit: a new version of your memo (201, the memo with it), reviewed afresh; the "
    "memo goes back to `in_review`. Earlier versions and their reviews are kept. The "
    "memo's learner only: its instructors and staff get 403, anyone else 404. 409 once "
    "the memo is approved or holds 30 versions (the most a memo may have). 429, with "
    "Retry-After, when the memo's last version arrived less than a minute ago (one new "
    "version a minute). 400 on `markdown` when it is missing, blank, too long or holds "
    "a NUL character.\n\n" + _REVIEW
)
C403_AUTHOR = "Only the memo's learner adds versions to it."
C409_APPROVED = "The memo is approved: it takes no more versions."
C409_VERSION = (
    "The memo is approved, or already holds 30 versions (the most a memo may have); the "
    "detail says which. Either way it takes no more versions."
)
C429_VERSION = (
    "A version of this memo arrived less than a minute ago: nothing was stored. Send it "
    "again after the `Retry-After` header's seconds."
)
MEMO_VERSIONS = (
    "The memo's versions, oldest first, a page at a time (`?page_size=1` for one version "
    "a page), each with its Markdown, its review state and, once done, its review: for "
    "clients that want versions one by one rather than all in GET /api/memos/{id}/. " + _MEMO_ROLES
)
MEMO_DECIDE = (
    "An instructor's decision on the memo's latest version (201, the memo with it): "
    "`approve` (final: no more versions) or `request_changes` (the learner resubmits), "
    "with a comment and any criterion adjusted: each adjustment names a criterion "
    "`code` of that version's review, sets its points between 0 and the criterion's "
    "`max_points`, and says why. Several decisions may be made; the latest counts.\n\n"
    "For the course's instructors and staff, never the memo's author: nobody decides "
    "on their own memo, whatever their role (403, as for any learner of it); anyone "
    "else gets 404. 409 while the latest version's review is not done. 400 on "
    "`adjustments.N.criterion` for a criterion the review does not have, on "
    "`adjustments.N.points` for points out of range, on `adjustments.N.comment` without "
    "a comment."
)
C403_INSTRUCTOR = (
    "Only the course's instructors (and staff) decide on its memos, and none on their own."
)
C409_UNREVIEWED = "The memo's latest version has no finished review yet."

_MEMO_TEXT = (
    "# Capacity plan\n\n## Assumptions\n...\n\n## Weights and state budget\n...\n\n"
    "## Demand\n...\n\n## Capacity per replica\n...\n\n## Fleet\n...\n\n"
    "## Measurement plan\n...\n\n## Failure-case test\n...\n\n"
    "## What would change the plan\n...\n\n## Key figures\n\n"
    "- Weights: 140 GB\n- KV per token: 0.3 MiB\n- Concurrent sequences per replica: 48\n"
    "- Replicas: 6\n- GPUs: 12\n- Monthly cost: 26,280 USD\n"
)
MEMO_EXAMPLES = [OpenApiExample("A memo", value={"markdown": _MEMO_TEXT}, request_only=True)]
MEMO_DECISION_EXAMPLES = [
    OpenApiExample(
        "Request changes",
        value={
            "decision": "request_changes",
            "comment": "The fleet does not cover the peak; see the demand section.",
            "adjustments": [
                {
                    "criterion": "measurement-plan",
                    "points": 1.5,
                    "comment": "The plan names the tool but not the load it replays.",
                }
            ],
        },
        request_only=True,
    ),
    OpenApiExample("Approve", value={"decision": "approve", "comment": ""}, request_only=True),
]
