"""The authoring app: instructors' templates stored in the database (issue 42).

ready() registers the DB-backed resolver with the engine registry, so problems/ stays
pure (it never imports this app) and assess resolves authored slugs through
problems.engine.registry.get like any other kind.
"""

from django.apps import AppConfig


class AuthoringConfig(AppConfig):
    name = "authoring"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from authoring.resolve import authored_resolver, lesson_templates, template_at
        from problems.engine import registry

        registry.register_stored(authored_resolver, template_at)
        registry.register_lesson_source(lesson_templates)
