from django.apps import AppConfig


class LtiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "lti"
    verbose_name = "LTI 1.3 launches"

    def ready(self):
        from assess.signals import grade_released
        from lti.receivers import on_grade_released

        grade_released.connect(on_grade_released, dispatch_uid="lti-on-grade-released")
