"""Admin views of the curriculum, read-only on purpose.

The YAML files are the source of truth and `load_curricula` rewrites these rows to match
them, so an edit made here would be silently undone by the next load. Change the files.
"""

from django.contrib import admin

from curricula.models import Course, Lesson, LessonTemplate, Module


class _ReadOnly:
    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ModuleInline(_ReadOnly, admin.TabularInline):
    model = Module
    fields = ["order", "slug", "title"]
    show_change_link = True


class LessonInline(_ReadOnly, admin.TabularInline):
    model = Lesson
    fields = ["order", "slug", "title", "minutes", "status"]
    show_change_link = True


class LessonTemplateInline(_ReadOnly, admin.TabularInline):
    model = LessonTemplate
    fields = ["order", "template_slug"]


@admin.register(Course)
class CourseAdmin(_ReadOnly, admin.ModelAdmin):
    list_display = ["title", "slug", "order"]
    search_fields = ["title", "slug"]
    inlines = [ModuleInline]


@admin.register(Module)
class ModuleAdmin(_ReadOnly, admin.ModelAdmin):
    list_display = ["title", "slug", "course", "order"]
    list_filter = ["course"]
    list_select_related = ["course"]
    inlines = [LessonInline]


@admin.register(Lesson)
class LessonAdmin(_ReadOnly, admin.ModelAdmin):
    list_display = ["title", "slug", "module", "order", "minutes", "status"]
    list_filter = ["status", "module__course"]
    list_select_related = ["module__course"]
    search_fields = ["title", "slug", "skills"]
    inlines = [LessonTemplateInline]


@admin.register(LessonTemplate)
class LessonTemplateAdmin(_ReadOnly, admin.ModelAdmin):
    list_display = ["template_slug", "lesson", "order"]
    list_filter = ["template_slug"]
    list_select_related = ["lesson"]
    search_fields = ["template_slug", "lesson__slug"]
