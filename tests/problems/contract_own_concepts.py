"""Contracts of the concepts family (issue 40): one question per part drawn from a bank,
so the parameters are bank indices and every part is a choice. Our own, beyond both specs;
test_templates_concepts.py holds the bank checks."""

from problems.engine.template import Kind

CHOICE = Kind.CHOICE

CONTRACT = {
    "transformer-mechanics": (
        {"stage", "attention", "cache"},
        {"stage": ("", CHOICE), "attention": ("", CHOICE), "cache": ("", CHOICE)},
        [("stage", 5), ("attention", -1), ("cache", "x")],
    ),
}

CONTRACT["platform-layers"] = (
    {"layer", "piece", "home", "path"},
    {
        "layer": ("", CHOICE),
        "piece": ("", CHOICE),
        "home": ("", CHOICE),
        "path": ("", CHOICE),
    },
    [("layer", 9), ("piece", -1), ("home", "x"), ("path", 4)],
)

CONTRACT["experiment-design"] = (
    {"experiment", "verdict", "billing", "reversal"},
    {
        "experiment": ("", CHOICE),
        "verdict": ("", CHOICE),
        "billing": ("", CHOICE),
        "reversal": ("", CHOICE),
    },
    [("experiment", 4), ("verdict", -1), ("billing", "x"), ("reversal", 9)],
)

CONTRACT["memory-tiers"] = (
    {"fits", "rate"},
    {"fits": ("", CHOICE), "rate": ("", CHOICE)},
    [("fits", 5), ("rate", -1), ("fits", "x")],
)

CONTRACT["framework-layers"] = (
    {"stack", "owner"},
    {"stack": ("", CHOICE), "owner": ("", CHOICE)},
    [("stack", 6), ("owner", -1), ("stack", "x")],
)

CONTRACT["scheduling-choices"] = (
    {"placement", "choice"},
    {"placement": ("", CHOICE), "choice": ("", CHOICE)},
    [("placement", 5), ("choice", -1), ("placement", "x")],
)

CONTRACT["accelerator-landscape"] = (
    {"parts", "metric", "linked", "software"},
    {"leader": ("", CHOICE), "link": ("", CHOICE), "software": ("", CHOICE)},
    [
        ("parts", ("h100-sxm", "h200", "mi300x", "gaudi3")),  # two from one vendor
        ("metric", "price"),
        ("linked", "trainium2"),  # no scale-up link in the catalog
        ("software", 9),
    ],
)

CONTRACT["quantization-schemes"] = (
    {"scheme", "hardware", "tool"},
    {"scheme": ("", CHOICE), "hardware": ("", CHOICE), "tool": ("", CHOICE)},
    [("scheme", 5), ("hardware", -1), ("tool", "x")],
)

CONTRACT["inference-techniques"] = (
    {"technique", "signal", "drafting"},
    {"technique": ("", CHOICE), "signal": ("", CHOICE), "drafting": ("", CHOICE)},
    [("technique", 5), ("signal", -1), ("drafting", "x")],
)

CONTRACT["model-server-jobs"] = (
    {"job", "cost", "stack"},
    {"job": ("", CHOICE), "cost": ("", CHOICE), "stack": ("", CHOICE)},
    [("job", 5), ("cost", -1), ("stack", "x")],
)

CONTRACT["k8s-gpu-components"] = (
    {"operator", "object"},
    {"operator": ("", CHOICE), "object": ("", CHOICE)},
    [("operator", 6), ("object", -1), ("operator", "x")],
)

CONTRACT["rdma-fabrics"] = (
    {"removed", "fabric"},
    {"removed": ("", CHOICE), "fabric": ("", CHOICE)},
    [("removed", 3), ("fabric", -1), ("removed", "x")],
)

CONTRACT["storage-tiers"] = (
    {"tier", "coldstart"},
    {"tier": ("", CHOICE), "coldstart": ("", CHOICE)},
    [("tier", 6), ("coldstart", -1), ("tier", "x")],
)

CONTRACT["profile-reading"] = (
    {"limiter", "amd"},
    {"limiter": ("", CHOICE), "amd": ("", CHOICE)},
    [("limiter", 6), ("amd", -1), ("limiter", "x")],
)

CONTRACT["triton-concepts"] = (
    {"program", "flash", "port"},
    {"program": ("", CHOICE), "flash": ("", CHOICE), "port": ("", CHOICE)},
    [("program", 5), ("flash", -1), ("port", "x")],
)
