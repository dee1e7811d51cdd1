"""Feedback policy, one case per rule."""

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace as NS

from assess.models import Attempt, Quiz
from assess.policy import Closed, feedback_visible, part_policy, question_policy
from assess.scoring import Rules

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def attempt(
    feedback, status=Attempt.Status.OPEN, closes_at=None, deadline=None, extended_until=None
):
    quiz = Quiz(feedback=feedback, closes_at=closes_at, extended_until=extended_until)
    return Attempt(quiz=quiz, status=status, deadline=deadline)


def test_immediately():
    assert feedback_visible(attempt=attempt(Quiz.Feedback.IMMEDIATELY), now=NOW)


def test_after_attempt():
    rule = Quiz.Feedback.AFTER_ATTEMPT
    assert not feedback_visible(attempt=attempt(rule), now=NOW)
    assert feedback_visible(attempt=attempt(rule, Attempt.Status.FINISHED), now=NOW)
    assert feedback_visible(attempt=attempt(rule, Attempt.Status.EXPIRED), now=NOW)
    # Past the deadline the attempt is over, even before the expiry task runs.
    assert feedback_visible(attempt=attempt(rule, deadline=NOW - timedelta(seconds=1)), now=NOW)


def test_after_close():
    rule = Quiz.Feedback.AFTER_CLOSE
    done = Attempt.Status.FINISHED
    assert not feedback_visible(attempt=attempt(rule, done, NOW + timedelta(1)), now=NOW)
    assert feedback_visible(attempt=attempt(rule, done, NOW), now=NOW)


def test_after_close_waits_for_the_latest_extended_close():
    """Closed for everyone: the quiz's close and the latest close an extension gives,
    read from the quiz row the caller has."""
    rule = Quiz.Feedback.AFTER_CLOSE
    done = Attempt.Status.FINISHED
    closed, later = NOW - timedelta(hours=1), NOW + timedelta(hours=1)
    extended = attempt(rule, done, closes_at=closed, extended_until=later)
    assert extended.quiz.closed_for_all_at == later
    assert not feedback_visible(attempt=extended, now=NOW)
    assert feedback_visible(attempt=extended, now=later)
    # An extension close before the quiz's own (the quiz's close moved since) counts
    # for nothing: the later of the two decides.
    moved = attempt(rule, done, closes_at=later, extended_until=closed)
    assert moved.quiz.closed_for_all_at == later
    assert not feedback_visible(attempt=moved, now=NOW)
    # A quiz that never closes is never closed for everyone.
    assert attempt(rule, done, extended_until=closed).quiz.closed_for_all_at is None


# ------------------------------------------------------------------- parts and tries

WRONG = NS(correct=False, score=0.0)
RIGHT = NS(correct=True, score=1.0)
HOMEWORK = Rules(deferred=False, tries=3)
PRACTICE = Rules(deferred=False)
EXAM = Rules(deferred=True)


def part(tries=(), rules=PRACTICE, revealed=False, over=False, grades=True, learner=True):
    return part_policy(
        name="a",
        tries=list(tries),
        revealed=revealed,
        rules=rules,
        over=over,
        grades=grades,
        learner=learner,
    )


def test_an_open_part_hides_its_answer_after_a_wrong_try():
    p = part([WRONG])
    assert (p.accepts, p.show_answer, p.show_grades, p.closed) == (True, False, True, None)


def test_a_correct_try_closes_the_part_and_shows_the_answer():
    p = part([WRONG, RIGHT])
    assert (p.accepts, p.show_answer, p.closed) == (False, True, Closed.SOLVED)


def test_the_last_allowed_try_closes_the_part():
    p = part([WRONG, WRONG], rules=HOMEWORK)
    assert (p.accepts, p.show_answer, p.tries_left) == (True, False, 1)
    p = part([WRONG, WRONG, WRONG], rules=HOMEWORK)
    assert (p.accepts, p.show_answer, p.closed, p.tries_left) == (
        False,
        True,
        Closed.EXHAUSTED,
        0,
    )


def test_a_reveal_closes_the_part_and_shows_the_answer():
    p = part([WRONG], revealed=True)
    assert (p.accepts, p.show_answer, p.closed) == (False, True, Closed.REVEALED)
    # A correct try before the reveal still reads as solved.
    assert part([RIGHT], revealed=True).closed == Closed.SOLVED


def test_an_untouched_part_shows_its_answer_only_once_the_attempt_is_over():
    assert not part([]).show_answer
    assert part([], over=True).show_answer
    assert not part([], over=True).accepts


def test_deferred_feedback_shows_nothing_until_grades_are_released():
    p = part([RIGHT], rules=EXAM, grades=False)
    assert (p.accepts, p.show_answer, p.show_grades) == (True, False, False)
    p = part([RIGHT], rules=EXAM, grades=True, over=True)
    assert (p.accepts, p.show_answer, p.show_grades) == (False, True, True)


def test_someone_else_reading_sees_everything_and_answers_nothing():
    p = part([WRONG], rules=EXAM, grades=False, learner=False)
    assert (p.accepts, p.show_answer, p.show_grades) == (False, True, True)


def test_a_solution_needs_every_part_closed():
    parts = [{"name": "a"}, {"name": "b"}]

    def q(tries, revealed=()):
        return question_policy(
            parts=parts,
            tries=tries,
            revealed=revealed,
            rules=PRACTICE,
            over=False,
            grades=True,
            learner=True,
        )

    assert not q({"a": [RIGHT]}).show_solution
    assert q({"a": [RIGHT]}).can_reveal
    both = q({"a": [RIGHT]}, revealed=["b"])
    assert both.show_solution and not both.can_reveal
    assert both.score == 0.5


def test_hints_by_mode_and_part_state_and_what_they_cost():
    """Practice and homework offer hints, exams and certifications never; only on a part
    that still takes tries; homework charges hint_penalty per hint, practice nothing."""
    from assess.policy import hints_offered
    from assess.scoring import part_score

    offered = {mode: hints_offered(quiz=Quiz(mode=mode)) for mode in Quiz.Mode.values}
    assert offered == {"practice": True, "homework": True, "exam": False, "certification": False}
    right = NS(correct=True, score=1.0)
    common = dict(revealed=False, rules=Rules(False), over=False, grades=True, offered=True)
    assert part_policy(name="a", tries=[], learner=True, **common).can_hint is True
    assert part_policy(name="a", tries=[right], learner=True, **common).can_hint is False
    assert part_policy(name="a", tries=[], learner=False, **common).can_hint is False
    assert (
        part_policy(name="a", tries=[], learner=True, **{**common, "over": True}).can_hint is False
    )
    homework = Rules.of(Quiz(mode="homework", feedback="immediately", hint_penalty=0.3))
    practice = Rules.of(Quiz(mode="practice", feedback="immediately", hint_penalty=0.3))
    assert part_score([right], homework, hints=2) == 0.4
    assert part_score([right], homework, hints=4) == 0.0  # never below zero
    assert part_score([right], practice, hints=2) == 1.0
