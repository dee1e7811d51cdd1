"""Every skill a page can show has words: the templates' skills and the lessons' tags."""

from pathlib import Path

import yaml

from problems.engine import registry
from problems.engine.skill_names import NAMES, skill_name

DATA = Path(__file__).resolve().parents[2] / "curricula" / "data"


def lesson_skills() -> set[str]:
    found: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "skills" and isinstance(value, list):
                    found.update(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for path in DATA.glob("*.yaml"):
        walk(yaml.safe_load(path.read_text()))
    return found


def test_every_template_skill_and_lesson_skill_is_named():
    skills = {s for t in registry.all_templates() for s in t.skills} | lesson_skills()
    assert len(skills) > 100
    assert sorted(skills - set(NAMES)) == []


def test_names_are_words_not_slugs():
    assert skill_name("kv-cache-bytes") == "KV cache bytes"
    assert skill_name("") == ""
    assert skill_name(None) == ""
    # one retired since a mastery row was written still reads as words
    assert skill_name("old-retired-skill") == "Old retired skill"
    # no name is its slug again (llm-d is the project's own name)
    assert [slug for slug, name in NAMES.items() if name == slug] == ["llm-d"]
