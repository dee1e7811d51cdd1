"""platform-layers: the five layers of an AI platform (compute, cluster, serving, data,
platform), the three parts of its serving layer (the engine, the layer that scales it,
the gateway in front), the store that suits each kind of data it keeps, and the paved
paths that let many teams ship without queueing behind the platform team.

Four parts, each one situation from its bank (problems/templates/concepts/_bank.py),
at the design level of the From Scratch course (its outline names the five layers and
the data homes: model artifacts in a registry, source documents in object storage,
vectors in a vector index, state in a database, events in a log). Products are named as
examples of a kind: vLLM, SGLang and TensorRT-LLM are engines (their documentation);
KServe, llm-d and Ray Serve run and scale replicas; an API gateway or model router
(Envoy AI Gateway, LiteLLM) keeps one stable endpoint in front of them; MLflow's model
registry and Hugging Face repositories hold versioned artifacts; Kafka keeps an ordered,
replayable log of events. Sentences are ours.
"""

from __future__ import annotations

from problems.engine.registry import register
from problems.templates.concepts._bank import ConceptTemplate, Question, Slip, Topic
from problems.templates.concepts._data_homes import HOME

COMPUTE, CLUSTER, SERVING, DATA, PLATFORM = "compute", "cluster", "serving", "data", "platform"
LAYER = Topic(
    part="layer",
    label="Layer of the AI platform",
    clue=(
        "Five layers stack up: the accelerators and machines; the system that pools them "
        "and places work; the endpoints that turn weights into answers; the stores for "
        "everything the system keeps; and the shared services that let many teams use "
        "all of it safely."
    ),
    choices=(COMPUTE, CLUSTER, SERVING, DATA, PLATFORM),
    questions=(
        Question(
            "A team's job asks for eight GPUs on one node and waits until a node has them "
            "free; another team's pods share the same pool. Which layer does that placing "
            "and queueing?",
            CLUSTER,
            "the cluster layer (Slurm, Kubernetes with a GPU operator) pools machines and "
            "places work on them.",
            (
                Slip(COMPUTE, "scheduler-as-compute", "Placing work taken for the compute layer",
                     "Compute is the accelerators and servers themselves; deciding what runs "
                     "where is the cluster's job."),
                Slip(SERVING, "scheduler-as-serving", "Placing work taken for the serving layer",
                     "Serving runs model endpoints on GPUs it has been given; it does not pool "
                     "the machines."),
                Slip(DATA, "scheduler-as-data", "Placing work taken for the data layer",
                     "The data layer stores artifacts, documents and events; it places no "
                     "jobs."),
                Slip(PLATFORM, "scheduler-as-platform", "Placing work taken for the platform layer",
                     "The platform layer sets quotas and paved paths over the cluster; the "
                     "queueing itself is the cluster's."),
            ),
        ),
        Question(
            "Choosing between H200 and MI300X servers, and whether to buy them or rent them "
            "by the hour, is a decision in which layer?",
            COMPUTE,
            "which accelerators, how many and bought how is the compute layer's question.",
            (
                Slip(CLUSTER, "hardware-as-cluster", "Hardware choice taken for the cluster layer",
                     "The cluster pools whatever machines it is given; choosing them comes "
                     "first, below it."),
                Slip(SERVING, "hardware-as-serving", "Hardware choice taken for the serving layer",
                     "Serving tunes an engine on the GPUs it gets; it does not buy them."),
                Slip(DATA, "hardware-as-data", "Hardware choice taken for the data layer",
                     "Storage choices belong to the data layer; accelerators are compute."),
                Slip(PLATFORM, "hardware-as-platform",
                     "Hardware choice taken for the platform layer",
                     "The platform layer serves teams on top of the stack; the machines are "
                     "its bottom layer."),
            ),
        ),
        Question(
            "A chat product's conversation history, its uploaded PDFs and the embeddings "
            "built from them must be kept and found again. Which layer owns that?",
            DATA,
            "state, documents and vectors are kinds of data, each with its own store.",
            (
                Slip(COMPUTE, "storage-as-compute", "Stored data taken for the compute layer",
                     "GPU memory holds weights and caches while a model runs; what must be "
                     "kept lives in the data layer."),
                Slip(CLUSTER, "storage-as-cluster", "Stored data taken for the cluster layer",
                     "The cluster mounts storage for jobs but does not decide what is kept "
                     "where."),
                Slip(SERVING, "storage-as-serving", "Stored data taken for the serving layer",
                     "The endpoint reads these at request time; keeping them is the data "
                     "layer's job."),
                Slip(PLATFORM, "storage-as-platform", "Stored data taken for the platform layer",
                     "The platform may govern access to the stores; the stores themselves are "
                     "the data layer."),
            ),
        ),
        Question(
            "Forty product teams need per-team API keys, quotas, usage reports and one "
            "documented way to deploy a fine-tuned model. Which layer provides that?",
            PLATFORM,
            "shared services for many teams (tenancy, quotas, cost attribution, paved paths) "
            "are the platform layer.",
            (
                Slip(COMPUTE, "tenancy-as-compute", "Tenancy taken for the compute layer",
                     "Buying more GPUs does not give teams keys, quotas or a way to deploy."),
                Slip(CLUSTER, "tenancy-as-cluster", "Tenancy taken for the cluster layer",
                     "Cluster quotas are one ingredient; the keys, reports and deployment "
                     "path for teams are the platform built over it."),
                Slip(SERVING, "tenancy-as-serving", "Tenancy taken for the serving layer",
                     "An engine serves requests; it does not onboard teams or bill them."),
                Slip(DATA, "tenancy-as-data", "Tenancy taken for the data layer",
                     "Usage records are data, but the service that issues keys and sets "
                     "quotas is the platform."),
            ),
        ),
        Question(
            "A model needs a replica that answers within its latency target and a second "
            "one when traffic doubles. Which layer turns its weights into that endpoint?",
            SERVING,
            "the serving layer runs the engine, scales its replicas and fronts them with "
            "an API.",
            (
                Slip(COMPUTE, "endpoint-as-compute", "An endpoint taken for the compute layer",
                     "Compute supplies the GPUs; it does not load weights or answer requests."),
                Slip(CLUSTER, "endpoint-as-cluster", "An endpoint taken for the cluster layer",
                     "The cluster places the replica's pods; running and scaling the model "
                     "behind an API is serving."),
                Slip(DATA, "endpoint-as-data", "An endpoint taken for the data layer",
                     "The weights are stored in the data layer; serving them is not."),
                Slip(PLATFORM, "endpoint-as-platform", "An endpoint taken for the platform layer",
                     "The platform offers a paved way to deploy it; the endpoint itself is "
                     "the serving layer."),
            ),
        ),
    ),
)  # fmt: skip

ENGINE, SCALER, GATEWAY = "engine", "scaling-layer", "gateway"
PIECE = Topic(
    part="piece",
    label="Part of the serving layer",
    clue=(
        "The serving layer has three parts: one that runs a model on one set of GPUs as "
        "fast as it can, one that runs and scales many copies of it, and one in front that "
        "gives clients a stable address and lets what is behind it change."
    ),
    choices=(ENGINE, SCALER, GATEWAY),
    meanings=(
        (ENGINE, "the inference engine, e.g. vLLM, SGLang, TensorRT-LLM"),
        (SCALER, "what runs and scales replicas, e.g. KServe, llm-d, Ray Serve"),
        (GATEWAY, "the API gateway or router in front"),
    ),
    questions=(
        Question(
            "Continuous batching and a paged KV cache make one replica serve more requests "
            "per GPU. Which part does that?",
            ENGINE,
            "batching and KV-cache memory are how the engine runs one model efficiently.",
            (
                Slip(SCALER, "batching-as-scaling", "Batching taken for scaling out",
                     "Adding replicas is scaling; batching makes each replica do more."),
                Slip(GATEWAY, "batching-at-gateway", "Batching taken for the gateway's work",
                     "The gateway routes whole requests; it never sees the decode steps "
                     "where batching happens."),
            ),
        ),
        Question(
            "Queue depth rises for ten minutes and two more replicas start on free GPUs, "
            "then stop when it falls. Which part does that?",
            SCALER,
            "starting and stopping replicas on a load signal is the scaling layer's job.",
            (
                Slip(ENGINE, "autoscaling-in-engine", "Autoscaling taken for the engine's work",
                     "An engine runs one replica; it cannot start copies of itself."),
                Slip(GATEWAY, "autoscaling-at-gateway", "Autoscaling taken for the gateway's work",
                     "The gateway spreads requests over the replicas there are; starting "
                     "more is the scaling layer's."),
            ),
        ),
        Question(
            "A team moves from a hosted model API to a self-hosted open model without "
            "changing its application's base URL or keys. Which part makes that possible?",
            GATEWAY,
            "a stable endpoint in front lets the backend behind it be replaced.",
            (
                Slip(ENGINE, "swap-in-engine", "Replaceability taken for the engine's work",
                     "The engine is what gets replaced here; something in front must stay "
                     "the same."),
                Slip(SCALER, "swap-in-scaler", "Replaceability taken for the scaler's work",
                     "Scaling manages copies of one deployment; it does not hide a switch "
                     "between providers."),
            ),
        ),
        Question(
            "Requests for the same tenant should reach a replica that already holds their "
            "system prompt's prefix, and a failed replica's share should move elsewhere. "
            "Which part spreads requests over the replicas?",
            GATEWAY,
            "routing each request to a replica is done in front of them, by the gateway or "
            "a router it delegates to.",
            (
                Slip(ENGINE, "routing-in-engine", "Routing taken for the engine's work",
                     "One engine sees only the requests sent to it; choosing among replicas "
                     "happens before them."),
                Slip(SCALER, "routing-as-scaling", "Routing taken for scaling",
                     "The scaling layer decides how many replicas exist; which one a "
                     "request goes to is routing."),
            ),
        ),
    ),
)  # fmt: skip

PAVED, TICKET, BESPOKE = "paved-path", "ticket-queue", "bespoke-per-team"
PATH = Topic(
    part="path",
    label="How teams ship on the platform (paved paths)",
    clue=(
        "A platform serves many teams when the common case is self-service: a few "
        "supported ways to do each thing, with quotas, observability and cost attribution "
        "built in, so a team needs no one's time to use them."
    ),
    choices=(PAVED, TICKET, BESPOKE),
    meanings=(
        (PAVED, "a supported self-service way with the guard rails built in"),
        (TICKET, "a request to the platform team, done by hand"),
        (BESPOKE, "each team builds its own"),
    ),
    questions=(
        Question(
            "Thirty teams each want to deploy fine-tuned models this quarter; the platform "
            "team is four people. What should deploying a model be?",
            PAVED,
            "one supported, self-service path scales to many teams without the platform "
            "team in the loop.",
            (
                Slip(TICKET, "platform-team-in-the-loop",
                     "The platform team put in every request's path",
                     "Four people handling thirty teams' deployments by hand become the "
                     "queue every team waits in."),
                Slip(BESPOKE, "every-team-its-own-stack", "Every team left to build its own stack",
                     "Thirty separate stacks waste GPUs and leave no shared quotas, "
                     "monitoring or cost reports."),
            ),
        ),
        Question(
            "A team needs GPU quota for a new evaluation job. Which arrangement lets it "
            "start today while keeping spend attributed to it?",
            PAVED,
            "a self-service quota request within a team budget, recorded for cost "
            "attribution, needs no hand-off.",
            (
                Slip(TICKET, "platform-team-in-the-loop",
                     "The platform team put in every request's path",
                     "A ticket makes the team wait for someone's time for a routine request."),
                Slip(BESPOKE, "every-team-its-own-stack", "Every team left to build its own stack",
                     "A team renting its own GPUs outside the platform escapes the quota "
                     "and the cost reports."),
            ),
        ),
        Question(
            "A team wants a model-serving setup unlike anything the platform supports, for "
            "a one-off research prototype that one person will run for two weeks. What "
            "fits?",
            BESPOKE,
            "a paved path covers the common case; a short-lived one-off may go its own way, "
            "outside the supported set.",
            (
                Slip(PAVED, "pave-every-request", "A paved path built for a one-off",
                     "Paving a path for one two-week prototype costs more than it saves; "
                     "paths are for what many teams do."),
                Slip(TICKET, "platform-team-in-the-loop",
                     "The platform team put in every request's path",
                     "Asking the platform team to build a one-off by hand spends their time "
                     "on what serves no one else."),
            ),
        ),
        Question(
            "Every team's model should emit the same latency and error metrics and page "
            "its own on-call. How should that be set up?",
            PAVED,
            "build the metrics and alert routing into the supported deployment path so each "
            "team gets them by using it.",
            (
                Slip(TICKET, "platform-team-in-the-loop",
                     "The platform team put in every request's path",
                     "Dashboards made by hand per request lag behind the teams and drift "
                     "apart."),
                Slip(BESPOKE, "every-team-its-own-stack", "Every team left to build its own stack",
                     "Each team choosing its own metrics leaves nothing comparable across "
                     "teams."),
            ),
        ),
    ),
)  # fmt: skip


@register
class PlatformLayers(ConceptTemplate):
    slug = "platform-layers"
    title = "An AI platform's layers, its serving parts, its data homes and paved paths"
    family = "concepts"
    lessons = (
        "the-layers-and-the-build-or-buy-ladder",
        "the-serving-layer",
        "the-data-layer",
        "platform-and-operations",
    )
    skills = (
        "platform-layers",
        "serving-architecture",
        "data-architecture",
        "platform-engineering",
    )
    INTRO = (
        "A company is building an AI platform for its 40 product teams, from GPUs up to a "
        "shared service. Answer four design questions about its five layers (compute, "
        "cluster, serving, data, platform), the parts of its serving layer, where each "
        "kind of data lives, and how teams ship on it."
    )
    TOPICS = (LAYER, PIECE, HOME, PATH)
