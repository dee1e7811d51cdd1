"""The problems command-line contract (docs/developers/templates.md): list, generate,
solve, grade, check, drill (incident drills, issue 39), and validate (a template file an
instructor wrote, issue 42; generate and check also take such a file for a slug).

Thin: parse arguments, call the engine through Variant, print. Errors in a single call
exit with status 2 and one line on stderr; in batch mode each bad line becomes an
{"error": ...} line and the run goes on. Options whose values need checking (seeds,
shares) are read here rather than by argparse, whose own errors print a usage block
instead of the contract's one line.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from problems.authored import cli as authored
from problems.drills import registry as drill_registry
from problems.drills.check import check_drills
from problems.drills.export import export
from problems.engine import registry
from problems.engine.check import CheckReport, check_all, check_template
from problems.engine.distinguish import format_table
from problems.engine.variants import ParamError, Variant

MAX_SEEDS = 10_000  # one `generate --seeds` call; a bigger pool is several calls
_SEEDS = re.compile(r"^\s*(\d+)\s*-\s*(\d+)\s*$")
_INT = re.compile(r"^\s*-?\d+\s*$")

DEFAULT_MIN_DISTINGUISHABLE = "0.9"
THRESHOLD_HELP = (
    "fail (exit 1) when a template's slip that applies in at least --min-applies variants "
    f"is distinguishable in less than this share of them (0-1; default "
    f"{DEFAULT_MIN_DISTINGUISHABLE}; 0 turns the gate off and only reports)."
)


def _load_params(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as err:
        raise ParamError(f"--params is not valid JSON: {err.msg}") from None


def _parse_int(raw: str, option: str) -> int:
    if not _INT.match(raw):
        raise ParamError(f"{option} must be a whole number (got {raw!r})")
    return int(raw)


def _parse_seeds(raw: str) -> range:
    """Read "A-B" as the inclusive range of seeds; malformed, reversed or too long: one line."""
    m = _SEEDS.match(raw)
    if not m:
        raise ParamError(f"--seeds must be A-B, two whole numbers with A <= B (got {raw!r})")
    first, last = int(m.group(1)), int(m.group(2))
    if first > last:
        raise ParamError(f"--seeds {first}-{last} is reversed: write the smaller seed first")
    count = last - first + 1
    if count > MAX_SEEDS:
        raise ParamError(f"--seeds {first}-{last} spans {count:,} seeds; at most {MAX_SEEDS:,}")
    return range(first, last + 1)


def _parse_share(raw: str | None) -> float | None:
    if raw is None:
        return None
    try:
        share = float(raw)
    except ValueError:
        share = float("nan")
    if not 0.0 <= share <= 1.0:
        raise ParamError(f"--min-distinguishable must be a share from 0 to 1 (got {raw!r})")
    return share


def _generate(slug: str, seed: int, with_answers: bool, file=None) -> dict[str, Any]:
    """The object `generate --json` prints for one seed, also one line of `--seeds`; `file`
    is a template read from a file, drawn in place of the slug's."""
    if file is not None:
        variant = authored.variant_from_file(file, seed)
    else:
        variant = Variant.from_seed(slug, seed)
    data: dict[str, Any] = {
        "slug": variant.template.slug,
        "version": variant.template.version,
        "seed": seed,
        "params": variant.params.model_dump(),
        "statement": variant.statement_markdown(),
        "parts": [
            {"name": p.name, "unit": p.unit, "kind": str(p.kind)} for p in variant.parts.values()
        ],
    }
    if with_answers:
        data["answers"] = variant.solve_dict()["parts"]
        data["solution"] = variant.solution_markdown()
    return data


def _solve(record: dict[str, Any]) -> dict[str, Any]:
    return Variant.from_params(record.get("slug", ""), record.get("params")).solve_dict()


def _grade(record: dict[str, Any]) -> dict[str, Any]:
    for key in ("slug", "params", "part", "answer"):
        if key not in record:
            raise ParamError(f"missing field {key!r}")
    variant = Variant.from_params(record["slug"], record["params"])
    result = variant.grade(str(record["part"]), str(record["answer"]))
    return result.as_dict(slug=variant.template.slug, part=str(record["part"]))


class Command(BaseCommand):
    help = "List, generate, solve, grade and check problem templates."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        p = sub.add_parser("list")
        p.add_argument("--json", action="store_true")
        p = sub.add_parser("validate")
        p.add_argument("file", metavar="FILE.yaml")
        p = sub.add_parser("generate")
        p.add_argument("slug", help="a template's slug, or a template file (FILE.yaml)")
        p.add_argument("--seed", metavar="N", help="one variant")
        p.add_argument(
            "--seeds",
            metavar="A-B",
            help=f"every seed from A to B inclusive (at most {MAX_SEEDS:,}); with --json, one "
            "line per seed, each the object --seed N --json prints. Not with --seed.",
        )
        p.add_argument("--with-answers", action="store_true")
        p.add_argument("--json", action="store_true")
        for name in ("solve", "grade"):
            p = sub.add_parser(name)
            p.add_argument("slug", nargs="?")
            p.add_argument("--params")
            p.add_argument("--batch", metavar="FILE.jsonl")
            p.add_argument("--json", action="store_true")
            if name == "grade":
                p.add_argument("--part")
                p.add_argument("--answer")
        # A course's authored templates in and out of a directory of YAML files: the
        # authoring app's command does it (this app may not import that one), called by
        # name so `problems import|export` is where an author looks for it.
        p = sub.add_parser("import", help="a directory of template files into a course")
        p.add_argument("dir")
        p.add_argument("--course", required=True, metavar="SLUG")
        p = sub.add_parser("export", help="a course's authored templates, one YAML file each")
        p.add_argument("--course", required=True, metavar="SLUG")
        p.add_argument("dir")
        p = sub.add_parser("drill")
        p.add_argument("slug")
        p.add_argument(
            "--seeds", metavar="A-B", required=True, help="every seed from A to B inclusive"
        )
        p.add_argument(
            "--json",
            action="store_true",
            help="one line per seed: slug, seed, alert, actions with their outputs on the "
            "initial state, answer, expert_path",
        )
        p = sub.add_parser("check")
        p.add_argument("file", nargs="?", metavar="FILE.yaml", help="check this template file")
        p.add_argument(
            "--variants", metavar="N", default="50", help="seeds 0..N-1 of every template and drill"
        )
        p.add_argument("--slug", action="append", dest="slugs", help="only this template or drill")
        p.add_argument("--json", action="store_true", help="failures and report as one object")
        p.add_argument(
            "--min-distinguishable",
            metavar="SHARE",
            default=DEFAULT_MIN_DISTINGUISHABLE,
            help=THRESHOLD_HELP,
        )
        p.add_argument(
            "--min-applies",
            metavar="N",
            default="5",
            help="only slips applying in at least N variants are held to the share (default 5)",
        )
        p.add_argument(
            "--worst",
            metavar="N",
            help="show only the N least distinguishable slips over all templates",
        )

    def handle(self, *args, **opts):
        try:
            getattr(self, f"do_{opts['action']}")(opts)
        except ParamError as err:
            raise CommandError(str(err), returncode=2) from None

    def do_import(self, opts):
        call_command(
            "authoring", "import", opts["dir"], "--course", opts["course"], stdout=self.stdout
        )

    def do_export(self, opts):
        call_command(
            "authoring", "export", "--course", opts["course"], opts["dir"], stdout=self.stdout
        )

    def emit(self, data: Any) -> None:
        self.stdout.write(json.dumps(data, ensure_ascii=False))

    def do_list(self, opts):
        rows = [
            {
                "slug": t.slug,
                "version": t.version,
                "title": t.title,
                "family": t.family,
                "lessons": list(t.lessons),
                "skills": list(t.skills),
                "difficulty": t.difficulty,
                "params": list(t.Params.model_fields),
            }
            for t in registry.all_templates()
        ]
        if opts["json"]:
            self.emit(rows)
            return
        for row in rows:
            self.stdout.write(f"{row['slug']:<24} v{row['version']}  {row['title']}")

    def do_generate(self, opts):
        if opts["seed"] is not None and opts["seeds"] is not None:
            raise ParamError("give --seed N or --seeds A-B, not both")
        if opts["seed"] is None and opts["seeds"] is None:
            raise ParamError("generate needs --seed N or --seeds A-B")
        if opts["seeds"] is not None:
            seeds = _parse_seeds(opts["seeds"])
        else:
            seeds = range(n := _parse_int(opts["seed"], "--seed"), n + 1)
        listing = opts["seeds"] is not None and not opts["json"]
        slug = opts["slug"]
        file = authored.template_from_file(slug) if authored.is_template_path(slug) else None
        for seed in seeds:
            data = _generate(slug, seed, opts["with_answers"], file)
            if opts["json"]:
                self.emit(data)
                continue
            if listing:
                self.stdout.write(f"=== {data['slug']} v{data['version']} seed {seed} ===")
            self.stdout.write(data["statement"])
            if opts["with_answers"]:
                for name, ans in data["answers"].items():
                    self.stdout.write(f"{name} = {ans['value']} {ans['unit']}".rstrip())
            if listing:
                self.stdout.write("")

    def do_validate(self, opts):
        ok, problems = authored.validate_file(opts["file"])
        for line in problems:
            self.stderr.write(line)
        if problems:
            raise SystemExit(2)  # one line per problem, and nothing else, on stderr
        self.stdout.write(ok)

    def do_drill(self, opts):
        seeds = _parse_seeds(opts["seeds"])
        if opts["slug"] not in drill_registry.DRILLS:
            known = ", ".join(drill_registry.slugs())
            raise ParamError(f"no drill {opts['slug']!r}; known: {known}")
        for seed in seeds:
            data = export(drill_registry.generate(opts["slug"], seed))
            if opts["json"]:
                self.emit(data)
                continue
            self.stdout.write(f"=== {data['slug']} seed {seed} ===")
            self.stdout.write(data["alert"])
            ans = data["answer"]
            self.stdout.write(f"answer: {ans['fault']} at {ans['location']}; {ans['remedy']}")
            self.stdout.write(f"expert path: {', '.join(data['expert_path'])}")
            self.stdout.write(f"{len(data['actions'])} actions")

    def _single_or_batch(self, opts, one: Callable[[dict[str, Any]], dict[str, Any]], build):
        if opts.get("batch"):
            self._batch(opts["batch"], one)
            return
        if not opts.get("slug"):
            raise ParamError(f"{opts['action']} needs a SLUG or --batch FILE")
        if opts.get("params") is None:
            raise ParamError(f"{opts['action']} needs --params '{{...}}'")
        return one(build(opts))

    def _batch(self, path: str, one: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        try:
            handle = sys.stdin if path == "-" else open(path, encoding="utf-8")  # noqa: SIM115
        except OSError as err:
            raise ParamError(f"cannot read {path}: {err.strerror}") from None
        with handle:
            for lineno, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    if not isinstance(record, dict):
                        raise ParamError("each line must be a JSON object")
                    self.emit(one(record))
                except json.JSONDecodeError as err:
                    self.emit({"error": f"line {lineno}: not valid JSON: {err.msg}"})
                except ParamError as err:
                    self.emit({"error": f"line {lineno}: {err}"})

    def do_solve(self, opts):
        result = self._single_or_batch(
            opts, _solve, lambda o: {"slug": o["slug"], "params": _load_params(o["params"])}
        )
        if result is None:
            return
        if opts["json"]:
            self.emit(result)
            return
        for name, ans in result["parts"].items():
            self.stdout.write(f"{name} = {ans['value']} {ans['unit']}".rstrip())

    def do_grade(self, opts):
        def build(o):
            if o.get("part") is None or o.get("answer") is None:
                raise ParamError("grade needs --part PART and --answer TEXT")
            return {
                "slug": o["slug"],
                "params": _load_params(o["params"]),
                "part": o["part"],
                "answer": o["answer"],
            }

        result = self._single_or_batch(opts, _grade, build)
        if result is None:
            return
        if opts["json"]:
            self.emit(result)
            return
        if not result["valid"]:
            self.stdout.write(f"invalid: {result['error']}")
            return
        verdict = "correct" if result["correct"] else "wrong"
        code = f" [{result['misconception']}]" if result["misconception"] else ""
        self.stdout.write(f"{verdict} (score {result['score']}){code}: {result['feedback']}")

    @staticmethod
    def _check_registered(slugs: list[str] | None, variants: int) -> tuple[CheckReport, int]:
        drill_slugs = set(drill_registry.slugs())
        templates = None if slugs is None else [x for x in slugs if x not in drill_slugs]
        report = check_all(variants, templates) if templates != [] else CheckReport()
        drills = None if slugs is None else [x for x in slugs if x in drill_slugs]
        drilled, drill_failures = check_drills(variants, drills) if drills != [] else (0, [])
        report.failures.extend(drill_failures)
        return report, drilled

    def do_check(self, opts):
        threshold = _parse_share(opts["min_distinguishable"])
        min_applies = _parse_int(opts["min_applies"], "--min-applies")
        worst = None if opts["worst"] is None else _parse_int(opts["worst"], "--worst")
        variants = _parse_int(opts["variants"], "--variants")
        if variants < 1 or min_applies < 1 or (worst is not None and worst < 1):
            raise ParamError("--variants, --min-applies and --worst must be at least 1")
        if opts.get("file"):
            report = check_template(authored.template_from_file(opts["file"]), variants)
            drilled = 0
        else:
            report, drilled = self._check_registered(opts.get("slugs"), variants)
        slips = report.distinguish
        rows = slips.sorted_rows() if worst is None else slips.worst(worst)
        below = [] if threshold is None else slips.below(threshold, min_applies)
        checked = f"{report.variants} variants" + (f" and {drilled} drills" if drilled else "")
        summary = f"checked {checked}: {len(report.failures)} failures"
        if threshold is not None:
            plural = "" if len(below) == 1 else "s"
            summary += (
                f", {len(below)} slip{plural} under {threshold * 100:g}% distinguishable"
                f" (of those applying in at least {min_applies} variants)"
            )
        if opts["json"]:
            self.emit(
                {
                    "ok": not (report.failures or below),
                    "summary": summary,
                    "variants": report.variants,
                    "drills": drilled,
                    "failures": report.failures,
                    "redraws": report.redraws.rows(),
                    "distinguishability": {
                        "min_distinguishable": threshold,
                        "min_applies": min_applies,
                        "rows": [r.as_dict() for r in rows],
                        "below": [r.as_dict() for r in below],
                    },
                }
            )
        else:
            self.stdout.write(
                "Distinguishability: applies = variants where the slip changes the answer; "
                "distinguishable = of those, where the slip typed as a learner would grades "
                "wrong and is named as that misconception. Any slip under "
                "--min-distinguishable fails the check."
            )
            for line in format_table(rows):
                self.stdout.write(line)
            for line in report.redraws.lines():
                self.stdout.write(line)
            for row in below:
                self.stderr.write(
                    f"{row.template} {row.part} {row.misconception}: distinguishable in "
                    f"{row.distinguishable} of {row.applies} variants, under {threshold * 100:g}%"
                )
        for line in report.failures:
            self.stderr.write(line)
        if report.failures or below:
            raise CommandError(summary, returncode=1)
        if not opts["json"]:  # stdout stays one JSON document
            self.stdout.write(summary)
