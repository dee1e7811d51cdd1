"""What the schema tells a client author about each assess operation, and examples of
the main request bodies. Kept apart from the views so they stay thin; the rules quoted
here are the services' and the feedback policy's (assess.policy), and the tests in
tests/assess/api/test_schema.py hold the statuses to what the views do."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiTypes

from api_common.throttles import parse_rate
from assess.api.serializers.quizzes import FEEDBACK_HELP
from assess.api.serializers.responses import IDEMPOTENCY_HELP
from assess.scoring import SAVES_CEILING

_RATES = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
_PER_USERNAME, _WINDOW = parse_rate(_RATES["sign_in_username"])
_PER_IP, _IP_WINDOW = parse_rate(_RATES["sign_in_ip"])

ROLES = (
    "Roles: a *learner* is any signed-in user; an *instructor* teaches a course (a course "
    "role); *staff* may do everything."
)

TOKEN = (
    "Exchange a username and password for an API token; send it on every other call as "
    "`Authorization: Token <token>`. Anyone may call this. The same user gets the same "
    "token until it expires (`expires_at`, a fixed time after it was issued: 30 days "
    "unless the server says otherwise); once it has, signing in gives a new one. A call "
    "with an expired token is a 401 with code `token_expired`; with an unknown or revoked "
    "one, `authentication_failed`.\n\n"
    "Wrong credentials are a 400 with code `authorization` (attr `non_field_errors`). "
    f"Sign-ins are throttled: {_PER_USERNAME} per posted username per {_WINDOW // 60} "
    f"minutes and {_PER_IP} per client address per {_IP_WINDOW // 60} minutes, counting "
    "every POST whatever its outcome; past that the answer is 429 with a `Retry-After` "
    "header in seconds."
)
SIGN_OUT = (
    "Revoke the token this call is made with (`Authorization: Token <token>`): from now "
    "on it answers 401 (`authentication_failed`). Sign in again for a new one. The "
    "revocation is written to the audit log."
)
RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    OpenApiParameter.HEADER,
    response=[429],
    description="Seconds to wait before the next try counts.",
)

QUIZ_LIST = (
    "The quizzes you can take or teach, newest first. A learner sees the published "
    "quizzes (not yet closed for them) of the courses they are enrolled in and those "
    "that belong to no course, never a draft; an instructor also sees every quiz of the "
    "courses they teach, drafts and closed ones included (`status` says which); staff "
    "see all. "
    "Lesson practice is not listed: start it with POST /api/lessons/{slug}/practice/."
)
QUIZ_CREATE = (
    "Create a quiz and its slots. Instructors and staff only: **an instructor must name a "
    "`course` they teach** (403 otherwise, and 403 without a course); only staff may "
    "omit `course`, for a quiz open to every signed-in user. Learners get 403.\n\n"
    "Bounds: a time limit of at most 7 days, at most 100 attempts, 1 to 100 slots of 1 "
    "to 1000 points, 1 to 100 templates per slot (each once, each a known slug), at most "
    "100 tries per part. `status` is `published` unless you send `draft`. A field out "
    "of bounds or inconsistent with the others (e.g. "
    "`tries_per_part` with deferred feedback, `immediately` for an exam, `after_close` "
    "without `closes_at`) is a 400 whose `attr` names it, nested fields joined by `.` "
    "(`slots.0.points`, `slots.0.templates.1`).\n\n" + FEEDBACK_HELP
)
_LIFECYCLE_WHO = (
    "For staff and the course-wide instructors of the quiz's course (a quiz with no "
    "course: staff); 403 for an instructor scoped to an LMS course (who may read the "
    "quiz but not change it for the whole course); 404 for anyone else, as if the quiz "
    "did not exist."
)
QUIZ_PUBLISH = (
    "Publish a draft (200, the quiz, `status` now `published`): its learners see it and "
    "start it within its dates. A quiz already published is returned unchanged (200), "
    "so a retry is harmless. 409 when the quiz has no question, its close has passed "
    "(give it a later close first), or it is lesson practice or a certification track's "
    "exam (managed by its lesson or track). " + _LIFECYCLE_WHO
)
QUIZ_UNPUBLISH = (
    "Take a published quiz back to draft (200, the quiz): its learners no longer see it "
    "(404 to them) and no one can start it, an LMS link to it included (409), until it "
    "is published again. A draft is returned unchanged (200). **409 once any attempt "
    "exists**: unpublishing would hide the quiz, and the grades of the learners who "
    "took it, from them; close it instead (POST /api/quizzes/{id}/close/). 409 too for "
    "lesson practice and a track's exam. " + _LIFECYCLE_WHO
)
QUIZ_CLOSE = (
    "Close a published quiz now (200, the quiz, `status` `closed` unless a learner's "
    "extension gives a later close): `closes_at` becomes now, so no attempt starts from "
    "then on, open attempts end now with every answer saved so far (scored at once), "
    "and feedback `after_close` follows the new close. A learner whose extension gives "
    "a later close keeps it. Attempts and grades stay. A quiz already past its "
    "`closes_at` is returned unchanged (200). 409 for a draft (nothing is open), a quiz "
    "that has not opened yet (unpublish it instead), lesson practice and a track's "
    "exam. " + _LIFECYCLE_WHO
)
LIFECYCLE_409 = (
    "The quiz's state forbids this now (attempts exist, its close has passed, it is a "
    "draft, it has not opened, it is managed by a lesson or a track); `errors[0].detail` "
    "says which, and what to do instead."
)
LIFECYCLE_403 = (
    "An instructor scoped to an LMS course may read the quiz but not change it for the "
    "whole Burn-in course; `errors[0].detail` says so."
)
QUIZ_GET = (
    "One quiz you may see: published and of a course you are enrolled in or of no "
    "course, or any quiz of a course you teach (staff: any). 404 otherwise, a draft to "
    "a learner included, as if it did not exist. `closes_at_for_you` is the "
    "close that applies to you: a later one if an instructor gave you an extension."
)
ATTEMPT_LIST = (
    "Attempts on the quiz: a learner's own; every learner's for the quiz's instructors "
    "and staff. A learner's `score` and `passed` stay null until the feedback policy "
    "shows grades (see GET /api/attempts/{id}/)."
)
ATTEMPT_START = (
    "Start an attempt (201), or resume your open one (200): one open attempt per learner "
    "and quiz, so a repeated or racing start is harmless. Each question is a variant "
    "drawn on the server (the learner cannot choose it); answer through "
    "POST /api/attempts/{id}/responses/. Anyone who may see the quiz may start it; 409 "
    "when it is a draft (its instructors see drafts, but no one starts one), has not "
    "opened yet, has closed, the learner's attempts are used up, or it "
    "is lesson practice (started from its lesson). A track's certification exam starts "
    "only once the learner has mastered every skill of the track's lessons: before that "
    "409 with code `lesson_mastery_required`, whose detail names the lessons still below "
    "the threshold (an open attempt is resumed regardless). 403 when an account made by "
    "sign-up starts an exam or a certification before confirming its email address."
)
ATTEMPT_START_409 = (
    "No attempt was started. Code `conflict`: the quiz is a draft, not open yet, closed "
    "for you, in its cooldown, your attempts are used up, or it is lesson practice; code "
    "`lesson_mastery_required`: a certification exam whose track's lessons you have not "
    "mastered yet (`errors[0].detail` names them)."
)
ATTEMPT_START_403 = (
    "An account made by sign-up has not confirmed its email address yet: it may practise, "
    "but not start an exam or a certification (code `permission_denied`)."
)
ITEMS = (
    "Item analysis per problem template over closed (finished or expired) attempts "
    "only: an open attempt's answers count nowhere until it closes. Responses, share "
    "correct, discrimination, misconceptions named, median time. For the quiz's "
    "instructors and staff; 404 for everyone else."
)
EXTENSIONS = (
    "The quiz's per-learner extensions (extra time on the time limit, a later close for "
    "one learner), by learner id. For the quiz's instructors and staff; 404 for everyone "
    "else, as if the list were not there."
)
EXTENSION_PUT = (
    "Give a learner extra time, a later close, or both (200, the extension): the body is "
    "the whole extension and replaces any the learner had. It takes effect at once: the "
    "learner's open attempt gets the new deadline, and a later close lets them start and "
    "answer after the quiz's own close while everyone else is refused (409). With "
    "`after_close` feedback, grades wait until the quiz has closed for everyone, the "
    "latest extended close included.\n\n"
    "For the quiz's instructors and staff, never for oneself (403); 404 for everyone "
    "else. 400 naming the field: "
    "`learner` for an unknown user or one not enrolled in the quiz's course; "
    "`extra_time_minutes` out of bounds (1 to 10080), on a quiz with no time limit, or "
    "missing together with `closes_at`; `closes_at` not after the quiz's close, not in "
    "the future, or on a quiz that never closes."
)
C403_OWN = "Nobody grants or removes an extension for themselves: another instructor does."
EXTENSION_DELETE = (
    "Remove a learner's extension (204). Their open attempt falls back to the quiz's "
    "time limit and close, but never ends before now: past that deadline already, it "
    "ends at once with every answer saved so far. For the quiz's instructors and staff, "
    "never for oneself (403); 404 for everyone else, and for a learner with no "
    "extension."
)
ATTEMPT_GET = (
    "The attempt as you may see it now, for its learner, the quiz's instructors and "
    "staff (404 for anyone else).\n\n"
    "**Feedback policy.** With immediate feedback (practice; homework by default) every "
    "try is graded at once with the misconception named; a part's `answer`, and the "
    "question's worked solution once every part is closed, show after a correct try, the "
    "part's last allowed try or a reveal, and everything shows once the attempt is over. "
    "With deferred feedback (exams, certifications, `after_attempt`/`after_close`) "
    "nothing about correctness, no answer and no solution shows (those fields are null) "
    "until the attempt is over (`after_attempt`) or the quiz has closed for everyone "
    "(`after_close`). Instructors and staff see everything."
)
RESPONSE_SUBMIT = (
    "Send one answer to one part of a question of your open attempt (the attempt's "
    "learner only; 404 for anyone else). 201 with the stored answer and the question as "
    "you may now see it.\n\n"
    "**Immediate feedback** (practice; homework by default): the answer is graded at once "
    "(`correct`, `score`, `feedback`, `misconception`). A quiz may limit the tries per "
    "part (`tries_per_part`: homework 3, practice unlimited) and take `penalty_per_try` "
    "off for each try before the first correct one. A part closes after a correct try, "
    "its last allowed try or a reveal, and then shows its answer; a closed part takes "
    "no more tries (409, nothing stored), so a shown answer can never be typed back for "
    "credit.\n\n"
    "**Deferred feedback** (exams, certifications, quizzes set to `after_attempt` or "
    "`after_close`): the answer is saved and graded hidden (`correct`, `score`, "
    "`feedback` and `misconception` are null); send another to change it, the last "
    f"saved one counts. A part keeps at most {SAVES_CEILING} saves: past them it is "
    "closed (`closed: exhausted`, a further save is a 409) and its last save counts. "
    "Grades show after the attempt or the quiz's close.\n\n"
    "**Idempotency.** " + IDEMPOTENCY_HELP + "\n\n"
    "**Errors.** An unreadable answer is a 400 with code `unreadable_answer` on "
    '`answer` and `"valid": false`; it is not stored and costs no try. An unknown part '
    "is a 400 naming `part`; a question that is not in this attempt is a 404. 409: the "
    "attempt is finished or past its deadline, the part is closed, or the question was "
    "replaced by a new variant."
)
FINISH = (
    "Finish your attempt and score it (the attempt's learner only; 404 for anyone else). "
    "Past its deadline it closes as expired, counting the answers saved in time. With "
    "`after_attempt` feedback the grades, answers and solutions show from now on. 409 "
    "if it is already finished."
)
NEW_VARIANT = (
    "Practice only: replace the question with a fresh variant of the same slot (201). "
    "The old one stays stored with its answers, inactive. 409 for other modes, a "
    "finished attempt, or a question already replaced."
)
REVEAL = (
    'Immediate feedback only: show a part\'s answer (the "Show the answer" button). The '
    "part closes as `revealed` and its remaining tries are forfeit; its first try, if "
    "any, already counted for mastery. Asking again, or for a part already solved or out "
    "of tries, is harmless (200, nothing recorded). 400 for an unknown part; 409 with "
    "deferred feedback (answers wait for the grades), for a replaced question, or once "
    "the attempt is over (everything shows then anyway). The attempt's learner only."
)
HINT = (
    "Practice and homework only: the question's next hint, a step of its worked solution "
    "(never the step that states an answer; the hints run out before the last step). "
    "One sequence per question, asked from a part (`part`): in homework each hint costs "
    "that part the quiz's `hint_penalty`; in practice hints are free. Either way a part's "
    "first try after a hint on its question is no evidence for mastery. Asking after the "
    "last hint returns the last again (`recorded`: false, nothing charged). 400 for an "
    "unknown part; 409 when the quiz offers no hints (exams, certifications), the "
    "question was replaced, the part takes no more tries, or the attempt is over. The "
    "attempt's learner only."
)
MASTERY = (
    "Your mastery: every skill with its BKT estimate and the number of answers behind "
    "it (skills are global: knowledge carries across courses), and the lessons of the "
    "courses you are enrolled in with the share of their skills mastered and their "
    "weakest skill. Only the first try of each part counts (later tries follow feedback); "
    "deferred-feedback answers count once their grades are released."
)
ENROL = (
    "Enrol yourself in the course (201; 200 if you already are). Any signed-in user, "
    "where the course allows self-enrolment; 403 where it enrols learners through its "
    "instructors only."
)
ENROLMENTS = (
    "The course's enrolled learners, by username. For its instructors and staff; 404 "
    "for everyone else, as if the list were not there."
)
ENROLMENT_ADD = (
    "Enrol a learner by username (201; 200 if already enrolled). For the course's "
    "instructors and staff (404 for everyone else; 403 for an instructor scoped to an "
    "LMS course, whatever the body); 400 on `username` if there is no such user."
)
ENROLMENT_REMOVE = (
    "Remove a learner from the course (204): they can no longer list or start its "
    "quizzes; their attempts and mastery stay. For the course's instructors and staff; "
    "404 for everyone else, and for a user who is not enrolled; 403 for an instructor "
    "scoped to an LMS course."
)
C403_ROSTER = (
    "You teach this course from an LMS course: that LMS manages your learners, and "
    "adding or removing one changes the whole Burn-in course."
)
PRACTICE = (
    "Add a practice question on the lesson's weakest unmastered skill (the weakest skill "
    "once all are mastered) to your practice attempt for the lesson, starting that "
    "attempt if needed. Practice gives immediate feedback with unlimited tries; answer "
    "through POST /api/attempts/{attempt}/responses/. The first practice enrols a learner "
    "in the lesson's course where it allows self-enrolment; 403 where it does not (its "
    "instructors and staff practise without enrolling). 409 if the lesson has no "
    "practice problems yet. Practice started here has no set length; an open session of "
    "n questions started on the web takes this question as one of its n, and one that "
    "already has all n is finished (its summary kept) and practice goes on in a new "
    "attempt."
)

# ---------------------------------------------------------------------------- examples

TOKEN_EXAMPLES = [
    OpenApiExample(
        "Sign in",
        value={"username": "learner", "password": "learner-demo-pass"},
        request_only=True,
    ),
    OpenApiExample(
        "Token",
        value={
            "token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b",
            "expires_at": "2026-12-31T09:30:00Z",
        },
        response_only=True,
        status_codes=["200"],
    ),
]
RESPONSE_EXAMPLES = [
    OpenApiExample(
        "An answer with a unit",
        value={
            "question": 42,
            "part": "weights",
            "answer": "405.9 GB",
            "idempotency_key": "5b0c7f8e-3d2a-4c1b-9a77-1f2e3d4c5b6a",
            "time_spent_ms": 41250,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Unreadable answer",
        value={
            "type": "validation_error",
            "errors": [
                {
                    "code": "unreadable_answer",
                    "detail": "That is not a number. Expected a number with an optional unit, "
                    "like 80.5 or 80.5 GB.",
                    "attr": "answer",
                }
            ],
            "valid": False,
        },
        response_only=True,
        status_codes=["400"],
    ),
]
QUIZ_EXAMPLES = [
    OpenApiExample(
        "Homework in a course",
        value={
            "title": "KV cache sizing",
            "mode": "homework",
            "course": "learn-ai-infrastructure",
            "slots": [
                {"templates": ["kv-cache-total"], "points": 2},
                {"templates": ["gb-gib", "weights-memory"]},
            ],
            "tries_per_part": 3,
            "penalty_per_try": 0.25,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Timed exam",
        value={
            "title": "Memory math exam",
            "mode": "exam",
            "course": "learn-ai-infrastructure",
            "slots": [{"templates": ["weights-memory"], "points": 5}],
            "time_limit_minutes": 45,
            "attempts_allowed": 1,
            "feedback": "after_close",
            "closes_at": "2026-12-18T17:00:00Z",
            "pass_mark": 0.7,
        },
        request_only=True,
    ),
]
EXTENSION_EXAMPLES = [
    OpenApiExample("Extra time", value={"extra_time_minutes": 30}, request_only=True),
    OpenApiExample(
        "A later close",
        value={"extra_time_minutes": None, "closes_at": "2026-12-20T17:00:00Z"},
        request_only=True,
    ),
]
HINT_EXAMPLES = [OpenApiExample("Ask for a hint", value={"part": "weights"}, request_only=True)]
REVEAL_EXAMPLES = [OpenApiExample("Reveal a part", value={"part": "weights"}, request_only=True)]
ENROLMENT_EXAMPLES = [
    OpenApiExample("Enrol a learner", value={"username": "learner"}, request_only=True)
]

DRILL_ACTION = (
    "An incident drill (a question with a `drill` block): take one of its `actions`. The "
    "body names the action's `id`; the answer is the step with what it printed, as the "
    "simulated cluster stands after every earlier step (a drain or a reboot shows in every "
    "later look), and the simulated minutes all steps have taken. The output is evidence, "
    "so it shows under every feedback policy; no response ever carries the output of an "
    "action not taken, the fault, or the expert path before the policy releases them. "
    "201 for a new step; 200 for a retry with the same idempotency key and action (the "
    "step it took; nothing is taken again). 400 for an action the drill does not offer or "
    "a question that is not a drill; 409 once the drill is submitted, the attempt is over, "
    "the question was replaced, or after 60 steps; 422 for a key used with another action. "
    "The attempt's learner only."
)
DRILL_SUBMIT = (
    "An incident drill: submit the diagnosis (`fault` and `location`) and the first "
    "`remedy`, each an `id` from the drill's `choices`. A drill is submitted once; it is "
    "graded out of its parts' weights (10 by default: fault 3, location 2, remedy 3, and "
    "two findings the server reads from the steps: `time`, 1, for steps taking at most "
    "twice the expert path's minutes with a right fault and location; `safety`, 1, for no "
    "disruptive action beyond handling this fault). The answer is the question as the "
    "feedback policy shows it now: with immediate feedback the parts' scores and feedback "
    "(each unneeded disruptive action named), the worked solution and the expert path; "
    "with deferred feedback none of these until the grades are released. 201 when stored; "
    "200 for a retry with the same key and choices. 400 for a choice the drill does not "
    "list or a question that is not a drill; 409 when it was submitted already (with "
    "another key) or the attempt is over; 422 for a key used with another diagnosis. The "
    "attempt's learner only."
)
