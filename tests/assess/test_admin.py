"""The admin sets a quiz's status only when adding it: later moves go through the
lifecycle services, which refuse unpublishing a quiz someone has taken."""

import pytest
from django.contrib.admin.sites import site

from assess.models import Quiz
from tests.factories import QuizFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_status_is_read_only_on_an_existing_quiz_and_editable_on_a_new_one(rf):
    admin = site._registry[Quiz]
    request = rf.get("/admin/")
    request.user = UserFactory(is_staff=True, is_superuser=True)
    assert "status" not in admin.get_readonly_fields(request, None)
    assert "status" in admin.get_readonly_fields(request, QuizFactory())


def test_the_change_page_offers_no_status_field(client):
    staff = UserFactory(is_staff=True, is_superuser=True)
    quiz = QuizFactory(title="Taken")
    assert quiz.status == Quiz.Status.PUBLISHED
    client.force_login(staff)
    page = client.get(f"/admin/assess/quiz/{quiz.pk}/change/").content.decode()
    assert 'name="status"' not in page
