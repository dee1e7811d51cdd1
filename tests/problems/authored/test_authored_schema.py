"""Validation of the file: every problem reported, each with the field path an author
finds it by, and the file readers' own refusals."""

import copy
import json
import random
import warnings
from pathlib import Path

import pytest
import yaml

from problems.authored.loader import parse_text, template_from_data, validate
from problems.authored.rules import AuthoringError
from problems.authored.schema import MAX_PROBLEMS
from tests.growth import calls

EXAMPLE_TEXT = (Path(__file__).parent / "data" / "team-kv-budget.yaml").read_text()
EXAMPLE = yaml.safe_load(EXAMPLE_TEXT)


def edited(change) -> dict:
    data = copy.deepcopy(EXAMPLE)
    change(data)
    return data


def _set(*path_and_value):
    *path, value = path_and_value

    def change(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


CASES = [
    (lambda d: d.pop("title"), "title: required"),
    (_set("parts", 0, "tolerence", {"rel": 0.01}), "parts[0].tolerence: unknown field"),
    (_set("parts", 1, "choices", [True, False]), "parts[1].choices[0]: is a YAML boolean"),
    (_set("parts", 0, "unit", "bytez"), "parts[0].unit: unknown unit 'bytez'"),
    (
        _set("parts", 0, "ask_unit", "ms"),
        "parts[0].ask_unit: 'ms' is not the same kind of quantity as 'byte'",
    ),
    (
        _set("params", "gpu", "accelerator", ["h100-sxm", "h300"]),
        "params.gpu.accelerator[1]: unknown accelerator 'h300'",
    ),
    (_set("slug", "Team KV!"), "slug: must be 3-60 lowercase letters, digits and hyphens"),
    (_set("params", "tokens", 5), "params.tokens: must be a mapping of fields"),
    (_set("params", "tokens", {"choices": [[1]]}), "params.tokens.choices[0]: must be a number"),
    (_set("params", "Bad-Name", {"range": [1, 2]}), "params.Bad-Name: must be a lowercase"),
    (_set("difficulty", 7), "difficulty: Input should be less than or equal to 5"),
    (_set("lessons", []), "lessons: List should have at least 1 item"),
    (
        _set("params", "tokens", {"range": [1, 4], "choices": [1, 2]}),
        "params.tokens: give exactly one of range, choices, model or accelerator",
    ),
    (_set("params", "tokens", {"range": [0.5, 4]}), "params.tokens.range: give a step"),
    (_set("params", "tokens", {"range": [8, 4]}), "params.tokens.range: the range is empty"),
    (_set("parts", 1, "unit", "GB"), "parts[1].unit: a choice part has none"),
    (_set("parts", 0, "kind", "integer"), "parts[0].tolerance: an integer part is graded exactly"),
    (_set("parts", 0, "choices", ["a", "b"]), "parts[0].choices: only a choice part has choices"),
    (_set("parts", 1, "name", "kv"), "parts[1].name: another part is already named 'kv'"),
    (
        _set("parts", 0, "tolerance", {"rel": 0.01, "sigfigs": 3}),
        "parts[0].tolerance: give rel and/or abs, or sigfigs, not both",
    ),
    (
        _set("statement", "{{model.layers}} layers"),
        "statement: {{model.layers}}: 'model' has no field 'layers'",
    ),
    (_set("statement", "{{tokens | furlongs}}"), "statement: {{tokens | furlongs}}: unknown unit"),
    (_set("solution", "Open {{tokens"), "solution: a '{{' is never closed by '}}'"),
    (_set("solution", "$" + "x" * 1500 + "$"), "solution: a formula is 1,500 characters"),
    (_set("hints", 0, "{{__import__('os')}}"), "hints[0]: {{__import__('os')}}: calling"),
    (
        _set("parts", 0, "misconceptions", 0, "feedback", "{{nope}}"),
        "parts[0].misconceptions[0].feedback: {{nope}}: unknown name 'nope'",
    ),
    (_set("params", "json", {"range": [1, 2]}), "params.json: 'json' is a reserved word"),
    (_set("params", "stored_defaults", {"range": [1, 2]}), "params.stored_defaults: 'stored"),
    (_set("params", "lambda", {"range": [1, 2]}), "params.lambda: 'lambda' is a reserved word"),
    (_set("constraints", ["tokens > 10 ** 6"]), "constraints: no draw in 200 satisfied them all"),
    (_set("parts", 0, "answer", "tokens / (batch - batch)"), "parts[0].answer: division by zero"),
    (_set("parts", 0, "answer", "gpu.sliding_window"), "parts[0].answer: 'gpu' has no field"),
    (_set("parts", 1, "answer", "'maybe'"), "parts[1].answer: gives 'maybe', not one of"),
    (_set("parts", 0, "answer", "'fits'"), "parts[0].answer: gives 'fits', not a number"),
    (
        _set("parts", 0, "answer", "model.sliding_window"),
        "parts[0].answer: model.sliding_window is not known for every record model may draw",
    ),
]


@pytest.mark.parametrize("change, expected", CASES)
def test_each_problem_is_named_by_its_field_path(change, expected):
    problems = validate(edited(change))
    assert any(line.startswith(expected) for line in problems), problems


def test_every_problem_is_reported_at_once():
    def change(data):
        data["parts"][0]["unit"] = "bytez"
        data["parts"][0]["answer"] = "layer * 2"
        data["constraints"] = ["tokens >"]

    problems = validate(edited(change))
    assert [p.split(":")[0] for p in problems] == [
        "constraints[0]",
        "parts[0].unit",
        "parts[0].answer",
    ]


def test_a_valid_template_has_no_problems_and_json_reads_the_same():
    assert validate(EXAMPLE) == []
    data = parse_text(json.dumps(EXAMPLE))
    assert template_from_data(data).Params.model_fields.keys() == {
        "model",
        "tokens",
        "batch",
        "gpu",
    }


@pytest.mark.parametrize(
    "text, expected",
    [
        ("- a\n- b\n", "(file): a template is a mapping of fields"),
        ("slug: [unclosed\n", "(file): not valid YAML"),
        ('{"slug": }', "(file): not valid JSON"),
        ("a: &x [1, 2]\nb: *x\n", "(file): YAML anchors and aliases"),
        ("[" * 5000 + "]" * 5000, "(file): nested more than 20 levels deep"),
        ('{"a": ' + "[" * 90_000 + "]" * 90_000 + "}", "(file): nested too deep to read"),
        ("x" * 300_000, "(file): 300,000 characters"),
    ],
)
def test_unreadable_files(text, expected):
    with pytest.raises(AuthoringError) as err:
        template_from_data(parse_text(text))
    assert err.value.problems[0].startswith(expected), err.value.problems


def test_deep_yaml_is_refused_from_the_first_events_before_anything_is_composed(monkeypatch):
    """5,000 nested brackets took 14 s to fail in PyYAML's recursive composer; the loader
    refuses them from the event stream once MAX_NESTING collections are open. Held by
    what it reads, not by a clock (a timed bound flaked on a busy machine): the composer
    never runs and no more events are read than the refusal needs (libyaml's scanner
    refuses the 5,000 past its own bound of 1,000 before the 21st; our message either
    way)."""
    from problems.authored import loader

    pulled = []
    parse = yaml.parse

    def counted(text, Loader):  # noqa: N803 (PyYAML's keyword)
        for event in parse(text, Loader=Loader):
            pulled.append(event)
            yield event

    def composed(*args, **kwargs):
        raise AssertionError("the composer ran")

    monkeypatch.setattr(loader.yaml, "parse", counted)
    monkeypatch.setattr(loader.yaml, "load", composed)  # libyaml's or PyYAML's
    monkeypatch.setattr(yaml.composer.Composer, "compose_node", composed)
    with pytest.raises(AuthoringError) as err:
        parse_text("slug: " + "[" * 5000 + "]" * 5000 + "\n")
    assert err.value.problems == [f"(file): nested more than {loader.MAX_NESTING} levels deep"]
    assert len(pulled) <= loader.MAX_NESTING + 5  # stream, document, key, the open ones


def test_a_parameter_may_be_named_like_pydantic_s_namespace():
    def change(data):
        data["params"]["model_size"] = {"choices": [7, 70]}
        data["statement"] += " {{model_size}}B parameters."

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        template = template_from_data(edited(change))
        params = template.generate(random.Random(0))
    assert params.model_size in (7, 70)
    assert f"{params.model_size}B parameters." in template.statement(params)


def test_a_stepped_decimal_range_stays_exact():
    def change(data):
        data["params"]["share"] = {"range": [0.1, 0.9], "step": 0.1}
        data["parts"][0]["answer"] = "share * 10"
        data["parts"][0]["unit"] = ""
        data["parts"][0].pop("ask_unit")
        data["parts"][0]["misconceptions"] = []

    data = edited(change)
    assert validate(data) == []
    template = template_from_data(data)
    seen = set()
    for seed in range(40):
        params = template.generate(random.Random(seed))
        value = template.solve(params)["kv"].value
        assert value == round(value) and 1 <= value <= 9  # 0.3 * 10 is 3 exactly
        seen.add(value)
    assert len(seen) > 5


def _bad_skill_names(n: int) -> dict:
    """A document as the API takes it, with n skill names that are each two problems (a
    key that is no slug, a value that is no text)."""
    return {**copy.deepcopy(EXAMPLE), "skill_names": {f"K{i}": 0 for i in range(n)}}


def test_problems_are_listed_up_to_a_bound_in_work_linear_in_the_document():
    """64,000 bad skill names (693 kB of JSON, under the API's 2.5 MB body) took 107 s:
    each problem line was looked for among all the lines before it."""
    problems = validate(_bad_skill_names(64_000))
    assert len(problems) <= MAX_PROBLEMS + 1
    assert problems[-1] == f"(file): more problems, not listed after the first {MAX_PROBLEMS}"
    base = calls(lambda: validate(_bad_skill_names(1_000)))
    calls(lambda: validate(_bad_skill_names(64_000)), budget=3 * 64 * base)


def test_skill_names_name_at_most_as_many_skills_as_a_template_has():
    data = copy.deepcopy(EXAMPLE)
    data["skill_names"] = {f"skill-{i}": f"Skill {i}" for i in range(21)}
    assert any(p.startswith("skill_names: ") for p in validate(data))


def test_files_are_read_by_libyaml_where_pyyaml_carries_it():
    """PyYAML's own Python took 4.6 s (8 s on a busy machine) to check a 199,000-character
    file as its author typed; libyaml 1.2-1.5 s on the same busy machine."""
    from problems.authored import loader

    assert yaml.__with_libyaml__ and loader.SAFE_LOADER is yaml.CSafeLoader
    assert parse_text("x: [1, 2]\ny: {a: b}\n") == {"x": [1, 2], "y": {"a": "b"}}
