"""No foreign key keeps an index of its own where a wider one already starts with it.

Django gives every ForeignKey an index. Where a composite index or an unconditional
unique constraint of the same model leads with that column, the database can use that
one for every look-up by the key (and for the checks a delete of the referenced row
makes), so the key's own index only costs: one more btree to write on every INSERT, in
WAL and in CPU, on the tables every answer writes (responses, mastery events). Such a
key says `db_index=False`.
"""

from __future__ import annotations

from django.apps import apps
from django.db import models

OURS = {
    "assess",
    "audit",
    "capstone",
    "certify",
    "curricula",
    "hardware_db",
    "invitations",
    "lti",
    "orgs",
}


def _leading(model) -> dict[str, list[str]]:
    """Field name -> the composite indexes and unconditional unique constraints whose
    first column it is (a partial index covers only some rows: it does not count)."""
    meta = model._meta
    found: dict[str, list[str]] = {}
    for index in meta.indexes:
        if len(index.fields) > 1 and index.condition is None:
            name = index.fields[0]
            if not name.startswith("-"):
                found.setdefault(name, []).append(index.name)
    for constraint in meta.constraints:
        if (
            isinstance(constraint, models.UniqueConstraint)
            and len(constraint.fields) > 1
            and constraint.condition is None
        ):
            found.setdefault(constraint.fields[0], []).append(constraint.name)
    for together in meta.unique_together:
        found.setdefault(together[0], []).append(",".join(together))
    return found


def _redundant() -> list[str]:
    out = []
    for model in apps.get_models():
        if model._meta.app_label not in OURS:
            continue
        leading = _leading(model)
        for field in model._meta.concrete_fields:
            keyed = isinstance(field, models.ForeignKey) and not field.unique
            if keyed and field.db_index and field.name in leading:
                out.append(f"{model._meta.label}.{field.name} (led by {leading[field.name]})")
    return out


def test_no_foreign_key_index_repeats_a_wider_one():
    assert _redundant() == []


def test_the_check_sees_a_repeated_index():
    """The check itself: a key that leads a unique constraint and keeps its own index
    is reported (the test above cannot pass by finding nothing to look at)."""

    class Probe(models.Model):  # noqa: DJ008 - never shown
        parent = models.ForeignKey("assess.Quiz", on_delete=models.CASCADE)
        name = models.CharField(max_length=8)

        class Meta:
            app_label = "assess"
            constraints = [models.UniqueConstraint(fields=["parent", "name"], name="probe_once")]

    try:
        assert any(r.startswith("assess.Probe.parent") for r in _redundant())
    finally:
        apps.all_models["assess"].pop("probe", None)
        apps.clear_cache()
