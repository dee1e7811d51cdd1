"""Pages. Each view parses its input, calls one selector or service, and renders.

pages: home and health; learn: courses, lessons, lesson practice; take: quizzes,
attempts, questions and answers; dashboard; teach: quiz builder, item analysis and
progress; hardware: catalog, comparison, roofline. Objects a user may not see are 404.
"""
