from django.apps import AppConfig


class CapstoneConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "capstone"
    verbose_name = "Capstone memos"
