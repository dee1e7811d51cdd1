from django.apps import AppConfig


class AssessConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "assess"
