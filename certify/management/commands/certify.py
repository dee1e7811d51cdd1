"""`manage.py certify calibrate [--responses FILE.csv] [--json]` and
`manage.py certify simulate --track SLUG --learners N --seed S [--cut THETA]
[--parameters FILE.json]` (certify.services.simulation: one JSON object; nothing kept).

With --responses: fit the 2PL to a file of `person,item,correct` rows (correct 0 or 1)
and print the items' parameters; nothing is stored. Without: calibrate every template
from the database (certify.services.calibration) and store the result. A file the fit
cannot use exits 2 with one line naming the row or the item.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from certify.models import Track
from certify.psychometrics.calibrate import CalibrationError, calibrate
from certify.services.calibration import calibration_run
from certify.services.simulation import simulate

COLUMNS = ("person", "item", "correct")


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

    def handle(self, *args, action: str, **opts):
        if action == "simulate":
            self._simulate(**opts)
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
        found = Track.objects.filter(slug=track).first()
        if found is None:
            known = ", ".join(Track.objects.values_list("slug", flat=True)) or "none loaded"
            raise CommandError(f"no track {track!r} (tracks: {known})", returncode=2)
        try:
            given = None if parameters is None else json.loads(parameters.read_text())
            out = simulate(track=found, learners=learners, seed=seed, cut=cut, given=given)
        except (OSError, ValueError) as exc:
            raise CommandError(str(exc), returncode=2) from None
        self.stdout.write(json.dumps(out, sort_keys=True))

    def _print(self, data: dict, *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(data, sort_keys=True))
            return
        for key, value in data.items():
            self.stdout.write(f"{key}: {value}")
