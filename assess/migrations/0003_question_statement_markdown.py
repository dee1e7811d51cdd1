"""Question.statement_markdown: the statement as Markdown with LaTeX, beside its HTML.

New questions store it when they are built, as they store statement_html. Existing
questions get it regenerated from their stored template slug and parameters (the engine
is deterministic, so that is what the learner saw unless the template's wording changed
since); where the template no longer exists or no longer accepts the stored parameters it
stays "" and clients fall back on statement_html.
"""

from django.db import migrations, models

BATCH = 500


def backfill(apps, schema_editor):
    from problems.engine.variants import ParamError, Variant

    Question = apps.get_model("assess", "Question")
    batch = []
    rows = Question.objects.filter(statement_markdown="").only("id", "template_slug", "params")
    for question in rows.iterator(chunk_size=BATCH):
        try:
            variant = Variant.from_params(question.template_slug, question.params)
            question.statement_markdown = variant.statement_markdown()
        except (ParamError, KeyError):
            continue
        batch.append(question)
        if len(batch) >= BATCH:
            Question.objects.bulk_update(batch, ["statement_markdown"])
            batch = []
    if batch:
        Question.objects.bulk_update(batch, ["statement_markdown"])


class Migration(migrations.Migration):
    dependencies = [
        ("assess", "0002_integrity"),
    ]

    operations = [
        migrations.AddField(
            model_name="question",
            name="statement_markdown",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop, elidable=True),
    ]
