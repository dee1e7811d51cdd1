from django.apps import AppConfig


class CertifyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "certify"
    verbose_name = "Certification"

    def ready(self) -> None:
        # Issue certificates when assess records progress (after its commit).
        from assess.signals import progress_recorded
        from certify.receivers import on_progress

        progress_recorded.connect(on_progress, dispatch_uid="certify-on-progress")

        # Refuse a new attempt on a track's exam until the track's lessons are mastered.
        from assess.signals import attempt_starting
        from certify.gates import exam_mastery_gate

        attempt_starting.connect(exam_mastery_gate, dispatch_uid="certify-exam-mastery-gate")

        # Leave templates whose variants differ in difficulty out of the exam pools.
        from assess.signals import certification_withholding
        from certify.pools import withhold_flagged

        certification_withholding.connect(withhold_flagged, dispatch_uid="certify-withhold-flagged")

        # Assemble each certification form from the calibrated pools.
        from assess.signals import certification_form
        from certify.forms import assemble_form

        certification_form.connect(assemble_form, dispatch_uid="certify-assemble-form")
