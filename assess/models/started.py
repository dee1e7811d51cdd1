"""Which templates each learner has answered, kept by the database itself.

The progress table and its CSV show a lesson as started once the learner answered one of
its templates' questions. Reading that from the answers counted each of a class's
questions' answers: for a course of 5,743 learners the CSV spent 420 ms of its 1.9 s there
(a scan of every question, issue 43). A row here says "this learner answered this template
at least once"; it is written by a trigger on the answers table (migration
0022_started_templates), so every way an answer is stored (the answer path's statements,
an exam's saves, the ORM, a COPY of the scale data) keeps it without one more round trip,
and no code path can forget it. Rows are never removed but with their learner: answers
are never deleted while their learner stays.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class StartedTemplate(models.Model):
    pk = models.CompositePrimaryKey("learner", "template_slug")
    learner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="started_templates",
        db_index=False,  # the primary key leads with it
    )
    template_slug = models.CharField(max_length=64)

    def __str__(self) -> str:
        return f"{self.learner_id} started {self.template_slug}"
