"""The problem-template library: one template per module, grouped by family.

Each family is a package (`memory/`, `kv_cache/`, `collectives/`, ...) whose modules each
define and register one template, so a template is read, reviewed and changed on its own
and the library can grow without any module growing with it. What several templates of
one family share (parameters, formulas, phrasing) lives in that family's `_family.py`;
what families share (catalog look-ups, naming, numbers in prose) lives in `_common.py`.
Modules whose names start with an underscore register nothing.

The registry imports every module under this package, at any depth, on first use, so
adding a module is all it takes to add a template: there is no list to update.
"""
