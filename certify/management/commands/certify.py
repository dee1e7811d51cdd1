"""`manage.py certify calibrate [--responses FILE.csv] [--json]`,
`manage.py certify simulate --track SLUG --learners N --seed S [--cut THETA]
[--parameters FILE.json]` (certify.services.simulation: one JSON object; nothing kept)
and `manage.py certify standard-set --track SLUG --ratings FILE.csv --by USERNAME`
(modified Angoff ratings, `rater,template,probability` rows, set by a staff user: a new
version of the track's cut, certify.services.exam_decisions.standard_set).

With --responses: fit the 2PL to a file of `person,item,correct` rows (correct 0 or 1)
and print the items' parameters; nothing is stored. Without: calibrate every template
from the database (certify.services.calibration) and store the result. A file the fit
cannot use exits 2 with one line naming the row or the item.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from api_common.service_errors import InvalidInput, NotPermitted
from certify.models import Track
from certify.psychometrics.calibrate import CalibrationError, calibrate
from certify.services.calibration import calibration_run
from certify.services.exam_decisions import standard_set
from certify.services.simulation import simulate

COLUMNS = ("person", "item", "correct")
RATING_COLUMNS = ("rater", "template", "probability")


def read_responses(path: Path) -> list[tuple[str, str, int]]:
    """The rows of a responses file; CalibrationError names the first bad row."""
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{path}: {exc.strerror}") from None
    with handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise CalibrationError(f"{path}: missing column(s) {', '.join(missing)}")
        rows, seen = [], set()
        for number, row in enumerate(reader, start=2):  # line 1 is the header
            person, item, correct = ((row[c] or "").strip() for c in COLUMNS)
            if not person or not item:
                raise CalibrationError(f"row {number}: person and item must not be empty")
            if correct not in ("0", "1"):
                raise CalibrationError(f"row {number}: correct is {correct!r}, not 0 or 1")
            if (person, item) in seen:
                raise CalibrationError(f"row {number}: a second answer of {person} to {item}")
            seen.add((person, item))
            rows.append((person, item, int(correct)))
    if not rows:
        raise CalibrationError(f"{path}: no responses")
    return rows


def read_ratings(path: Path) -> dict[str, list[float]]:
    """{template: [each rater's probability]} from `rater,template,probability` rows;
    CalibrationError names the first bad row."""
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{path}: {exc.strerror}") from None
    out: dict[str, list[float]] = {}
    with handle:
        reader = csv.DictReader(handle)
        missing = [c for c in RATING_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise CalibrationError(f"{path}: missing column(s) {', '.join(missing)}")
        for number, row in enumerate(reader, start=2):
            rater, template, text = ((row[c] or "").strip() for c in RATING_COLUMNS)
            try:
                value = float(text)
            except ValueError:
                raise CalibrationError(
                    f"row {number}: probability {text!r} is not a number"
                ) from None
            if not rater or not template or not math.isfinite(value):
                raise CalibrationError(f"row {number}: rater, template and a probability needed")
            out.setdefault(template, []).append(value)
    if not out:
        raise CalibrationError(f"{path}: no ratings")
    return out


def _track(slug: str) -> Track:
    found = Track.objects.filter(slug=slug).first()
    if found is None:
        known = ", ".join(Track.objects.values_list("slug", flat=True)) or "none loaded"
        raise CommandError(f"no track {slug!r} (tracks: {known})", returncode=2)
    return found


class Command(BaseCommand):
    help = "Certification psychometrics: calibrate templates with the 2PL model."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        cal = sub.add_parser("calibrate", help="fit the 2PL (a file, or the database)")
        cal.add_argument("--responses", type=Path, help="person,item,correct CSV")
        cal.add_argument("--json", dest="as_json", action="store_true", help="one JSON object")
        sim = sub.add_parser("simulate", help="simulated learners take a track's exam")
        sim.add_argument("--track", required=True, help="the track's slug")
        sim.add_argument("--learners", type=int, default=1000)
        sim.add_argument("--seed", type=int, default=0)
        sim.add_argument("--cut", type=float, default=0.5, help="the cut on theta")
        sim.add_argument("--parameters", type=Path, help='JSON {"template": [a, b], ...}')
        std = sub.add_parser("standard-set", help="a track's cut from Angoff ratings")
        std.add_argument("--track", required=True, help="the track's slug")
        std.add_argument("--ratings", type=Path, required=True, help="rater,template,probability")
        std.add_argument("--by", required=True, help="the staff user setting it")

    def handle(self, *args, action: str, **opts):
        if action == "simulate":
            self._simulate(**opts)
            return
        if action == "standard-set":
            self._standard_set(**opts)
            return
        responses, as_json = opts["responses"], opts["as_json"]
        if responses is not None:
            try:
                fit = calibrate(read_responses(responses))
            except CalibrationError as exc:
                raise CommandError(str(exc), returncode=2) from None
            self._print(fit.as_json(), as_json=as_json)
            return
        result = calibration_run()
        c = result.calibration
        out = {
            "calibration": c.pk if c else None,
            "items": c.items.count() if c else 0,
            "left_out": result.left_out,
        }
        self._print(out, as_json=as_json)

    def _simulate(self, *, track: str, learners: int, seed: int, cut: float, parameters, **_):
        found = _track(track)
        try:
            given = None if parameters is None else json.loads(parameters.read_text())
            out = simulate(track=found, learners=learners, seed=seed, cut=cut, given=given)
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc), returncode=2) from None
        self.stdout.write(json.dumps(out, sort_keys=True))

    def _standard_set(self, *, track: str, ratings: Path, by: str, **_):
        found = _track(track)
        user = get_user_model().objects.filter(username=by).first()
        if user is None:
            raise CommandError(f"no user {by!r}", returncode=2)
        try:
            setting = standard_set(user=user, track=found, ratings=read_ratings(ratings))
        except (CalibrationError, InvalidInput, NotPermitted) as exc:
            raise CommandError(str(exc), returncode=2) from None
        self.stdout.write(
            json.dumps(
                {"track": found.slug, "version": setting.version, "cut": setting.cut_theta,
                 "borderline_score": round(setting.borderline_score, 4),
                 "calibration": setting.calibration_id},
                sort_keys=True,
            )
        )  # fmt: skip

    def _print(self, data: dict, *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(data, sort_keys=True))
            return
        for key, value in data.items():
            self.stdout.write(f"{key}: {value}")
