from assess.models.attempt import RESPONSE_KEYS, Attempt, Hint, Question, Response, Reveal
from assess.models.drawn import DrawnVariant
from assess.models.drill import DrillStep
from assess.models.extension import Extension
from assess.models.mastery import MasteryEvent, SkillMastery
from assess.models.quiz import Quiz, Slot
from assess.models.roles import CourseRole, Enrolment
from assess.models.started import StartedTemplate

__all__ = [
    "RESPONSE_KEYS",
    "Attempt",
    "CourseRole",
    "DrawnVariant",
    "DrillStep",
    "Enrolment",
    "Extension",
    "Hint",
    "MasteryEvent",
    "Question",
    "Quiz",
    "Response",
    "Reveal",
    "SkillMastery",
    "Slot",
    "StartedTemplate",
]
