"""The capstone leaves assess with its tables and every row in them.

State: the four models appear here as they were in assess (same fields, tables, names),
without touching the database (SeparateDatabaseAndState); assess's 0018 then forgets
them. Database: the tables are renamed to this app's (assess_memo -> capstone_memo, ...),
the constraints and the index follow (their names said assess), and the content types
move to this app, so admin history and permissions keep pointing at the same models.
Reversible: backwards it renames everything back and returns the content types.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


MODELS = ("capstone", "memo", "memoversion", "memodecision")


def _move_content_types(apps, schema_editor, *, source: str, target: str) -> None:
    """Relabel the models' content types (keeping their ids, so permissions and admin
    log entries follow); where the target's already exist (made by an earlier migrate of
    a fresh database) the source's are the strays and go."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    for model in MODELS:
        old = ContentType.objects.using(db).filter(app_label=source, model=model)
        if ContentType.objects.using(db).filter(app_label=target, model=model).exists():
            old.delete()
        else:
            old.update(app_label=target)


def content_types_forward(apps, schema_editor):
    _move_content_types(apps, schema_editor, source="assess", target="capstone")


def content_types_backward(apps, schema_editor):
    _move_content_types(apps, schema_editor, source="capstone", target="assess")



class Migration(migrations.Migration):

    dependencies = [
        ('assess', '0017_capstone_keeps_its_brief'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('curricula', '0005_choices_checked'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Capstone',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('seed', models.PositiveBigIntegerField()),
                        ('brief', models.JSONField(blank=True, null=True)),
                        ('brief_version', models.PositiveSmallIntegerField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('course', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='capstones', to='curricula.course')),
                        ('learner', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='capstones', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'assess_capstone',
                        'ordering': ['course', 'learner'],
                    },
                ),
                migrations.CreateModel(
                    name='Memo',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('status', models.CharField(choices=[('in_review', 'In review'), ('changes_requested', 'Changes requested'), ('approved', 'Approved')], default='in_review', max_length=24)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('capstone', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='memo', to='capstone.capstone')),
                    ],
                    options={
                        'db_table': 'assess_memo',
                        'ordering': ['-updated_at', 'pk'],
                    },
                ),
                migrations.CreateModel(
                    name='MemoVersion',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('number', models.PositiveIntegerField()),
                        ('markdown', models.TextField()),
                        ('html', models.TextField(blank=True, default='')),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('review_status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='queued', max_length=16)),
                        ('review_error', models.TextField(blank=True, default='')),
                        ('review', models.JSONField(blank=True, null=True)),
                        ('score', models.FloatField(blank=True, null=True)),
                        ('max_score', models.FloatField(blank=True, null=True)),
                        ('queued_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('reviewed_at', models.DateTimeField(blank=True, null=True)),
                        ('deliveries', models.PositiveIntegerField(default=0)),
                        ('memo', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='versions', to='capstone.memo')),
                    ],
                    options={
                        'db_table': 'assess_memoversion',
                        'ordering': ['memo', 'number'],
                    },
                ),
                migrations.CreateModel(
                    name='MemoDecision',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('decision', models.CharField(choices=[('approve', 'Approve'), ('request_changes', 'Request changes')], max_length=24)),
                        ('comment', models.TextField(blank=True, default='')),
                        ('adjustments', models.JSONField(blank=True, default=list)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('instructor', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='memo_decisions', to=settings.AUTH_USER_MODEL)),
                        ('memo', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='decisions', to='capstone.memo')),
                        ('version', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='decisions', to='capstone.memoversion')),
                    ],
                    options={
                        'db_table': 'assess_memodecision',
                        'ordering': ['memo', 'created_at', 'pk'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='capstone',
                    constraint=models.UniqueConstraint(fields=('learner', 'course'), name='assess_capstone_once'),
                ),
                migrations.AddConstraint(
                    model_name='memo',
                    constraint=models.CheckConstraint(condition=models.Q(('status__in', ['in_review', 'changes_requested', 'approved'])), name='assess_memo_status_valid'),
                ),
                migrations.AddIndex(
                    model_name='memoversion',
                    index=models.Index(fields=['review_status', 'queued_at'], name='assess_memo_review_due'),
                ),
                migrations.AddConstraint(
                    model_name='memoversion',
                    constraint=models.CheckConstraint(condition=models.Q(('review_status__in', ['queued', 'running', 'done', 'failed'])), name='assess_memo_version_status_valid'),
                ),
                migrations.AddConstraint(
                    model_name='memoversion',
                    constraint=models.UniqueConstraint(fields=('memo', 'number'), name='assess_memo_version_once'),
                ),
                migrations.AddConstraint(
                    model_name='memodecision',
                    constraint=models.CheckConstraint(condition=models.Q(('decision__in', ['approve', 'request_changes'])), name='assess_memo_decision_valid'),
                ),
            ],
            database_operations=[],
        ),
        migrations.AlterModelTable(
            name='capstone',
            table=None,
        ),
        migrations.AlterModelTable(
            name='memo',
            table=None,
        ),
        migrations.AlterModelTable(
            name='memodecision',
            table=None,
        ),
        migrations.AlterModelTable(
            name='memoversion',
            table=None,
        ),
        migrations.RemoveConstraint(
            model_name='capstone',
            name='assess_capstone_once',
        ),
        migrations.RemoveConstraint(
            model_name='memo',
            name='assess_memo_status_valid',
        ),
        migrations.RemoveConstraint(
            model_name='memodecision',
            name='assess_memo_decision_valid',
        ),
        migrations.RemoveConstraint(
            model_name='memoversion',
            name='assess_memo_version_status_valid',
        ),
        migrations.RemoveConstraint(
            model_name='memoversion',
            name='assess_memo_version_once',
        ),
        migrations.RenameIndex(
            model_name='memoversion',
            new_name='capstone_memo_review_due',
            old_name='assess_memo_review_due',
        ),
        migrations.AddConstraint(
            model_name='capstone',
            constraint=models.UniqueConstraint(fields=('learner', 'course'), name='capstone_once'),
        ),
        migrations.AddConstraint(
            model_name='memo',
            constraint=models.CheckConstraint(condition=models.Q(('status__in', ['in_review', 'changes_requested', 'approved'])), name='capstone_memo_status_valid'),
        ),
        migrations.AddConstraint(
            model_name='memodecision',
            constraint=models.CheckConstraint(condition=models.Q(('decision__in', ['approve', 'request_changes'])), name='capstone_memo_decision_valid'),
        ),
        migrations.AddConstraint(
            model_name='memoversion',
            constraint=models.CheckConstraint(condition=models.Q(('review_status__in', ['queued', 'running', 'done', 'failed'])), name='capstone_memo_version_status_valid'),
        ),
        migrations.AddConstraint(
            model_name='memoversion',
            constraint=models.UniqueConstraint(fields=('memo', 'number'), name='capstone_memo_version_once'),
        ),
        migrations.RunPython(content_types_forward, content_types_backward),
    ]
