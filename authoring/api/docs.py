"""What the schema tells a client author about each authoring operation (kept apart from
the views so they stay thin)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiTypes

WHO = (
    "For the course's course-wide instructors and staff only (an instructor scoped to "
    "one LMS context teaches the course but does not change its templates)."
)
LIST = (
    "The course's authored templates (drafts, published and archived), by slug, each with "
    f"its status and latest version. {WHO} 403 for anyone else; 404 for an unknown course."
)
CREATE = (
    "Create an authored template in the course from a document in the authoring format "
    "(the same object as the YAML file, sent as JSON): validated, tried over a few "
    "seeds, stored as version 1 of a draft. A document with problems is a 400 naming each "
    "by its field path (`document`: `parts[0].unit: ...; title: ...`), and nothing is "
    f"stored. {WHO}"
)
VALIDATE = (
    "Check a document without saving it: `valid` and every problem by field path. The "
    "same checks create and update run, so an editor can show them while the author "
    f"types. Send `slug` when the document is a new version of that template. {WHO}"
)
PREVIEW = (
    "Draw a document's variants for a few seeds (default 0, 1 and 2; at most 10) with "
    "their statements, worked solutions and answers, and run the misconception check over "
    "50 variants: how often each of the author's misconceptions is told apart from the "
    "right answer. Nothing is saved. A document with problems is a 400 naming them. "
    f"{WHO}"
)
DETAIL = (
    "An authored template: its course, status, its latest version's document and the "
    "list of its versions. 404 for an unknown slug and for a template of a course you "
    "do not write templates for."
)
UPDATE = (
    "Save a new version of the template from a document (its slug must stay the same). "
    "Earlier versions never change: a question an attempt drew keeps the version it drew. "
    "A published template's new version is what new questions draw from at once. 400 "
    "naming each problem by field path, nothing stored."
)
PUBLISH = (
    "Publish the template's latest version: the engine's check runs over 200 variants "
    "(every answer graded right, every misconception told apart from the answer in some "
    "variant, the text renders); a failure is a 409 naming what failed, and the status "
    "stays. A published template can be put in quizzes and certification pools; "
    "publishing an archived template brings it back."
)
ARCHIVE = (
    "Archive the template: new attempts no longer draw it; questions already drawn are "
    "rebuilt from the version they drew. Archiving twice answers the template as it is."
)
VERSION = (
    "One version of the template: its document as saved, who saved it and when. 404 for "
    "a version number the template does not have."
)
C400_DOCUMENT = "The document has problems; `detail` names each by its field path."
C403_AUTHOR = "You do not write this course's templates."

COURSE_SLUG = OpenApiParameter(
    "slug", OpenApiTypes.STR, OpenApiParameter.PATH, description="The course's slug."
)
TEMPLATE_SLUG = OpenApiParameter(
    "slug", OpenApiTypes.STR, OpenApiParameter.PATH, description="The authored template's slug."
)
VERSION_NUMBER = OpenApiParameter(
    "number", OpenApiTypes.INT, OpenApiParameter.PATH, description="The version, from 1."
)
C409_PUBLISH = "The latest version fails the check; `detail` names what failed."
REGRADE = (
    "Regrade every stored answer to the template with its latest published version: each "
    "question that drew an older version is moved to it (its answers recomputed from the "
    "parameters it drew) and every answer graded again; closed attempts are rescored and "
    "released grades sent again. Only when the latest version takes every question's "
    "parameters (the same names, values within its ranges): otherwise the regrade is a "
    "409 giving the reason, and nothing is stored. `dry_run` reports without storing. "
    "Not by someone who answered the template themselves (403)."
)
C403_REGRADE = "You do not write this course's templates, or you answered this one yourself."
C409_REGRADE = (
    "The template is not published, or a question's parameters do not fit its latest "
    "version; `detail` says which."
)
