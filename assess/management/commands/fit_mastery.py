"""manage.py fit_mastery [--min-responses N] [--json]: fit BKT per skill from the log."""

import json

from django.core.management.base import BaseCommand

from assess.mastery import bkt
from assess.selectors import evidence_sequences

PARAMS = ("p_init", "p_learn", "p_slip", "p_guess")


class Command(BaseCommand):
    help = (
        "Fit BKT parameters per skill by EM from the answers that were mastery evidence, "
        "and print them. Skills with fewer evidence answers than --min-responses are skipped."
    )

    def add_arguments(self, parser):
        parser.add_argument("--min-responses", type=int, default=20, metavar="N")
        parser.add_argument(
            "--json", dest="as_json", action="store_true", help="One JSON document."
        )

    def handle(self, *args, min_responses: int, as_json: bool, **options):
        fitted, skipped = [], []
        for skill, by_learner in sorted(evidence_sequences().items()):
            sequences = list(by_learner.values())
            n = sum(len(seq) for seq in sequences)
            if n < min_responses:
                skipped.append({"skill": skill, "responses": n})
                continue
            result = bkt.fit(sequences)
            fitted.append(
                {
                    "skill": skill,
                    "learners": len(sequences),
                    "responses": n,
                    **{name: getattr(result.params, name) for name in PARAMS},
                    "log_likelihood": result.log_likelihood,
                    "iterations": result.iterations,
                    "converged": result.converged,
                }
            )
        if as_json:
            self._json({"min_responses": min_responses, "fitted": fitted, "skipped": skipped})
        else:
            self._table(fitted, skipped, min_responses)

    def _json(self, doc: dict) -> None:
        self.stdout.write(json.dumps(doc, indent=2))

    def _table(self, fitted: list[dict], skipped: list[dict], min_responses: int) -> None:
        if not fitted:
            self.stdout.write(f"No skill has {min_responses} evidence answers yet.")
        else:
            width = max(len("skill"), *(len(row["skill"]) for row in fitted))
            head = f"{'skill':<{width}}  learners  responses  " + "  ".join(
                f"{name:>7}" for name in PARAMS
            )
            self.stdout.write(head + "   log-lik  iters  converged")
            for row in fitted:
                values = "  ".join(f"{row[name]:>7.4f}" for name in PARAMS)
                self.stdout.write(
                    f"{row['skill']:<{width}}  {row['learners']:>8}  {row['responses']:>9}  "
                    f"{values}  {row['log_likelihood']:>8.2f}  {row['iterations']:>5}  "
                    f"{'yes' if row['converged'] else 'no':>9}"
                )
        if skipped:
            names = ", ".join(f"{row['skill']} ({row['responses']})" for row in skipped)
            self.stdout.write(f"Skipped, fewer than {min_responses} evidence answers: {names}")
