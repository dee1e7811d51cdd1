"""Database copy of the hardware data files, for the REST API and the admin.

The YAML files under hardware_db/data/ are the source of truth; rows here are written only by
`manage.py load_hardware` (services.hardware_load). Problem generators read the files through
`hardware_db.catalog` instead, so they work without a database.

hardware_db knows nothing but itself (an import-linter contract in pyproject.toml), so its
two choice fields spell out the CHECK that config.constraints.choice_check builds for the
other apps (tests/config/test_constraints.py holds every choice field to it).
"""

from django.db import models

from hardware_db import schema


class SourcedRecord(models.Model):
    """Fields every record carries: a stable slug and where its figures came from."""

    slug = models.SlugField(max_length=64, unique=True)
    source = models.JSONField(help_text="List of URLs or document titles the figures come from.")
    as_of = models.DateField(help_text="Date the figures were last checked against the source.")
    notes = models.TextField(blank=True, default="")
    # File order is meaningful (related records sit together), so it is kept for listing.
    position = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True
        ordering = ["position", "slug"]
        # A figure without provenance is not allowed in, even through a raw insert.
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(source=[]), name="%(app_label)s_%(class)s_source_not_empty"
            )
        ]

    def __str__(self) -> str:
        return self.slug


class LinkKind(models.TextChoices):
    SCALE_UP = "scale-up", "Scale-up"
    SCALE_OUT = "scale-out", "Scale-out"
    HOST = "host", "Host"


class Link(SourcedRecord):
    Kind = LinkKind

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    line_rate_bits_per_s = models.BigIntegerField(null=True, blank=True)
    bw_bytes_per_s_per_direction = models.BigIntegerField()
    bw_bytes_per_s_bidirectional = models.BigIntegerField()

    class Meta(SourcedRecord.Meta):
        constraints = [
            *SourcedRecord.Meta.constraints,
            models.CheckConstraint(
                condition=models.Q(kind__in=list(LinkKind.values)),
                name="hardware_db_link_kind_valid",
            ),
        ]


class Accelerator(SourcedRecord):
    vendor = models.CharField(max_length=64, db_index=True)
    name = models.CharField(max_length=200)
    form_factor = models.CharField(max_length=200)
    memory_label = models.CharField(max_length=100)
    memory_bytes = models.BigIntegerField()
    memory_reported_bytes = models.BigIntegerField(null=True, blank=True)
    mem_bw_bytes_per_s = models.BigIntegerField()
    dense_flops = models.JSONField(default=dict, help_text="precision -> dense FLOP/s")
    sparse_flops = models.JSONField(default=dict, help_text="precision -> 2:4-sparse FLOP/s")
    tdp_watts = models.PositiveIntegerField(null=True, blank=True)
    scale_up_link = models.ForeignKey(
        Link, null=True, blank=True, on_delete=models.PROTECT, related_name="scale_up_accelerators"
    )
    scale_up_bw_bytes_per_s_per_direction = models.BigIntegerField(null=True, blank=True)
    scale_up_bw_bytes_per_s_bidirectional = models.BigIntegerField(null=True, blank=True)
    host_link = models.ForeignKey(
        Link, null=True, blank=True, on_delete=models.PROTECT, related_name="host_accelerators"
    )

    class Meta(SourcedRecord.Meta):
        pass

    @property
    def usable_gib(self) -> float:
        """Same rule as catalog.Accelerator.usable_gib, so API and generators agree."""
        if self.memory_reported_bytes is not None:
            return self.memory_reported_bytes / 2**30
        number, _, _ = schema.parse_capacity_label(self.memory_label)
        return float(number)


class Server(SourcedRecord):
    name = models.CharField(max_length=200)
    vendor = models.CharField(max_length=64, db_index=True)
    accelerator = models.ForeignKey(Accelerator, on_delete=models.PROTECT, related_name="servers")
    n_accelerators = models.PositiveIntegerField()
    nic_count = models.PositiveIntegerField()
    nic_link = models.ForeignKey(
        Link, null=True, blank=True, on_delete=models.PROTECT, related_name="servers"
    )
    nic_description = models.TextField()
    cpu = models.CharField(max_length=200)
    system_power_watts = models.PositiveIntegerField(null=True, blank=True)
    rack_units = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Height in rack units (U); null where none is published."
    )

    class Meta(SourcedRecord.Meta):
        pass


class ModelArchType(models.TextChoices):
    DENSE = "dense", "Dense"
    MOE = "moe", "Mixture of experts"


class ModelArchitecture(SourcedRecord):
    # The architecture figures copied from the data file: one list for loader and API.
    DATA_FIELDS = (
        "name",
        "arch_type",
        "n_layers",
        "hidden_size",
        "n_heads",
        "n_kv_heads",
        "head_dim",
        "intermediate_size",
        "vocab_size",
        "max_context",
        "total_params",
        "active_params",
        "tied_embeddings",
        "sliding_window",
        "n_experts",
        "experts_per_token",
        "n_shared_experts",
        "moe_intermediate_size",
        "first_k_dense",
        "q_lora_rank",
        "kv_lora_rank",
        "qk_rope_head_dim",
        "qk_nope_head_dim",
        "v_head_dim",
    )

    ArchType = ModelArchType

    name = models.CharField(max_length=200)
    arch_type = models.CharField(max_length=8, choices=ArchType.choices)
    n_layers = models.PositiveIntegerField()
    hidden_size = models.PositiveIntegerField()
    n_heads = models.PositiveIntegerField()
    n_kv_heads = models.PositiveIntegerField()
    head_dim = models.PositiveIntegerField()
    intermediate_size = models.PositiveIntegerField()
    vocab_size = models.PositiveIntegerField()
    max_context = models.PositiveIntegerField()
    total_params = models.BigIntegerField()
    active_params = models.BigIntegerField()
    tied_embeddings = models.BooleanField()
    sliding_window = models.PositiveIntegerField(null=True, blank=True)
    n_experts = models.PositiveIntegerField(null=True, blank=True)
    experts_per_token = models.PositiveIntegerField(null=True, blank=True)
    n_shared_experts = models.PositiveIntegerField(null=True, blank=True)
    moe_intermediate_size = models.PositiveIntegerField(null=True, blank=True)
    first_k_dense = models.PositiveIntegerField(null=True, blank=True)
    q_lora_rank = models.PositiveIntegerField(null=True, blank=True)
    kv_lora_rank = models.PositiveIntegerField(null=True, blank=True)
    qk_rope_head_dim = models.PositiveIntegerField(null=True, blank=True)
    qk_nope_head_dim = models.PositiveIntegerField(null=True, blank=True)
    v_head_dim = models.PositiveIntegerField(null=True, blank=True)

    class Meta(SourcedRecord.Meta):
        verbose_name = "model architecture"
        constraints = [
            *SourcedRecord.Meta.constraints,
            models.CheckConstraint(
                condition=models.Q(arch_type__in=list(ModelArchType.values)),
                name="hardware_db_model_arch_type_valid",
            ),
        ]

    def kv_bytes_per_token(self, bytes_per_element: float) -> float:
        """Same rule as catalog.ModelArch.kv_bytes_per_token (MLA caches a latent, not K/V)."""
        if self.kv_lora_rank is not None:
            return (
                self.n_layers
                * (self.kv_lora_rank + (self.qk_rope_head_dim or 0))
                * (bytes_per_element)
            )
        return 2 * self.n_layers * self.n_kv_heads * self.head_dim * bytes_per_element
