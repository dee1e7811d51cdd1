"""Admin: read-only views of capstones, memos and decisions; the services write them."""

from django.contrib import admin

from capstone.models import Capstone, Memo, MemoDecision, MemoVersion


@admin.register(Capstone)
class CapstoneAdmin(admin.ModelAdmin):
    list_display = ["id", "learner", "course", "seed", "created_at"]
    raw_id_fields = ["learner"]
    readonly_fields = ["seed"]


class MemoVersionInline(admin.TabularInline):
    model = MemoVersion
    extra = 0
    fields = ["number", "review_status", "score", "max_score", "deliveries", "reviewed_at"]
    readonly_fields = fields
    can_delete = False


@admin.register(Memo)
class MemoAdmin(admin.ModelAdmin):
    """Read-only: versions, reviews and decisions are written by the services."""

    list_display = ["id", "capstone", "status", "updated_at"]
    list_filter = ["status"]
    readonly_fields = ["capstone", "status", "created_at", "updated_at"]
    inlines = [MemoVersionInline]


@admin.register(MemoDecision)
class MemoDecisionAdmin(admin.ModelAdmin):
    list_display = ["id", "memo", "version", "instructor", "decision", "created_at"]
    list_filter = ["decision"]
    readonly_fields = ["memo", "version", "instructor", "decision", "adjustments", "created_at"]
