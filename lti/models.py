"""Our own LTI rows. Registrations, deployments, keys, platform users, contexts and
resource links are django-lti's (`lti_tool`); a platform user is linked to a Burn-in user
through django-lti's `LtiUser.auth_user`. What django-lti cannot know is which quiz a
resource link opens: that is stored here, once, on the link's first launch."""

from django.db import models


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
