"""cooling-choices: air against liquid cooling for a rack, what losing cooling does to a
running training job, and what a vendor's reference architecture lets a room hold.

Three parts, each one situation from its bank (problems/templates/concepts/_bank.py):

- cooling: how a rack must be cooled: room air through the servers' fans (NVIDIA DGX
  H100, 10.2 kW maximum, and DGX B200, 14.3 kW, are air-cooled; DGX H100/H200 and B200
  user guides), a rear-door heat exchanger that lets air-cooled servers sit at a higher
  rack density, or direct liquid cooling through cold plates (the DGX GB200 rack, 72
  GPUs drawing about 120 kW, cools its compute trays through liquid manifolds; DGX GB200
  user guide, "Hardware");
- loss: what losing cooling does to a running job: a GPU lowers its clocks near its
  slowdown temperature and stops at its shutdown temperature (`nvidia-smi -q` lists
  both, for example 89 C and 92 C), a synchronous job runs at its slowest rank's pace,
  independent jobs do not, and a redundant (N+1) cooling unit covers one failure;
- plan: a room checked against a reference architecture's figures: a DGX SuperPOD
  scalable unit of eight DGX GB200 racks needs about 1.2 MW and liquid cooling (NVIDIA
  DGX SuperPOD reference architecture with DGX GB200, "DGX SuperPOD Architecture"); the
  DGX B300 design with standard racks puts four systems in a rack at about 56 kW, 72
  systems to a unit (NVIDIA DGX SuperPOD reference architecture with DGX B300).

Sentences are ours; the facts are the documents' above.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic

AIR, DOOR, DLC = "air-cooled", "rear-door-hx", "direct-liquid"
COOLING = Topic(
    part="cooling",
    label="How the rack must be cooled",
    clue=(
        "Room air carries heat away only as fast as the hall's units and containment can "
        "move it, a few tens of kW per rack; water carries far more heat per litre, so "
        "past that point the heat must be caught at the rack: at the back of it while "
        "the servers keep their fans, or on the chips themselves once the servers are "
        "built for it."
    ),
    choices=(AIR, DOOR, DLC),
    meanings=(
        (AIR, "room air through the servers' own fans, hot aisle contained"),
        (DOOR, "air-cooled servers with a water-cooled door on the back of the rack"),
        (DLC, "cold plates on the GPUs and CPUs, fed by a coolant distribution unit"),
    ),
    questions=(
        Question(
            "A DGX GB200 rack holds 72 Blackwell GPUs in 18 compute trays and draws about "
            "120 kW; the trays' GPUs and CPUs sit under cold plates connected to the "
            "rack's manifolds. How must the rack be cooled?",
            DLC,
            "about 120 kW is several times what air can remove from one rack, and the "
            "trays are built around cold plates fed by a coolant distribution unit.",
            (
                Slip(AIR, "gb200-air-cooled", "A 120 kW rack thought coolable by room air",
                     "Room air handles a few tens of kW per rack; 120 kW needs liquid at "
                     "the chips."),
                Slip(DOOR, "gb200-rear-door", "A 120 kW rack thought coolable by a rear door",
                     "A rear door cools air-cooled servers; these trays are built with "
                     "cold plates and need coolant delivered to them."),
            ),
        ),
        Question(
            "A hall supports 25 kW per rack with hot-aisle containment and has no water at "
            "the racks. You place two NVIDIA DGX H100 systems (10.2 kW maximum each, "
            "air-cooled by their own fans) in each rack. How are the racks cooled?",
            AIR,
            "about 20 kW per rack is within the hall's 25 kW, and DGX H100 is an "
            "air-cooled design.",
            (
                Slip(DOOR, "door-when-air-suffices", "A rear door added where room air suffices",
                     "Two systems draw about 20 kW, inside the hall's 25 kW; and there is "
                     "no water at the racks for a door."),
                Slip(DLC, "dgx-h100-liquid", "DGX H100 thought to need liquid cooling",
                     "DGX H100 is cooled by its own fans; it has no cold-plate loop to "
                     "connect."),
            ),
        ),
        Question(
            "An air-cooled hall supports only 15 kW per rack, but facility water is "
            "piped to every row. You must fit four DGX H100 systems (about 41 kW) in each "
            "rack, without spreading them out and without changing the servers. How are "
            "the racks cooled?",
            DOOR,
            "a water-cooled rear door removes the servers' hot exhaust at the rack, so "
            "unmodified air-cooled servers can run far above the room's 15 kW.",
            (
                Slip(AIR, "density-over-room-limit",
                     "A rack above the room's limit cooled by room air",
                     "41 kW is far above the 15 kW the room's air can take from a rack."),
                Slip(DLC, "cold-plates-on-air-servers",
                     "Cold plates thought fittable to air-cooled servers",
                     "The servers may not be changed, and DGX H100 has no cold-plate "
                     "version; the water must meet their exhaust air."),
            ),
        ),
        Question(
            "A colocation hall offers 30 kW racks with hot-aisle containment and no water "
            "at the racks. A customer places one NVIDIA DGX B200 (14.3 kW maximum, a 10U "
            "air-cooled system) per rack. How are the racks cooled?",
            AIR,
            "14.3 kW is well inside the 30 kW the hall's air can remove, and DGX B200 is "
            "air-cooled.",
            (
                Slip(DOOR, "door-for-b200", "A rear door thought needed for one DGX B200",
                     "One system at 14.3 kW fits the hall's 30 kW racks; and there is no "
                     "water for a door."),
                Slip(DLC, "b200-liquid", "DGX B200 thought to need liquid cooling",
                     "DGX B200 is an air-cooled system; there is no loop to connect."),
            ),
        ),
    ),
)  # fmt: skip

SLOW_ALL, STOPS, SLOW_ONE, NONE = "whole-job-slows", "job-stops", "one-node-slows", "no-effect"
LOSS = Topic(
    part="loss",
    label="What happens to the running work",
    clue=(
        "A GPU that gets too hot first lowers its clocks and, past its shutdown "
        "temperature, stops; a synchronous training step waits for every rank, so it "
        "moves at the slowest one's pace and cannot finish without all of them, while "
        "independent jobs feel only their own GPUs; a failure that redundant units absorb "
        "changes no temperature at all."
    ),
    choices=(SLOW_ALL, STOPS, SLOW_ONE, NONE),
    meanings=(
        (SLOW_ALL, "the whole job slows to the hottest GPUs' pace"),
        (STOPS, "the job stops and must restart from its last checkpoint"),
        (SLOW_ONE, "only the work on the affected nodes slows"),
        (NONE, "nothing changes"),
    ),
    questions=(
        Question(
            "A cooling unit fails in one row. On 4 of the 128 nodes running one "
            "synchronous data-parallel training job, GPUs reach their 89 C slowdown "
            "temperature and run about 30% below their normal clocks; none reaches its "
            "shutdown temperature. What happens to the job?",
            SLOW_ALL,
            "every step waits for the slowest rank at the all-reduce, so all 128 nodes run "
            "at the throttled GPUs' pace.",
            (
                Slip(STOPS, "throttle-as-stop", "Thermal throttling taken for a shutdown",
                     "No GPU reached its shutdown temperature; throttled GPUs keep "
                     "working, slower."),
                Slip(SLOW_ONE, "sync-job-local-slowdown",
                     "A synchronous job thought slowed only on hot nodes",
                     "The other 124 nodes wait at every all-reduce for the 4 slow ones; "
                     "the whole job slows."),
                Slip(NONE, "throttle-harmless", "Thermal throttling thought harmless",
                     "Clocks 30% down on any rank slow every step of a synchronous job."),
            ),
        ),
        Question(
            "The pump of the coolant distribution unit serving one DGX GB200 rack fails "
            "during a training job that spans that rack and seven others. With no flow "
            "through the cold plates, the rack's GPUs pass their shutdown temperature and "
            "its compute trays power off. What happens to the job?",
            STOPS,
            "72 of the job's GPUs are gone; their peers' collectives cannot complete, so "
            "the job fails and restarts from its last checkpoint once the rack is back "
            "or replaced.",
            (
                Slip(SLOW_ALL, "shutdown-as-slowdown", "A shutdown taken for a slowdown",
                     "Powered-off GPUs do not run slowly; they do not run, and the "
                     "collectives that need them cannot finish."),
                Slip(SLOW_ONE, "shutdown-local",
                     "A rack's shutdown thought to affect only that rack",
                     "The other seven racks' ranks wait on the lost ones in every "
                     "collective."),
                Slip(NONE, "liquid-loss-harmless", "A coolant pump failure thought harmless",
                     "Without flow, cold plates stop removing about 120 kW of heat; the "
                     "GPUs reach shutdown quickly."),
            ),
        ),
        Question(
            "One of the five cooling units of an N+1 set serving a hall fails. The "
            "remaining four hold the supply air within its set point, and GPU "
            "temperatures in the hall do not change. What happens to the running "
            "training jobs?",
            NONE,
            "the spare unit's capacity covers the failure; no GPU gets hotter, so no "
            "job notices until a second unit fails.",
            (
                Slip(SLOW_ALL, "n-plus-one-ignored-slow", "A covered failure thought to slow jobs",
                     "The GPUs' temperatures did not change, so their clocks did not "
                     "either."),
                Slip(STOPS, "n-plus-one-ignored-stop", "A covered failure thought to stop jobs",
                     "N+1 means one unit can fail with the load still covered; nothing "
                     "shuts down."),
                Slip(SLOW_ONE, "n-plus-one-ignored-local",
                     "A covered failure thought to slow some nodes",
                     "Supply air is within its set point everywhere; no node gets hotter."),
            ),
        ),
        Question(
            "A cooling unit fails in one row. On 4 of 128 nodes, GPUs reach their slowdown "
            "temperature and run about 30% below their normal clocks. Each of the 128 "
            "nodes runs its own independent single-node fine-tuning job. What happens?",
            SLOW_ONE,
            "the jobs share nothing, so only the 4 jobs on the hot nodes slow down.",
            (
                Slip(SLOW_ALL, "independent-as-sync",
                     "Independent jobs thought to wait for each other",
                     "Only a job spread across nodes waits for its slowest rank; these "
                     "jobs are single-node and independent."),
                Slip(STOPS, "throttle-as-stop-local", "Thermal throttling taken for a shutdown",
                     "The GPUs are at slowdown, not shutdown; they keep working."),
                Slip(NONE, "throttle-harmless-local", "Thermal throttling thought harmless",
                     "The 4 hot nodes' jobs run about 30% slower."),
            ),
        ),
        Question(
            "The chilled-water plant for a hall trips. Over the next minutes GPUs in every "
            "rack climb through their slowdown temperature, and then several nodes of a "
            "512-GPU synchronous training job reach their shutdown temperature and power "
            "off. What happens to the job?",
            STOPS,
            "slowing down came first, but once nodes power off the job's collectives "
            "cannot complete: it fails and restarts from its last checkpoint.",
            (
                Slip(SLOW_ALL, "stopped-at-slowdown", "The story stopped at the slowdown stage",
                     "Throttling was only the first stage; nodes that power off end the "
                     "job."),
                Slip(SLOW_ONE, "hall-loss-local",
                     "A hall-wide cooling loss thought to slow only some nodes",
                     "Every rack lost cooling, and the job spans many of them."),
                Slip(NONE, "thermal-mass-forever",
                     "A building's thermal mass thought to ride out a plant trip",
                     "Thermal mass buys minutes, not hours; the GPUs here reached shutdown."),
            ),
        ),
    ),
)  # fmt: skip

POWER, COOL, SPACE, FITS = "power-binds", "cooling-binds", "space-binds", "fits"
PLAN = Topic(
    part="plan",
    label="What the room allows",
    clue=(
        "A reference architecture fixes the unit you build with: how many racks, how "
        "many kW per rack and in total, and how each rack is cooled; check the room's "
        "power, its cooling per rack and its rack positions against each figure, and the "
        "first that falls short decides the plan."
    ),
    choices=(POWER, COOL, SPACE, FITS),
    meanings=(
        (POWER, "the room's power falls short first"),
        (COOL, "the room's cooling falls short first"),
        (SPACE, "the room's rack positions fall short first"),
        (FITS, "the unit fits the room"),
    ),
    questions=(
        Question(
            "NVIDIA's DGX SuperPOD reference architecture with DGX GB200 builds in scalable "
            "units of eight liquid-cooled DGX GB200 racks needing about 1.2 MW each. Your "
            "room has liquid cooling for 2 MW, 20 rack positions and 1 MW of IT power. "
            "Can it hold one scalable unit?",
            POWER,
            "1.2 MW of load against 1 MW of power: power falls short although cooling and "
            "space suffice.",
            (
                Slip(COOL, "power-as-cooling", "Cooling blamed where power falls short",
                     "The liquid cooling covers 2 MW, more than the unit's 1.2 MW."),
                Slip(SPACE, "power-as-space", "Space blamed where power falls short",
                     "Eight racks and their networking fit 20 positions."),
                Slip(FITS, "unit-power-ignored", "A unit placed without checking its total power",
                     "The unit needs about 1.2 MW and the room has 1 MW."),
            ),
        ),
        Question(
            "The same reference architecture (eight DGX GB200 racks, about 120 kW each, "
            "about 1.2 MW per unit). This room has 5 MW of IT power and 60 rack "
            "positions, but only air cooling for about 30 kW per rack and no facility "
            "water at the racks. Can it hold one scalable unit?",
            COOL,
            "each DGX GB200 rack needs liquid cooling for about 120 kW; 30 kW of air per "
            "rack cannot serve it, whatever the total power.",
            (
                Slip(POWER, "cooling-as-power", "Power blamed where cooling falls short",
                     "5 MW covers the unit's 1.2 MW several times over."),
                Slip(SPACE, "cooling-as-space", "Space blamed where cooling falls short",
                     "60 positions hold the unit easily."),
                Slip(FITS, "total-power-only", "A room judged by its total power alone",
                     "Total power is fine, but each rack needs liquid cooling for about "
                     "120 kW and the room offers 30 kW of air."),
            ),
        ),
        Question(
            "NVIDIA's DGX SuperPOD reference architecture with DGX B300 in standard racks "
            "puts four DGX B300 in a rack at about 56 kW, 72 systems to a scalable unit. "
            "Your room has 2 MW of IT power, cooling for 60 kW per rack and 12 rack "
            "positions. Can it hold one scalable unit?",
            SPACE,
            "72 systems at four per rack need 18 racks; 12 positions fall short, though "
            "18 racks at 56 kW are about 1 MW, within the room's power and cooling.",
            (
                Slip(POWER, "space-as-power", "Power blamed where space falls short",
                     "18 racks at about 56 kW are about 1 MW, within the room's 2 MW."),
                Slip(COOL, "space-as-cooling", "Cooling blamed where space falls short",
                     "The room cools 60 kW per rack, above the design's 56 kW."),
                Slip(FITS, "rack-count-ignored", "A unit placed without counting its racks",
                     "72 systems at four per rack is 18 racks, more than 12 positions."),
            ),
        ),
        Question(
            "The DGX GB200 unit again: eight liquid-cooled racks, about 1.2 MW. Your room "
            "has 1.5 MW of IT power, liquid cooling for 1.5 MW, and 16 rack positions; "
            "the vendor's layout for the unit, networking racks included, takes 12 "
            "positions. Can it hold one scalable unit?",
            FITS,
            "power 1.5 MW and cooling 1.5 MW both exceed 1.2 MW, and 12 positions fit "
            "in 16.",
            (
                Slip(POWER, "headroom-as-shortfall-power",
                     "Headroom mistaken for a power shortfall",
                     "1.5 MW is more than the unit's 1.2 MW."),
                Slip(COOL, "headroom-as-shortfall-cooling",
                     "Headroom mistaken for a cooling shortfall",
                     "The room's liquid cooling covers 1.5 MW, more than 1.2 MW."),
                Slip(SPACE, "headroom-as-shortfall-space",
                     "Headroom mistaken for a space shortfall",
                     "The layout takes 12 of the 16 positions."),
            ),
        ),
        Question(
            "You plan 32 NVIDIA DGX H100 systems (10.2 kW maximum each, air-cooled) at "
            "four per rack, as the layout you follow places them: about 41 kW per rack. "
            "The room has 1 MW of IT power and 30 rack positions, but its air cooling "
            "removes 25 kW per rack. Can it hold the plan?",
            COOL,
            "41 kW per rack is above the 25 kW the room's air removes, although 32 systems "
            "at 10.2 kW are about 330 kW of 1 MW and 8 racks fit 30 positions.",
            (
                Slip(POWER, "per-rack-as-total", "Per-rack heat confused with total power",
                     "The total is about 330 kW of a 1 MW room; the limit is cooling per "
                     "rack."),
                Slip(SPACE, "dh100-space", "Space blamed where cooling falls short",
                     "Eight racks fit 30 positions."),
                Slip(FITS, "per-rack-cooling-ignored", "Cooling checked in total, not per rack",
                     "Air cooling is limited per rack: 41 kW exceeds the room's 25 kW."),
            ),
        ),
    ),
)  # fmt: skip


@register
class CoolingChoices(ConceptTemplate):
    slug = "cooling-choices"
    title = "Cooling choices: air or liquid, losing cooling, planning from a reference architecture"
    family = "concepts"
    lessons = ("power-cooling-the-ai-data-center",)
    skills = ("cooling", "rack-power-budget")
    INTRO = (
        "You plan and run the power and cooling of an AI data centre hall. Answer three "
        "questions: how a rack must be cooled, with air or with liquid; what losing "
        "cooling does to a running training job; and whether a room can hold what a "
        "vendor's reference architecture specifies."
    )
    TOPICS = (COOLING, LOSS, PLAN)
