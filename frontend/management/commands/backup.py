"""`manage.py backup --output FILE [--database-url URL]`: the database to one file
(config.backups: pg_dump for PostgreSQL, SQLite's online backup API). Exit 2, with one
line saying why, when it cannot."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config.backups import DATABASE_URL_HELP, BackupError, backup, database


class Command(BaseCommand):
    help = "Back up the database to one file (restore it with `manage.py restore`)."

    def add_arguments(self, parser):
        parser.add_argument("--output", required=True, type=Path)
        parser.add_argument("--database-url", help=DATABASE_URL_HELP)

    def handle(self, *args, output: Path, database_url: str | None, **options):
        db = database(database_url)
        try:
            size = backup(db, output)
        except BackupError as exc:
            raise CommandError(str(exc), returncode=2) from None
        self.stdout.write(f"backed up to {output} ({size} bytes)")
