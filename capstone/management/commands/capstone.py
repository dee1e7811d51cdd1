"""manage.py capstone briefs --seeds A-B [--json]: the capstone briefs of a range of seeds.

With --json, one JSON object per line and seed (capstone.memo_review.summary): the model,
its parameter counts and weights format, the workload at the peak, the SLOs and the
reference plan. Without it, one readable line per seed. The seed range is read exactly
as `problems generate --seeds` reads it (the same parser and limit): a malformed,
reversed or too long range exits 2 with one line on stderr and nothing on stdout.
The briefs are those the current generator draws (capstone.memo_review.brief); a stored
capstone keeps the brief it was drawn with.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from capstone.memo_review.brief import brief_for
from capstone.memo_review.summary import brief_summary
from problems.engine.variants import ParamError
from problems.management.commands.problems import MAX_SEEDS, _parse_seeds


class Command(BaseCommand):
    help = "Capstone briefs: `briefs --seeds A-B [--json]`, one line per seed."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        p = sub.add_parser("briefs", help="the briefs of seeds A to B with their reference plans")
        p.add_argument(
            "--seeds",
            metavar="A-B",
            help=f"every seed from A to B inclusive (at most {MAX_SEEDS:,})",
        )
        p.add_argument("--json", action="store_true", help="one JSON object per line")

    def handle(self, *args, **opts):
        try:
            if opts["seeds"] is None:
                raise ParamError("briefs needs --seeds A-B")
            seeds = _parse_seeds(opts["seeds"])
        except ParamError as err:
            raise CommandError(str(err), returncode=2) from None
        for seed in seeds:
            row = brief_summary(brief_for(seed))
            if opts["json"]:
                self.stdout.write(json.dumps(row, ensure_ascii=False))
                continue
            w, slo, plan = row["workload"], row["slo"], row["plan"]
            self.stdout.write(
                f"{seed:>6}  {row['model']:<14} {row['weights_dtype']:<4} "
                f"{w['peak_rps']:>8.2f} req/s  prompt {w['prompt_mean']}/{w['prompt_p99']}  "
                f"TTFT {slo['ttft_p99_ms']} ms  TPOT {slo['tpot_ms']} ms  -> "
                f"{plan['replicas']} x {plan['tp']} {plan['accelerator']} "
                f"({plan['gpus']} GPUs, USD {plan['monthly_cost_usd']:,.0f}/month)"
            )
