"""Accessibility checks that can run without a browser: labels, landmarks, contrast."""

import re
from html.parser import HTMLParser

import pytest
from django.contrib.staticfiles import finders

from tests.accounts.pages import account_pages

pytestmark = pytest.mark.django_db


class Audit(HTMLParser):
    """Collects inputs needing a label, the labels, ids and landmarks of a page."""

    def __init__(self):
        super().__init__()
        self.inputs, self.labels, self.ids, self.tags = [], set(), [], []
        self.wrapped = 0  # inputs inside a <label>
        self._in_label = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "label":
            self._in_label += 1
            if a.get("for"):
                self.labels.add(a["for"])
        if tag in ("input", "select", "textarea") and a.get("type") not in ("hidden", "submit"):
            if self._in_label:
                self.wrapped += 1
            else:
                self.inputs.append(a.get("id") or a.get("aria-label") or "?")

    def handle_endtag(self, tag):
        if tag == "label":
            self._in_label -= 1


def audit(html: str) -> Audit:
    a = Audit()
    a.feed(html)
    return a


@pytest.fixture
def pages(client, learner, instructor, practice, exam_attempt, exam):
    client.force_login(learner)
    learner_pages = [
        "/",
        "/courses/",
        "/courses/ai-infra/",
        "/lessons/gpu-memory-math/",
        "/dashboard/",
        "/quizzes/",
        f"/attempts/{practice.attempt.pk}/q/{practice.question.pk}/",
        f"/attempts/{exam_attempt.pk}/",
        "/hardware/",
        "/hardware/compare/",
        "/hardware/roofline/",
    ]
    out = {url: client.get(url).content.decode() for url in learner_pages}
    client.force_login(instructor)
    for url in (
        "/teach/",
        "/teach/quizzes/new/",
        f"/teach/quizzes/{exam.pk}/items/",
        "/teach/courses/ai-infra/progress/",
        "/teach/courses/ai-infra/learners/",
        f"/teach/quizzes/{exam.pk}/",
        f"/teach/quizzes/{exam.pk}/gradebook/",
        f"/teach/quizzes/{exam.pk}/lms-grades/",
        "/teach/courses/ai-infra/gradebook/",
    ):
        out[url] = client.get(url).content.decode()
    client.logout()
    out.update({url: r.content.decode() for url, r in account_pages(learner).items()})
    return out


def test_every_input_has_a_label_and_ids_are_unique(pages):
    for url, html in pages.items():
        a = audit(html)
        unlabelled = [i for i in a.inputs if i not in a.labels and not i.startswith("Start")]
        assert unlabelled == [], (url, unlabelled)
        dupes = {i for i in a.ids if a.ids.count(i) > 1}
        assert not dupes, (url, dupes)


def test_landmarks_skip_link_and_language(pages):
    for url, html in pages.items():
        assert '<html lang="en">' in html, url
        assert '<a class="skip" href="#main">' in html, url
        a = audit(html)
        for landmark in ("header", "nav", "main", "footer"):
            assert landmark in a.tags, (url, landmark)
        assert a.tags.count("main") == 1 and a.tags.count("h1") == 1, url


def test_breadcrumbs_end_with_a_page_not_a_separator(pages):
    trails = {}
    for url, html in pages.items():
        for nav in re.findall(r'<nav aria-label="Breadcrumb"[^>]*>(.*?)</nav>', html, re.S):
            trails[url] = " ".join(re.sub(r"<[^>]+>", " ", nav).split())
    assert len(trails) >= 8, trails  # the walk reaches pages with a trail
    assert {u: t for u, t in trails.items() if not t or t.endswith("/")} == {}


def test_charts_have_a_text_alternative(pages):
    for url, html in pages.items():
        for svg in re.findall(r"<svg.*?</svg>", html, re.S):
            assert 'role="img"' in svg and "<title" in svg and "<desc" in svg, url


def luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_colour_pairs_meet_wcag_aa():
    with open(finders.find("frontend/site.css")) as f:
        css = f.read()
    v = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", css))
    text_pairs = [
        ("fg", "bg"),
        ("muted", "bg"),
        ("accent", "bg"),
        ("muted", "soft"),
        ("fg", "soft"),
        ("ok", "ok-bg"),
        ("bad", "bad-bg"),
        ("fg", "warn-bg"),
        ("accent", "soft"),
    ]
    for fg, bg in text_pairs:
        assert contrast(v[fg], v[bg]) >= 4.5, (fg, bg, contrast(v[fg], v[bg]))
    assert contrast("#ffffff", v["accent"]) >= 4.5  # button text
    assert contrast(v["focus"], v["bg"]) >= 3  # focus ring, a non-text indicator
    assert ":focus-visible" in css


def test_chart_colours_stand_out_from_white():
    from frontend import charts

    for colour in (*charts.PALETTE, charts.MARK, charts.MUTED):
        assert contrast(colour, "#ffffff") >= 3, colour
