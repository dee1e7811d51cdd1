"""The one feedback policy: what a reader may see of an answer, a solution or a grade,
and when. The API's serializers, the pages and LTI all ask here; none decides alone.

Two regimes, chosen by the quiz's feedback setting:

- Immediate (practice, homework by default): each try is told right or wrong at once,
  with the misconception named. A part's answer, and a question's worked solution, stay
  hidden until the part is *closed*: a correct try, its last allowed try, or the learner
  asked for the answer (a reveal, which forfeits its remaining tries). A closed part
  takes no more tries, so a shown answer can never be typed back for credit. When the
  attempt is over every answer shows.
- Deferred (exams, certifications, a quiz set to later feedback): nothing about
  correctness, no answer and no solution, until `grades_visible` says so (the attempt is
  over, or the quiz has closed for everyone). Until the finish the learner may change
  an answer as often as they like; the last saved one counts.

Hints (a question's worked solution, step by step, never its last step: problems.engine
.hints) are offered in practice and homework, never in exams and certifications
(`hints_offered`), and only on a part that still takes tries, by its own learner while
the attempt is open (`PartPolicy.can_hint`). Practice hints are free; homework ones cost
the quiz's `hint_penalty` (assess.scoring); either way a part's first try after a hint
on its question is no evidence for mastery (assess.services.mastery).

An incident drill (problems.drills) is one question whose parts are its grading
criteria, answered together by one submission (assess.services.drills), never part by
part: its parts take no answers through the answer path, offer no reveal and no hint,
and under immediate feedback the submission closes every part (`Closed.SUBMITTED`), so
its answers, its grade and the expert path show at once. Under deferred feedback they
wait for the grades like any other part. What each action printed is the evidence the
learner gathered, so it always shows to its own learner (assess.selectors.drills).

Instructors and staff reading a learner's attempt see everything.
The functions below are pure: they take the rows already read and decide.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from assess.scoring import SAVES_CEILING, TRIES_CEILING, Rules, part_score, question_score

HINT_MODES = ("practice", "homework")  # Quiz.Mode values; this module stays pure


def hints_offered(*, quiz) -> bool:
    """Does this quiz offer hints at all? Practice and homework do; an exam or a
    certification never does, whatever else it is set to."""
    return quiz.mode in HINT_MODES


def attempt_over(*, attempt, now: datetime) -> bool:
    """The attempt takes no more answers: finished, expired, or past its deadline."""
    return attempt.status != "open" or attempt.past_deadline(now)


def grades_visible(*, attempt, now: datetime) -> bool:
    """May the learner see correctness and scores now? immediately: always;
    after_attempt: once the attempt is over; after_close: once the quiz has closed for
    everyone, so no one can pass answers to a classmate.

    "Closed for everyone" is `quiz.closed_for_all_at`: the latest of the quiz's own
    close and any learner's extended close, both fields of the quiz row the caller read
    (the extension services keep `extended_until` in step), so this stays a pure
    decision and every reader of an attempt's quiz agrees."""
    quiz = attempt.quiz
    if quiz.feedback == "immediately":
        return True
    if quiz.feedback == "after_attempt":
        return attempt_over(attempt=attempt, now=now)
    closes = quiz.closed_for_all_at
    return closes is not None and now >= closes


# The name the rest of the code has long used for the attempt-level question.
feedback_visible = grades_visible


class Closed(StrEnum):
    """Why a part takes no more tries (immediate feedback)."""

    SOLVED = "solved"
    REVEALED = "revealed"
    EXHAUSTED = "exhausted"
    SUBMITTED = "submitted"  # an incident drill's diagnosis was submitted


CLOSED_MESSAGES = {
    Closed.SOLVED: "This part was answered correctly already; its answer is shown.",
    Closed.REVEALED: "You asked for this part's answer, so it takes no more tries.",
    Closed.EXHAUSTED: "You have used every try allowed on this part.",
    Closed.SUBMITTED: "This drill's diagnosis was submitted; a drill is submitted once.",
}
# A deferred part that kept SAVES_CEILING saves: the last one counts.
SAVES_MESSAGE = (
    f"This part has kept {SAVES_CEILING} saves, the most a part keeps; the last one saved counts."
)
# A part closed by the ceiling (a quiz with no limit of its own): the refusal names it.
CEILING_MESSAGE = (
    f"This part has taken {TRIES_CEILING} tries, the most any part takes; ask for another "
    "variant of the question to keep practising."
)


def closed_message(closed: Closed, rules: Rules) -> str:
    """Why a part takes no more tries, as the refusal and the pages say it: a quiz with
    no limit of its own (or one above the ceiling) that ran into the ceiling names it."""
    own_limit = rules.tries is not None and rules.tries <= TRIES_CEILING
    if closed == Closed.EXHAUSTED and not own_limit:
        return CEILING_MESSAGE
    return CLOSED_MESSAGES[closed]


@dataclass(frozen=True)
class PartPolicy:
    name: str
    tries: int  # valid answers stored
    tries_left: int | None  # immediate feedback: None if the quiz sets no limit (the
    # part still closes at TRIES_CEILING tries); deferred: None
    closed: Closed | None  # immediate feedback: why no more tries are taken
    accepts: bool  # the learner may send an answer now
    show_grades: bool  # correctness, score, misconception and feedback of its tries
    show_answer: bool  # the correct value
    score: float  # what the part earns under the quiz's rules (shown with show_grades)
    hints_used: int = 0  # hints asked from this part
    can_hint: bool = False  # the learner may ask for a hint from this part now
    closed_message: str = ""  # why it is closed, as refusals and pages say it


@dataclass(frozen=True)
class QuestionPolicy:
    parts: dict[str, PartPolicy]
    show_solution: bool  # every part's answer may show, so the worked solution may
    show_score: bool
    score: float
    can_reveal: bool  # some part could still be revealed by the learner
    hints_offered: bool = False  # the quiz offers hints (and the reader is its learner)
    hints_used: int = 0  # hints shown on this question, from any part


def part_policy(
    *,
    name: str,
    tries: Sequence,
    revealed: bool,
    rules: Rules,
    over: bool,
    grades: bool,
    learner: bool,
    hints: int = 0,
    offered: bool = False,
) -> PartPolicy:
    """One part. `tries`: its valid responses in stored order; `over`: the attempt takes
    no more answers; `grades`: grades_visible(); `learner`: the reader is the attempt's
    own learner (anyone else who may read the attempt sees everything); `hints`: hints
    asked from it; `offered`: hints_offered() for its quiz."""
    score = part_score(tries, rules, hints)
    if rules.deferred:
        show = grades or not learner
        full = len(tries) >= SAVES_CEILING
        accepts = learner and not over and not full
        return PartPolicy(
            name,
            len(tries),
            None,
            Closed.EXHAUSTED if full else None,
            accepts,
            show,
            show,
            score,
            hints,
            accepts and offered,
            SAVES_MESSAGE if full else "",
        )
    limit = rules.tries
    counted = tries if limit is None else tries[:limit]
    # its own limit, or the ceiling every part has, whichever comes first
    cap = TRIES_CEILING if limit is None else min(limit, TRIES_CEILING)
    closed = None
    if any(r.correct for r in counted):
        closed = Closed.SOLVED
    elif revealed:
        closed = Closed.REVEALED
    elif len(tries) >= cap:
        closed = Closed.EXHAUSTED
    left = None if limit is None else max(0, cap - len(tries))
    show_answer = closed is not None or over or not learner
    accepts = learner and not over and closed is None
    return PartPolicy(
        name,
        len(tries),
        left,
        closed,
        accepts,
        True,
        show_answer,
        score,
        hints,
        accepts and offered,
        closed_message(closed, rules) if closed is not None else "",
    )


def question_policy(
    *,
    parts: Sequence[Mapping],
    tries: Mapping[str, Sequence],
    revealed: Iterable[str],
    rules: Rules,
    over: bool,
    grades: bool,
    learner: bool,
    hints: Mapping[str, int] | None = None,
    offered: bool = False,
    drill: bool = False,
) -> QuestionPolicy:
    """Every part of one question, and what follows for the question as a whole.
    `hints`: Question.hints ({part: hints asked from it}); `offered`: hints_offered();
    `drill`: the question is an incident drill (see the module's docstring)."""
    revealed = set(revealed)
    hints = hints or {}
    offered = offered and not drill
    policies = {
        p["name"]: part_policy(
            name=p["name"],
            tries=tries.get(p["name"], ()),
            revealed=p["name"] in revealed,
            rules=rules,
            over=over,
            grades=grades,
            learner=learner,
            hints=int(hints.get(p["name"], 0)),
            offered=offered,
        )
        for p in parts
    }
    if drill:
        policies = _drill_parts(policies, rules)
    show_score = all(pp.show_grades for pp in policies.values())
    return QuestionPolicy(
        parts=policies,
        show_solution=all(pp.show_answer for pp in policies.values()),
        show_score=show_score,
        score=question_score(parts, {n: pp.score for n, pp in policies.items()}),
        can_reveal=not rules.deferred and not drill and any(pp.accepts for pp in policies.values()),
        hints_offered=offered and learner,
        hints_used=sum(int(n) for n in hints.values()),
    )


def _drill_parts(policies: dict[str, PartPolicy], rules: Rules) -> dict[str, PartPolicy]:
    """A drill's parts: answered only by the drill's submission, which stores one answer
    to each; under immediate feedback that submission closes them all."""
    submitted = all(pp.tries for pp in policies.values())
    out = {}
    for name, pp in policies.items():
        if not rules.deferred and submitted:
            pp = replace(
                pp,
                closed=Closed.SUBMITTED,
                closed_message=CLOSED_MESSAGES[Closed.SUBMITTED],
                show_answer=True,
                tries_left=0,
            )
        out[name] = replace(pp, accepts=False, can_hint=False)
    return out
