"""The institution's people: learners, instructors, organisations, managers and teams.

Learners are written in bulk (no password: they sign in through the bench's sessions
or tokens, never with a password); each has a primary course and one in five a second.
Every course gets two instructors and every organisation a manager; engineers are the
first `plan.engineers` learners, spread over the organisations' teams with the first
team holding `plan.biggest_team` of them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model

from assess.models import CourseRole, Enrolment
from curricula.models import Course
from frontend.scale.plan import Plan
from frontend.scale.rows import Table
from orgs.models import Membership, Organization, Team, TeamMember


@dataclass
class People:
    learners: list[int]  # user ids, in order
    courses: list[Course]
    enrolled: dict[int, list[int]]  # learner id -> course ids (primary first)
    instructors: dict[int, list[int]] = field(default_factory=dict)  # course id -> user ids
    engineers: list[int] = field(default_factory=list)
    managers: list[int] = field(default_factory=list)
    teams: list[int] = field(default_factory=list)


def prefix(plan: Plan) -> str:
    return f"scale{plan.seed}"


def _users(names: list[str], now: datetime) -> list[int]:
    table = Table(
        get_user_model(),
        ["id", "password", "is_superuser", "username", "first_name", "last_name", "email",
         "is_staff", "is_active", "date_joined"],
    )  # fmt: skip
    start = table.next_id()
    table.write(
        (start + i, "!", False, name, "", "", f"{name}@scale.invalid", False, True, now)
        for i, name in enumerate(names)
    )
    return list(range(start, start + len(names)))


def people_load(plan: Plan, rng: random.Random, now: datetime) -> People:
    courses = list(Course.objects.order_by("order", "slug"))
    if not courses:
        raise ValueError("no courses: run load_curricula first")
    tag = prefix(plan)
    learners = _users([f"{tag}-learner-{i:06d}" for i in range(plan.learners)], now)
    enrolled: dict[int, list[int]] = {}
    rows = []
    for i, user in enumerate(learners):
        primary = courses[i % len(courses)]
        mine = [primary.pk]
        if rng.random() < 0.2:
            other = rng.choice(courses)
            if other.pk != primary.pk:
                mine.append(other.pk)
        enrolled[user] = mine
        joined = now - timedelta(days=rng.uniform(30, 400))
        rows.extend((user, c, Enrolment.Source.SELF, joined) for c in mine)
    Table(Enrolment, ["user_id", "course_id", "source", "created_at"]).write(rows)
    people = People(learners=learners, courses=courses, enrolled=enrolled)

    staff_names = [f"{tag}-instructor-{c.slug}-{k}" for c in courses for k in range(2)]
    teachers = _users(staff_names, now)
    for n, course in enumerate(courses):
        people.instructors[course.pk] = teachers[2 * n : 2 * n + 2]
    Table(CourseRole, ["user_id", "course_id", "role"]).write(
        (u, c, "instructor") for c, users in people.instructors.items() for u in users
    )
    _organisations(plan, people, rng, now)
    return people


def _organisations(plan: Plan, people: People, rng: random.Random, now: datetime) -> None:
    tag = prefix(plan)
    people.managers = _users([f"{tag}-manager-{k}" for k in range(plan.organisations)], now)
    orgs = Table(Organization, ["id", "slug", "name", "created_at", "managers_manage_sso"])
    first_org = orgs.next_id()
    org_ids = [first_org + k for k in range(plan.organisations)]
    orgs.write(
        (pk, f"{tag}-org-{k}", f"Scale {plan.seed} GPU Cloud {k + 1}", now, False)
        for k, pk in enumerate(org_ids)
    )
    people.engineers = people.learners[: plan.engineers]
    member_rows = [
        (org_ids[k], m, Membership.Role.MANAGER, now) for k, m in enumerate(people.managers)
    ]
    member_rows += [
        (org_ids[i % len(org_ids)], user, Membership.Role.MEMBER, now)
        for i, user in enumerate(people.engineers)
    ]
    Table(Membership, ["organization_id", "user_id", "role", "created_at"]).write(member_rows)

    teams = Table(Team, ["id", "organization_id", "slug", "name", "created_at"])
    first_team = teams.next_id()
    people.teams = [first_team + t for t in range(plan.teams)]
    teams.write(
        (pk, org_ids[t % len(org_ids)], f"{tag}-team-{t}", f"On-call team {t + 1}", now)
        for t, pk in enumerate(people.teams)
    )
    # The first team: the biggest, from its organisation's engineers; the rest dealt
    # round the other teams of each engineer's organisation.
    biggest = [u for i, u in enumerate(people.engineers) if i % len(org_ids) == 0]
    biggest = biggest[: plan.biggest_team]
    rows = [(people.teams[0], u, now) for u in biggest]
    taken = set(biggest)
    by_org: dict[int, list[int]] = {}
    for t, team in enumerate(people.teams[1:], start=1):
        by_org.setdefault(t % len(org_ids), []).append(team)
    for i, user in enumerate(people.engineers):
        if user in taken:
            continue
        choices = by_org.get(i % len(org_ids))
        if choices:  # an organisation with one team keeps the rest out of teams
            rows.append((rng.choice(choices), user, now))
    Table(TeamMember, ["team_id", "user_id", "created_at"]).write(rows)
