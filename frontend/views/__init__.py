"""Pages. Each view parses its input, calls one selector or service, and renders.

pages: home and health; learn: courses, enrolment, lessons, lesson practice; take: quizzes,
attempts, questions, answers and reveals; drills: an incident drill's actions and
submission; dashboard; teach: quiz builder, item analysis,
progress and learners; certify: the learner's tracks, public certificate verification,
managers' teams with readiness matrix, CSV and revocation; hardware: catalog, comparison,
roofline. Objects a user may not see are 404.
"""
