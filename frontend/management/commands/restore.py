"""`manage.py restore --input FILE [--database-url URL] [--replace]`: a file `manage.py
backup` wrote, into a database that holds no tables yet (or, with --replace, over it).
Run `manage.py migrate` after restoring a backup of an older release. Exit 2, with one
line saying why and nothing changed, when it refuses."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config.backups import DATABASE_URL_HELP, BackupError, database, restore


class Command(BaseCommand):
    help = "Restore a backup written by `manage.py backup`."

    def add_arguments(self, parser):
        parser.add_argument("--input", required=True, type=Path)
        parser.add_argument("--database-url", help=DATABASE_URL_HELP)
        parser.add_argument(
            "--replace", action="store_true", help="Overwrite a database that holds tables."
        )

    def handle(self, *args, input: Path, database_url: str | None, replace: bool, **options):
        db = database(database_url, close=True)
        try:
            restore(db, input, replace=replace)
        except BackupError as exc:
            raise CommandError(str(exc), returncode=2) from None
        self.stdout.write(f"restored {input}")
