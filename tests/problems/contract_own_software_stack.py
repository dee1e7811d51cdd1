"""Contracts of the software-stack templates (issue 12: scenario problems from real tool
output, and concept questions), templates of our own with hand-worked tests."""

from problems.engine.template import Kind

CHOICE = Kind.CHOICE
INTEGER = Kind.INTEGER

CONTRACT = {
    "cuda-driver-compat": (
        {"gpu", "driver", "torch", "cuda"},
        {"runs": ("", CHOICE), "branch": ("", CHOICE)},
        [
            ("driver", "999.99.99"),
            ("cuda", "12.2"),
            ("torch", "1.13.1"),
            ("gpu", "v100"),
            ("cuda_version", "12.4"),
        ],
    ),
    "stack-layer-error": (
        {"scenario", "gpu", "driver", "torch", "cuda", "model", "n_nodes"},
        {"layer": ("", CHOICE), "fix": ("", CHOICE)},
        [
            ("scenario", "oom"),
            ("n_nodes", 0),
            ("model", "gpt2"),
            ("driver", "390.48"),
            ("gpu", "mi300x"),
        ],
    ),
    "wavefront-width": (
        {"gpu", "block_threads", "bug"},
        {"warps": ("", INTEGER), "wavefronts": ("", INTEGER), "lost": ("", INTEGER)},
        [
            ("block_threads", 100),
            ("block_threads", 2048),
            ("block_threads", 32),
            ("gpu", "h100"),
            ("bug", "race"),
        ],
    ),
    "cuda-hip-terms": (
        {"term", "gpu", "project"},
        {"hip": ("", CHOICE)},
        [("term", "tensor core"), ("gpu", "h100"), ("project", "matmul")],
    ),
}
