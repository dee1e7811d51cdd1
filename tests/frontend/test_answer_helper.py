"""The leak check of the page tests reads what a learner could read: a CSRF token's
random letters can spell any word ("seed" once in about 15,000 pages, which failed a CI
run), and are not a leak."""

from types import SimpleNamespace

import pytest

from tests.frontend.helpers import assert_no_answer_in


def _question(seed: int):
    return SimpleNamespace(seed=seed, statement_html="", answers=[{"value": 7.5}])


def test_a_token_that_spells_seed_is_no_leak():
    html = '<input type="hidden" name="csrfmiddlewaretoken" value="abcSeEdxyz">'
    assert_no_answer_in(html, _question(123456789012345))


def test_the_word_and_the_number_outside_a_token_are():
    with pytest.raises(AssertionError):
        assert_no_answer_in("<p>seed</p>", _question(123456789012345))
    with pytest.raises(AssertionError):
        assert_no_answer_in("<p>123456789012345</p>", _question(123456789012345))
