"""MemoVersion.html: each version's Markdown rendered once, when it is stored.

The pages rendered a memo on every view, with Python-Markdown, which is quadratic on `[`:
a stored memo of 59,000 brackets answered 500 (a timed-out worker) to every view, its
instructor's included. Now a version's HTML is made at submission by the linear renderer
(capstone.memo_review.memo_markdown.memo_html) and the pages show the stored HTML.

Existing versions are rendered here, once, by the same renderer, rather than lazily on
their first view: a view then never writes (a GET changes no table), every stored version
has its HTML, and the pages need no fallback. The renderer is linear, so a 60,000-character
version costs well under a second (bench/README.md).
"""

from django.db import migrations, models

BATCH = 200


def render_stored_versions(apps, schema_editor):
    from capstone.memo_review.memo_markdown import memo_html

    MemoVersion = apps.get_model("assess", "MemoVersion")
    batch = []
    rows = MemoVersion.objects.filter(html="").only("id", "markdown").order_by("pk")
    for version in rows.iterator(chunk_size=BATCH):
        version.html = memo_html(version.markdown)
        batch.append(version)
        if len(batch) >= BATCH:
            MemoVersion.objects.bulk_update(batch, ["html"])
            batch = []
    if batch:
        MemoVersion.objects.bulk_update(batch, ["html"])


class Migration(migrations.Migration):
    dependencies = [
        ("assess", "0015_choices_checked"),
    ]

    operations = [
        migrations.AddField(
            model_name="memoversion",
            name="html",
            field=models.TextField(blank=True, default=""),
        ),
        migrations.RunPython(render_stored_versions, migrations.RunPython.noop, elidable=True),
    ]
