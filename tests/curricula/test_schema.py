"""The data files and the schema that guards them; no database needed."""

from __future__ import annotations

import pytest

from curricula.schema import (
    CORE_TEMPLATE_SLUGS,
    CurriculumDataError,
    load_catalog,
    prefixed_lesson_slug,
    slugify_title,
)
from problems.engine import registry
from tests.curricula.conftest import LEARN, course_doc, find_lesson, lesson_doc, write_courses


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


# --- the slug rule -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("GPU Memory Math", "gpu-memory-math"),
        ("Learn AI Infrastructure", "learn-ai-infrastructure"),
        ("AI Networking: InfiniBand & RoCE", "ai-networking-infiniband-roce"),
        ("Prefill, Decode and the Cost of a Token", "prefill-decode-and-the-cost-of-a-token"),
        ("Bring-up & Validation", "bring-up-validation"),
        ("Power, Cooling & the AI Data Center", "power-cooling-the-ai-data-center"),
        ("The Model's Scratchpad", "the-models-scratchpad"),
        ("The Model\u2019s Scratchpad", "the-models-scratchpad"),
        ("AI Infrastructure: LLM-D, vLLM and GPUs", "ai-infrastructure-llm-d-vllm-and-gpus"),
        ("  Café -- Über  ", "cafe-uber"),
    ],
)
def test_slugify_title(title, slug):
    assert slugify_title(title) == slug


def test_every_slug_in_the_data_follows_the_rule(catalog):
    for course in catalog.courses:
        assert course.slug == slugify_title(course.title)
        for module in course.modules:
            assert module.slug == slugify_title(module.title)
    # No two packaged courses share a lesson title today, so every lesson is unprefixed.
    slugs = [lesson.slug for _c, _m, lesson in catalog.lessons()]
    assert slugs == [slugify_title(lesson.title) for _c, _m, lesson in catalog.lessons()]
    assert len(slugs) == len(set(slugs))


def _two_courses(second_slug: str | None = None, *, first_slug: str | None = None):
    first = course_doc("Alpha Course", [lesson_doc("The KV Cache", slug=first_slug)], order=1)
    second = course_doc(
        "Beta Course",
        [lesson_doc("The KV Cache", slug=second_slug), lesson_doc("Something Else")],
        order=2,
    )
    return first, second


def test_later_course_prefixes_a_shared_lesson_title(tmp_path, core_templates):
    first, second = _two_courses(prefixed_lesson_slug("beta-course", "The KV Cache"))
    catalog = load_catalog(write_courses(tmp_path, first, second), templates=core_templates)
    slugs = {c.slug: [lesson.slug for _m, lesson in c.lessons()] for c in catalog.courses}
    assert slugs == {
        "alpha-course": ["the-kv-cache"],
        "beta-course": ["beta-course-the-kv-cache", "something-else"],
    }


def test_later_course_without_the_prefix_is_refused(tmp_path, core_templates):
    first, second = _two_courses()
    with pytest.raises(CurriculumDataError) as info:
        load_catalog(write_courses(tmp_path, first, second), templates=core_templates)
    assert str(info.value) == (
        "beta-course.yaml: lesson 'the-kv-cache': field 'slug': expected "
        "'beta-course-the-kv-cache' (earlier course 'alpha-course' has a lesson titled "
        "'The KV Cache')"
    )


def test_the_earlier_course_keeps_the_plain_slug(tmp_path, core_templates):
    # `order`, not file name or slug, decides which course is the later one.
    first, second = _two_courses(prefixed_lesson_slug("beta-course", "The KV Cache"))
    first["order"], second["order"] = 2, 1
    with pytest.raises(CurriculumDataError) as info:
        load_catalog(write_courses(tmp_path, first, second), templates=core_templates)
    assert str(info.value) == (
        "beta-course.yaml: lesson 'beta-course-the-kv-cache': field 'slug': expected 'the-kv-cache'"
    )


def test_same_title_twice_in_one_course_is_refused(tmp_path, core_templates):
    doc = course_doc("Alpha Course", [lesson_doc("The KV Cache"), lesson_doc("The KV cache!")])
    with pytest.raises(CurriculumDataError, match="field 'title': title slugifies like"):
        load_catalog(write_courses(tmp_path, doc), templates=core_templates)


# --- the courses -----------------------------------------------------------------------


def test_four_courses_in_order(catalog):
    assert [(c.slug, c.order) for c in catalog.courses] == [
        ("learn-ai-infrastructure", 1),
        ("foundations-of-ai-infrastructure", 2),
        ("ai-infrastructure-llm-d-vllm-and-gpus", 3),
        ("ai-infrastructure-from-scratch", 4),
    ]


def test_learn_ai_infrastructure_follows_the_outline(catalog):
    course = catalog.course("learn-ai-infrastructure")
    minutes = {m.slug: [lesson.minutes for lesson in m.lessons] for m in course.modules}
    assert minutes == {
        "basic": [30, 30, 30, 35, 30, 30, 30],
        "intermediate": [30, 32, 34, 32, 30, 32, 32, 32, 30, 30, 35, 35, 35],
        "advanced": [35, 32, 32, 35, 30, 35, 35, 35, 30, 35],
    }
    titles = [lesson.title for _m, lesson in course.lessons()]
    assert len(titles) == 30
    assert titles[:2] == ["What AI Workloads Need", "How an LLM Writes Text"]
    assert titles[5] == "GPU Memory Math"
    assert titles[7] == "Prefill, Decode and the Cost of a Token"
    assert titles[20] == "LLM Inference at Scale"
    assert titles[-1] == "Triton Kernels"


def test_foundations_has_five_modules_and_a_capstone(catalog):
    course = catalog.course("foundations-of-ai-infrastructure")
    titles = [m.title for m in course.modules]
    assert titles == [
        "The machine",
        "The request",
        "The arithmetic",
        "The service",
        "The deployment",
        "Capstone",
    ]
    for module in course.modules[:5]:
        assert 2 <= len(module.lessons) <= 4, module.slug
    assert [lesson.slug for lesson in course.modules[5].lessons] == ["capstone-capacity-memo"]


def test_llm_d_course_is_one_module_told_in_order(catalog):
    course = catalog.course("ai-infrastructure-llm-d-vllm-and-gpus")
    assert len(course.modules) == 1
    slugs = [lesson.slug for _m, lesson in course.lessons()]
    assert len(slugs) == 12
    assert slugs[0] == "what-a-model-is"
    assert slugs.index("vllm-and-the-job-of-a-model-server") < slugs.index(
        "the-models-scratchpad-and-reusing-saved-work"
    )
    assert slugs[-3:] == [
        "why-the-classic-load-balancer-breaks",
        "llm-d-routing-and-disaggregation",
        "llm-d-on-kubernetes",
    ]


def test_from_scratch_has_six_lessons_with_the_outline_minutes(catalog):
    course = catalog.course("ai-infrastructure-from-scratch")
    assert len(course.modules) == 1
    lessons = [(lesson.title, lesson.minutes) for _m, lesson in course.lessons()]
    assert lessons == [
        ("The Layers and the Build-or-Buy Ladder", 40),
        ("Compute and Capacity", 50),
        ("The Cluster", 50),
        ("The Serving Layer", 55),
        ("The Data Layer", 45),
        ("Platform and Operations", 50),
    ]
    assert sum(m for _t, m in lessons) == 4 * 60 + 50


# --- templates -------------------------------------------------------------------------


def test_every_core_template_is_used_by_a_lesson(catalog):
    used = {slug for _c, _m, lesson in catalog.lessons() for slug in lesson.templates}
    assert [slug for slug in CORE_TEMPLATE_SLUGS if slug not in used] == []


def test_registry_serves_every_core_template():
    assert sorted(set(CORE_TEMPLATE_SLUGS) - set(registry.slugs())) == []


def test_lessons_a_template_names_link_back_to_it(catalog):
    """Template authors list the lessons they serve; the curriculum must agree."""
    lessons = {lesson.slug: lesson for _c, _m, lesson in catalog.lessons()}
    disagreements = []
    for template in registry.all_templates():
        for slug in template.lessons:
            if slug not in lessons:
                disagreements.append(f"{template.slug}: no lesson {slug!r}")
            elif template.slug not in lessons[slug].templates:
                disagreements.append(f"{template.slug}: lesson {slug!r} does not list it")
    assert disagreements == []


def test_each_linked_template_practises_a_skill_of_its_lesson(catalog):
    unrelated = [
        f"{lesson.slug} -> {slug}"
        for _c, _m, lesson in catalog.lessons()
        for slug in lesson.templates
        if not set(registry.get(slug).skills) & set(lesson.skills)
    ]
    assert unrelated == []


def test_planned_lessons_have_no_templates_and_ready_ones_do(catalog):
    for _c, _m, lesson in catalog.lessons():
        assert (lesson.status == "planned") == (not lesson.templates), lesson.slug


# --- clear errors for bad files --------------------------------------------------------


def _error(data_dir) -> str:
    with pytest.raises(CurriculumDataError) as info:
        load_catalog(data_dir)
    return str(info.value)


def test_unknown_template_names_file_lesson_and_template(edit):
    def typo(doc):
        find_lesson(doc, "gpu-memory-math")["templates"][0] = "weights-memroy"

    assert _error(edit(LEARN, typo)) == (
        "learn-ai-infrastructure.yaml: lesson 'gpu-memory-math': unknown template 'weights-memroy'"
    )


def test_missing_field_names_file_lesson_and_field(edit):
    def drop(doc):
        del find_lesson(doc, "gpu-memory-math")["minutes"]

    assert _error(edit(LEARN, drop)) == (
        "learn-ai-infrastructure.yaml: lesson 'gpu-memory-math': field 'minutes': missing"
    )


def test_bad_lesson_slug_names_the_expected_one(edit):
    def rename(doc):
        find_lesson(doc, "gpu-memory-math")["slug"] = "gpu-memory-maths"

    assert _error(edit(LEARN, rename)) == (
        "learn-ai-infrastructure.yaml: lesson 'gpu-memory-maths': field 'slug': "
        "'gpu-memory-maths' does not follow the slug rule; expected 'gpu-memory-math'"
    )


def test_slug_that_is_not_kebab_case(edit):
    def shout(doc):
        find_lesson(doc, "gpu-memory-math")["slug"] = "GPU_Memory_Math"

    assert _error(edit(LEARN, shout)) == (
        "learn-ai-infrastructure.yaml: lesson 'GPU_Memory_Math': field 'slug': "
        "'GPU_Memory_Math' is not lower-case kebab-case"
    )


def test_bad_module_slug(edit):
    def rename(doc):
        doc["modules"][1]["slug"] = "middle"

    assert _error(edit(LEARN, rename)) == (
        "learn-ai-infrastructure.yaml: module 'middle': field 'slug': 'middle' does not "
        "follow the slug rule for its title; expected 'intermediate'"
    )


def test_course_slug_must_match_title_and_file_name(edit):
    def retitle(doc):
        doc["title"] = "Learn AI Infra"

    assert _error(edit(LEARN, retitle)).startswith(
        "learn-ai-infrastructure.yaml: course: field 'slug': 'learn-ai-infrastructure' does "
        "not follow the slug rule"
    )


def test_file_must_be_named_after_its_course(data_dir):
    (data_dir / LEARN).rename(data_dir / "learn.yaml")
    assert _error(data_dir) == (
        "learn.yaml: course: field 'slug': a course file is named after its slug: "
        "expected learn-ai-infrastructure.yaml"
    )


def test_unknown_field_is_refused(edit):
    def extra(doc):
        find_lesson(doc, "the-kv-cache")["descripton"] = "typo'd key"

    assert _error(edit(LEARN, extra)) == (
        "learn-ai-infrastructure.yaml: lesson 'the-kv-cache': field 'descripton': "
        "unexpected field (not in the schema; check the spelling)"
    )


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("minutes", "30", "field 'minutes': input should be a valid integer"),
        ("status", "draft", "field 'status': input should be 'ready' or 'planned'"),
        ("objectives", [], "field 'objectives': list should have at least 1 item"),
        ("skills", ["Memory Math"], "field 'skills.0': 'Memory Math' is not lower-case"),
        ("templates", ["gb-gib", "gb-gib"], "field 'templates': 'gb-gib' is listed twice"),
    ],
)
def test_bad_values_name_their_field(edit, field, value, problem):
    def change(doc):
        find_lesson(doc, "inside-a-gpu")[field] = value

    message = _error(edit(LEARN, change))
    assert message.startswith(f"learn-ai-infrastructure.yaml: lesson 'inside-a-gpu': {problem}")


def test_lesson_without_a_slug_is_named_by_position(edit):
    def drop(doc):
        del doc["modules"][0]["lessons"][2]["slug"]

    assert _error(edit(LEARN, drop)) == (
        "learn-ai-infrastructure.yaml: lesson #3: field 'slug': missing"
    )


def test_duplicate_course_order(edit):
    def clash(doc):
        doc["order"] = 1

    message = _error(edit("ai-infrastructure-from-scratch.yaml", clash))
    assert message == (
        "learn-ai-infrastructure.yaml: course: field 'order': 1 is also the order of course "
        "'ai-infrastructure-from-scratch'"
    ) or message == (
        "ai-infrastructure-from-scratch.yaml: course: field 'order': 1 is also the order of "
        "course 'learn-ai-infrastructure'"
    )


def test_not_yaml(data_dir):
    (data_dir / LEARN).write_text("modules: [unclosed\n", encoding="utf-8")
    assert _error(data_dir).startswith("learn-ai-infrastructure.yaml: not valid YAML")


def test_empty_directory(tmp_path):
    with pytest.raises(CurriculumDataError, match="no \\*.yaml course files"):
        load_catalog(tmp_path)


# --- key ideas -----------------------------------------------------------------------


def test_every_lesson_has_key_ideas_that_render_without_stray_dollars(catalog):
    """Each of the four files' lessons carries key ideas; the formulas among them come out
    as MathML (a `$` left in the HTML would be an unbalanced formula shown as text)."""
    from problems.engine.render import render_markdown

    lessons = list(catalog.lessons())
    assert {course.slug for course, _m, _l in lessons} == {
        "learn-ai-infrastructure",
        "foundations-of-ai-infrastructure",
        "ai-infrastructure-llm-d-vllm-and-gpus",
        "ai-infrastructure-from-scratch",
    }
    with_math = 0
    for _course, _module, lesson in lessons:
        assert lesson.key_ideas.strip(), lesson.slug
        html = render_markdown(lesson.key_ideas)
        assert "$" not in html, lesson.slug
        with_math += "<math" in html
    assert with_math >= len(lessons) - 5  # a few lessons are facts, not formulas


def test_key_ideas_keep_decimal_and_binary_units_apart(catalog):
    ideas = catalog.course("learn-ai-infrastructure")
    gpu_math = next(lesson for _m, lesson in ideas.lessons() if lesson.slug == "gpu-memory-math")
    assert "$10^{9}$" in gpu_math.key_ideas and "$2^{30}$" in gpu_math.key_ideas


def test_a_lesson_without_key_ideas_is_refused(edit):
    def drop(doc):
        del find_lesson(doc, "gpu-memory-math")["key_ideas"]

    assert _error(edit(LEARN, drop)) == (
        "learn-ai-infrastructure.yaml: lesson 'gpu-memory-math': field 'key_ideas': missing"
    )


@pytest.mark.parametrize("value", ["", "   \n  "])
def test_blank_key_ideas_are_refused(edit, value):
    def blank(doc):
        find_lesson(doc, "the-kv-cache")["key_ideas"] = value

    message = _error(edit(LEARN, blank))
    assert message.startswith("learn-ai-infrastructure.yaml: lesson 'the-kv-cache': ")
    assert "field 'key_ideas'" in message
