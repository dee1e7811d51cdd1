from django.apps import AppConfig


class CurriculaConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "curricula"
