"""own-vs-rent: the build-or-buy ladder in numbers. An owned 8-GPU server's cost per
useful GPU-hour, the utilisation at which owning matches renting the same GPUs on demand,
and which is cheaper at the team's utilisation.

Realism the generator enforces: the server is a catalog system with a published maximum
power (NVIDIA DGX A100, DGX H100, DGX B200), named with its GPU; its purchase price,
the on-demand price of its GPU and the hosting fee are assumptions in bands of the order
the market shows (stated as assumptions, see _family.py), amortised straight-line over
3-5 years with no resale value and no financing cost. The server draws 60-90% of its
rating on average, every hour whether busy or not, times a PUE of 1.1-1.6 at 0.06-0.20
USD per kWh; hosting (space, network, support, not electricity) is 150-300 USD per kW of
rating per month. Renting is on demand, paid only for the hours used; a reservation is
billed for every hour, and would be compared at the same utilisation, so it is left
out. The break-even utilisation lies between 20% and 95%, and the team's utilisation at
least 5 points from it, so the choice is never a rounding call.

Misconceptions: on the cost per useful GPU-hour, utilisation ignored (the cost of an
owned GPU-hour whether used or idle: utilisation-ignored), electricity left out
(power-forgotten), the PUE left out (pue-forgotten, named only when it lands 2.5% from
the answer and the other slips), the server's cost per hour taken for one GPU's
(per-server-not-per-gpu) and the monthly cost per GPU given as hourly
(per-month-not-per-hour); on the break-even, the per-server cost against the per-GPU
price (per-server-not-per-gpu), power left out (power-forgotten) and the ratio turned
over (ratio-inverted); on the choice, the comparison without utilisation
(utilisation-ignored) or per server (per-server-not-per-gpu).
"""

from __future__ import annotations

import random

from pydantic import Field

from hardware_db import catalog
from problems.engine.numbers import sig, tex
from problems.engine.registry import register
from problems.engine.solutions import formula, step
from problems.engine.template import Kind, Misconception, Params, Part, Template
from problems.engine.tolerance import Exact
from problems.templates._common import parts_separated, separated
from problems.templates.platform._family import (
    CAPEX_BANDS,
    HOURS_PER_MONTH,
    RENT_BANDS,
    gpu_name,
    priced_servers,
    server_kw_of,
    server_with_kw,
    usd,
)

_YEARS = (3, 4, 4, 5)
_LOADS = (0.6, 0.7, 0.75, 0.8, 0.9)
_PUES = (1.1, 1.2, 1.3, 1.4, 1.5, 1.6)
_KWH = (0.06, 0.08, 0.1, 0.12, 0.15, 0.2)
_UTILS = tuple(u / 100 for u in range(25, 100, 5))


class OwnRentParams(Params):
    server_kw: float = Field(gt=0, le=1000)
    gpus_per_server: int = Field(ge=1, le=1000)
    capex_usd: float = Field(gt=0, le=1e8)
    years: int = Field(ge=1, le=15)
    avg_load: float = Field(gt=0, le=1)
    pue: float = Field(ge=1, le=5)
    kwh_usd: float = Field(gt=0, le=10)
    hosting_usd_month: float = Field(ge=0, le=1e6)
    rent_usd_gpu_h: float = Field(gt=0, le=1000)
    utilisation: float = Field(gt=0, le=1)


MONTHLY = formula(
    "M",
    lambda s: s.K / (12 * s.Y) + s.P * s.e * s.h * s.k + s.H,
    K="K",
    Y="Y",
    P=r"P_{\mathrm{avg}}",
    e=r"\mathrm{PUE}",
    h="h",
    k=r"p_{\mathrm{kWh}}",
    H="H",
)
PER_GPU_HOUR = formula("c", lambda s: s.M / (s.G * s.h), M="M", G="G", h="h")
USEFUL = formula(r"c_{\mathrm{useful}}", lambda s: s.c / s.U, c="c", U="U")
BREAK_EVEN = formula(r"U^{*}", lambda s: s.c / s.r, c="c", r="r")


def _power_month(p: OwnRentParams, pue: float | None = None) -> float:
    kw = p.server_kw * p.avg_load
    return kw * (p.pue if pue is None else pue) * HOURS_PER_MONTH * p.kwh_usd


def _monthly(p: OwnRentParams, power: float | None = None) -> float:
    power = _power_month(p) if power is None else power
    return p.capex_usd / (12 * p.years) + power + p.hosting_usd_month


def _per_gpu_hour(p: OwnRentParams, power: float | None = None) -> float:
    return _monthly(p, power) / (p.gpus_per_server * HOURS_PER_MONTH)


def _break_even(p: OwnRentParams) -> float:
    return _per_gpu_hour(p) / p.rent_usd_gpu_h


def _gpu(p: OwnRentParams) -> catalog.Accelerator | None:
    server = server_with_kw(p.server_kw, p.gpus_per_server)
    return catalog.accelerator(server.accelerator) if server else None


@register
class OwnVsRent(Template):
    slug = "own-vs-rent"
    version = 1
    title = "Owning an 8-GPU server against renting its GPUs"
    family = "platform"
    lessons = ("the-layers-and-the-build-or-buy-ladder", "reliability-cost-at-scale")
    skills = ("build-vs-buy", "gpu-hours", "energy-cost")
    difficulty = 3
    Params = OwnRentParams

    def generate(self, rng: random.Random) -> OwnRentParams:
        for _ in range(10_000):
            server = rng.choice(priced_servers())
            low, high = CAPEX_BANDS[server.slug]
            rent_low, rent_high = RENT_BANDS[server.accelerator]
            kw = server_kw_of(server)
            p = OwnRentParams(
                server_kw=kw,
                gpus_per_server=server.n_accelerators,
                capex_usd=float(rng.randrange(low, high + 1, 5_000)),
                years=rng.choice(_YEARS),
                avg_load=rng.choice(_LOADS),
                pue=rng.choice(_PUES),
                kwh_usd=rng.choice(_KWH),
                hosting_usd_month=float(round(kw * rng.randrange(150, 301, 25), -2)),
                rent_usd_gpu_h=round(rng.uniform(rent_low, rent_high) * 20) / 20,
                utilisation=rng.choice(_UTILS),
            )
            u_star = _break_even(p)
            if not 0.2 <= u_star <= 0.95 or abs(p.utilisation - u_star) < 0.05:
                continue
            numeric = {k: v for k, v in self.solve(p).items() if k != "cheaper"}
            if parts_separated(numeric, self.misconceptions(p)):
                return p
        raise RuntimeError("no acceptable own-vs-rent variant")  # pragma: no cover

    def solve(self, p: OwnRentParams) -> dict[str, Part]:
        c = _per_gpu_hour(p)
        u_star = _break_even(p)
        return {
            "owned_cost": Part(
                "owned_cost", c / p.utilisation, "USD/GPU-h", label="Owned cost per useful GPU-hour"
            ),
            "breakeven": Part("breakeven", u_star * 100, "%", label="Break-even utilisation"),
            "cheaper": Part(
                "cheaper",
                "own" if p.utilisation > u_star else "rent",
                kind=Kind.CHOICE,
                tolerance=Exact(),
                choices=("own", "rent"),
                label="Cheaper at this utilisation",
            ),
        }

    def statement(self, p: OwnRentParams) -> str:
        server = server_with_kw(p.server_kw, p.gpus_per_server)
        gpu = _gpu(p)
        what = f"an {server.name}" if server else f"a {p.gpus_per_server}-GPU server"
        gpus = f"{p.gpus_per_server} {gpu_name(gpu)} GPUs" if gpu else f"{p.gpus_per_server} GPUs"
        avg = p.server_kw * p.avg_load
        return (
            f"A team weighs buying {what} ({gpus}, rated at {sig(p.server_kw)} kW maximum) "
            "against renting the same GPUs on demand from a cloud. Work with these "
            "assumptions:\n\n"
            f"- Purchase price $K = {tex(p.capex_usd, 12)}$ USD, written off in equal parts "
            f"over $Y = {p.years}$ years, with no resale value and no financing cost.\n"
            f"- The server draws on average {sig(p.avg_load * 100)}% of its rating, "
            f"$P_{{\\mathrm{{avg}}}} = {tex(avg, 12)}$ kW, every hour of the month, busy or "
            "idle; the facility's PUE is "
            f"${tex(p.pue, 12)}$ and electricity costs ${tex(p.kwh_usd, 12)}$ USD per kWh.\n"
            f"- Hosting (rack space, network, support contract; not electricity) costs "
            f"$H = {tex(p.hosting_usd_month, 12)}$ USD per month.\n"
            f"- A month is $h = {HOURS_PER_MONTH}$ h (8,760 h / 12).\n"
            f"- Renting costs $r = {tex(p.rent_usd_gpu_h, 12)}$ USD per GPU-hour on demand, "
            "paid only for the hours the team uses.\n"
            f"- The team's work keeps the GPUs busy $U = {sig(p.utilisation * 100)}\\%$ of "
            "the time: its useful GPU-hours are that share of the hours an owned GPU exists.\n\n"
            "1. What does owning cost per useful GPU-hour, in USD/GPU-h?\n"
            "2. At what utilisation, in %, would owning cost the same per useful GPU-hour as "
            "renting?\n"
            "3. At the team's utilisation, which is cheaper: own or rent?"
        )

    def solution(self, p: OwnRentParams) -> str:
        g = p.gpus_per_server
        power = _power_month(p)
        monthly = _monthly(p)
        c = _per_gpu_hour(p)
        u_star = _break_even(p)
        verdict = "own" if p.utilisation > u_star else "rent"
        values = {
            "K": p.capex_usd,
            "Y": p.years,
            "P": p.server_kw * p.avg_load,
            "e": p.pue,
            "h": HOURS_PER_MONTH,
            "k": p.kwh_usd,
            "H": p.hosting_usd_month,
        }
        return (
            "Put every cost on one month. The purchase is spread over its months, the "
            "electricity is the average draw times the PUE (cooling and power losses of the "
            "building) for every hour at $p_{\\mathrm{kWh}} = "
            f"{tex(p.kwh_usd, 12)}$ USD per kWh, and hosting is already monthly:\n\n"
            + step(MONTHLY, values, monthly, "USD")
            + f"\n\nof which electricity is {usd(power)} USD. Each of the server's $G = {g}$ "
            "GPUs costs its share of it for every hour it exists, busy or not:\n\n"
            + step(PER_GPU_HOUR, {"M": monthly, "G": g, "h": HOURS_PER_MONTH}, c, "USD/GPU-h")
            + "\n\nOnly the busy share of those hours does useful work, so each useful hour "
            "carries the idle ones too:\n\n"
            + step(USEFUL, {"c": c, "U": p.utilisation}, c / p.utilisation, "USD/GPU-h")
            + "\n\nRenting on demand costs $r$ per useful hour whatever the utilisation. "
            "The two match where $c / U = r$:\n\n"
            + step(BREAK_EVEN, {"c": c, "r": p.rent_usd_gpu_h}, u_star)
            + f"\n\nthat is **{sig(u_star * 100, 4)}%**. The team runs at "
            f"{sig(p.utilisation * 100)}%, "
            + (
                "above the break-even, so every useful hour costs less on the owned server: "
                if verdict == "own"
                else "below the break-even, so the idle owned hours make owning dearer: "
            )
            + f"**{verdict}**."
        )

    def misconceptions(self, p: OwnRentParams) -> list[Misconception]:
        g, u = p.gpus_per_server, p.utilisation
        c = _per_gpu_hour(p)
        no_power = _per_gpu_hour(p, power=0.0)
        no_pue = _per_gpu_hour(p, power=_power_month(p, pue=1.0))
        answer = c / u
        out = [
            Misconception(
                "utilisation-ignored",
                "owned_cost",
                c,
                "That is the cost of every hour an owned GPU exists. The team uses only "
                f"{sig(u * 100)}% of them, and pays for the idle hours too: divide by the "
                "utilisation.",
            ),
            Misconception(
                "power-forgotten",
                "owned_cost",
                no_power / u,
                "That leaves out electricity. An owned server is billed for the power it "
                "draws, times the PUE for cooling and losses.",
            ),
            Misconception(
                "per-server-not-per-gpu",
                "owned_cost",
                c * g / u,
                f"That is the cost of a whole server-hour. The server holds {g} GPUs and the "
                "rental is priced per GPU: divide by the GPU count.",
            ),
            Misconception(
                "per-month-not-per-hour",
                "owned_cost",
                c * HOURS_PER_MONTH / u,
                f"That is a cost per GPU per month. Divide by the {HOURS_PER_MONTH} hours in "
                "a month to get a price per GPU-hour.",
            ),
        ]
        pue = Misconception(
            "pue-forgotten",
            "owned_cost",
            no_pue / u,
            f"That prices only the server's own draw. The facility's PUE of {sig(p.pue)} "
            "adds cooling and power-conversion losses on top: multiply by it.",
        )
        if separated([answer, *(m.value for m in out), pue.value]):
            out.append(pue)
        rent = p.rent_usd_gpu_h
        out += [
            Misconception(
                "per-server-not-per-gpu",
                "breakeven",
                c * g / rent * 100,
                f"That compares a server-hour of the owned machine with one rented GPU-hour. "
                f"Compare like with like: divide the server's cost by its {g} GPUs.",
            ),
            Misconception(
                "power-forgotten",
                "breakeven",
                no_power / rent * 100,
                "That leaves electricity out of the owned cost, so owning looks cheaper than "
                "it is and breaks even too early.",
            ),
            Misconception(
                "ratio-inverted",
                "breakeven",
                rent / c * 100,
                "That divides the rental price by the owned cost. Owning matches renting "
                "where owned cost / utilisation = rental price, so U = owned cost / price.",
            ),
        ]
        if answer > rent:  # renting wins: ignoring utilisation makes owning look cheaper
            if c < rent:
                out.append(
                    Misconception(
                        "utilisation-ignored",
                        "cheaper",
                        "own",
                        "Per hour of existence the owned GPU is cheaper, but the team keeps "
                        f"it busy only {sig(u * 100)}% of the time; per useful hour, renting "
                        "wins.",
                    )
                )
        elif c * g / u > rent:
            out.append(
                Misconception(
                    "per-server-not-per-gpu",
                    "cheaper",
                    "rent",
                    "That sets a whole server's hourly cost against one GPU's rental price. "
                    f"Per GPU (the server has {g}), owning is cheaper at this utilisation.",
                )
            )
        return out
