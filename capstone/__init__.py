"""The capstone: a learner's seeded capacity-planning brief, the memo they write against
it, the worker's review of each version, and an instructor's decision.

Its own app above assess (it enrols through assess's services and reads its selectors)
and below the pages, certification and LTI: memo_review/ is the pure brief, parsing and
review; models, services, selectors, tasks and the API are the Django side of it.
"""
