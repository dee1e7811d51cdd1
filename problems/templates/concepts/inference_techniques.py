"""inference-techniques: the limit each serving technique removes (paged KV memory,
continuous batching, quantization, speculative decoding, prefix caching), the signal
that should scale a fleet with real load, long contexts included, and the way of
drafting that suits a workload, or none when speculation would hurt.

Three parts, each one situation from its bank (problems/templates/concepts/_bank.py).
Facts: PagedAttention (Kwon et al., SOSP 2023) allocates KV memory in blocks as
sequences grow instead of reserving their maximum length; continuous batching (Orca, Yu
et al., OSDI 2022) admits and retires requests at every step; speculative decoding
(Leviathan et al., 2023; Chen et al., 2023) verifies several drafted tokens in one target
pass, with drafts from a small model, n-gram lookup in the prompt, or heads on the
target's own hidden states (Medusa, Cai et al., 2024; EAGLE, Li et al., 2024), and pays
off when decode leaves compute idle and drafts are accepted; vLLM's metrics
vllm:num_requests_waiting and the KV-cache usage gauge (vllm:kv_cache_usage_perc, named
vllm:gpu_cache_usage_perc in older releases, as in spec/tool-output/vllm-metrics; its
production-metrics documentation) against nvidia-smi's utilisation, which counts the
time any kernel runs. Sentences are ours.
"""

from __future__ import annotations

from functools import partial

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic, other_options

PAGED, CONT, QUANT, SPEC, PREFIX = (
    "paged-kv", "continuous-batching", "quantization", "speculative-decoding", "prefix-caching",
)  # fmt: skip
_NAMES = {
    PAGED: ("limit-paged-kv", "Paged KV memory credited with another limit"),
    CONT: ("limit-continuous-batching", "Continuous batching credited with another limit"),
    QUANT: ("limit-quantization", "Quantization credited with another limit"),
    SPEC: ("limit-speculation", "Speculative decoding credited with another limit"),
    PREFIX: ("limit-prefix-caching", "Prefix caching credited with another limit"),
}
_DOES = {
    PAGED: "Paged KV memory stops reserving each sequence's maximum length",
    CONT: "Continuous batching refills a finished request's slot at the next step",
    QUANT: "Quantization shrinks the bytes each weight takes",
    SPEC: "Speculative decoding turns idle compute into several tokens a step",
    PREFIX: "Prefix caching reuses a shared prompt's stored keys and values",
}


_slips = partial(other_options, names=_NAMES, feedback=_DOES, suffix="; that is not this limit.")


TECHNIQUE = Topic(
    part="technique",
    label="Technique that removes the limit",
    clue=(
        "Each technique removes one waste: memory reserved but unused, batch slots left "
        "idle, bytes read per token, compute idle during decode, and work repeated on "
        "prompts that begin alike."
    ),
    choices=(PAGED, CONT, QUANT, SPEC, PREFIX),
    questions=(
        Question(
            "Each sequence's KV cache is reserved for the model's full context length when "
            "it starts, though most answers end far sooner, so fewer sequences fit.",
            PAGED,
            "allocating KV memory in blocks as a sequence grows frees what maximum-length "
            "reservation wasted.",
            _slips(PAGED),
        ),
        Question(
            "A batch of 32 runs until its longest request finishes; slots of requests that "
            "finished early sit idle meanwhile.",
            CONT,
            "admitting new requests at every step fills a slot the moment it frees.",
            _slips(CONT),
        ),
        Question(
            "At batch 1 every output token reads all 140 GB of a 70B model's BF16 weights.",
            QUANT,
            "fewer bytes per weight means fewer bytes read per token.",
            _slips(QUANT),
        ),
        Question(
            "At small batch each decode step makes one token while the GPU's compute sits "
            "mostly idle, waiting on memory.",
            SPEC,
            "verifying several drafted tokens in one pass uses the idle compute to emit "
            "more than one token a step.",
            _slips(SPEC),
        ),
        Question(
            "Every request starts with the same 3,000-token system prompt, which prefill "
            "processes again each time.",
            PREFIX,
            "keeping that prefix's keys and values lets later requests skip its prefill.",
            _slips(PREFIX),
        ),
    ),
)  # fmt: skip

WAITING, KVUSE, GPUUTIL, CPUUTIL = (
    "waiting-requests",
    "kv-cache-usage",
    "gpu-utilization",
    "cpu-utilization",
)
SIGNAL = Topic(
    part="signal",
    label="Autoscaling signal",
    clue=(
        "A replica is overloaded when requests wait or its KV cache runs out; a signal "
        "that follows real load measures those, not how busy a processor looks."
    ),
    choices=(WAITING, KVUSE, GPUUTIL, CPUUTIL),
    meanings=(
        (WAITING, "vllm:num_requests_waiting"),
        (KVUSE, "vllm:kv_cache_usage_perc, vllm:gpu_cache_usage_perc in older releases"),
        (GPUUTIL, "nvidia-smi's GPU utilisation"),
        (CPUUTIL, "the host's CPU utilisation"),
    ),
    questions=(
        Question(
            "Users start to wait for their first token when every replica's batch is full. "
            "Which signal should add a replica?",
            WAITING,
            "requests waiting to be scheduled are exactly the users left queueing.",
            (
                Slip(KVUSE, "kv-for-queue", "KV usage chosen where requests already queue",
                     "A full batch can queue requests with KV memory to spare; count the "
                     "waiting requests."),
                Slip(GPUUTIL, "gpu-util-as-load", "GPU utilisation taken as load",
                     "It reads near 100% whenever any kernel runs, at low load as at high."),
                Slip(CPUUTIL, "cpu-util-as-load", "Host CPU utilisation taken as load",
                     "The host CPU stays idle while the GPU does the work; it misses the "
                     "queue."),
            ),
        ),
        Question(
            "Long-context requests (60,000 tokens) fill a replica's KV cache and get "
            "preempted before much queueing shows. Which signal sees it coming?",
            KVUSE,
            "the share of KV blocks in use rises toward 100% before preemptions start.",
            (
                Slip(WAITING, "queue-for-long-context", "Queue depth trusted for long contexts",
                     "With few, long requests the KV cache runs out before many wait."),
                Slip(GPUUTIL, "gpu-util-as-load", "GPU utilisation taken as load",
                     "It reads near 100% whenever any kernel runs, at low load as at high."),
                Slip(CPUUTIL, "cpu-util-as-load", "Host CPU utilisation taken as load",
                     "The host CPU says nothing about KV memory on the GPU."),
            ),
        ),
        Question(
            "Which signal reads near 100% at two requests a second as well as at two "
            "hundred, and so cannot tell when to scale?",
            GPUUTIL,
            "utilisation counts the time any kernel is running, not how much work is done.",
            (
                Slip(WAITING, "queue-thought-flat", "Queue depth thought not to follow load",
                     "Waiting requests rise with load; they are the signal to use."),
                Slip(KVUSE, "kv-thought-flat", "KV usage thought not to follow load",
                     "KV usage grows with the tokens in flight."),
                Slip(CPUUTIL, "cpu-thought-saturated", "Host CPU thought saturated",
                     "The host CPU is mostly idle in a GPU server; it does not read "
                     "near 100%."),
            ),
        ),
        Question(
            "Requests queue for seconds while the serving hosts' CPUs stay about 20% busy. "
            "Which signal was the autoscaler using, that missed the load?",
            CPUUTIL,
            "the work is on the GPUs; the host CPUs stay quiet as requests pile up.",
            (
                Slip(WAITING, "queue-thought-blind", "Queue depth thought to miss a queue",
                     "Waiting requests would have shown the queue; they are what to use."),
                Slip(KVUSE, "kv-thought-blind", "KV usage thought to miss the load",
                     "KV usage rises as requests pile into the batch."),
                Slip(GPUUTIL, "gpu-util-blamed", "GPU utilisation blamed for a quiet reading",
                     "GPU utilisation would read high here, not quiet."),
            ),
        ),
    ),
)  # fmt: skip

DRAFT, NGRAM, HEADS, NO = "draft-model", "ngram", "eagle-heads", "no-speculation"
DRAFTING = Topic(
    part="drafting",
    label="Way of drafting, or none",
    clue=(
        "Speculation pays when decode leaves compute idle and drafts are accepted often: "
        "a small model drafts anything, lookup in the prompt drafts text that repeats, and "
        "heads trained on the target's own hidden states draft without a second model."
    ),
    choices=(DRAFT, NGRAM, HEADS, NO),
    meanings=(
        (DRAFT, "a small model of the same tokenizer"),
        (NGRAM, "n-gram lookup in the prompt"),
        (HEADS, "Medusa or EAGLE heads on the target"),
        (NO, "no speculation"),
    ),
    questions=(
        Question(
            "A code-editing assistant rewrites files it was given, so most of each answer "
            "repeats spans of the prompt; the team wants no extra model to serve.",
            NGRAM,
            "matching the last tokens against the prompt drafts the repeated spans for free.",
            (
                Slip(DRAFT, "model-for-copying", "A draft model served to predict copied text",
                     "The text to draft is already in the prompt; a lookup finds it with no "
                     "second model."),
                Slip(HEADS, "heads-for-copying", "Trained heads used to predict copied text",
                     "Heads need training; repeated prompt spans are found by lookup."),
                Slip(NO, "speculation-dismissed", "Speculation dismissed where it pays",
                     "Long copied spans are accepted almost always: speculation pays here."),
            ),
        ),
        Question(
            "A chat service on Llama 3.1 70B at batch 2 has Llama 3.2 1B, which shares its "
            "tokenizer, at hand, and no trained heads.",
            DRAFT,
            "a small model of the same family and tokenizer drafts general text well.",
            (
                Slip(NGRAM, "lookup-for-open-text", "Prompt lookup used for open-ended text",
                     "Chat answers seldom repeat the prompt; lookup would rarely be accepted."),
                Slip(HEADS, "heads-without-training", "Heads assumed without training them",
                     "EAGLE or Medusa heads must be trained for this target first."),
                Slip(NO, "speculation-dismissed", "Speculation dismissed where it pays",
                     "At batch 2 decode leaves compute idle: drafting uses it."),
            ),
        ),
        Question(
            "A team has trained EAGLE heads for its target model and wants drafting "
            "without loading or serving a second model.",
            HEADS,
            "heads read the target's hidden states and add little memory: no second model.",
            (
                Slip(DRAFT, "second-model-anyway", "A second model served despite trained heads",
                     "A draft model costs its own weights and KV cache; the heads avoid that."),
                Slip(NGRAM, "lookup-for-open-text", "Prompt lookup used for open-ended text",
                     "Lookup drafts only what repeats from the prompt."),
                Slip(NO, "speculation-dismissed", "Speculation dismissed where it pays",
                     "Trained heads at hand make speculation cheap to try."),
            ),
        ),
        Question(
            "A batch job runs at batch 256, compute-bound, and is judged by total tokens "
            "per second, not by any one request's speed.",
            NO,
            "at full batch there is no idle compute; verifying rejected drafts costs "
            "throughput.",
            (
                Slip(DRAFT, "speculation-at-full-batch",
                     "Speculation added to a compute-bound batch",
                     "Speculation spends idle compute; at batch 256 there is none to spend."),
                Slip(NGRAM, "speculation-at-full-batch",
                     "Speculation added to a compute-bound batch",
                     "Speculation spends idle compute; at batch 256 there is none to spend."),
                Slip(HEADS, "speculation-at-full-batch",
                     "Speculation added to a compute-bound batch",
                     "Speculation spends idle compute; at batch 256 there is none to spend."),
            ),
        ),
    ),
)  # fmt: skip


@register
class InferenceTechniques(ConceptTemplate):
    slug = "inference-techniques"
    title = "What each serving technique removes, what to scale on, and how to draft"
    family = "concepts"
    lessons = ("llm-inference-at-scale", "speculative-decoding")
    skills = ("serving-capacity", "speculative-decoding")
    INTRO = (
        "A team runs LLM inference on vLLM at scale, on 16 replicas. Answer three questions: which "
        "technique removes a limit, which signal should drive autoscaling, long contexts "
        "included, and which way of drafting for speculative decoding suits a workload, "
        "if any."
    )
    TOPICS = (TECHNIQUE, SIGNAL, DRAFTING)
