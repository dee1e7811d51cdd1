"""The concepts family: every question of every bank answered right, every other option
graded as its named slip, every question reachable from the generator, and hints that
point at the mechanism without choosing for the learner."""

from __future__ import annotations

import random

import pytest

from problems.engine import registry
from problems.engine.hints import hints_for, states_answer
from problems.engine.misconception_names import NAMES
from problems.engine.variants import Variant
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic

pytestmark = pytest.mark.db_independent

CONCEPTS = [t for t in registry.all_templates() if isinstance(t, ConceptTemplate)]
SLUGS = [t.slug for t in CONCEPTS]


def _every_variant(template):
    """Each question of each bank once, the other parts cycling through theirs."""
    longest = max(len(t.questions) for t in template.TOPICS)
    for i in range(longest):
        yield template.Params(**{t.part: i % len(t.questions) for t in template.TOPICS})


def test_the_family_has_its_templates():
    assert "transformer-mechanics" in SLUGS


@pytest.mark.parametrize("slug", SLUGS)
def test_every_question_grades_its_answer_and_names_every_other_option(slug):
    template = registry.get(slug)
    for params in _every_variant(template):
        variant = Variant(template, params)
        for topic in template.TOPICS:
            question = topic.questions[getattr(params, topic.part)]
            assert variant.grade(topic.part, question.answer).correct
            for slip in question.slips:
                result = variant.grade(topic.part, slip.choice)
                assert not result.correct
                assert result.misconception == slip.code, (slug, topic.part, slip.choice)
                assert NAMES[slip.code] == slip.name
            assert not variant.grade(topic.part, "none-of-these").correct


@pytest.mark.parametrize("slug", SLUGS)
def test_the_generator_reaches_every_question(slug):
    template = registry.get(slug)
    rng = random.Random(7)
    seen = {t.part: set() for t in template.TOPICS}
    for _ in range(400):
        params = template.generate(rng)
        for t in template.TOPICS:
            seen[t.part].add(getattr(params, t.part))
    for t in template.TOPICS:
        assert seen[t.part] == set(range(len(t.questions))), (slug, t.part)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_statement_asks_each_question_with_its_options(slug):
    template = registry.get(slug)
    for params in _every_variant(template):
        text = template.statement(params)
        for t in template.TOPICS:
            question = t.questions[getattr(params, t.part)]
            assert question.prompt.strip() in text
            for choice in t.choices:
                assert f"`{choice}`" in text


@pytest.mark.parametrize("slug", SLUGS)
def test_hints_give_the_mechanism_not_the_choice(slug):
    template = registry.get(slug)
    for params in _every_variant(template):
        hints = hints_for(Variant(template, params))
        assert hints, slug
        text = " ".join(h.markdown for h in hints)
        answers = {t.part: t.questions[getattr(params, t.part)].answer for t in template.TOPICS}
        for t in template.TOPICS:
            assert f"**{answers[t.part]}**" not in text
            # A clue is given whole unless it says one of the answers (the hint cutter
            # keeps its leading clauses then).
            if not states_answer(t.clue, answers):
                assert t.clue.strip() in text, (slug, t.part)


@pytest.mark.parametrize("slug", SLUGS)
def test_banks_ask_more_than_one_answer(slug):
    """A part whose every question had the same answer could be passed without reading."""
    for t in registry.get(slug).TOPICS:
        assert len(t.questions) >= 3, (slug, t.part)
        assert len({q.answer for q in t.questions}) >= 2, (slug, t.part)


def test_a_bank_refuses_an_option_without_its_slip():
    slip = Slip("b", "test-bank-b", "Option b chosen", "Not b.")
    with pytest.raises(ValueError, match="every other option needs one slip"):
        Topic("x", "X", "clue", ("a", "b", "c"), (Question("Which?", "a", "why", (slip,)),))
    with pytest.raises(ValueError, match="is not an option"):
        Topic("x", "X", "clue", ("a", "b"), (Question("Which?", "z", "why", (slip,)),))


def test_a_code_keeps_one_name():
    Slip("b", "test-bank-one-name", "Option b chosen", "Not b.")
    with pytest.raises(ValueError, match="already named"):
        Slip("c", "test-bank-one-name", "Other words", "Not c.")


def test_transformer_mechanics_by_hand():
    t = registry.get("transformer-mechanics")
    p = t.Params(stage=4, attention=2, cache=3)  # rotary, the scaling, an encoder
    v = Variant(t, p)
    assert v.parts["stage"].value == "attention"
    assert v.parts["attention"].value == "scaling"
    assert v.parts["cache"].value == "computed-fresh"
    assert v.grade("stage", "embedding").misconception == "position-added-at-input"
    assert v.grade("cache", "reused").misconception == "mask-ignored"
    assert "rotary" in t.statement(p)


def test_platform_layers_by_hand():
    t = registry.get("platform-layers")
    p = t.Params(layer=0, piece=2, home=1, path=2)  # placing work; a swap; PDFs; a one-off
    v = Variant(t, p)
    assert [v.parts[n].value for n in ("layer", "piece", "home", "path")] == [
        "cluster", "gateway", "object-storage", "bespoke-per-team",
    ]  # fmt: skip
    assert v.grade("home", "vector-index").misconception == "documents-as-vectors"
    assert v.grade("path", "paved-path").misconception == "pave-every-request"
    statement = t.statement(p)
    assert all(word in statement for word in ("compute", "cluster", "serving", "data", "platform"))


def test_experiment_design_by_hand():
    t = registry.get("experiment-design")
    p = t.Params(experiment=1, verdict=2, billing=2, reversal=3)
    v = Variant(t, p)
    # 14 ms against a ~5 ms floor; half the peak rate; two keys; a full KV cache assumed
    assert [v.parts[n].value for n in ("experiment", "verdict", "billing", "reversal")] == [
        "compare-to-floor", "test-invalid", "bill-each", "kv-cache-usage",
    ]  # fmt: skip
    assert v.grade("verdict", "plan-holds").misconception == "half-load-passes"
    assert v.grade("billing", "bill-once").misconception == "same-prompt-deduplicated"


def test_memory_tiers_by_hand():
    t = registry.get("memory-tiers")
    v = Variant(t, t.Params(fits=2, rate=1))  # a 24 MB activation; 20 GB offloaded
    assert (v.parts["fits"].value, v.parts["rate"].value) == ("l2-cache", "much-slower")
    assert v.grade("fits", "shared-memory").misconception == "tier-shared-memory"
    assert v.grade("rate", "about-the-same").misconception == "offload-thought-free"


def test_framework_layers_by_hand():
    t = registry.get("framework-layers")
    v = Variant(t, t.Params(stack=4, owner=1))  # KubeRay; RANK and WORLD_SIZE
    assert (v.parts["stack"].value, v.parts["owner"].value) == ("cluster-layer", "launcher")
    assert v.grade("stack", "distributed-runtime").misconception == "placed-as-runtime"
    assert v.grade("owner", "framework").misconception == "framework-assigns-ranks"


def test_scheduling_choices_by_hand():
    t = registry.get("scheduling-choices")
    v = Variant(t, t.Params(placement=3, choice=2))  # 24 free GPUs; a Kubernetes shop
    assert (v.parts["placement"].value, v.parts["choice"].value) == ("idle-held", "kubernetes")
    assert v.grade("placement", "one-waits").misconception == "idle-hold-missed"
    assert v.grade("choice", "slurm").misconception == "second-stack-for-minority"


def test_accelerator_landscape_by_hand():
    t = registry.get("accelerator-landscape")
    p = t.Params(
        parts=("h100-sxm", "mi300x", "gaudi3", "trainium2"), metric="memory",
        linked="gaudi3", software=0,
    )  # fmt: skip
    v = Variant(t, p)
    # memory: 80 GB, 192 GB, 128 GB, 96 GiB (103 GB): the MI300X leads
    assert v.parts["leader"].value == "mi300x"
    assert v.parts["link"].value == "roce"  # Gaudi 3's on-chip RoCE Ethernet
    assert v.parts["software"].value == "needs-work"  # CUDA C++ kernels on AMD
    # bandwidth: H100 3.35, MI300X 5.3, Gaudi 3 3.67, Trainium2 2.9 TB/s; compute: Gaudi 3
    assert v.grade("leader", "gaudi3").misconception == "ranked-by-compute"
    assert v.grade("link", "nvlink").misconception == "link-nvlink-misattributed"
    assert "96 GiB" in t.statement(p)


def test_accelerator_landscape_variants_have_a_clear_leader():
    from hardware_db import catalog

    t = registry.get("accelerator-landscape")
    for seed in range(150):
        v = Variant.from_seed("accelerator-landscape", seed)
        accs = [catalog.accelerator(s) for s in v.params.parts]
        assert len({a.vendor for a in accs}) == 4
        leader = v.parts["leader"].value
        assert leader in v.params.parts
        assert {m.value for m in t.misconceptions(v.params) if m.part == "leader"} == (
            set(v.params.parts) - {leader}
        )


def test_quantization_schemes_by_hand():
    t = registry.get("quantization-schemes")
    v = Variant(t, t.Params(scheme=4, hardware=0, tool=2))  # A100 W8A8; A100 FP8; lm-eval
    assert [v.parts[n].value for n in ("scheme", "hardware", "tool")] == [
        "weights-and-activations", "no-fp8", "lm-eval",
    ]  # fmt: skip
    assert "A100" in t.statement(t.Params(scheme=0, hardware=0, tool=0))
    assert v.grade("hardware", "fp8-native").misconception == "fp8-assumed"
    h100 = Variant(t, t.Params(scheme=0, hardware=1, tool=0))
    assert h100.parts["hardware"].value == "fp8-native"


def test_inference_techniques_by_hand():
    t = registry.get("inference-techniques")
    v = Variant(t, t.Params(technique=4, signal=1, drafting=3))
    # a shared system prompt; long contexts fill the KV cache; batch 256, compute-bound
    assert [v.parts[n].value for n in ("technique", "signal", "drafting")] == [
        "prefix-caching", "kv-cache-usage", "no-speculation",
    ]  # fmt: skip
    assert v.grade("technique", "paged-kv").misconception == "limit-paged-kv"
    assert v.grade("drafting", "ngram").misconception == "speculation-at-full-batch"


def test_model_server_jobs_by_hand():
    t = registry.get("model-server-jobs")
    v = Variant(t, t.Params(job=2, cost=2, stack=3))  # a KV block; optimizer state; Triton
    assert [v.parts[n].value for n in ("job", "cost", "stack")] == [
        "kv-cache-manager", "training", "triton-server",
    ]  # fmt: skip
    assert v.grade("job", "scheduler").misconception == "job-as-scheduler"
    assert v.grade("stack", "kserve").misconception == "stack-kserve"


def test_k8s_gpu_components_by_hand():
    t = registry.get("k8s-gpu-components")
    v = Variant(t, t.Params(operator=0, object=2))  # Pending pods; the cache-aware router
    assert (v.parts["operator"].value, v.parts["object"].value) == (
        "device-plugin", "endpoint-picker",
    )  # fmt: skip
    assert v.grade("operator", "driver").misconception == "operator-driver"
    assert v.grade("object", "inference-pool").misconception == "object-pool"


def test_rdma_fabrics_by_hand():
    t = registry.get("rdma-fabrics")
    v = Variant(t, t.Params(removed=2, fabric=2))  # GPUDirect; PFC and ECN
    assert (v.parts["removed"].value, v.parts["fabric"].value) == ("host-memory-bounce", "roce")
    assert v.grade("fabric", "infiniband").misconception == "ib-needs-pfc"


def test_storage_tiers_by_hand():
    t = registry.get("storage-tiers")
    v = Variant(t, t.Params(tier=3, coldstart=1))  # a 2 TB checkpoint; local NVMe, slow copy
    assert (v.parts["tier"].value, v.parts["coldstart"].value) == (
        "parallel-fs", "gpudirect-storage",
    )  # fmt: skip
    assert v.grade("tier", "local-nvme").misconception == "tier-local-nvme"
    assert v.grade("coldstart", "cached-weights").misconception == "cache-already-there"


def test_profile_reading_by_hand():
    t = registry.get("profile-reading")
    v = Variant(t, t.Params(limiter=2, amd=3))  # 9% occupancy; custom CUDA kernels
    assert (v.parts["limiter"].value, v.parts["amd"].value) == ("latency", "hipify")
    assert v.grade("limiter", "memory-bandwidth").misconception == "limit-memory"
    assert "Achieved Occupancy" in t.statement(t.Params(limiter=2, amd=3))


def test_triton_concepts_by_hand():
    t = registry.get("triton-concepts")
    v = Variant(t, t.Params(program=2, flash=1, port=2))  # the grid; online softmax; PTX
    assert [v.parts[n].value for n in ("program", "flash", "port")] == [
        "grid", "online-softmax", "nvidia-only",
    ]  # fmt: skip
    assert v.grade("program", "mask").misconception == "triton-mask"
    assert v.grade("port", "same-source").misconception == "inline-asm-portable"
