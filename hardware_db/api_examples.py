"""One real record per hardware list endpoint, shown as the schema's example.

Copied from the data files so a client author sees true figures; `source` and `notes` are
abridged to a prefix of the real text (the API returns them whole). A test
(tests/hardware_db/test_api_docs.py) checks that every other field still equals what the
API serves for that slug and that each example validates against the schema, so an edit
to a data file cannot leave a stale example.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample

ACCELERATOR = {
    "slug": "h100-sxm",
    "vendor": "NVIDIA",
    "name": "H100 SXM5 80GB",
    "form_factor": "SXM5 (HGX H100 baseboard)",
    "memory_label": "80 GB HBM3",
    "memory_bytes": 80000000000,
    "memory_reported_bytes": 85520809984,
    "usable_gib": 79.6474609375,
    "mem_bw_bytes_per_s": 3350000000000,
    "dense_flops": {
        "fp64": 67000000000000.0,
        "tf32": 494700000000000.0,
        "bf16": 989400000000000.0,
        "fp16": 989400000000000.0,
        "fp8": 1979000000000000.0,
    },
    "sparse_flops": {
        "bf16": 1979000000000000.0,
        "fp16": 1979000000000000.0,
        "fp8": 3958000000000000.0,
    },
    "tdp_watts": 700,
    "scale_up_link": "nvlink-4",
    "scale_up_bw_bytes_per_s_per_direction": 450000000000,
    "scale_up_bw_bytes_per_s_bidirectional": 900000000000,
    "host_link": "pcie-gen5-x16",
    "source": [
        "NVIDIA H100 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/h100/"
    ],
    "as_of": "2026-11-29",
    "notes": "NVIDIA's headline 1,979 TFLOPS BF16 and 3,958 TFLOPS FP8 are sparsity figures; "
    "dense is half.",
}

LINK = {
    "slug": "nvlink-4",
    "name": "NVLink 4 (H100/H200, 18 links per SXM GPU)",
    "kind": "scale-up",
    "line_rate_bits_per_s": None,
    "bw_bytes_per_s_per_direction": 450000000000,
    "bw_bytes_per_s_bidirectional": 900000000000,
    "source": ["NVIDIA H100 Tensor Core GPU datasheet"],
    "as_of": "2026-11-29",
    "notes": "Per-GPU aggregate for SXM parts: 18 links x 25 GB/s each way; the 900 GB/s "
    "headline counts both directions.",
}

SERVER = {
    "slug": "dgx-h100",
    "name": "NVIDIA DGX H100",
    "vendor": "NVIDIA",
    "accelerator": "h100-sxm",
    "n_accelerators": 8,
    "nic_count": 8,
    "nic_link": "infiniband-ndr",
    "nic_description": "8x single-port ConnectX-7, 400 Gb/s NDR InfiniBand (or 400 GbE), "
    "exposed through four twin-port OSFP cages, for the compute fabric",
    "cpu": "2x Intel Xeon Platinum 8480C (Sapphire Rapids), 56 cores each",
    "system_power_watts": 10200,
    "rack_units": 8,
    "source": ["NVIDIA DGX H100/H200 User Guide, 'Introduction -> Power Specifications'"],
    "as_of": "2026-11-30",
    "notes": "MLPerf lists ten 400 Gb/s ports: eight ConnectX-7 compute NICs plus two dual-port "
    "adapters for storage and in-band management; only the eight compute NICs are counted.",
}

MODEL = {
    "slug": "llama-3.1-8b",
    "name": "Llama 3.1 8B",
    "arch_type": "dense",
    "n_layers": 32,
    "hidden_size": 4096,
    "n_heads": 32,
    "n_kv_heads": 8,
    "head_dim": 128,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_context": 131072,
    "total_params": 8030261248,
    "active_params": 8030261248,
    "tied_embeddings": False,
    "sliding_window": None,
    "n_experts": None,
    "experts_per_token": None,
    "n_shared_experts": None,
    "moe_intermediate_size": None,
    "first_k_dense": None,
    "q_lora_rank": None,
    "kv_lora_rank": None,
    "qk_rope_head_dim": None,
    "qk_nope_head_dim": None,
    "v_head_dim": None,
    "kv_bytes_per_token_bf16": 131072,
    "source": ["https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json"],
    "as_of": "2026-11-29",
    "notes": "GQA with 8 KV heads: 128 KiB of KV cache per token in BF16.",
}

# list endpoint (its path's last part) -> its example record
EXAMPLES = {
    "accelerators": ACCELERATOR,
    "links": LINK,
    "servers": SERVER,
    "models": MODEL,
}


def example(resource: str) -> OpenApiExample:
    """The schema example of one record; drf-spectacular wraps it in the page envelope on
    list operations."""
    record = EXAMPLES[resource]
    return OpenApiExample(
        record["slug"],
        summary=f"{record['slug']} (source and notes abridged)",
        value=record,
        response_only=True,
    )
