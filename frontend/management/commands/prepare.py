"""What `make run` needs before it serves, in one process: the schema migrated, then the
hardware catalog, the courses, the certification tracks and the demo data loaded, each
step idempotent and in that order (each needs the ones before it).

One process rather than five `manage.py` runs, each of which imported Django and the
project again: `make load` on a fresh SQLite file went from 24.1 to 11.3 s, and on one
already loaded (every `make run` after the first) from 14.6 to 3.8 s. The docs' demo
server loads with it too (tools/docs/server.py). The first step that fails stops the
rest, with its own error.
"""

from __future__ import annotations

from django.core.management import call_command
from django.core.management.base import BaseCommand

STEPS = (
    ("migrate", "--noinput"),
    ("load_hardware",),
    ("load_curricula",),
    ("load_tracks",),
    ("load_demo",),
)


class Command(BaseCommand):
    help = (
        "Migrate, then load the hardware catalog, the courses, the tracks and the demo "
        "accounts and quizzes: what `make run` serves (idempotent)."
    )

    def handle(self, *args, **options):
        for command, *arguments in STEPS:
            call_command(command, *arguments, stdout=self.stdout, stderr=self.stderr)
