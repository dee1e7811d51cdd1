"""The leak check of the page tests reads what a learner could read: a CSRF token's
random letters can spell any word ("seed" once in about 15,000 pages, which failed a CI
run), and are not a leak; nor is a value the statement prints as an input, whatever
figures a hint prints it to (a CI run failed on INT8 weights: GB = billions of
parameters)."""

from types import SimpleNamespace

import pytest

from tests.frontend.helpers import assert_no_answer_in


def _question(seed: int, statement_html: str = "", value: float = 7.5):
    return SimpleNamespace(seed=seed, statement_html=statement_html, answers=[{"value": value}])


def test_a_token_that_spells_seed_is_no_leak():
    html = '<input type="hidden" name="csrfmiddlewaretoken" value="abcSeEdxyz">'
    assert_no_answer_in(html, _question(123456789012345))


def test_the_token_in_the_htmx_headers_is_no_leak_either():
    # every page's <body> carries it for htmx's posts (a CI run's lesson page failed so)
    html = """<body hx-headers='{"X-CSRFToken": "abcSeEdxyz"}'>"""
    assert_no_answer_in(html, _question(123456789012345))


def test_the_word_and_the_number_outside_a_token_are():
    with pytest.raises(AssertionError):
        assert_no_answer_in("<p>seed</p>", _question(123456789012345))
    with pytest.raises(AssertionError):
        assert_no_answer_in("<p>123456789012345</p>", _question(123456789012345))


INT8_WEIGHTS = 6.738415616  # Llama 2 7B at one byte per parameter, in GB


def test_an_input_the_statement_prints_is_no_leak_to_other_figures():
    statement = "<p>Llama 2 7B has 6.7384 billion parameters.</p>"
    hint = statement + "<p>M = 6.73842 × 10^9 × 1 / 10^9 = ?</p>"
    assert_no_answer_in(hint, _question(123456789012345, statement, INT8_WEIGHTS))


def test_the_same_figures_without_the_statement_printing_them_are():
    statement = "<p>A 7B model in INT8.</p>"
    with pytest.raises(AssertionError):
        assert_no_answer_in(
            statement + "<p>6.73842</p>", _question(123456789012345, statement, INT8_WEIGHTS)
        )
