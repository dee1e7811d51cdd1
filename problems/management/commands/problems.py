"""The problems command-line contract (see README): list, generate, solve, grade, check.

Thin: parse arguments, call the engine through Variant, print. Errors in a single call
exit with status 2 and one line on stderr; in batch mode each bad line becomes an
{"error": ...} line and the run goes on.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from problems.engine import registry
from problems.engine.check import check_all
from problems.engine.variants import ParamError, Variant


def _load_params(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as err:
        raise ParamError(f"--params is not valid JSON: {err.msg}") from None


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
        p = sub.add_parser("generate")
        p.add_argument("slug")
        p.add_argument("--seed", type=int, required=True)
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
        p = sub.add_parser("check")
        p.add_argument("--variants", type=int, default=50)
        p.add_argument("--slug", action="append", dest="slugs")

    def handle(self, *args, **opts):
        try:
            getattr(self, f"do_{opts['action']}")(opts)
        except ParamError as err:
            raise CommandError(str(err), returncode=2) from None

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
        variant = Variant.from_seed(opts["slug"], opts["seed"])
        data: dict[str, Any] = {
            "slug": variant.template.slug,
            "version": variant.template.version,
            "seed": opts["seed"],
            "params": variant.params.model_dump(),
            "statement": variant.statement_markdown(),
            "parts": [
                {"name": p.name, "unit": p.unit, "kind": str(p.kind)}
                for p in variant.parts.values()
            ],
        }
        if opts["with_answers"]:
            data["answers"] = variant.solve_dict()["parts"]
            data["solution"] = variant.solution_markdown()
        if opts["json"]:
            self.emit(data)
            return
        self.stdout.write(data["statement"])
        if opts["with_answers"]:
            for name, ans in data["answers"].items():
                self.stdout.write(f"{name} = {ans['value']} {ans['unit']}".rstrip())

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

    def do_check(self, opts):
        report = check_all(opts["variants"], opts.get("slugs"))
        for line in report.failures:
            self.stderr.write(line)
        summary = f"checked {report.variants} variants: {len(report.failures)} failures"
        if not report.ok:
            raise CommandError(summary, returncode=1)
        self.stdout.write(summary)
