"""Reading an authored template from its file: YAML (PyYAML's safe loader, on libyaml) or a
JSON object.

The text is bounded before it is parsed (MAX_FILE_CHARS), and YAML anchors and aliases
are refused: an alias makes a node shared, and a few lines of aliases to aliases make a
structure whose walk is exponential (the "billion laughs" shape), which a validator would
then walk. YAML nested deeper than MAX_NESTING is refused from its event stream before
it is built: PyYAML's composer recurses, and 5,000 nested brackets took it 14 s to fail
(libyaml refuses past its own bound, 1,000, with the same message here).
JSON nested too deep for its parser is refused as not readable.

`validate` is what the command line and the API run: the shape (schema.py), the whole
(rules.py), then a trial of a few seeds (TRIAL_SEEDS) that draws, solves and writes the
text, so a constraint nothing satisfies or an answer that divides by zero is found before
a learner meets it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Collection
from pathlib import Path
from typing import Any

import yaml

from problems.authored.rules import AuthoringError, compile_spec, load_spec
from problems.authored.template import AuthoredTemplate

MAX_FILE_CHARS = 200_000
MAX_NESTING = 20  # the format itself nests five deep (parts[0].misconceptions[0].answer)
TRIAL_SEEDS = 5
TEMPLATE_SUFFIXES = (".yaml", ".yml", ".json")
# libyaml's parser and constructor, which PyYAML's wheels carry: the same safe subset,
# several times faster than PyYAML's own Python (a 199,000-character file took 4.6 s to
# check as the author typed); PyYAML's Python where it was built without libyaml.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _plain_yaml(text: str) -> None:
    """Refuse anchors, aliases and deep nesting from the event stream, which PyYAML reads
    without recursion, before the composer (which recurses) builds anything."""
    depth = 0
    for event in yaml.parse(text, Loader=SAFE_LOADER):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise AuthoringError(["(file): YAML anchors and aliases (& and *) are not allowed"])
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_NESTING:
                raise AuthoringError([f"(file): nested more than {MAX_NESTING} levels deep"])
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def parse_text(text: str, *, json_only: bool = False) -> Any:
    """The file's data; AuthoringError if it is too long or not YAML (or JSON)."""
    if len(text) > MAX_FILE_CHARS:
        raise AuthoringError([f"(file): {len(text):,} characters; at most {MAX_FILE_CHARS:,}"])
    try:
        if json_only or text.lstrip().startswith("{"):
            return json.loads(text)
        _plain_yaml(text)
        return yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader
    except json.JSONDecodeError as err:
        raise AuthoringError([f"(file): not valid JSON: {err.msg} (line {err.lineno})"]) from None
    except yaml.YAMLError as err:
        if "maximum nesting depth" in str(getattr(err, "problem", "")):  # libyaml's own bound
            raise AuthoringError([f"(file): nested more than {MAX_NESTING} levels deep"]) from None
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(err, "problem", None) or "cannot be read"
        raise AuthoringError([f"(file): not valid YAML: {problem}{where}"]) from None
    except (RecursionError, MemoryError):
        raise AuthoringError(["(file): nested too deep to read"]) from None


def template_from_data(data: Any) -> AuthoredTemplate:
    """An AuthoredTemplate from the file's data, or AuthoringError with every problem."""
    return AuthoredTemplate(compile_spec(load_spec(data)))


def trial(template: AuthoredTemplate, seeds: int = TRIAL_SEEDS) -> list[str]:
    """Problems found drawing and solving a few seeds (at most one line per problem)."""
    problems: list[str] = []
    for seed in range(seeds):
        try:
            params = template.generate(random.Random(seed))
            template.solve(params)
            template.misconceptions(params)
            template.statement(params)
            template.solution(params)
            template.hints(params)
        except AuthoringError as err:
            for line in err.problems:
                if line not in problems:
                    problems.append(line)
    return problems


def validate(data: Any, taken: Collection[str] = ()) -> list[str]:
    """Every problem with the template's data, `path: message`; [] when it is valid.
    `taken`: slugs another template already has (the built-in ones, a course's others)."""
    try:
        template = template_from_data(data)
    except AuthoringError as err:
        return err.problems
    clash = (
        [f"slug: {template.slug!r} is taken by another template"] if template.slug in taken else []
    )
    return clash + trial(template)


def is_template_path(arg: str) -> bool:
    """Whether a command-line argument names a template file rather than a slug."""
    return arg.endswith(TEMPLATE_SUFFIXES) or "/" in arg


def read_file(path: str | Path) -> Any:
    path = Path(path)
    try:
        with path.open(encoding="utf-8") as handle:
            text = handle.read(MAX_FILE_CHARS + 1)
    except OSError as err:
        raise AuthoringError([f"(file): cannot read {path}: {err.strerror}"]) from None
    except UnicodeDecodeError:
        raise AuthoringError([f"(file): {path} is not UTF-8 text"]) from None
    return parse_text(text, json_only=path.suffix == ".json")


def load_file(path: str | Path) -> AuthoredTemplate:
    """The template in a file, or AuthoringError with every problem (trial included)."""
    data = read_file(path)
    problems = validate(data)
    if problems:
        raise AuthoringError(problems)
    return template_from_data(data)
