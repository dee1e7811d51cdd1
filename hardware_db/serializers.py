"""Read-only API representations. Units stay in the field names, as in the data files."""

from rest_framework import serializers

from hardware_db.models import Accelerator, Link, ModelArchitecture, Server

_SOURCED = ("slug", "source", "as_of", "notes")


class LinkSerializer(serializers.ModelSerializer):
    source = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = Link
        fields = (
            "slug",
            "name",
            "kind",
            "line_rate_bits_per_s",
            "bw_bytes_per_s_per_direction",
            "bw_bytes_per_s_bidirectional",
            *_SOURCED[1:],
        )
        read_only_fields = fields


class AcceleratorSerializer(serializers.ModelSerializer):
    source = serializers.ListField(child=serializers.CharField(), read_only=True)
    dense_flops = serializers.DictField(child=serializers.FloatField(), read_only=True)
    sparse_flops = serializers.DictField(child=serializers.FloatField(), read_only=True)
    scale_up_link = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    host_link = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    usable_gib = serializers.FloatField(read_only=True)

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
            *_SOURCED[1:],
        )
        read_only_fields = fields


class ServerSerializer(serializers.ModelSerializer):
    source = serializers.ListField(child=serializers.CharField(), read_only=True)
    accelerator = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    nic_link = serializers.SlugRelatedField(slug_field="slug", read_only=True)

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
            *_SOURCED[1:],
        )
        read_only_fields = fields


class ModelArchitectureSerializer(serializers.ModelSerializer):
    source = serializers.ListField(child=serializers.CharField(), read_only=True)
    kv_bytes_per_token_bf16 = serializers.SerializerMethodField()

    class Meta:
        model = ModelArchitecture
        fields = (
            "slug",
            *ModelArchitecture.DATA_FIELDS,
            "kv_bytes_per_token_bf16",
            *_SOURCED[1:],
        )
        read_only_fields = fields

    def get_kv_bytes_per_token_bf16(self, obj: ModelArchitecture) -> int:
        return int(obj.kv_bytes_per_token(2))
