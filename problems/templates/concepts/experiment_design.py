"""experiment-design: the judgement around a capacity plan: which experiment comes
before a hardware proposal, what a mixed-workload benchmark says about a provisional
plan, how retries and usage are reconciled so a request is neither lost nor billed
twice, and which measurement would reverse a capacity memo's recommendation.

Four parts, each one situation from its bank (problems/templates/concepts/_bank.py;
the last two banks in _plan_evidence.py). Facts: the bandwidth floor of a batch-1 decode
step (weights over memory bandwidth) as the Foundations course teaches it; idempotency
keys as the IETF draft "The Idempotency-Key HTTP Header Field" and payment APIs use them
(a retry with the same key is the same request, its first result returned); the usage
object of an OpenAI-compatible response, which a stream sends in its last chunk when
`stream_options.include_usage` is set (vLLM's OpenAI-compatible server). Sentences are
ours.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic
from problems.templates.concepts._plan_evidence import REVERSAL, VERDICT

ONE, FLOOR, REPEAT, HARDWARE = "vary-one", "compare-to-floor", "repeat-runs", "new-hardware"
EXPERIMENT = Topic(
    part="experiment",
    label="The next step before proposing hardware",
    clue=(
        "Before blaming the hardware, know how far the measurement is from what the "
        "hardware allows, measure enough to trust a difference, and change one thing at a "
        "time so a change in the result has one cause."
    ),
    choices=(ONE, FLOOR, REPEAT, HARDWARE),
    meanings=(
        (ONE, "rerun changing one variable, everything else held"),
        (FLOOR, "compute the hardware's floor and compare"),
        (REPEAT, "repeat the same runs to measure their spread"),
        (HARDWARE, "propose different or more hardware"),
    ),
    questions=(
        Question(
            "On Monday the team moved a service from H100 to H200, upgraded vLLM and "
            "doubled max-num-seqs; p99 time to first token got worse. What comes next?",
            ONE,
            "three changes at once leave three suspects; undo or apply them one at a time.",
            (
                Slip(FLOOR, "floor-for-regression", "A floor computed to explain a regression",
                     "The floor did not change with the config; which of three changes hurt "
                     "is the question."),
                Slip(REPEAT, "repeat-without-isolating", "Runs repeated without isolating a cause",
                     "More runs of the same mixed change confirm it is worse, not why."),
                Slip(HARDWARE, "hardware-for-regression", "New hardware proposed for a regression",
                     "The regression came with the changes; more hardware hides its cause."),
            ),
        ),
        Question(
            "A team says its H100 is too slow for Llama 3.1 8B in BF16: decode measures "
            "14 ms per token at batch 1, and they ask for B200s. What comes first?",
            FLOOR,
            "16 GB of weights over 3.35 TB/s is a floor near 5 ms; 14 ms is far above it, so "
            "the gap is not the GPU's bandwidth.",
            (
                Slip(ONE, "tuning-before-floor", "Tuning started before the floor is known",
                     "Without the floor nobody knows whether there is anything to gain on "
                     "this GPU; compute it first."),
                Slip(REPEAT, "repeat-before-floor", "Runs repeated before the floor is known",
                     "A steadier 14 ms still leaves unknown how far it is from what the GPU "
                     "allows."),
                Slip(HARDWARE, "hardware-before-floor", "New hardware proposed without the floor",
                     "If the GPU is nowhere near its floor, a faster GPU buys little; the "
                     "loss is elsewhere."),
            ),
        ),
        Question(
            "Config A gave p99 time to first token 410 ms in one run and config B 690 ms in "
            "one run; rerunning A once gave 640 ms. What comes next?",
            REPEAT,
            "one run each cannot tell a 280 ms difference from run-to-run noise that is "
            "itself 230 ms.",
            (
                Slip(ONE, "noise-as-effect", "A difference inside the noise taken as an effect",
                     "A and B already differ in one variable; what is missing is knowing "
                     "the spread of each."),
                Slip(FLOOR, "floor-for-noise", "A floor computed to settle noise",
                     "The floor bounds both configs alike; it cannot say which is faster."),
                Slip(HARDWARE, "hardware-for-noise", "New hardware proposed on noisy runs",
                     "Nothing here shows the hardware is the limit."),
            ),
        ),
        Question(
            "Decode at batch 1 measures 5.2 ms per token against a bandwidth floor of 4.8 "
            "ms on this GPU, and the product needs 2.5 ms per token for one user. What "
            "comes next?",
            HARDWARE,
            "the measurement is within 10% of the floor: only more bandwidth per token "
            "(a faster GPU, or splitting the model over more) can halve it.",
            (
                Slip(ONE, "tuning-at-floor", "Tuning proposed at the floor",
                     "At 8% above the floor no setting can halve the time per token."),
                Slip(FLOOR, "floor-already-known", "The floor asked for again",
                     "The floor is known and the measurement sits on it; it is time to "
                     "change what sets it."),
                Slip(REPEAT, "repeat-at-floor", "Runs repeated at the floor",
                     "The result is already at the physical limit; repeating it will not "
                     "move it."),
            ),
        ),
    ),
)  # fmt: skip

ONCE, EACH, NONE = "bill-once", "bill-each", "bill-nothing"
BILLING = Topic(
    part="billing",
    label="What usage accounting bills for the retries",
    clue=(
        "A retry that carries the same idempotency key is the same request: the service "
        "returns or finishes the one result and bills it once; different keys are "
        "different requests; a request that never produced a result bills nothing."
    ),
    choices=(ONCE, EACH, NONE),
    meanings=(
        (ONCE, "one request, billed once"),
        (EACH, "each attempt billed as a request"),
        (NONE, "nothing billed"),
    ),
    questions=(
        Question(
            "A stream is cut after 300 tokens with no usage chunk; the client retries with "
            "the same idempotency key and the retry completes, its last chunk reporting "
            "810 completion tokens.",
            ONCE,
            "one key, one request: bill the completed attempt's usage once.",
            (
                Slip(EACH, "retry-billed-twice",
                     "A retry with the same key billed as a new request",
                     "Both attempts carry one key: billing both charges the user twice for "
                     "one answer."),
                Slip(NONE, "completed-retry-unbilled", "A completed retry left unbilled",
                     "The retry completed and reported its usage; leaving it out loses the "
                     "request."),
            ),
        ),
        Question(
            "A stream ended with finish_reason \"stop\" and its usage chunk, but the client "
            "timed out reading it and retried with the same key; the service replayed the "
            "stored result.",
            ONCE,
            "the replay is the first result returned again, not new work.",
            (
                Slip(EACH, "replay-billed", "A replay billed as a new request",
                     "Nothing was generated a second time; the same key got the stored "
                     "result."),
                Slip(NONE, "replay-cancels-billing", "A replay taken to cancel the bill",
                     "The request completed once and its usage stands."),
            ),
        ),
        Question(
            "A user pressed send twice: two requests with the same prompt but different "
            "idempotency keys, and both completed with their usage chunks.",
            EACH,
            "different keys are different requests, and both did the work.",
            (
                Slip(ONCE, "same-prompt-deduplicated",
                     "Requests merged because their prompts match",
                     "The key, not the prompt, says which requests are one; two keys are two "
                     "requests."),
                Slip(NONE, "duplicate-unbilled", "Duplicate sends left unbilled",
                     "Both requests were generated; dropping them loses real usage."),
            ),
        ),
        Question(
            "The endpoint answered 503 before generating any token and the client gave up "
            "without retrying.",
            NONE,
            "no result was produced, so there is no usage to bill.",
            (
                Slip(ONCE, "refusal-billed", "A refused request billed",
                     "Nothing was generated: a 503 before the first token carries no usage."),
                Slip(EACH, "refusal-billed-per-attempt", "A refused request billed per attempt",
                     "There was one attempt and it produced nothing."),
            ),
        ),
    ),
)  # fmt: skip


@register
class ExperimentDesign(ConceptTemplate):
    slug = "experiment-design"
    title = "Experiments, benchmarks, billing and reversals around a capacity plan"
    family = "concepts"
    lessons = (
        "performance-floors-and-controlled-experiments",
        "a-provisional-fleet-plan",
        "cancellation-retries-and-stream-integrity",
        "capstone-capacity-memo",
    )
    skills = ("experiment-design", "capacity-planning", "retry-semantics")
    difficulty = 3
    INTRO = (
        "You review the capacity plan for a chat service on vLLM. Answer four questions: "
        "the next experiment before anyone proposes hardware, what a mixed-workload "
        "benchmark says about the plan, how retries are billed, and which measurement "
        "would reverse a recommendation. Time to first token runs from a request's "
        "arrival to its first output token."
    )
    TOPICS = (EXPERIMENT, VERDICT, BILLING, REVERSAL)
