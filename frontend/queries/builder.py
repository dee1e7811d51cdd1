"""Reads of the quiz builder and the quiz's own page: the template library grouped by
lesson and searched, the preview of a whole quiz as a learner sees it, and what an
instructor may do to a quiz now.

The library lists each template once, under the first lesson of the course that tests
it (the lesson that introduces it), naming up to three of the course's other lessons that
use it too; a search matches every word in its title, slug, lessons and modules. A ticked
template always shows, so a search never hides (nor drops) what the instructor picked.

The preview draws each slot's first template from one fixed seed and renders it with
the take pages' own pieces: the statement as question_from_variant renders it for an
attempt, and the answer boxes as frontend/take/_part.html draws them, with the hints
and tries a learner is shown, and never a value, a verdict or a worked solution.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Prefetch, Q
from django.utils import timezone

from assess import selectors
from assess.models import Attempt, Extension, Quiz, Slot
from assess.scoring import Rules
from assess.services.questions import question_from_variant
from assess.services.quizzes.spec import spec_check, spec_course
from curricula import selectors as curricula_selectors
from curricula.models import Course, Lesson, LessonTemplate
from frontend.hints import unit_hint
from frontend.queries.attempts import PartView, rules_note
from frontend.queries.common import template_title
from problems.engine import registry
from problems.engine.variants import Variant

PREVIEW_SEED = 20261201  # one seed for every preview: the same quiz always looks the same
OTHER_TEMPLATES = "Templates no lesson of this course uses"
AUTHORED_TEMPLATES = "Written for this course by its instructors"
# The library's search: each word is looked for in every template's text, so the words
# are bounded (a form field of 2.5 MB of "e " took 4.7 s); the box's maxlength says so.
MAX_QUERY_CHARS = 200


@dataclass(frozen=True)
class LibraryItem:
    slug: str
    title: str
    also_in: tuple[str, ...]  # the course's other lessons that test it
    picked: frozenset[int]  # the slots it is ticked in
    authored: bool = False  # written for the course by its instructors (authoring)


@dataclass(frozen=True)
class LibraryGroup:
    lesson: str
    module: str
    items: list[LibraryItem]
    open: bool  # a search matched in it, or it holds a ticked template


@dataclass(frozen=True)
class Library:
    groups: list[LibraryGroup]
    query: str
    shown: int
    total: int
    slots: list[int]
    max_query: int = MAX_QUERY_CHARS  # the search box's maxlength


def _lessons(course_slug: str | None) -> list[Lesson]:
    """The course's lessons in teaching order (every course's, for a quiz with none)."""
    if course_slug:
        try:
            course = curricula_selectors.course_get(slug=course_slug)
        except Course.DoesNotExist:
            course = None
        if course is not None:
            return [lesson for m in course.modules.all() for lesson in m.lessons.all()]
    links = Prefetch("template_links", queryset=LessonTemplate.objects.order_by("order"))
    return list(
        Lesson.objects.select_related("module__course")
        .prefetch_related(links)
        .order_by("module__course__order", "module__order", "order")
    )


def _matches(words: list[str], haystack: str) -> bool:
    return all(word in haystack for word in words)


def _authored_group(
    authored: Sequence[tuple[str, str, str]],
    course_slug: str | None,
    words: list[str],
    picks: dict[int, Sequence[str]],
) -> LibraryGroup | None:
    """The course's published authored templates, first and marked as such."""
    items = []
    for slug, title, course in authored:
        if course != course_slug:
            continue
        picked = frozenset(i for i, pool in picks.items() if slug in pool)
        if picked or _matches(words, f"{slug} {title}".lower()):
            items.append(LibraryItem(slug, title, (), picked, authored=True))
    if not items:
        return None
    open_ = bool(words) or any(i.picked for i in items)
    return LibraryGroup(lesson=AUTHORED_TEMPLATES, module="", items=items, open=open_)


def template_library(
    *,
    course_slug: str | None,
    query: str,
    picks: dict[int, Sequence[str]],
    authored: Sequence[tuple[str, str, str]] = (),
) -> Library:
    """The registry's built-in templates grouped by the course's lessons, narrowed by
    `query`, after the course's own published authored templates (slug, title, course)."""
    known = {t.slug: t for t in registry.all_templates()}
    homes: dict[str, Lesson] = {}
    lessons_of: dict[str, list[Lesson]] = {}
    lessons = _lessons(course_slug)
    for lesson in lessons:
        for link in lesson.template_links.all():
            if link.template_slug in known:
                homes.setdefault(link.template_slug, lesson)
                lessons_of.setdefault(link.template_slug, []).append(lesson)
    query = query[:MAX_QUERY_CHARS]
    words = list(dict.fromkeys(query.lower().split()))
    picked = {slug: frozenset(i for i, pool in picks.items() if slug in pool) for slug in known}

    def item(slug: str) -> LibraryItem | None:
        mine = lessons_of.get(slug, [])
        hay = " ".join(
            [slug, known[slug].title, *(x.title for x in mine), *(x.module.title for x in mine)]
        ).lower()
        if not (picked[slug] or _matches(words, hay)):
            return None
        also = tuple(x.title for x in mine[1:])
        return LibraryItem(slug, known[slug].title, also, picked[slug])

    groups = []
    for lesson in [*lessons, None]:
        slugs = (
            [s for s, home in homes.items() if home is lesson]
            if lesson is not None
            else [s for s in known if s not in homes]
        )
        items = [i for i in (item(s) for s in slugs) if i is not None]
        if items:
            groups.append(
                LibraryGroup(
                    lesson=lesson.title if lesson is not None else OTHER_TEMPLATES,
                    module=lesson.module.title if lesson is not None else "",
                    items=items,
                    open=bool(words) or any(i.picked for i in items),
                )
            )
    own = _authored_group(authored, course_slug, words, picks)
    if own is not None:
        groups.insert(0, own)
    shown = sum(len(g.items) for g in groups)
    total = len(known) + sum(1 for *_, course in authored if course == course_slug)
    return Library(groups, query, shown, total, sorted(picks))


# ---------------------------------------------------------------------------- preview


@dataclass(frozen=True)
class PreviewQuestion:
    """What a learner's question shows: `pk` is only a prefix for the page's ids."""

    pk: str
    order: int
    title: str
    points: int
    statement_html: str
    parts: list[PartView]
    others: tuple[str, ...]  # titles of the slot's other templates, one of which may come


@dataclass(frozen=True)
class QuizPreview:
    questions: list[PreviewQuestion]
    rules: str
    total_points: int


def _preview_part(part: dict, tries_left: int | None) -> PartView:
    choices = tuple(part.get("choices") or ())
    unit = part.get("unit") or ""
    return PartView(
        name=part["name"],
        label=part.get("label") or part["name"],
        unit=unit,
        kind=part["kind"],
        choices=choices,
        hint=unit_hint(unit, part["kind"], choices),
        text="",
        error="",
        latest=None,
        tries=0,
        show_grades=False,
        answer="",  # never a value in a preview
        accepts=True,
        tries_left=tries_left,
        closed_message="",
        can_reveal=False,
    )


def _drawable(slug: str) -> bool:
    """Built-in, a drill, or a published authored template (the registry's resolvers)."""
    try:
        registry.get(slug)
    except KeyError:
        return False
    return True


def quiz_preview(*, quiz: Quiz, slots: Sequence[Slot]) -> QuizPreview:
    """Every slot's question as its learners will see it (saved or not: `quiz` and
    `slots` may be unsaved rows built from the builder's form). The caller gates."""
    rules = Rules.of(quiz)
    tries_left = None if rules.deferred else rules.tries
    questions = []
    for order, slot in enumerate(slots, start=1):
        pool = [slug for slug in slot.templates if _drawable(slug)]
        if not pool:
            continue
        variant = Variant.from_seed(pool[0], PREVIEW_SEED)
        question = question_from_variant(
            attempt=None,
            slot=slot,
            order=order,
            variant_number=0,
            seed=PREVIEW_SEED,
            variant=variant,
        )
        questions.append(
            PreviewQuestion(
                pk=f"preview{order}",
                order=order,
                title=variant.template.title,
                points=slot.points,
                statement_html=question.statement_html,
                parts=[_preview_part(p, tries_left) for p in question.answers],
                others=tuple(template_title(s) for s in pool[1:]),
            )
        )
    return QuizPreview(
        questions=questions,
        rules=rules_note(quiz),
        total_points=sum(q.points for q in questions),
    )


# -------------------------------------------------------------------------- quiz page


@dataclass(frozen=True)
class QuizPage:
    quiz: Quiz
    status: str
    slots: list[tuple[Slot, list[str]]]  # each slot with its templates' titles
    attempts: int  # every learner's: what freezes the quiz, whoever can see them
    can_change: bool  # staff or a course-wide instructor
    managed_elsewhere: bool  # lesson practice or a track's exam
    now: datetime

    @property
    def editable(self) -> bool:
        return self.can_change and not self.managed_elsewhere and self.attempts == 0

    # The buttons the page offers; the services decide again on the post.
    @property
    def _changes_here(self) -> bool:
        return self.can_change and not self.managed_elsewhere

    @property
    def can_publish(self) -> bool:
        return self._changes_here and self.status == Quiz.Status.DRAFT

    @property
    def can_unpublish(self) -> bool:
        return self._changes_here and self.status == Quiz.Status.PUBLISHED and not self.attempts

    @property
    def can_close(self) -> bool:
        opened = self.quiz.opens_at is None or self.quiz.opens_at < self.now
        return self._changes_here and self.status == Quiz.Status.PUBLISHED and opened

    @property
    def can_duplicate(self) -> bool:
        return self.can_change and not self.quiz.adaptive


def quiz_page(*, user, pk: int) -> QuizPage:
    """A quiz the user instructs (404 for anyone else), with what they may do now."""
    quiz = selectors.quiz_get_for_instructor(user=user, pk=pk)
    now = timezone.now()
    slots = [(s, [template_title(t) for t in s.templates]) for s in quiz.slots.order_by("order")]
    managed = quiz.adaptive or (
        quiz.mode == Quiz.Mode.CERTIFICATION and hasattr(quiz, "certification_track")
    )
    return QuizPage(
        quiz=quiz,
        status=quiz.status_at(now),
        slots=slots,
        attempts=Attempt.objects.filter(quiz=quiz).count(),
        can_change=selectors.user_is_course_instructor(user=user, course_id=quiz.course_id),
        managed_elsewhere=managed,
        now=now,
    )


def spec_preview(spec) -> QuizPreview:
    """The builder's unsaved quiz as its learners would see it, after the service's own
    check of the spec (ValidationError, field by field, as saving would raise)."""
    checked = spec_check(spec, course=spec_course(spec))
    quiz = Quiz(**checked.field_values())
    slots = [
        Slot(order=i, points=s.points, templates=list(s.templates))
        for i, s in enumerate(spec.slots, start=1)
    ]
    return quiz_preview(quiz=quiz, slots=slots)


@dataclass(frozen=True)
class CloseNow:
    """What "Close now" would do, said before it is done: the open attempts it ends at
    once and those that keep a later close from an extension."""

    quiz: Quiz
    ending: int
    kept: int


def quiz_close_preview(*, quiz: Quiz, now: datetime | None = None) -> CloseNow:
    """Counts the quiz's open attempts as quiz_close would treat them (two queries)."""
    now = now or timezone.now()
    extended = Extension.objects.filter(quiz=quiz, closes_at__gt=now).values("learner_id")
    running = Attempt.objects.filter(quiz=quiz, status=Attempt.Status.OPEN).filter(
        Q(deadline__isnull=True) | Q(deadline__gt=now)
    )
    kept = running.filter(learner_id__in=extended).count()
    return CloseNow(quiz=quiz, ending=running.count() - kept, kept=kept)
