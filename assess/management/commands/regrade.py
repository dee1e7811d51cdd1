"""manage.py regrade --template SLUG [--dry-run]: regrade stored answers to a template."""

from django.core.management.base import BaseCommand, CommandError

from assess.services.regrade import responses_regrade
from problems.engine import registry


class Command(BaseCommand):
    help = (
        "Regrade every stored response to a template from its recorded parameters with the "
        "current template code, and report each score that changed."
    )

    def add_arguments(self, parser):
        parser.add_argument("--template", required=True, metavar="SLUG")
        parser.add_argument(
            "--dry-run", action="store_true", help="Report the changes, store nothing."
        )

    def handle(self, *args, template: str, dry_run: bool, **options):
        try:
            registry.get(template)
        except KeyError:
            raise CommandError(f"unknown template slug {template!r}") from None
        report = responses_regrade(template_slug=template, dry_run=dry_run)
        if report.refused and not dry_run:
            for error in report.errors:
                self.stderr.write(error)
            raise CommandError(f"refused: {report.refused}")
        for change in report.changes:
            self.stdout.write(
                f"response {change.response_id} (question {change.question_id}, "
                f"part {change.part}): {change.old:g} -> {change.new:g}"
            )
        for attempt_id, old, new in report.attempts:
            old_text = "none" if old is None else f"{old:.4g}"
            self.stdout.write(f"attempt {attempt_id}: score {old_text} -> {new:.4g}")
        for error in report.errors:
            self.stderr.write(error)
        verb = "would change" if dry_run else "changed"
        self.stdout.write(
            f"{template}: {report.questions} questions, {report.responses} responses; "
            f"{len(report.changes)} scores {verb}, "
            f"{len(report.answers_changed)} answer sets {verb}"
            + (" (dry run: nothing stored)" if dry_run else "")
        )
