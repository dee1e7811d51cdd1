"""quantized-weights, model-load-time, kv-transfer-time, paged-kv-blocks: hand-checked
answers and the slips each names."""

import math

from tests.problems.template_harness import slips, solve, variant

QUANT = {"n_params": 70553706496, "bits": 4, "group_size": 128, "scale_bytes": 2, "unit": "GB"}


def test_quantized_int4_group_128_by_hand():
    # 0.5 B of code + 2/128 = 0.015625 B of scale = 0.515625 B; x 70.55e9 = 36.379 GB.
    parts = solve("quantized-weights", QUANT)
    assert parts["bytes_per_param"].value == 0.515625
    assert math.isclose(parts["weights"].value, 36.379254912)
    assert math.isclose(parts["speedup"].value, 2 / 0.515625)  # 3.8788, not 4


def test_quantized_nvfp4_in_gib():
    # NVFP4: 0.5 + 1/16 = 0.5625 B; 8.03e9 x 0.5625 / 2^30 GiB.
    p = {"n_params": 8.03e9, "bits": 4, "group_size": 16, "scale_bytes": 1, "unit": "GiB"}
    parts = solve("quantized-weights", p)
    assert parts["bytes_per_param"].value == 0.5625
    assert math.isclose(parts["weights"].value, 8.03e9 * 0.5625 / 2**30)


def test_quantized_slips():
    named = slips("quantized-weights", QUANT)
    assert named[("scales-ignored", "bytes_per_param")] == 0.5
    assert named[("scale-per-weight", "bytes_per_param")] == 2.5
    assert named[("bits-vs-bytes", "bytes_per_param")] == 4.015625
    assert named[("scales-ignored", "speedup")] == 4.0
    assert math.isclose(named[("fp32-baseline", "speedup")], 4 / 0.515625)
    assert math.isclose(named[("gb-vs-gib", "weights")], 70553706496 * 0.515625 / 2**30)


def test_quantized_statement_names_model_and_scheme():
    text = variant("quantized-weights", QUANT).statement_markdown()
    assert "Llama 3.1 70B" in text and "GPTQ" in text and "no zero-points" in text


LOAD = {"n_params": 70553706496, "weight_dtype": "bf16", "storage_gbps": 25, "n_replicas": 4}


def test_model_load_by_hand():
    # 4 copies x 141.107 GB over 25 GB/s shared = 22.577 s.
    load = solve("model-load-time", LOAD)["load"].value
    assert math.isclose(load, 4 * 70553706496 * 2 / 25e9)


def test_model_load_slips():
    named = slips("model-load-time", LOAD)
    t = 4 * 70553706496 * 2 / 25e9
    assert math.isclose(named[("shared-bandwidth-ignored", "load")], t / 4)
    assert math.isclose(named[("wrong-bytes-per-param", "load")], 2 * t)  # FP32's 4 bytes
    assert math.isclose(named[("link-bits-as-bytes", "load")], t / 8)  # 200 Gb/s read as GB/s


def test_model_load_link_slip_left_out_when_it_is_the_shared_slip():
    # Eight replicas: t/8 is also the value of giving each the full bandwidth.
    named = slips("model-load-time", {**LOAD, "n_replicas": 8})
    assert ("link-bits-as-bytes", "load") not in named
    assert ("shared-bandwidth-ignored", "load") in named


def test_model_load_statement_names_the_link():
    text = variant("model-load-time", LOAD).statement_markdown()
    assert "Llama 3.1 70B" in text and "200 Gb/s" in text and "25 GB/s" in text


XFER = {
    "n_layers": 80,
    "n_kv_heads": 8,
    "head_dim": 128,
    "kv_dtype": "bf16",
    "prompt_tokens": 8192,
    "link_gbps": 400,
    "unit": "ms",
}


def test_kv_transfer_by_hand():
    # Llama 3.1 70B in BF16: 2 x 80 x 8 x 128 x 2 = 327,680 B per token; x 8192 tokens =
    # 2,684.35456 MB; x 8 bits over 400 Gb/s = 53.687 ms.
    parts = solve("kv-transfer-time", XFER)
    assert math.isclose(parts["kv"].value, 2684.35456)
    assert math.isclose(parts["time"].value, 53.6870912)
    seconds = solve("kv-transfer-time", {**XFER, "unit": "s"})["time"].value
    assert math.isclose(seconds, 0.0536870912)


def test_kv_transfer_slips():
    named = slips("kv-transfer-time", XFER)
    assert math.isclose(named[("bits-vs-bytes", "time")], 53.6870912 / 8)
    assert math.isclose(named[("missing-kv-factor-2", "kv")], 2684.35456 / 2)
    assert math.isclose(named[("per-layer-only", "kv")], 2684.35456 / 80)
    assert math.isclose(named[("attention-heads-not-kv-heads", "kv")], 2684.35456 * 8)


def test_kv_transfer_statement_names_model_and_link():
    text = variant("kv-transfer-time", XFER).statement_markdown()
    assert "Llama 3.1 70B" in text and "InfiniBand NDR" in text and "Gb/s" in text


PAGED = {
    "kv_budget_gib": 36.5,
    "n_layers": 32,
    "n_kv_heads": 8,
    "head_dim": 128,
    "kv_dtype": "fp8",
    "block_size": 16,
    "seq_len": 1000,
}


def test_paged_blocks_by_hand():
    # 65,536 B per token x 16 = 1 MiB = 1024 KiB per block; 36.5 GiB / 1 MiB = 37,376
    # blocks; 1000 tokens take ceil(62.5) = 63 blocks: floor(37,376 / 63) = 593.
    parts = solve("paged-kv-blocks", PAGED)
    assert parts["block"].value == 1024.0
    assert parts["total_blocks"].value == 37376
    assert parts["max_seqs"].value == 593


def test_paged_blocks_floor_is_exact():
    # 1.5 GiB over 1 MiB blocks is exactly 1536 blocks, and 1536 / 96 is exactly 16.
    parts = solve("paged-kv-blocks", {**PAGED, "kv_budget_gib": 1.5, "seq_len": 96 * 16})
    assert parts["total_blocks"].value == 1536
    assert parts["max_seqs"].value == 16


def test_paged_blocks_slips():
    named = slips("paged-kv-blocks", {**PAGED, "seq_len": 1100})
    # 1100 tokens: 68.75 -> 69 blocks; 37,376 / 69 = 541.7 -> 541; ignoring the partial
    # block, 37,376 x 16 / 1100 = 543.6 -> 543, within 1% of 541 and so not named.
    assert ("partial-block-ignored", "max_seqs") not in named
    named = slips("paged-kv-blocks", {**PAGED, "block_size": 128, "seq_len": 1100})
    # 8 MiB blocks: 4672 of them; 1100 tokens take 9 blocks (8.59): 519 against 543.
    assert named[("partial-block-ignored", "max_seqs")] == 543
    assert named[("gb-vs-gib", "total_blocks")] == 4351  # 36.5e9 / 8 MiB = 4351.2
    assert named[("missing-kv-factor-2", "total_blocks")] == 9344
    assert named[("missing-kv-factor-2", "block")] == 4096.0


def test_paged_blocks_statement_names_the_deployment():
    v = variant("paged-kv-blocks", PAGED)
    assert "whole blocks" in v.statement_markdown()
    assert (
        solve("paged-kv-blocks", {**PAGED, "block_size": 128, "seq_len": 1100})["max_seqs"].value
        == 519
    )
