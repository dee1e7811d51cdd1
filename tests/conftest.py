"""Fixtures shared by the Django test folders.

`instructor` teaches whatever `course` the requesting folder's conftest defines.
"""

from __future__ import annotations

import socket
import threading

import pytest
from hypothesis import settings as hypothesis_settings
from lti_tool.models import LtiContext, LtiDeployment, LtiRegistration

from tests.factories import CourseRoleFactory, UserFactory

# Hypothesis's per-example deadline (200 ms) is a timing test: on a loaded 2-core CI
# machine a first example that imports or warms a cache takes longer and fails as
# "flaky". Speed is measured in bench/, never asserted by wall time here.
hypothesis_settings.register_profile("burnin", deadline=None)
hypothesis_settings.load_profile("burnin")


@pytest.fixture
def instructor(course):
    return CourseRoleFactory(user__username="teacher", course=course).user


@pytest.fixture
def staff(db):
    return UserFactory(username="admin", is_staff=True)


@pytest.fixture
def lms_context(db):
    """One LMS course (context) of one registered LMS, for instructor scoping."""
    registration = LtiRegistration.objects.create(
        name="Example LMS",
        issuer="https://lms.example.org",
        client_id="burnin-client",
        auth_url="https://lms.example.org/auth",
        token_url="https://lms.example.org/token",
        keyset_url="https://lms.example.org/jwks.json",
    )
    deployment = LtiDeployment.objects.create(
        registration=registration, deployment_id="deployment-1", is_active=True
    )
    return LtiContext.objects.create(
        deployment=deployment, id_on_platform="course-a", title="LMS course A"
    )


@pytest.fixture(autouse=True)
def _empty_cache():
    """The sign-in throttles count in the cache: every test starts with nothing counted."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _tasks_in_process(request):
    """Outside tests/services, Celery tasks run in the test's own process, whatever
    broker the environment names (the PostgreSQL pass sets one): those tests check what a
    task does and that it is queued after commit; tests/services checks delivery by real
    workers, and tests marked `celery_config` read the app's own configuration."""
    node = request.node
    if node.get_closest_marker("services") or node.get_closest_marker("celery_config"):
        yield
        return
    from config.celery import app

    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


@pytest.fixture
def silent_server():
    """A socket that accepts connections and never answers: a hung Redis."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    server.close()
