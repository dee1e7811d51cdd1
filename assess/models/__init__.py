from assess.models.attempt import Attempt, Question, Response
from assess.models.mastery import MasteryEvent, SkillMastery
from assess.models.quiz import Quiz, Slot
from assess.models.roles import CourseRole

__all__ = [
    "Attempt",
    "CourseRole",
    "MasteryEvent",
    "Question",
    "Quiz",
    "Response",
    "SkillMastery",
    "Slot",
]
