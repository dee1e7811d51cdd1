"""Read-only API representations of the hardware catalogue.

Units stay in the field names, as in the data files (`_bytes`, `_bytes_per_s`,
`_bits_per_s`, `_watts`, `_gib`), so a figure can never be read in the wrong unit. Every
field carries a `help_text` because the schema is what a client author reads: what a
figure counts (per direction or both, dense or sparse, label or driver report) matters
more than its type. Fields that are null for some records are declared `allow_null`, so
the schema says what the data holds (tests/hardware_db/test_api_schema.py checks every
record against it).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from hardware_db.models import Accelerator, Link, ModelArchitecture, Server

# The data files' slug rule (hardware_db.schema.Slug): model slugs keep their version
# dots ("llama-3.1-8b"), which DRF's SlugField pattern would deny.
SLUG_REGEX = r"^[a-z0-9]+(?:[.-][a-z0-9]+)*$"
PRECISIONS = ("fp64", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")

_LINK_REF = "Slug of a link in /api/hardware/links/{slug}/"

_LINK_HELP = {
    "name": "Human name, with the generation and, for per-accelerator aggregates, how many "
    "links it counts.",
    "kind": "`scale-up`: accelerator to accelerator inside a node or pod (NVLink, Infinity "
    "Fabric, ICI), given per accelerator over all its links; `scale-out`: node to node "
    "(InfiniBand, RoCE, Ethernet), given per NIC port; `host`: accelerator to CPU (PCIe).",
    "line_rate_bits_per_s": "Raw signalling rate of one direction, in bits per second, "
    "before line encoding and protocol overhead; null where the vendor publishes only byte "
    "rates (NVLink, some ICI generations).",
    "bw_bytes_per_s_per_direction": "Data bandwidth one way, in bytes per second (after line "
    "encoding, before protocol headers). Use this for transfer-time and bus-bandwidth "
    "arithmetic.",
    "bw_bytes_per_s_bidirectional": "Both directions added, in bytes per second: exactly 2 x "
    "`bw_bytes_per_s_per_direction`. This is the figure vendors headline (NVLink 4's \"900 "
    'GB/s"); a transfer one way gets only half of it.',
}

_ACCELERATOR_HELP = {
    "vendor": "Maker, as the data file spells it (`NVIDIA`, `AMD`, `Intel`, `Google`, `AWS`); "
    "`?vendor=` matches it ignoring case.",
    "name": "Product name with memory size or SKU.",
    "form_factor": "Package and board: SXM, PCIe card, OAM, chip, ...",
    "memory_label": "Memory capacity and type exactly as the vendor prints it, e.g. `80 GB "
    'HBM3`. Its unit is the vendor\'s word: "GB" on a datasheet often means GiB in practice.',
    "memory_bytes": "`memory_label` read literally, in bytes: GB as 10^9, GiB as 2^30 (`80 GB` "
    "-> 80000000000). For the capacity to plan with, use `usable_gib`.",
    "memory_reported_bytes": "Total memory the driver reports (nvidia-smi's 81,559 MiB for an "
    'H100 "80 GB"), in bytes; null where no driver report is on record.',
    "mem_bw_bytes_per_s": "Peak memory bandwidth (HBM or GDDR), in bytes per second "
    "(3.35e12 = 3.35 TB/s).",
    "tdp_watts": "Maximum board or module power of one accelerator, in watts; null where the "
    "vendor publishes none (TPUs, AWS chips).",
    "scale_up_bw_bytes_per_s_per_direction": "Scale-up bandwidth of one accelerator summed "
    "over all its links, one way, in bytes per second; null when `scale_up_link` is null or "
    "no per-accelerator aggregate was verified.",
    "scale_up_bw_bytes_per_s_bidirectional": "The same aggregate with both directions added, "
    "in bytes per second: exactly 2 x the per-direction figure (the vendors' headline). Null "
    "with it.",
}

_SERVER_HELP = {
    "name": "System name as sold.",
    "vendor": "Who sells the system (`NVIDIA`, `Microsoft Azure`, ...); `?vendor=` matches it "
    "ignoring case.",
    "n_accelerators": "Accelerators in one system.",
    "nic_count": "Compute-fabric NIC ports (accelerator traffic between systems); storage and "
    "management adapters are not counted.",
    "nic_description": "The NICs in prose: adapter model, ports, rate, purpose.",
    "cpu": "Host CPUs in prose: count, model, cores, clocks.",
    "system_power_watts": "Maximum system power, in watts (the vendor's planning maximum, not "
    "typical draw); null where none is published, and `notes` then says why.",
    "rack_units": "Height of one system in rack units (U; 1U = 1.75 in = 44.45 mm), from the "
    "vendor's spec sheet or user guide (a DGX H100 is 8, a DGX B200 10), for counting how "
    "many systems fit in a rack. Null where the vendor publishes no height (a cloud "
    "instance, whose host chassis is not sold), and `notes` then says why.",
}


def _help(texts: dict[str, str]) -> dict[str, dict[str, str]]:
    """`extra_kwargs` giving model fields their API descriptions. They live here, not as
    model help_text, because they describe the API, and a model change means a migration."""
    return {name: {"help_text": text} for name, text in texts.items()}


def _link_field(help_text: str) -> serializers.SlugRelatedField:
    return serializers.SlugRelatedField(
        slug_field="slug", read_only=True, allow_null=True, help_text=help_text
    )


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {"type": "number", "format": "double"},
        "example": {"bf16": 989.4e12, "fp8": 1979e12},
    }
)
class FlopRateField(serializers.DictField):
    """precision -> operations per second; keys are some of PRECISIONS, never others."""

    child = serializers.FloatField()


class SourcedSerializer(serializers.ModelSerializer):
    """The fields every catalogue record carries: identity and provenance."""

    slug = serializers.RegexField(
        SLUG_REGEX,
        read_only=True,
        help_text="Stable identifier of the record and the last part of its URL: lower-case "
        "letters and digits joined by single hyphens or dots (model slugs keep version "
        "dots, e.g. `llama-3.1-8b`). A slug is never reused for another record.",
    )
    source = serializers.ListField(
        child=serializers.CharField(),
        read_only=True,
        min_length=1,
        help_text="Where the figures come from: at least one URL or document title, often "
        "with the table or footnote used and any cross-check against a second source.",
    )
    as_of = serializers.DateField(
        read_only=True,
        help_text="Date (YYYY-MM-DD) the figures were last checked against `source`; not a "
        "release date. Figures can change when a vendor revises a datasheet.",
    )
    notes = serializers.CharField(
        read_only=True,
        help_text="Caveats in prose: which figure is a vendor headline and which is derived, "
        "where sources disagree and which was stored, why a field is null. Empty string "
        "when there is nothing to add.",
    )

    class Meta:
        fields: tuple[str, ...] = ("source", "as_of", "notes")


class LinkSerializer(SourcedSerializer):
    class Meta:
        model = Link
        fields = (
            "slug",
            "name",
            "kind",
            "line_rate_bits_per_s",
            "bw_bytes_per_s_per_direction",
            "bw_bytes_per_s_bidirectional",
            *SourcedSerializer.Meta.fields,
        )
        read_only_fields = fields
        extra_kwargs = _help(_LINK_HELP)


class AcceleratorSerializer(SourcedSerializer):
    dense_flops = FlopRateField(
        read_only=True,
        help_text="Peak dense tensor throughput by precision, in operations per second "
        "(FLOP/s; for int8, integer operations per second). Keys are precisions among "
        + ", ".join(f"`{p}`" for p in PRECISIONS)
        + "; only the ones the vendor publishes are present. Use these for sizing.",
    )
    sparse_flops = FlopRateField(
        read_only=True,
        help_text="Peak throughput with 2:4 structured sparsity, same keys and unit as "
        "`dense_flops`, usually twice the dense figure. Datasheets often headline this one; "
        "it applies only to sparse matrices. Empty object where no sparse rate exists.",
    )
    scale_up_link = _link_field(
        f"{_LINK_REF} (kind `scale-up`): the accelerator-to-accelerator fabric. Null where "
        "the part has none (PCIe-only cards) or no per-accelerator figure was verified; "
        "`notes` says which."
    )
    host_link = _link_field(
        f"{_LINK_REF} (kind `host`): how the accelerator attaches to its host CPU, usually a "
        "PCIe generation and width. Null where the host connection is not a catalogued link "
        "(GB200's NVLink-C2C, TPUs, Trainium and Inferentia chips)."
    )
    usable_gib = serializers.FloatField(
        read_only=True,
        help_text="Capacity in GiB (2^30 bytes) that a sizing calculation should assume. "
        "Derived, not in the data file: `memory_reported_bytes` / 2^30 where known, "
        'otherwise the label\'s number read as GiB (HBM labels track GiB: an A100 "80GB" '
        'reports exactly 80 GiB), since reading "80 GB" as 80e9 bytes understates it by 7%.',
    )

    class Meta:
        model = Accelerator
        fields = (
            "slug",
            "vendor",
            "name",
            "form_factor",
            "memory_label",
            "memory_bytes",
            "memory_reported_bytes",
            "usable_gib",
            "mem_bw_bytes_per_s",
            "dense_flops",
            "sparse_flops",
            "tdp_watts",
            "scale_up_link",
            "scale_up_bw_bytes_per_s_per_direction",
            "scale_up_bw_bytes_per_s_bidirectional",
            "host_link",
            *SourcedSerializer.Meta.fields,
        )
        read_only_fields = fields
        extra_kwargs = _help(_ACCELERATOR_HELP)


class ServerSerializer(SourcedSerializer):
    accelerator = serializers.SlugRelatedField(
        slug_field="slug",
        read_only=True,
        help_text="Slug of the accelerator in /api/hardware/accelerators/{slug}/.",
    )
    nic_link = _link_field(
        f"{_LINK_REF} (kind `scale-out`): the link of the compute-fabric NICs counted in "
        "`nic_count`; null only when `nic_count` is 0."
    )

    class Meta:
        model = Server
        fields = (
            "slug",
            "name",
            "vendor",
            "accelerator",
            "n_accelerators",
            "nic_count",
            "nic_link",
            "nic_description",
            "cpu",
            "system_power_watts",
            "rack_units",
            *SourcedSerializer.Meta.fields,
        )
        read_only_fields = fields
        extra_kwargs = _help(_SERVER_HELP)


_MODEL_HELP = {
    "name": "Model name as published.",
    "arch_type": "`dense`: every parameter works on every token; `moe`: mixture of experts, "
    "only `active_params` work on each token.",
    "n_layers": "Transformer layers (blocks).",
    "hidden_size": "Width of the residual stream (d_model).",
    "n_heads": "Query attention heads per layer.",
    "n_kv_heads": "Key/value heads per layer: equal to `n_heads` for multi-head attention, "
    "fewer for grouped-query attention. The KV cache scales with this, not `n_heads`.",
    "head_dim": "Dimension of one attention head. For MLA models (`kv_lora_rank` set), the "
    "no-RoPE query/key dimension, equal to `qk_nope_head_dim`.",
    "intermediate_size": "Width of the dense feed-forward layers; for MoE models without "
    "`moe_intermediate_size`, the width of each expert.",
    "vocab_size": "Tokens in the vocabulary (rows of the embedding).",
    "max_context": "Longest context the published config allows, in tokens.",
    "total_params": "Every parameter, counted exactly from the config (embeddings included).",
    "active_params": "Parameters used for one token: `total_params` for dense models, the "
    "shared layers plus the routed and shared experts for MoE models.",
    "tied_embeddings": "True when the input embedding and the output head share weights "
    "(counted once in `total_params`).",
    "sliding_window": "Sliding-window attention span in tokens, which caps the KV cache per "
    "sequence; null where attention is over the whole context.",
    "n_experts": "Routed experts per MoE layer; null for dense models.",
    "experts_per_token": "Routed experts each token uses (top-k); null for dense models.",
    "n_shared_experts": "Experts every token uses besides the routed ones; 0 or null where "
    "there are none.",
    "moe_intermediate_size": "Width of one expert's feed-forward layer when it differs from "
    "`intermediate_size`; null otherwise.",
    "first_k_dense": "Leading layers that are dense before the MoE layers begin; null where "
    "every layer is alike.",
    "q_lora_rank": "MLA: rank of the compressed query projection; null without MLA.",
    "kv_lora_rank": "MLA (multi-head latent attention): width of the cached key/value latent; "
    "null without MLA. When set, the KV cache holds this latent instead of per-head K and V.",
    "qk_rope_head_dim": "MLA: query/key dimensions that carry RoPE (the shared RoPE key is "
    "cached beside the latent); null without MLA.",
    "qk_nope_head_dim": "MLA: query/key dimensions without RoPE; null without MLA.",
    "v_head_dim": "MLA: value head dimension; null without MLA.",
}


class ModelArchitectureSerializer(SourcedSerializer):
    kv_bytes_per_token_bf16 = serializers.SerializerMethodField(
        help_text="KV-cache bytes per token at 2 bytes per element (BF16), over all layers: "
        "2 (K and V) x `n_layers` x `n_kv_heads` x `head_dim` x 2; for MLA models "
        "`n_layers` x (`kv_lora_rank` + `qk_rope_head_dim`) x 2. Derived, not in the data "
        "file; `sliding_window` is not applied."
    )

    class Meta:
        model = ModelArchitecture
        fields = (
            "slug",
            *ModelArchitecture.DATA_FIELDS,
            "kv_bytes_per_token_bf16",
            *SourcedSerializer.Meta.fields,
        )
        read_only_fields = fields
        extra_kwargs = _help(_MODEL_HELP)

    def get_kv_bytes_per_token_bf16(self, obj: ModelArchitecture) -> int:
        return int(obj.kv_bytes_per_token(2))
