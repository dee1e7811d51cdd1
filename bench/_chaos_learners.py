"""The chaos run's learners: one thread each, with its own HTTP client, practising,
taking exams and submitting memos through the API until the run's deadline.

The LMS's learners have no token: each of their exams begins in the LMS, with the launch
of its link as their browser makes it (the tool's OIDC login, the LMS's auth endpoint,
the signed form posted to the tool's launch, the page it lands on), and goes on through
the API with the session the launch signed in (its CSRF cookie sent back as the header).
The tool's cookies are Secure and http.cookiejar keeps those for https, where a browser
also sends them to a loopback http origin; so they are carried by hand.

Every answer carries a unique idempotency key and is sent again with the same key after
a connection error, a timeout or a 503 (honouring Retry-After), as a careful client
would; the keys that got a 2xx are kept for the end's check. Every response is kept
too (endpoint, when, how long, status) for the report's counts and percentiles.
"""

from __future__ import annotations

import logging
import random
import re
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from html import unescape

import httpx

# A line per request from 200 clients would drown the run's own output (and a failing
# test's captured log).
logging.getLogger("httpx").setLevel(logging.WARNING)

TIMEOUT = 30.0  # seconds a request may take before the client gives up on it
GRACE = 90.0  # seconds after the deadline a request already started may keep retrying
LAUNCH_TRIES = 5  # launches an LMS learner begins for one exam before giving it up


@dataclass
class Sample:
    endpoint: str
    start: float  # time.time()
    seconds: float
    status: int | str  # an HTTP status, or "connection" / "timeout"
    retry_after: bool = False


@dataclass
class Ledger:
    """What the clients saw, shared by every learner thread."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    samples: list[Sample] = field(default_factory=list)
    answer_keys: set[str] = field(default_factory=set)  # answers that got a 2xx
    answers_sent: int = 0  # distinct answers (keys) sent at least once
    refusals: Counter = field(default_factory=Counter)  # (endpoint, status, detail) of 4xx
    memo_versions_acked: int = 0  # memo submissions that got a 201
    exams_finished: int = 0  # finishes that got a 200
    lms_exams_finished: int = 0
    lms_launches: int = 0  # launches that reached their attempt (303)

    def add(self, sample: Sample) -> None:
        with self.lock:
            self.samples.append(sample)


def answer_for(part: dict, rng: random.Random) -> str:
    """Any answer the reader can read: a choice part's option or a number in its unit."""
    if part["kind"] == "choice":
        return rng.choice(part["choices"])
    number = str(rng.randint(1, 999)) if part["kind"] == "integer" else f"{rng.uniform(1, 1e3):.4g}"
    return f"{number} {part.get('unit') or ''}".strip()


def _form(html: str) -> tuple[str, dict]:
    """The action and hidden fields of the LMS's auto-posting launch form."""
    action = unescape(re.search(r'<form[^>]*action="([^"]+)"', html).group(1))
    fields = re.findall(r'<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"', html)
    return action, {unescape(name): unescape(value) for name, value in fields}


class Learner:
    def __init__(self, base, row, fixture, ledger, rng, deadline, think) -> None:
        token = {"Authorization": f"Token {row['token']}"} if row["token"] else {}
        self.http = httpx.Client(base_url=base, headers=token, timeout=TIMEOUT)
        self.base, self.cookies = base, {}  # the tool's cookies (an LMS learner's session)
        self.row, self.fixture, self.ledger, self.rng = row, fixture, ledger, rng
        self.deadline, self.think_range = deadline, think
        self.memo_id: int | None = None

    # -- one request, retried the way a client should ---------------------------------
    def _send(self, method: str, path: str, body, form, params) -> httpx.Response:
        """One request; to the tool with its cookies (and the CSRF header on a write)."""
        headers = {}
        if self.cookies and (path.startswith("/") or path.startswith(self.base)):
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            if method != "GET" and "csrftoken" in self.cookies:
                headers["X-CSRFToken"] = self.cookies["csrftoken"]
        r = self.http.request(method, path, json=body, data=form, params=params, headers=headers)
        if r.url.host == self.http.base_url.host and r.url.port == self.http.base_url.port:
            for cookie in r.cookies.jar:
                self.cookies[cookie.name] = cookie.value
        return r

    def call(
        self, method: str, path: str, endpoint: str, body=None, *, form=None, params=None
    ) -> httpx.Response | None:
        """The response (any status but 503), or None once the run is over and the
        service still did not answer. Connection errors, timeouts and 503s are retried
        with the same body (an answer keeps its idempotency key)."""
        while True:
            started, wait = time.time(), self.rng.uniform(0.5, 2.0)
            try:
                r = self._send(method, path, body, form, params)
            except httpx.TimeoutException:
                self.ledger.add(Sample(endpoint, started, time.time() - started, "timeout"))
            except httpx.TransportError:
                self.ledger.add(Sample(endpoint, started, time.time() - started, "connection"))
            else:
                retry_after = r.headers.get("Retry-After", "")
                took = time.time() - started
                self.ledger.add(Sample(endpoint, started, took, r.status_code, bool(retry_after)))
                if 400 <= r.status_code < 500:
                    self._refused(endpoint, r)
                if r.status_code != 503:
                    return r
                if retry_after.isdigit():  # as asked, spread a little
                    wait = int(retry_after) * self.rng.uniform(1.0, 1.2)
            if time.time() > self.deadline + GRACE:
                return None
            time.sleep(wait)

    def _refused(self, endpoint: str, r: httpx.Response) -> None:
        """Keep why a request was refused (the API's error detail), for the report."""
        try:
            detail = r.json()["errors"][0]["detail"]
        except (ValueError, KeyError, IndexError, TypeError):
            detail = r.text
        with self.ledger.lock:
            # "send this one in 57 s": one row for every wait
            self.ledger.refusals[endpoint, r.status_code, re.sub(r"\d+", "N", detail[:90])] += 1

    def think(self) -> bool:
        """Wait as a person would between requests; False once the run's time is up."""
        time.sleep(self.rng.uniform(*self.think_range))
        return time.time() < self.deadline

    # -- what a learner does ----------------------------------------------------------
    def run(self) -> None:
        lms = self.row["lms_sub"] is not None
        try:
            while self.think():
                roll = self.rng.random()
                if lms:  # the LMS's learners come for the exam its link opens
                    self.exam()
                elif roll < 0.4:
                    self.practise()
                elif roll < 0.9:
                    self.exam()
                else:
                    self.memo()
        finally:
            self.http.close()

    def _open(self, quiz: int, endpoint: str) -> dict | None:
        r = self.call("POST", f"/api/quizzes/{quiz}/attempts/", endpoint)
        if r is None or r.status_code not in (200, 201):
            return None
        return self._read(r.json()["id"])

    def _read(self, attempt: int) -> dict | None:
        if not self.think():
            return None
        r = self.call("GET", f"/api/attempts/{attempt}/", "read attempt")
        return r.json() if r is not None and r.status_code == 200 else None

    def _launched(self) -> dict | None:
        """The exam opened from the LMS: the launch, begun again (a new login) when a
        step did not succeed, e.g. its form posted again after a lost answer (the nonce
        is used up: 403)."""
        for _ in range(LAUNCH_TRIES):
            attempt = self._launch()
            if attempt is not None:
                return self._read(attempt)
            if not self.think():
                return None
        return None

    def _launch(self) -> int | None:
        """The attempt a launch of the LMS's exam link opened (or resumed), or None."""
        lms = self.fixture["lms"]
        params = {
            "iss": lms["issuer"],
            "login_hint": self.row["lms_sub"],
            "target_link_uri": f"{self.base}/lti/launch/",
            "client_id": lms["client_id"],
            "lti_deployment_id": lms["deployment_id"],
        }
        login = self.call("GET", "/lti/login/", "lti login", params=params)
        if login is None or login.status_code != 302:
            return None
        auth = self.call("GET", login.headers["location"], "lms auth")
        if auth is None or auth.status_code != 200:
            return None
        action, fields = _form(auth.text)
        launched = self.call("POST", action, "lti launch", form=fields)
        if launched is None or launched.status_code != 303:
            return None
        landing = launched.headers["location"]
        page = self.call("GET", landing, "launch page")
        opened = re.fullmatch(r"/attempts/(\d+)/", landing)
        if page is None or page.status_code != 200 or opened is None:
            return None
        for name in [k for k in self.cookies if k.startswith("lti1p3-")]:
            del self.cookies[name]  # a login's state cookie serves its one launch
        with self.ledger.lock:
            self.ledger.lms_launches += 1
        return int(opened.group(1))

    def _answer(self, attempt: int, question: dict, part: dict) -> None:
        key = uuid.uuid4().hex
        body = {
            "question": question["id"],
            "part": part["name"],
            "answer": answer_for(part, self.rng),
            "idempotency_key": key,
        }
        with self.ledger.lock:
            self.ledger.answers_sent += 1
        r = self.call("POST", f"/api/attempts/{attempt}/responses/", "answer", body)
        if r is not None and 200 <= r.status_code < 300:
            with self.ledger.lock:
                self.ledger.answer_keys.add(key)

    def practise(self) -> None:
        """A few answers in the practice quiz (its open attempt is taken up again)."""
        attempt = self._open(self.fixture["practice"], "practice start")
        if attempt is None:
            return
        parts = [(q, p) for q in attempt["questions"] for p in q["parts"]]
        for question, part in self.rng.sample(parts, min(3, len(parts))):
            if not self.think():
                return
            self._answer(attempt["id"], question, part)

    def exam(self) -> None:
        """A whole exam: every part answered, then the finish (which releases the
        grade, and for an LMS learner queues its passback)."""
        if self.row["lms_sub"] is not None:
            attempt = self._launched()
        else:
            attempt = self._open(self.fixture["exam"], "exam start")
        if attempt is None:
            return
        for question in attempt["questions"]:
            for part in question["parts"]:
                if not self.think():
                    return
                self._answer(attempt["id"], question, part)
        if not self.think():
            return
        r = self.call("POST", f"/api/attempts/{attempt['id']}/finish/", "finish")
        if r is not None and r.status_code == 200:
            with self.ledger.lock:
                self.ledger.exams_finished += 1
                self.ledger.lms_exams_finished += self.row["lms_sub"] is not None

    def memo(self) -> None:
        """The memo's first version, or a new one (one a minute: a 429 is an answer)."""
        body = {"markdown": self.row["memo"] + f"\n\n<!-- {uuid.uuid4().hex} -->\n"}
        if self.memo_id is None:
            r = self.call("POST", "/api/memos/", "memo submit", body)
            if r is not None and r.status_code == 409:  # a retry after a lost 201
                listed = self.call("GET", "/api/memos/", "memo list")
                if listed is not None and listed.status_code == 200:
                    results = listed.json().get("results") or []
                    self.memo_id = results[0]["id"] if results else None
                return
        else:
            r = self.call("POST", f"/api/memos/{self.memo_id}/versions/", "memo version", body)
        if r is not None and r.status_code == 201:
            self.memo_id = r.json()["id"]
            with self.ledger.lock:
                self.ledger.memo_versions_acked += 1


def run_learners(base, fixture, ledger, *, seed: int, deadline: float, think) -> list:
    """Start one thread per learner, their arrivals spread over the first 10 s; returns
    the threads (the caller joins them)."""
    threads = []
    for k, row in enumerate(fixture["learners"]):
        rng = random.Random(seed * 100_003 + k)
        learner = Learner(base, row, fixture, ledger, rng, deadline, think)
        thread = threading.Thread(target=learner.run, name=f"learner-{k}", daemon=True)
        threads.append(thread)
    for thread in threads:
        thread.start()
        time.sleep(10 / max(len(threads), 1))
    return threads
