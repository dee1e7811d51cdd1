"""api_common.rows.fetch_in binds every value where its placeholder stands: the `%s`
parameters in turn and each `{name}` IN list at its name, whatever order the keyword
lists are given in (they used to be appended in keyword order, after every `%s`)."""

import pytest
from django.contrib.auth import get_user_model

from api_common.rows import fetch_in
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

TABLE = get_user_model()._meta.db_table
BOTH = f"SELECT id FROM {TABLE} WHERE id IN ({{ids}}) AND username IN ({{names}}) ORDER BY id"  # noqa: S608
AFTER = f"SELECT id FROM {TABLE} WHERE id IN ({{ids}}) AND username = %s"  # noqa: S608


@pytest.fixture
def people():
    return [UserFactory(username=f"run-{i}") for i in range(3)]


def test_lists_bind_at_their_names_in_either_keyword_order(people):
    ids, names = [p.pk for p in people], [p.username for p in people[:2]]
    expected = [(people[0].pk,), (people[1].pk,)]
    assert [tuple(r) for r in fetch_in(BOTH, [], ids=ids, names=names)] == expected
    assert [tuple(r) for r in fetch_in(BOTH, [], names=names, ids=ids)] == expected


def test_a_parameter_after_a_list_binds_after_it(people):
    rows = fetch_in(AFTER, [people[2].username], ids=[p.pk for p in people])
    assert [tuple(r) for r in rows] == [(people[2].pk,)]


@pytest.mark.parametrize(
    ("params", "lists"),
    [
        ([], {"ids": [1]}),  # the %s has no value
        (["a", "b"], {"ids": [1]}),  # one value too many
        (["a"], {}),  # {ids} not given
        (["a"], {"ids": [1], "names": ["x"]}),  # a list the statement does not name
    ],
)
def test_a_mismatch_is_refused_before_the_database_is_asked(params, lists):
    with pytest.raises(TypeError):
        fetch_in(AFTER, params, **lists)
