"""Database copy of the curriculum files, kept for admin, the API and foreign keys.

The YAML files are the source of truth; `services.curricula_load` is the only writer, so
these models carry no save() logic of their own.
"""

from django.db import models

from config.constraints import choice_check


class Course(models.Model):
    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    summary = models.TextField()
    order = models.PositiveIntegerField()
    # Learners may enrol themselves (the default); otherwise an instructor adds them. Not
    # in the YAML files: it is a per-deployment choice, kept across reloads.
    self_enrol = models.BooleanField(default=True)

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.title


class Module(models.Model):
    course = models.ForeignKey(
        Course, on_delete=models.CASCADE, related_name="modules", db_index=False
    )
    # Unique per course only: every course may have its own "basic" or "capstone".
    slug = models.SlugField(max_length=100)
    title = models.CharField(max_length=200)
    summary = models.TextField()
    order = models.PositiveIntegerField()

    class Meta:
        ordering = ["course", "order"]
        constraints = [
            models.UniqueConstraint(fields=["course", "slug"], name="curricula_module_slug")
        ]

    def __str__(self) -> str:
        return f"{self.course.title} / {self.title}"


class LessonStatus(models.TextChoices):
    READY = "ready", "Ready"
    # Conceptual lessons no core template tests yet; coverage tolerates these gaps.
    PLANNED = "planned", "Planned"


class Lesson(models.Model):
    Status = LessonStatus

    module = models.ForeignKey(Module, on_delete=models.CASCADE, related_name="lessons")
    # Unique across courses because lesson URLs and template metadata omit the course.
    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    order = models.PositiveIntegerField()
    minutes = models.PositiveIntegerField(null=True, blank=True)
    objectives = models.JSONField(default=list)
    # Markdown with $LaTeX$ from the data file, rendered on the lesson page.
    key_ideas = models.TextField(blank=True, default="")
    skills = models.JSONField(default=list)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.READY)

    class Meta:
        ordering = ["module", "order"]
        constraints = [choice_check("status", LessonStatus, name="curricula_lesson_status_valid")]

    def __str__(self) -> str:
        return self.title


class LessonTemplate(models.Model):
    """Which problem templates test a lesson; a template may serve several lessons.

    Templates live in code (the problem registry), not in a table, hence a slug rather
    than a foreign key.
    """

    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="template_links", db_index=False
    )
    template_slug = models.CharField(max_length=64, db_index=True)
    order = models.PositiveIntegerField()

    class Meta:
        ordering = ["lesson", "order"]
        constraints = [
            models.UniqueConstraint(
                fields=["lesson", "template_slug"], name="curricula_lesson_template"
            )
        ]

    def __str__(self) -> str:
        return f"{self.lesson.slug} -> {self.template_slug}"
