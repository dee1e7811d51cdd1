"""Every outcome the four outlines promise is carried by an objective (issue 40).

The table maps each promise to the objective(s) that carry it: the promise by a short key
phrase of the outline's own bullet (enough to find it, not its sentence), the objective by
lesson slug and a phrase of our objective text. A promise with no carrier, or a carrier
whose objective was reworded or removed, fails here.

Which promises: Foundations' "When you finish, you can" bullets and Learn's "After these
lessons you can" bullets (the two outlines with such a list), the question each lesson of
From Scratch answers (its outline's table), and the pieces LLM-D's outline says the course
builds. When the outlines are present (../shared/seeds beside the repository) the table is
also checked against them, so a bullet added to an outline cannot go unmapped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from curricula.schema import load_catalog

SEEDS_DIR = Path(__file__).resolve().parents[3] / "shared" / "seeds"
LEARN = "000_26a9726294cfcea5.txt"
FOUNDATIONS = "001_4f955ff14031ad92.txt"
LLMD = "003_c3832c02f1eb50de.txt"
SCRATCH = "004_db349d4966d5d0fa.txt"

# (outline file, key phrase of the promise) -> ((lesson slug, phrase of its objective), ...)
PROMISES: dict[tuple[str, str], tuple[tuple[str, str], ...]] = {
    # Foundations of AI Infrastructure: "When you finish, you can"
    (FOUNDATIONS, "Explain why a GPU is fast"): (
        ("why-a-gpu-is-fast", "memory bandwidth and arithmetic intensity"),
    ),
    (FOUNDATIONS, "Trace a request from tokens"): (
        ("following-a-request-through-prefill-and-decode", "Trace a prompt through tokenization"),
        ("following-a-request-through-prefill-and-decode", "Count the bytes a decode step moves"),
    ),
    (FOUNDATIONS, "Derive weight and state budgets"): (
        ("weight-and-state-budgets", "Compute weight memory"),
        ("a-provisional-fleet-plan", "in a measured sweep"),
    ),
    (FOUNDATIONS, "Report TTFT"): (("latency-one-user-feels", "Report time to first token"),),
    (FOUNDATIONS, "Choose a batching policy"): (
        ("latency-one-user-feels", "Pick a batching policy"),
    ),
    (FOUNDATIONS, "Diagnose a slow GPU service"): (
        ("from-symptoms-to-device-evidence", "Correlate request latency and scheduler queueing"),
        ("from-symptoms-to-device-evidence", "Read device evidence"),
    ),
    (FOUNDATIONS, "Produce a capacity plan"): (
        ("capstone-capacity-memo", "Write a capacity memo"),
        ("capstone-capacity-memo", "Specify the representative benchmark"),
    ),
    # Learn AI Infrastructure: "After these lessons you can"
    (LEARN, "Explain how an LLM generates text"): (
        ("how-an-llm-writes-text", "probability distribution"),
        ("how-an-llm-writes-text", "top-k, top-p"),
        ("inside-the-transformer", "Describe attention as queries"),
    ),
    (LEARN, "Calculate how much GPU memory"): (
        ("gpu-memory-math", "Compute weight memory"),
        ("gpu-memory-math", "16 bytes per parameter"),
        ("gpu-memory-math", "Size the KV cache"),
    ),
    (LEARN, "Choose data, tensor or pipeline parallelism"): (
        ("model-parallelism", "Distinguish tensor, pipeline and expert parallelism"),
        ("distributed-training-data-parallel", "Describe one data-parallel step"),
    ),
    (LEARN, "Run and read NCCL tests"): (
        ("bring-up-validation", "Run NCCL tests"),
        ("inside-a-gpu", "Read nvidia-smi and amd-smi"),
        ("gpu-monitoring-observability", "DCGM profiling metrics"),
        ("ai-networking-infiniband-roce", "degraded link"),
    ),
    (LEARN, "Serve LLMs efficiently"): (
        ("llm-inference-at-scale", "Name the limit that each of paged KV memory"),
        ("batching-for-llm-inference", "Contrast static, dynamic and continuous batching"),
        ("quantization", "smaller weights speed up decode"),
        ("speculative-decoding", "Compute expected tokens per step"),
    ),
    (LEARN, "Schedule GPU jobs on Kubernetes and Slurm"): (
        ("scheduling-gpu-clusters", "Run a shared Slurm cluster"),
        ("scheduling-gpu-clusters", "Apply gang scheduling"),
        ("gpus-on-kubernetes", "Write pod specs that request GPUs"),
    ),
    (LEARN, "Read a GPU kernel profile"): (
        ("gpu-programming-with-cuda", "Read Nsight Compute and Nsight Systems"),
        ("rocm-hip-on-amd", "rocprof and rocprof-compute"),
    ),
    # AI Infrastructure From Scratch: the question each lesson answers
    (SCRATCH, "What does an AI platform consist of"): (
        ("the-layers-and-the-build-or-buy-ladder", "Name the five layers"),
        ("the-layers-and-the-build-or-buy-ladder", "Place a team on the ladder"),
    ),
    (SCRATCH, "Which accelerators, how many, and bought how"): (
        ("compute-and-capacity", "Rule candidate accelerators in or out"),
        ("compute-and-capacity", "Size the accelerator count"),
        ("compute-and-capacity", "Compare on-demand, reserved and owned"),
    ),
    (SCRATCH, "How do GPUs become a shared, schedulable resource"): (
        ("the-cluster", "exposes each accelerator to a scheduler"),
        ("the-cluster", "Design queueing and sharing rules"),
    ),
    (SCRATCH, "How do weights become a fast, scalable endpoint"): (
        ("the-serving-layer", "Distinguish the inference engine"),
        ("the-serving-layer", "how many replicas a target load needs"),
    ),
    (SCRATCH, "Where do weights, documents, vectors, state and events live"): (
        ("the-data-layer", "Assign each kind of data"),
    ),
    (SCRATCH, "How do many teams share it safely"): (
        ("platform-and-operations", "paved paths"),
        ("platform-and-operations", "quotas and cost attribution"),
        ("platform-and-operations", "Run on-call"),
    ),
    # AI Infrastructure: LLM-D, vLLM and GPUs: what the course says it builds
    (LLMD, "what a model actually is"): (("what-a-model-is", "learned numbers"),),
    (LLMD, "load one onto a GPU"): (("loading-a-model-onto-a-gpu", "have to sit in GPU memory"),),
    (LLMD, "what a model server really does"): (
        ("vllm-and-the-job-of-a-model-server", "Name the jobs a model server takes on"),
    ),
    (LLMD, "why a model writes one word at a time"): (
        ("tokens-and-writing-one-word-at-a-time", "one token after another"),
    ),
    (LLMD, "the pause before the answer and the stream after it"): (
        ("waiting-for-the-first-word-then-the-stream", "Estimate that wait and the pace"),
    ),
    (LLMD, "the model's scratchpad"): (
        ("the-models-scratchpad-and-reusing-saved-work", "Describe the KV cache as notes"),
        ("the-models-scratchpad-and-reusing-saved-work", "prefix caching"),
    ),
    (LLMD, "the memory ceiling that stops you"): (
        ("batching-and-the-memory-ceiling", "how many conversations fit"),
    ),
    (LLMD, "throughput versus how fast a single answer feels"): (
        ("throughput-versus-how-fast-one-answer-feels", "the speed one user sees"),
    ),
    (LLMD, "slicing a model too big for any single GPU"): (
        ("splitting-a-model-across-gpus", "tensor parallelism spreads one model"),
    ),
    (LLMD, "why the load balancer"): (
        ("why-the-classic-load-balancer-breaks", "round-robin and least-connections"),
    ),
    (LLMD, "routes each request to the server that already holds your work"): (
        ("llm-d-routing-and-disaggregation", "most likely to hold its cached prefix"),
    ),
    (LLMD, "splits prompt-reading from answer-writing"): (
        ("llm-d-routing-and-disaggregation", "separate pools of servers"),
    ),
    (LLMD, "runs as real pods on a Kubernetes cluster"): (
        ("llm-d-on-kubernetes", "Identify the Kubernetes objects"),
        ("llm-d-on-kubernetes", "to the pods that implement them"),
    ),
}


@pytest.fixture(scope="module")
def objectives_by_lesson() -> dict[str, list[str]]:
    return {
        lesson.slug: [objective.text for objective in lesson.objectives]
        for _c, _m, lesson in load_catalog().lessons()
    }


@pytest.mark.parametrize(("promise", "carriers"), PROMISES.items(), ids=lambda p: str(p)[:60])
def test_each_promise_has_an_objective_that_carries_it(objectives_by_lesson, promise, carriers):
    assert carriers, f"{promise}: no objective carries it"
    for lesson, phrase in carriers:
        texts = objectives_by_lesson.get(lesson)
        assert texts is not None, f"{promise}: no lesson {lesson!r}"
        assert [t for t in texts if phrase.lower() in t.lower()], (
            f"{promise}: no objective of {lesson} says {phrase!r}"
        )


def _bullets(text: str, heading: str, marker: str) -> list[str]:
    """The bullet lines that follow `heading`, up to the first line that is not one."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == heading) + 1
    found = []
    for line in lines[start:]:
        if not line.strip():
            if found:
                break
            continue
        if not line.startswith(marker):
            break
        found.append(line[len(marker) :].strip())
    return found


def _outline_promises(name: str, text: str) -> list[str]:
    if name == FOUNDATIONS:
        return _bullets(text, "When you finish, you can", "- ")
    if name == LEARN:
        return _bullets(text, "After these lessons you can", "\u2022 ")
    if name == SCRATCH:
        return [line.split("\t")[2] for line in text.splitlines() if re.match(r"^0\d\t", line)]
    return []


needs_outlines = pytest.mark.skipif(
    not SEEDS_DIR.is_dir(), reason=f"the outlines are not at {SEEDS_DIR}"
)


@needs_outlines
@pytest.mark.parametrize(("name", "count"), [(FOUNDATIONS, 7), (LEARN, 7), (SCRATCH, 6), (LLMD, 0)])
def test_every_listed_promise_of_an_outline_is_in_the_table(name, count):
    text = (SEEDS_DIR / name).read_text(encoding="utf-8")
    promises = _outline_promises(name, text)
    assert len(promises) == count
    keys = [key for (file, key) in PROMISES if file == name]
    for promise in promises:
        matching = [key for key in keys if key.lower() in promise.lower()]
        assert len(matching) == 1, f"{name}: {promise!r} matches table rows {matching}"
    # And nothing in the table that the outline does not say.
    flat = " ".join(text.split()).lower()
    assert [key for key in keys if key.lower() not in flat] == []
    if count:
        assert len(keys) == count
