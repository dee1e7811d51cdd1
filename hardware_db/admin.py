"""Admin views of the hardware tables.

They are view-only on purpose: the YAML files are the source of truth and the next
`load_hardware` would silently overwrite any edit made here.
"""

from django.contrib import admin

from hardware_db.models import Accelerator, Link, ModelArchitecture, Server


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Accelerator)
class AcceleratorAdmin(ReadOnlyAdmin):
    list_display = (
        "slug",
        "vendor",
        "name",
        "memory_label",
        "mem_bw_bytes_per_s",
        "tdp_watts",
        "as_of",
    )
    list_filter = ("vendor", "scale_up_link")
    search_fields = ("slug", "name", "vendor", "memory_label", "notes")


@admin.register(Link)
class LinkAdmin(ReadOnlyAdmin):
    list_display = (
        "slug",
        "name",
        "kind",
        "bw_bytes_per_s_per_direction",
        "bw_bytes_per_s_bidirectional",
        "as_of",
    )
    list_filter = ("kind",)
    search_fields = ("slug", "name", "notes")


@admin.register(Server)
class ServerAdmin(ReadOnlyAdmin):
    list_display = (
        "slug",
        "vendor",
        "name",
        "accelerator",
        "n_accelerators",
        "system_power_watts",
        "rack_units",
        "as_of",
    )
    list_filter = ("vendor",)
    search_fields = ("slug", "name", "vendor", "cpu", "notes")


@admin.register(ModelArchitecture)
class ModelArchitectureAdmin(ReadOnlyAdmin):
    list_display = ("slug", "name", "arch_type", "n_layers", "total_params", "as_of")
    list_filter = ("arch_type",)
    search_fields = ("slug", "name", "notes")
