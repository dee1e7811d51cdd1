"""Contracts of the concepts family (issue 40), the ops helper's templates: one question
per part drawn from a bank, so the parameters are bank indices and every part is a
choice. Our own, beyond both specs; test_templates_concepts.py holds the bank checks."""

from problems.engine.template import Kind

CHOICE = Kind.CHOICE

CONTRACT = {
    "cluster-triage": (
        {"order", "hang", "driver"},
        {"order": ("", CHOICE), "hang": ("", CHOICE), "driver": ("", CHOICE)},
        [("order", 5), ("hang", -1), ("driver", "x")],
    ),
    "bring-up-sequence": (
        {"layer", "level", "verdict"},
        {"layer": ("", CHOICE), "level": ("", CHOICE), "verdict": ("", CHOICE)},
        [("layer", 6), ("level", -1), ("verdict", "x")],
    ),
    "gpu-alerting": (
        {"signal", "rule", "source"},
        {"signal": ("", CHOICE), "rule": ("", CHOICE), "source": ("", CHOICE)},
        [("signal", 5), ("rule", -1), ("source", "x")],
    ),
    "cooling-choices": (
        {"cooling", "loss", "plan"},
        {"cooling": ("", CHOICE), "loss": ("", CHOICE), "plan": ("", CHOICE)},
        [("cooling", 4), ("loss", -1), ("plan", "x")],
    ),
}
