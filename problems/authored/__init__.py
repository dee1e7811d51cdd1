"""Templates an instructor writes as data (issue 42; the format is shared/spec/authoring.md).

An authored template is one YAML file (or the same JSON object): parameters, constraints,
text with inserted values, parts with answers written in a small expression language. It
is validated (schema.py), its expressions parsed by our own allow-listed reader (expr.py,
never Python's eval), and turned into an object with the engine's Template protocol
(template.py), so the engine generates, solves, grades and checks it like a built-in one.
Its text is rendered by text.py, which escapes raw HTML and bounds TeX, never by the
engine's renderer for our own templates. Pure: no Django, no database.
"""
