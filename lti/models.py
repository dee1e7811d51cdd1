"""Our own LTI rows. Registrations, deployments, keys, platform users, contexts and
resource links are django-lti's (`lti_tool`); a platform user is linked to a Burn-in user
through django-lti's `LtiUser.auth_user`. What django-lti cannot know is which quiz a
resource link opens: that is stored here, once, on the link's first launch."""

from django.conf import settings
from django.db import models

from config.constraints import choice_check


class ResourceLinkQuiz(models.Model):
    """The quiz a resource link opens. Keyed by django-lti's LtiResourceLink, which is
    unique per (context, id on platform) and a context is unique per deployment, so the
    same LMS link id in two deployments or two LMS courses maps independently. Later
    launches keep the stored quiz even if the `custom` claim changes (an LMS admin cannot
    retarget a link's existing attempts by editing a parameter)."""

    resource_link = models.OneToOneField(
        "lti_tool.LtiResourceLink", on_delete=models.CASCADE, related_name="burnin_quiz"
    )
    quiz = models.ForeignKey("assess.Quiz", on_delete=models.PROTECT, related_name="lti_links")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.resource_link} -> quiz {self.quiz_id}"


class LineItem(models.Model):
    """The LMS gradebook column of one quiz in one LMS context (deployment and context id):
    a quiz linked from two LMS courses has two. Found by resourceId (the quiz id) before
    one is created, or given by the launch's AGS claim (a deep-linked link's own)."""

    context = models.ForeignKey(
        "lti_tool.LtiContext",
        on_delete=models.CASCADE,
        related_name="burnin_line_items",
        db_index=False,
    )
    quiz = models.ForeignKey("assess.Quiz", on_delete=models.PROTECT, related_name="lti_line_items")
    url = models.URLField(max_length=1000)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["context", "quiz"], name="lti_one_line_item_per_quiz")
        ]

    def __str__(self):
        return self.url


class ScoreSyncState(models.TextChoices):
    PENDING = "pending", "Pending"
    SENT = "sent", "Sent"
    FAILED = "failed", "Failed"


class ScoreSync(models.Model):
    """What the LMS gradebook should hold for one learner (an LMS user) on one quiz in one
    LMS context, and whether it does: pending (to send, or being retried), sent, or
    failed with the reason (`permanent` when the LMS refused it, e.g. 422 for a user no
    longer in the course; otherwise retries ran out). Only a changed score is sent again;
    `timestamp` rises with each new score, as AGS requires."""

    State = ScoreSyncState

    context = models.ForeignKey(
        "lti_tool.LtiContext",
        on_delete=models.CASCADE,
        related_name="burnin_score_syncs",
        db_index=False,
    )
    quiz = models.ForeignKey("assess.Quiz", on_delete=models.PROTECT, related_name="score_syncs")
    lti_user = models.ForeignKey(
        "lti_tool.LtiUser", on_delete=models.CASCADE, related_name="burnin_score_syncs"
    )
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lti_score_syncs"
    )
    attempt = models.ForeignKey(
        "assess.Attempt", on_delete=models.SET_NULL, null=True, related_name="+"
    )
    score_given = models.FloatField()
    score_maximum = models.FloatField()
    timestamp = models.DateTimeField()
    state = models.CharField(max_length=8, choices=State.choices, default=State.PENDING)
    permanent = models.BooleanField(default=False)
    reason = models.TextField(blank=True)
    tries = models.PositiveIntegerField(default=0)
    sent_score_given = models.FloatField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            choice_check("state", ScoreSyncState, name="lti_score_sync_state_valid"),
            models.UniqueConstraint(
                fields=["context", "quiz", "lti_user"], name="lti_one_score_sync_per_learner"
            ),
            models.CheckConstraint(
                condition=models.Q(score_given__gte=0)
                & models.Q(score_given__lte=models.F("score_maximum")),
                name="lti_score_within_maximum",
            ),
        ]
        indexes = [models.Index(fields=["state", "updated_at"], name="lti_score_sync_state")]

    def __str__(self):
        return f"{self.lti_user} on quiz {self.quiz_id}: {self.state}"


class DeploymentCourse(models.Model):
    """A Burn-in course an LMS deployment is authorised for, set by staff in the admin
    (LTI Dynamic Registration will set the same list). A launch from the deployment may
    open only the quizzes of its listed courses, and only such a launch grants a course
    role or an enrolment: otherwise anyone who can make a course in a registered LMS
    could name any quiz and become an instructor of its Burn-in course."""

    deployment = models.ForeignKey(
        "lti_tool.LtiDeployment",
        on_delete=models.CASCADE,
        related_name="burnin_courses",
        db_index=False,  # the unique constraint's index leads with it
    )
    course = models.ForeignKey(
        "curricula.Course", on_delete=models.CASCADE, related_name="lti_deployments"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["deployment", "course"], name="lti_one_row_per_deployment_course"
            )
        ]
        verbose_name = "authorised course"

    def __str__(self):
        return f"{self.deployment} -> {self.course}"


class DeploymentQuiz(models.Model):
    """A staff quiz with no course that the deployment may launch, because its own deep
    linking placed it (recorded when the signed response is made). A quiz with no
    course grants no role, but it is still only launchable where it was placed."""

    deployment = models.ForeignKey(
        "lti_tool.LtiDeployment",
        on_delete=models.CASCADE,
        related_name="burnin_quizzes",
        db_index=False,  # the unique constraint's index leads with it
    )
    quiz = models.ForeignKey("assess.Quiz", on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["deployment", "quiz"], name="lti_one_row_per_deployment_quiz"
            )
        ]
        verbose_name = "deep-linked quiz with no course"

    def __str__(self):
        return f"{self.deployment} -> quiz {self.quiz_id}"


class RegistrationInvite(models.Model):
    """A one-time LTI Dynamic Registration URL minted by staff (lti.dynamic_registration).

    It carries the Burn-in courses the deployment it creates may launch into (the allow-
    list of DeploymentCourse, decided once by the person who mints it), expires, and can
    be revoked. Only a hash of its secret is stored: the URL is shown once, at minting.
    `registration` is set when an LMS used it; a used invite cannot register again."""

    token_hash = models.CharField(max_length=64, unique=True)
    label = models.CharField(max_length=200, help_text="Which LMS this URL is for.")
    courses = models.ManyToManyField("curricula.Course", related_name="+", blank=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    used_at = models.DateTimeField(null=True, blank=True)
    registration = models.OneToOneField(
        "lti_tool.LtiRegistration",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="burnin_invite",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "dynamic registration URL"

    def __str__(self):
        return self.label
