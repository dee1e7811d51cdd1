from django.apps import AppConfig


class HardwareDbConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "hardware_db"
    verbose_name = "Hardware reference data"
