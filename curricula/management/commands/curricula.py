"""`manage.py curricula coverage`: which lessons have templates to test them, and with
`--by-objective`, which of the objectives that carry the outlines nothing tests."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from curricula import selectors
from curricula.coverage import (
    MIN_TEMPLATES,
    CoverageReport,
    LessonRow,
    coverage_report,
    rows_from_catalog,
)
from curricula.objective_coverage import ObjectiveReport, objective_report
from curricula.schema import DEFAULT_DATA_DIR, CurriculumDataError, load_catalog


class Command(BaseCommand):
    help = "Curriculum tools. `coverage`: list every lesson with its template count."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        about = (
            "Print every lesson with its number of problem templates. Exit 1 if a lesson "
            "not marked `status: planned` has none or fewer than --min-templates, or a core "
            "template is used by no lesson; planned lessons are listed as planned gaps and "
            "tolerated. Exit 2 if "
            "the data files are invalid. Reads the data files by default (no database "
            "needed); --source db reads the tables load_curricula filled instead."
        )
        coverage = actions.add_parser("coverage", help=about, description=about)
        coverage.add_argument(
            "--source",
            choices=["files", "db"],
            default="files",
            help="files: validate and read curricula/data/*.yaml (default, no database); "
            "db: read what load_curricula last stored.",
        )
        coverage.add_argument(
            "--data-dir",
            type=Path,
            default=DEFAULT_DATA_DIR,
            help="Directory of course files when --source files (default: the packaged data).",
        )
        coverage.add_argument(
            "--min-templates",
            type=int,
            default=MIN_TEMPLATES,
            metavar="N",
            help=f"Templates a ready lesson needs at least (default {MIN_TEMPLATES}).",
        )
        coverage.add_argument(
            "--by-objective",
            action="store_true",
            help="Report objectives instead of lessons: per course the objectives, how many "
            "something tests and how many nothing does, listing the untested ones; exit 1 if "
            "any objective is untested. Reads the data files only (the tables keep the "
            "objectives' texts, not what tests them).",
        )

    def handle(self, *args, action: str, **options):
        if action == "coverage" and options["by_objective"]:
            self._by_objective(source=options["source"], data_dir=options["data_dir"])
        elif action == "coverage":
            self._coverage(
                source=options["source"],
                data_dir=options["data_dir"],
                min_templates=options["min_templates"],
            )

    def _coverage(self, *, source: str, data_dir: Path, min_templates: int) -> None:
        if min_templates < 1:
            raise CommandError("--min-templates must be 1 or more", returncode=2)
        if source == "db":
            rows = selectors.lesson_coverage_rows()
        else:
            try:
                rows = rows_from_catalog(load_catalog(data_dir))
            except CurriculumDataError as exc:
                raise CommandError(str(exc), returncode=2) from exc
        report = coverage_report(rows, min_templates)
        self._print(report)
        if not report.ok:
            problems = []
            if report.gaps:
                problems.append(
                    f"{len(report.gaps)} lesson(s) without templates and not marked planned: "
                    + ", ".join(row.path for row in report.gaps)
                )
            if report.thin:
                problems.append(
                    f"{len(report.thin)} lesson(s) with fewer than {min_templates} templates: "
                    + ", ".join(row.path for row in report.thin)
                )
            if report.unused_core_templates:
                problems.append(
                    "core template(s) used by no lesson: " + ", ".join(report.unused_core_templates)
                )
            raise CommandError("; ".join(problems), returncode=1)

    def _by_objective(self, *, source: str, data_dir: Path) -> None:
        if source != "files":
            raise CommandError(
                "--by-objective reads the data files: the tables do not keep what tests an "
                "objective",
                returncode=2,
            )
        try:
            report = objective_report(load_catalog(data_dir))
        except CurriculumDataError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        self._print_objectives(report)
        if not report.ok:
            total, _tested, untested = report.counts
            raise CommandError(
                f"{untested} of {total} objective(s) tested by nothing", returncode=1
            )

    def _print_objectives(self, report: ObjectiveReport) -> None:
        for course in report.courses:
            total, tested, untested = course.counts
            self.stdout.write(
                f"{course.course}: {total} objectives, {tested} tested, {untested} untested"
            )
            for row in course.untested:
                self.stdout.write(f"  UNTESTED {row.lesson}: {row.text}")
            for lesson, slug in course.idle_templates:
                self.stdout.write(
                    f"  note: {lesson} lists {slug}, which tests none of its objectives"
                )
        total, tested, untested = report.counts
        self.stdout.write(f"All courses: {total} objectives, {tested} tested, {untested} untested")
        if report.ok:
            self.stdout.write(self.style.SUCCESS("Objective coverage OK"))

    def _print(self, report: CoverageReport) -> None:
        course = module = None
        for row in report.rows:
            if row.course != course:
                course, module = row.course, None
                self.stdout.write(row.course)
            if row.module != module:
                module = row.module
                self.stdout.write(f"  {row.module}")
            note = _note(row, report.min_templates)
            self.stdout.write(f"    {row.lesson:<52} {len(row.templates):>2}  {note}")
        n = len(report.rows)
        self.stdout.write(
            f"{n} lessons, {n - len(report.gaps) - len(report.planned_gaps)} with templates"
        )
        planned = report.planned_gaps
        self.stdout.write(f"Planned gaps ({len(planned)}):")
        for row in planned:
            self.stdout.write(f"  {row.path}")
        if report.ok:
            self.stdout.write(self.style.SUCCESS("Coverage OK"))


def _note(row: LessonRow, min_templates: int) -> str:
    if row.templates:
        thin = "  THIN" if len(row.templates) < min_templates else ""
        return ", ".join(row.templates) + thin
    return "planned gap" if row.status == "planned" else "GAP"
