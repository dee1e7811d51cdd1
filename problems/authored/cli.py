"""What `manage.py problems validate|generate|check FILE.yaml` do with a template file.

Kept out of the command module, which stays the thin argument parser it is: here a file is
read and validated (loader.py), and a valid one is handed back as a template for the
command's usual generate and check paths, so a file behaves as a slug would.
"""

from __future__ import annotations

import random

from problems.authored.loader import is_template_path, load_file, read_file, validate
from problems.authored.rules import AuthoringError
from problems.authored.template import AuthoredTemplate
from problems.engine import registry
from problems.engine.variants import Variant

__all__ = ["is_template_path", "validate_file", "variant_from_file"]


def validate_file(path: str) -> tuple[str, list[str]]:
    """(the one line to print when valid, every problem otherwise). A slug a built-in
    template has is a problem here; the service also holds it to the course's others."""
    try:
        data = read_file(path)
    except AuthoringError as err:
        return "", err.problems
    problems = validate(data, taken=registry.slugs())
    if problems:
        return "", problems
    template = load_file(path)
    count = len(template.Params.model_fields)
    return (
        f"{path}: valid ({template.slug} v{template.version}, {count} parameters, "
        f"{len(template.compiled.parts)} parts)",
        [],
    )


def variant_from_file(template: AuthoredTemplate, seed: int) -> Variant:
    """The variant a seed draws, as Variant.from_seed gives for a registered slug."""
    return Variant(template, template.generate(random.Random(seed)))


def template_from_file(path: str) -> AuthoredTemplate:
    """The file's template; AuthoringError (a ParamError: exit 2, one line) if invalid."""
    return load_file(path)
