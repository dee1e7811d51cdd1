"""Where an invitation leads: a team (and so its organisation), an organisation, or a
course. One small value the views, services and selectors pass around, so each of them
handles the three kinds in one place."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse


@dataclass(frozen=True)
class Place:
    organization: object | None = None
    team: object | None = None
    course: object | None = None

    @classmethod
    def of(cls, invitation) -> Place:
        return cls(
            organization=invitation.organization, team=invitation.team, course=invitation.course
        )

    @property
    def kind(self) -> str:
        if self.course is not None:
            return "course"
        return "team" if self.team is not None else "organization"

    @property
    def key(self) -> str:
        obj = {"course": self.course, "team": self.team, "organization": self.organization}
        return f"{self.kind}:{obj[self.kind].pk}"

    @property
    def fields(self) -> dict:
        """The invitation's foreign keys for this place."""
        return {"organization": self.organization, "team": self.team, "course": self.course}

    @property
    def label(self) -> str:
        if self.course is not None:
            return f"the course {self.course.title}"
        if self.team is not None:
            return f"the team {self.team.name} of {self.organization.name}"
        return f"the organisation {self.organization.name}"

    @property
    def name(self) -> str:
        """Short: the team's, organisation's or course's own name."""
        if self.course is not None:
            return self.course.title
        return self.team.name if self.team is not None else self.organization.name

    @property
    def manage_url(self) -> str:
        """The inviter's page of this place's invitations."""
        if self.course is not None:
            return reverse("invitations-course", kwargs={"slug": self.course.slug})
        if self.team is not None:
            return reverse("invitations-team", kwargs={"pk": self.team.pk})
        return reverse("invitations-organization", kwargs={"slug": self.organization.slug})

    @property
    def landing_url(self) -> str:
        """Where someone who joined goes next."""
        if self.course is not None:
            return reverse("course-detail", kwargs={"slug": self.course.slug})
        return reverse("certify")
