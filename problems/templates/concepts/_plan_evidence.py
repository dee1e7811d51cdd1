"""Two banks of experiment-design (problems/templates/concepts/experiment_design.py): what
a mixed-workload benchmark says about a provisional fleet plan, and which measurement
would reverse a capacity memo's recommendation. Kept apart only to keep each module
short."""

from __future__ import annotations

from problems.templates.concepts._bank import Question, Slip, Topic

HOLDS, OVERTURNED, INVALID = "plan-holds", "plan-overturned", "test-invalid"
PLAN = (
    "The plan: 6 replicas for a peak of 40 requests/s, with a p99 time to first token "
    "under 800 ms, for a traffic mix of 70% short chats and 30% long-document "
    "prompts. The benchmark"
)
VERDICT = Topic(
    part="verdict",
    label="What the mixed-workload benchmark says about the plan",
    clue=(
        "A benchmark tests a plan only if it runs the plan's load: the brief's peak rate "
        "with the real mix of request shapes, judged by the statistic the target names; "
        "then a result past the target overturns the plan."
    ),
    choices=(HOLDS, OVERTURNED, INVALID),
    meanings=(
        (HOLDS, "the plan stands"),
        (OVERTURNED, "the plan must change"),
        (INVALID, "the run does not test the plan"),
    ),
    questions=(
        Question(
            f"{PLAN} ran 40 requests/s with the 70/30 mix on 6 replicas for 20 minutes: "
            "p99 time to first token 640 ms, no errors.",
            HOLDS,
            "the plan's load and mix, judged by p99, came in under 800 ms.",
            (
                Slip(OVERTURNED, "passing-run-rejected", "A passing run read as a failure",
                     "At the plan's peak and mix the p99 met the target: the plan stands."),
                Slip(INVALID, "valid-run-dismissed", "A run at the plan's load dismissed",
                     "This run is the plan's own load and mix: it is the test."),
            ),
        ),
        Question(
            f"{PLAN} ran 40 requests/s with the 70/30 mix on 6 replicas: p99 time to "
            "first token 1.3 s; the mean was 520 ms.",
            OVERTURNED,
            "at the plan's load and mix the p99, the statistic the target names, is past "
            "800 ms.",
            (
                Slip(HOLDS, "mean-for-p99", "A mean judged against a p99 target",
                     "The target is on the p99; a mean under 800 ms hides the slow tail "
                     "the target is about."),
                Slip(INVALID, "failing-run-dismissed", "A failing run at the plan's load dismissed",
                     "This run is the plan's load and mix; its failure is the answer."),
            ),
        ),
        Question(
            f"{PLAN} ran 20 requests/s with the 70/30 mix on 6 replicas: p99 time to first "
            "token 450 ms.",
            INVALID,
            "half the peak rate leaves the queues the peak would build untested.",
            (
                Slip(HOLDS, "half-load-passes", "A run below peak taken as a pass",
                     "Latency grows with load; a pass at half the peak says nothing about "
                     "the peak."),
                Slip(OVERTURNED, "half-load-fails", "A passing low-load run read as a failure",
                     "Nothing in this run is past the target, and it is not the plan's load "
                     "either."),
            ),
        ),
        Question(
            f"{PLAN} ran 40 requests/s of short chats only on 6 replicas: p99 time to first "
            "token 380 ms.",
            INVALID,
            "without the long-document prompts the prefill load is far below the real mix.",
            (
                Slip(HOLDS, "one-shape-passes", "A single-shape run taken as a pass",
                     "Long prompts dominate prefill time; a run without them is easier than "
                     "the traffic."),
                Slip(OVERTURNED, "one-shape-fails", "A passing single-shape run read as a failure",
                     "Nothing here is past the target; the run is simply not the mix."),
            ),
        ),
        Question(
            f"{PLAN} ran 40 requests/s with the 70/30 mix on 6 replicas and reported the "
            "mean time to first token, 590 ms, and nothing else.",
            INVALID,
            "the target is on the p99, which this report does not give.",
            (
                Slip(HOLDS, "mean-for-p99", "A mean judged against a p99 target",
                     "A mean under 800 ms says nothing about the p99 the target names."),
                Slip(OVERTURNED, "mean-read-as-failure", "A missing p99 read as a failure",
                     "No reported figure is past the target; the report just lacks the "
                     "one that matters."),
            ),
        ),
    ),
)  # fmt: skip

EVAL, LOADTEST, HITS, KVUSE = "accuracy-eval", "peak-load-test", "prefix-hit-rate", "kv-cache-usage"
REVERSAL = Topic(
    part="reversal",
    label="The measurement that would reverse the recommendation",
    clue=(
        "Each recommendation rests on one assumption; the measurement that would reverse "
        "it is the one that tests that assumption directly on real traffic or a real "
        "evaluation."
    ),
    choices=(EVAL, LOADTEST, HITS, KVUSE),
    meanings=(
        (EVAL, "the task's evaluation set scored before and after"),
        (LOADTEST, "a load test at the peak rate with the real mix"),
        (HITS, "the prefix-cache hit rate on real traffic"),
        (KVUSE, "KV-cache usage and preemptions under load"),
    ),
    questions=(
        Question(
            "The memo recommends serving the model with FP8 weights so it fits on 4 GPUs "
            "instead of 8.",
            EVAL,
            "it assumes FP8 keeps the model's quality; an evaluation showing a loss past "
            "the agreed limit reverses it.",
            (
                Slip(LOADTEST, "speed-for-quality", "A speed test offered to judge quality",
                     "FP8 will be fast; the risk is accuracy, which a load test does not "
                     "measure."),
                Slip(HITS, "cache-for-quality", "A cache statistic offered to judge quality",
                     "Prefix reuse has nothing to do with what quantization does to answers."),
                Slip(KVUSE, "memory-for-quality", "A memory reading offered to judge quality",
                     "Memory fits by construction; what is at stake is the answers' quality."),
            ),
        ),
        Question(
            "The memo recommends 6 replicas for a peak of 40 requests/s, sized from a "
            "single-length benchmark.",
            LOADTEST,
            "it assumes the sized capacity holds at the peak with the real mix; a p99 past "
            "the target there reverses it.",
            (
                Slip(EVAL, "quality-for-capacity", "A quality evaluation offered to judge capacity",
                     "The replica count is about load; an accuracy score cannot test it."),
                Slip(HITS, "cache-for-capacity", "A cache statistic offered to judge capacity",
                     "Hit rates change prefill work a little; only the load test measures "
                     "whether 6 replicas meet the target."),
                Slip(KVUSE, "memory-for-capacity", "A memory reading offered to judge capacity",
                     "KV usage explains a shortfall once seen; the verdict is the latency at "
                     "peak."),
            ),
        ),
        Question(
            "The memo recommends turning on prefix caching to cut time to first token, "
            "assuming most requests share a long system prompt.",
            HITS,
            "it assumes shared prefixes; a hit rate near zero on real traffic reverses it.",
            (
                Slip(EVAL, "quality-for-cache", "A quality evaluation offered to judge caching",
                     "Prefix caching returns the same answers; quality is not the question."),
                Slip(LOADTEST, "load-for-cache", "A generic load test offered to judge caching",
                     "A synthetic load test with made-up prompts says nothing about how "
                     "often real prompts share a prefix."),
                Slip(KVUSE, "memory-for-cache", "A memory reading offered to judge caching",
                     "Cache memory in use does not tell how often a cached prefix is hit."),
            ),
        ),
        Question(
            "The memo recommends moving from H100 to H200 because the KV cache is what "
            "limits the batch, and H200 has more memory.",
            KVUSE,
            "it assumes the cache is full; usage well below 100% with no preemptions under "
            "peak load reverses it.",
            (
                Slip(EVAL, "quality-for-memory", "A quality evaluation offered to judge memory",
                     "The same model gives the same answers on either GPU."),
                Slip(LOADTEST, "load-for-memory",
                     "A latency test offered to judge the memory limit",
                     "Latency at peak shows a problem, not whether the KV cache is its "
                     "cause."),
                Slip(HITS, "cache-hits-for-memory", "Prefix hits offered to judge the memory limit",
                     "How often prefixes repeat does not show whether the cache is full."),
            ),
        ),
    ),
)  # fmt: skip
