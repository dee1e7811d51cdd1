"""The capstone's models leave assess for their own app (capstone/): state only.

The tables stay and keep every row; capstone's 0001 takes the models into its state and
renames their tables, constraints and index. Here assess only forgets them, after
capstone has them (so nothing ever points at a model that is in neither app).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("assess", "0017_capstone_keeps_its_brief"),
        ("capstone", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(model_name="memo", name="capstone"),
                migrations.RemoveField(model_name="memodecision", name="memo"),
                migrations.RemoveField(model_name="memoversion", name="memo"),
                migrations.RemoveField(model_name="memodecision", name="instructor"),
                migrations.RemoveField(model_name="memodecision", name="version"),
                migrations.DeleteModel(name="Capstone"),
                migrations.DeleteModel(name="Memo"),
                migrations.DeleteModel(name="MemoDecision"),
                migrations.DeleteModel(name="MemoVersion"),
            ],
            database_operations=[],
        )
    ]
