"""Reads of the template authoring pages: the editor's text read into a document (or the
problems that stop it), a template's versions with what each changed, and the starter
text a new template begins from.

The editor holds YAML; the services take the document it reads to. A text that is not
YAML at all is reported as a problem of the whole file, like any other, so the page
always has one list of problems to show beside the text.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

import yaml

from authoring import selectors
from authoring.models import AuthoredTemplate
from authoring.services import Problem
from curricula.models import Lesson
from problems.authored.loader import parse_text
from problems.authored.rules import AuthoringError

MAX_DIFF_LINES = 400  # a version's changes shown, at most
# difflib's matcher is quadratic in the lines it compares when they differ everywhere
# (16,000 lines took 16 s a pair) and the page compares every version with the one
# before: versions longer than this are not compared (a template file runs to about a
# hundred lines; the loader allows 200,000 characters), and only the latest DIFFED ones.
MAX_COMPARED_LINES = 1_000
DIFFED_VERSIONS = 10


@dataclass(frozen=True)
class Read:
    """The editor's text read: the document, or the problems that kept it from one."""

    data: Any
    problems: list[Problem]


def read_text(text: str) -> Read:
    try:
        return Read(parse_text(text), [])
    except AuthoringError as err:
        return Read(
            None, [Problem("(file)", line.partition(": ")[2] or line) for line in err.problems]
        )


def as_yaml(document: dict) -> str:
    """A stored document as the editor shows it (the service's own `version` left out:
    versions are numbered by the service, not by the text)."""
    shown = {k: v for k, v in document.items() if k != "version"}
    return yaml.safe_dump(shown, sort_keys=False, allow_unicode=True, width=88)


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "add", "del", "hunk" or "same"
    text: str


@dataclass(frozen=True)
class VersionView:
    number: int
    saved_by: str
    saved_at: object
    diff: list[DiffLine]  # against the version before (empty for version 1)
    truncated: bool
    compared: bool = True  # False: too long, or too old, to be compared here


def _diff(before: list[str], after: list[str]) -> tuple[list[DiffLine], bool]:
    lines = []
    for line in difflib.unified_diff(before, after, lineterm="", n=2):
        if line.startswith(("---", "+++")):
            continue
        kind = {"+": "add", "-": "del", "@": "hunk"}.get(line[:1], "same")
        lines.append(DiffLine(kind, line))
    return lines[:MAX_DIFF_LINES], len(lines) > MAX_DIFF_LINES


def version_history(template: AuthoredTemplate) -> list[VersionView]:
    """Newest first, each with its changes from the one before: the latest
    DIFFED_VERSIONS, each pair within MAX_COMPARED_LINES."""
    rows = list(reversed(selectors.template_versions(template=template)))
    views = []
    before: list[str] = []
    oldest_diffed = len(rows) - DIFFED_VERSIONS
    for i, row in enumerate(rows):
        first = i == 0
        # written out as YAML only to be compared: the older versions are not
        text = as_yaml(row.spec).splitlines() if i >= oldest_diffed - 1 else []
        compared = first or (
            i >= oldest_diffed and max(len(before), len(text)) <= MAX_COMPARED_LINES
        )
        diff, truncated = _diff(before, text) if compared and not first else ([], False)
        user = row.created_by.username if row.created_by else "(deleted account)"
        views.append(VersionView(row.number, user, row.created_at, diff, truncated, compared))
        before = text
    return list(reversed(views))


def starter(course) -> str:
    """The text a new template starts from: a small valid template, placed in the
    course's first lesson, for the author to change."""
    first = (
        Lesson.objects.filter(module__course=course)
        .order_by("module__order", "order")
        .values_list("slug", flat=True)
        .first()
    )
    return STARTER.replace("lessons: []", f"lessons: [{first or 'first-lesson'}]")


STARTER = """\
slug: my-team-kv-budget
title: KV cache for one sequence on our serving nodes
lessons: []
skills: [kv-cache-bytes]
difficulty: 2
params:
  model: {model: [llama-3.1-8b, llama-3.1-70b]}
  tokens: {range: [4096, 65536], step: 4096}
constraints: []
statement: |
  {{model.name}} has {{model.n_layers}} layers and {{model.n_kv_heads}} KV heads of
  dimension {{model.head_dim}}. It serves sequences of {{tokens}} tokens with a BF16 KV
  cache. How much memory does the KV cache of one sequence take?
parts:
  - name: kv
    label: KV cache for one sequence
    kind: numeric
    answer: 2 * model.n_layers * model.n_kv_heads * model.head_dim * 2 * tokens
    unit: byte
    ask_unit: GiB
    tolerance: {rel: 0.01}
    misconceptions:
      - name: k-or-v-only
        answer: model.n_layers * model.n_kv_heads * model.head_dim * 2 * tokens
        feedback: Keys and values are both cached, so twice this.
solution: |
  Each layer keeps a key and a value vector per KV head for every token, 2 bytes each.
sources:
  - The model's config.json on Hugging Face
"""
