"""LTI 1.3 tool: launches from an LMS into Burn-in quizzes (django-lti + pylti1p3, hardened)."""
