"""Capstone.brief and brief_version: a capstone keeps the brief it was drawn with.

Briefs were rebuilt from the seed on every read, so issue 34's generator fixes (compute,
one provider per brief, trained windows: version 2) would have rewritten the brief under
every memo already written, reviewed or approved. Every capstone that exists now was
drawn by version 1, so it stores version 1's brief for its seed, rebuilt by the frozen
version-1 generator (capstone.memo_review.brief_v1, exact for every seed: a test holds it
against the version-1 output). Capstones drawn from now on store their brief at the draw.
"""

from django.db import migrations, models

BATCH = 200


def keep_version_1_briefs(apps, schema_editor):
    from capstone.memo_review import brief_v1

    Capstone = apps.get_model("assess", "Capstone")
    batch = []
    rows = Capstone.objects.filter(brief__isnull=True).only("id", "seed").order_by("pk")
    for capstone in rows.iterator(chunk_size=BATCH):
        capstone.brief = brief_v1.brief_for(capstone.seed).as_dict()
        capstone.brief_version = brief_v1.VERSION
        batch.append(capstone)
        if len(batch) >= BATCH:
            Capstone.objects.bulk_update(batch, ["brief", "brief_version"])
            batch = []
    if batch:
        Capstone.objects.bulk_update(batch, ["brief", "brief_version"])


class Migration(migrations.Migration):
    dependencies = [
        ("assess", "0016_memoversion_html"),
    ]

    operations = [
        migrations.AddField(
            model_name="capstone",
            name="brief",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="capstone",
            name="brief_version",
            field=models.PositiveSmallIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(keep_version_1_briefs, migrations.RunPython.noop),
    ]
