"""The exam through the web pages, as a learner's browser requests them (issue 43, item 3).

`exam_load.py --pages` runs this sequence instead of the API's: the requests the pages and
their htmx attributes make (frontend/templates/frontend/take/), with a session signed in
beforehand (a password check costs about 0.2 s by design; sign-in is measured apart):

- the start page (GET /quizzes/<id>/), then Start (POST /quizzes/<id>/start/, 302 to the
  paper);
- the paper (GET /attempts/<id>/): every question's form and parts are read from it;
- for each part, once the learner has typed an answer and the box loses focus, the
  question's autosave (POST .../q/<qid>/answer/, the form's `change` trigger: every part
  typed so far; the unchanged ones are not stored again). What is typed before that stays
  in the browser (frontend/static/frontend/drafts.js): no request;
- Finish (POST /attempts/<id>/finish/ with confirm=1, 302), then the result (GET
  /attempts/<id>/).

The CSRF token is the cookie's secret itself, sent as the form's field (Django takes an
unmasked secret as a token); the session is a row made by signed_in_session.
"""

from __future__ import annotations

import re
import secrets
from urllib.parse import urlencode

PAGE_ENDPOINTS = [
    "start page",
    "start",
    "exam page",
    "autosave",
    "finish",
    "result page",
]
ANSWER_FORM = re.compile(r'action="/attempts/(\d+)/q/(\d+)/answer/"(.*?)</form>', re.S)
PART_FIELD = re.compile(r'name="(part-[^"]+)"(?: value="([^"]*)")?')
HTMX = {"HX-Request": "true"}


def signed_in_session(user) -> str:
    """A database session signed in as `user`, as the sign-in page would leave it;
    returns its key (the `sessionid` cookie)."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "accounts.backends.PasswordBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def paper_parts(html: str) -> list[tuple[int, list[tuple[str, list[str]]]]]:
    """[(question id, [(field name, its choices or [] for a text box)])] from the paper."""
    found = []
    for _attempt, qid, form in ANSWER_FORM.findall(html):
        fields: dict[str, list[str]] = {}
        for name, value in PART_FIELD.findall(form):
            fields.setdefault(name, [])
            if value:  # a radio button: one of the part's choices
                fields[name].append(value)
        found.append((int(qid), list(fields.items())))
    return found


def _answer(choices: list[str], rng) -> str:
    if choices:
        return rng.choice(choices)
    return f"{rng.uniform(1, 1000):.4g}"


def page_requests(client, quiz: int, session_key: str, think, rng) -> int:
    """One exam through the pages, calling think() between a learner's actions; returns
    how many part answers its autosaves carried for the first time (what the database
    should then hold). `client` is locust's FastHttpSession, or anything with the same
    request(method, url, name=, headers=, data=, allow_redirects=, catch_response=)."""
    csrf = secrets.token_hex(16)  # 32 characters: a CSRF secret
    cookie = {"Cookie": f"sessionid={session_key}; csrftoken={csrf}"}
    post = {**cookie, "Content-Type": "application/x-www-form-urlencoded"}

    def request(method, url, name, expect, headers, data=None):
        with client.request(
            method,
            url,
            name=name,
            headers=headers,
            data=urlencode(data) if data is not None else None,
            allow_redirects=False,
            catch_response=True,
        ) as r:
            if r.status_code != expect:
                r.failure(f"{name}: {r.status_code} {r.text[:160]!r}")
                return None
            return r

    if request("GET", f"/quizzes/{quiz}/", "start page", 200, cookie) is None:
        return 0
    think()
    r = request(
        "POST", f"/quizzes/{quiz}/start/", "start", 302, post, {"csrfmiddlewaretoken": csrf}
    )
    if r is None:
        return 0
    paper_url = r.headers["Location"]
    r = request("GET", paper_url, "exam page", 200, cookie)
    if r is None:
        return 0
    sent = 0
    for qid, fields in paper_parts(r.text):
        typed: dict[str, str] = {}
        for name, choices in fields:
            think()
            typed[name] = _answer(choices, rng)
            form = {"csrfmiddlewaretoken": csrf, **typed}
            headers = {**post, **HTMX}
            if request("POST", f"{paper_url}q/{qid}/answer/", "autosave", 200, headers, form):
                sent += 1
    think()
    form = {"csrfmiddlewaretoken": csrf, "confirm": "1"}
    if request("POST", f"{paper_url}finish/", "finish", 302, post, form) is not None:
        request("GET", paper_url, "result page", 200, cookie)
    return sent
