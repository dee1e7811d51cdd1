"""`manage.py authoring import DIR --course SLUG` and `authoring export --course SLUG DIR`.

A command of its own rather than subcommands of `problems`: the problems app is below
authoring in the import layers (pyproject.toml) and may not import it. Thin: the work
is in authoring/transfer.py.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from api_common.service_errors import InvalidInput
from authoring.transfer import export_dir, import_dir
from curricula.models import Course


class Command(BaseCommand):
    help = "Import or export a course's authored templates (one YAML file per template)."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        p = sub.add_parser("import")
        p.add_argument("dir")
        p.add_argument("--course", required=True)
        p = sub.add_parser("export")
        p.add_argument("--course", required=True)
        p.add_argument("dir")

    def handle(self, *args, **opts):
        course = Course.objects.filter(slug=opts["course"]).first()
        if course is None:
            raise CommandError(f"no course {opts['course']!r}")
        try:
            if opts["action"] == "import":
                lines = import_dir(opts["dir"], course)
            else:
                lines = [str(p) for p in export_dir(course, opts["dir"])]
        except InvalidInput as err:
            raise CommandError(str(err)) from None
        for line in lines:
            self.stdout.write(line)
