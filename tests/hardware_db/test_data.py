"""Properties of the packaged data itself (read through the pure catalog, no database)."""

import datetime

import pytest

from hardware_db import catalog

ALL_KINDS = ("accelerators", "links", "servers", "models")


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_every_record_has_source_and_as_of(kind):
    items = getattr(catalog, kind)()
    assert items
    for item in items:
        assert item.source and all(s.strip() for s in item.source), item.slug
        assert isinstance(item.as_of, datetime.date), item.slug
        assert item.as_of <= datetime.date.today(), item.slug


def test_every_sparse_figure_is_twice_dense_or_documented():
    """The sparse map promises 2:4 figures, and 2:4 sparsity doubles the dense rate.

    "Twice" allows 0.1% for vendors printing both figures to four significant digits
    (989.4 dense, 1,979 sparse); any other ratio must be explained per precision in
    sparse_ratio_notes, and a headline for a sparser pattern (Trainium2's 3.84x) must not
    be stored at all.
    """
    documented = []
    for acc in catalog.accelerators():
        for precision, sparse in acc.sparse_flops.items():
            label = f"{acc.slug} {precision}"
            assert precision in acc.dense_flops, f"{label}: sparse figure without a dense one"
            dense = acc.dense_flops[precision]
            assert sparse / dense <= 2.05, f"{label}: {sparse / dense:.2f}x is not a 2:4 figure"
            if abs(sparse - 2 * dense) > 1e-3 * sparse:
                assert acc.sparse_ratio_notes.get(precision, "").strip(), (
                    f"{label}: sparse is {sparse / dense:.4f}x dense with no sparse_ratio_notes"
                )
                documented.append(label)
        for precision in acc.sparse_ratio_notes:
            assert f"{acc.slug} {precision}" in documented, f"{acc.slug}: stale note {precision}"
    assert sorted(documented) == ["l40s bf16", "l40s fp16", "mi355x fp4"]


def test_trainium2_stores_no_sparse_figure():
    """AWS's 2,563 'sparse TFLOPS' is an up-to figure for 4:16-like patterns, not 2:4."""
    trn2 = catalog.accelerator("trainium2")
    assert trn2.sparse_flops == {}
    assert "4:16" in trn2.notes and "2:4" in trn2.notes
    assert any("4:16, 4:12, 4:8, 2:8, 2:4, 1:4, and 1:2" in s for s in trn2.source)


def test_h100_nvl_usable_memory_is_what_nvidia_smi_reports():
    nvl = catalog.accelerator("h100-nvl")
    assert nvl.memory_reported_bytes == 95_830 * 2**20
    assert round(nvl.usable_gib, 2) == 93.58  # not the label's 94
    assert any("95830MiB" in s for s in nvl.source)


def test_gaudi3_scale_up_counts_only_its_21_scale_up_ports():
    gaudi3 = catalog.accelerator("gaudi3")
    port = catalog.link(gaudi3.scale_up_link)
    assert gaudi3.scale_up_bw_bytes_per_s_per_direction == 21 * port.bw_bytes_per_s_per_direction
    assert gaudi3.scale_up_bw_bytes_per_s_bidirectional == 1_050_000_000_000


def test_every_server_has_a_sourced_height_or_says_why_not():
    for server in catalog.servers():
        if server.rack_units is None:
            assert "rack_units is null because" in server.notes, server.slug
            continue
        assert 1 <= server.rack_units <= 52, server.slug
        # Traceable: the height appears as "<n>U" in a source or in the notes.
        tag = f"{server.rack_units}U"
        assert any(tag in text for text in (*server.source, server.notes)), server.slug
    heights = {s.slug: s.rack_units for s in catalog.servers()}
    assert (heights["dgx-a100"], heights["dgx-h100"], heights["dgx-b200"]) == (6, 8, 10)


def test_sparse_never_below_dense_and_units_plausible():
    for acc in catalog.accelerators():
        for precision, sparse in acc.sparse_flops.items():
            assert sparse >= acc.dense_flops.get(precision, 0), acc.slug
        # FLOP/s stored as FLOP/s, not TFLOP/s: every accelerator here is above 1e13.
        assert all(v > 1e13 for v in acc.dense_flops.values()), acc.slug
        # Memory bandwidth stored in bytes/s: all parts here sit between 0.5 and 10 TB/s.
        assert 5e11 <= acc.mem_bw_bytes_per_s <= 1e13, acc.slug


def test_driver_reported_sizes_are_whole_mib():
    for acc in catalog.accelerators():
        if acc.memory_reported_bytes is not None:
            assert acc.memory_reported_bytes % 2**20 == 0, acc.slug
    assert catalog.accelerator("h100-sxm").memory_reported_bytes == 81_559 * 2**20


def test_accelerator_scale_up_links_exist_and_servers_resolve():
    link_slugs = {link.slug for link in catalog.links()}
    for acc in catalog.accelerators():
        assert acc.scale_up_link is None or acc.scale_up_link in link_slugs
    for server in catalog.servers():
        catalog.accelerator(server.accelerator)
        assert server.nic_link is None or server.nic_link in link_slugs
        if server.system_power_watts is None:
            assert server.notes.strip(), server.slug


def test_ethernet_and_infiniband_bytes_are_bits_over_eight():
    for link in catalog.links():
        if link.kind == "scale-out":
            assert link.bw_bytes_per_s_per_direction * 8 == link.line_rate_bits_per_s, link.slug


def test_pcie_per_direction_after_encoding():
    assert catalog.link("pcie-gen4-x16").bw_bytes_per_s_per_direction == pytest.approx(
        16e9 * 16 * 128 / 130 / 8, abs=1
    )
    assert catalog.link("pcie-gen5-x16").bw_bytes_per_s_per_direction == pytest.approx(
        32e9 * 16 * 128 / 130 / 8, abs=1
    )


def test_mi300x_infinity_fabric_is_seven_links_of_128_gb_s():
    link = catalog.link("infinity-fabric-mi300x")
    assert link.bw_bytes_per_s_bidirectional == 7 * 128_000_000_000


def test_dgx_b200_power_matches_scalable_unit_figure():
    assert 32 * catalog.server("dgx-b200").system_power_watts == 457_600


def _llama_style_params(m: catalog.ModelArch, *, qkv_bias: bool = False) -> tuple[int, int]:
    """(total, active) for a Llama-style decoder, counted from the config shape."""
    h, d, a, kv = m.hidden_size, m.head_dim, m.n_heads, m.n_kv_heads
    attn = h * a * d + 2 * h * kv * d + a * d * h + ((a + 2 * kv) * d if qkv_bias else 0)
    mlp = 3 * h * m.intermediate_size
    if m.arch_type == "moe":
        router = h * m.n_experts
        mlp_total, mlp_active = m.n_experts * mlp + router, m.experts_per_token * mlp + router
    else:
        mlp_total = mlp_active = mlp
    embed = m.vocab_size * h * (1 if m.tied_embeddings else 2)
    per_layer_fixed = attn + 2 * h
    total = embed + h + m.n_layers * (per_layer_fixed + mlp_total)
    active = embed + h + m.n_layers * (per_layer_fixed + mlp_active)
    return total, active


@pytest.mark.parametrize(
    ("slug", "qkv_bias"),
    [
        ("llama-3.1-8b", False),
        ("llama-3.1-70b", False),
        ("llama-3.1-405b", False),
        ("llama-2-7b", False),
        ("llama-2-70b", False),
        ("mistral-7b", False),
        ("mixtral-8x7b", False),
        ("qwen2.5-72b", True),
    ],
)
def test_parameter_counts_follow_from_the_shape(slug, qkv_bias):
    m = catalog.model(slug)
    assert _llama_style_params(m, qkv_bias=qkv_bias) == (m.total_params, m.active_params)


def test_deepseek_v3_parameter_count_follows_from_the_shape():
    m = catalog.model("deepseek-v3")
    h, a = m.hidden_size, m.n_heads
    attn = (
        h * m.q_lora_rank
        + m.q_lora_rank
        + m.q_lora_rank * a * (m.qk_nope_head_dim + m.qk_rope_head_dim)
        + h * (m.kv_lora_rank + m.qk_rope_head_dim)
        + m.kv_lora_rank
        + m.kv_lora_rank * a * (m.qk_nope_head_dim + m.v_head_dim)
        + a * m.v_head_dim * h
    )
    expert = 3 * h * m.moe_intermediate_size
    # Router weight plus its per-expert score-correction bias.
    router = h * m.n_experts + m.n_experts
    moe_layers = m.n_layers - m.first_k_dense
    fixed = 2 * m.vocab_size * h + h + m.n_layers * (attn + 2 * h)
    fixed += m.first_k_dense * 3 * h * m.intermediate_size
    total = fixed + moe_layers * ((m.n_experts + m.n_shared_experts) * expert + router)
    active = fixed + moe_layers * ((m.experts_per_token + m.n_shared_experts) * expert + router)
    assert (total, active) == (m.total_params, m.active_params)


def test_gpt3_parameter_count_follows_from_the_shape():
    m = catalog.model("gpt-3-175b")
    L, d = m.n_layers, m.hidden_size
    expected = 12 * L * d**2 + 13 * L * d + m.vocab_size * d + m.max_context * d + 2 * d
    assert m.total_params == expected


# --- issue 34: figures checked against their primary sources ------------------------------


def test_b200_tf32_is_half_its_bf16_as_the_hgx_b200_totals_give():
    """NVIDIA's HGX B200 table: 18 PFLOPS TF32 and 36 PFLOPS BF16 for 8 GPUs, both with
    sparsity, so 1,125 and 2,250 TFLOPS dense per GPU. The per-GPU datasheet prints the
    TF32 figure rounded to "2.2 PFLOPS"; halving that rounding gave 1,100."""
    b200 = catalog.accelerator("b200")
    assert b200.dense_flops["tf32"] == 1_125e12
    assert b200.dense_flops["tf32"] * 2 == b200.dense_flops["bf16"]
    assert any("18 PFLOPS" in s and "TF32" in s for s in b200.source)


@pytest.mark.parametrize(
    ("slug", "link", "per_direction"),
    [
        # CDNA 2 white paper endnote: 8 links x 100 GB/s (both directions) per OAM.
        ("mi250x", "infinity-fabric-mi250x", 400_000_000_000),
        # CDNA 4 white paper, endnote MI350-007: 7 links x 153.6 GB/s (both directions).
        ("mi355x", "infinity-fabric-mi355x", 537_600_000_000),
    ],
)
def test_amd_parts_carry_their_infinity_fabric_scale_up(slug, link, per_direction):
    acc = catalog.accelerator(slug)
    assert acc.scale_up_link == link
    assert acc.scale_up_bw_bytes_per_s_per_direction == per_direction
    assert acc.scale_up_bw_bytes_per_s_bidirectional == 2 * per_direction
    record = catalog.link(link)
    assert record.bw_bytes_per_s_per_direction == per_direction
    assert any("white paper" in s for s in record.source)


def test_tpu_v6e_ici_figure_records_the_revisions_google_published():
    """Google's v6e page has printed 3,584 Gbps, 3,200 Gbps and "800 GBps bidirectional"
    in turn. The current revision (800 GBps both ways) is stored, and it is the one the
    same table's pod all-reduce bandwidth agrees with: 256 chips x 400 GB/s = 102.4 TB/s."""
    v6e = catalog.accelerator("tpu-v6e")
    assert v6e.scale_up_bw_bytes_per_s_per_direction == 400_000_000_000
    assert 256 * v6e.scale_up_bw_bytes_per_s_per_direction == 102.4e12
    link = catalog.link(v6e.scale_up_link)
    for figure in ("3584 Gbps", "3200 Gbps", "800 GBps"):
        assert figure in " ".join(link.source) + link.notes, figure


def test_tpu_v5p_fp8_is_googles_figure_with_no_speed_up():
    """Google's current v5p table lists "Peak compute per chip (FP8) 459" TFLOPs, the same
    as BF16: FP8 runs without a speed-up. The record says so, with the source."""
    v5p = catalog.accelerator("tpu-v5p")
    assert v5p.dense_flops["fp8"] == v5p.dense_flops["bf16"]
    assert "Peak compute per chip (FP8)" in " ".join(v5p.source)
    assert "no speed-up" in v5p.notes
