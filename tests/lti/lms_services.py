"""The LMS's web services, played in-process by lti1p3platform 0.1.8 (an independent
implementation): its OAuth2 token endpoint verifies our signed assertion against the key
set we publish and signs the access token; its AGS handlers check that token and keep an
in-memory gradebook; its NRPS handler serves a roster. A requests transport adapter,
mounted on the tool's one HTTP session, routes the tool's calls here, and can answer
with injected faults (a status, or a timeout) before the real handler runs.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.registration import Registration as PlatformRegistration
from lti1p3platform.request import Request
from lti1p3platform.score import UpdateScoreStatus
from lti1p3platform.service_connector import (
    AssignmentsGradesService,
    NamesRoleProvisioningService,
)
from requests.adapters import BaseAdapter

from tests.lti.conftest import CLIENT_ID, DEPLOYMENT, ISS, PlatformKey
from tests.lti.http_answers import answer

CONTEXT = "course-a"
LINEITEMS_URL = f"{ISS}/contexts/{CONTEXT}/lineitems"
MEMBERSHIPS_URL = f"{ISS}/contexts/{CONTEXT}/memberships"
TOKEN_URL = ISS + "/token"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
AGS_SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
]


def nrps_claim(url: str = MEMBERSHIPS_URL) -> dict:
    return {NRPS_CLAIM: {"context_memberships_url": url, "service_versions": ["2.0"]}}


def ags_claim(scopes=None, **extra) -> dict:
    return {
        AGS_CLAIM: {
            "scope": AGS_SCOPES if scopes is None else scopes,
            "lineitems": LINEITEMS_URL,
            **extra,
        }
    }


class _Conf(LTI1P3PlatformConfAbstract):
    def init_platform_config(self, **kwargs):
        key: PlatformKey = kwargs["key"]
        pem = key.private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        public = (
            key.private.public_key()
            .public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            )
            .decode()
        )
        self._registration = (
            PlatformRegistration()
            .set_iss(ISS)
            .set_client_id(CLIENT_ID)
            .set_deployment_id(DEPLOYMENT)
            .set_platform_private_key(pem)
            .set_platform_public_key(public)
            .set_tool_key_set(kwargs["tool_jwks"])
        )

    def get_registration_by_params(self, **kwargs):
        return self._registration


def query_params(items) -> dict:
    """A query string as lti1p3platform's handlers want it: page and limit as numbers
    (it adds 1 to `page` for the next link), everything else as text."""
    return {k: int(v) if k in ("page", "limit") and v.isdigit() else v for k, v in items}


class _Request(Request):
    def build_metadata(self, request: requests.PreparedRequest):
        parts = urlsplit(request.url)
        body = request.body.decode() if isinstance(request.body, bytes) else request.body or ""
        content_type = request.headers.get("Content-Type", "")
        is_json = "json" in content_type
        return {
            "method": request.method,
            "form_data": dict(parse_qsl(body)) if body and not is_json else {},
            "get_data": query_params(parse_qsl(parts.query)),
            "headers": dict(request.headers),
            "content_type": content_type,
            "path": parts.path,
            "json": json.loads(body) if body and is_json else None,
        }


class MemoryGradebook(AssignmentsGradesService):
    """lti1p3platform's AGS handlers over an in-memory gradebook: `store` has
    line_items {url: item}, scores [(line item url, score)] and not_in_course {sub}."""

    def __init__(self, request, conf, store, lineitems_url: str = LINEITEMS_URL):
        super().__init__(request, conf, lineitems_url)
        self.store, self.lineitems_url = store, lineitems_url

    def find_lineitems(
        self,
        page=1,
        limit=None,
        line_item_id=None,
        resource_link_id=None,
        resource_id=None,
        tag=None,
    ):
        items = [
            i
            for i in self.store.line_items.values()
            if resource_id is None or i.get("resourceId") == resource_id
        ]
        return {"content": items, "has_next": False, "next": None}

    def find_lineitem(self, line_item_id):
        return self.store.line_items[line_item_id]

    def create_lineitem(self, creation_data):
        url = f"{self.lineitems_url}/{len(self.store.line_items) + 1}"
        self.store.line_items[url] = {**creation_data, "id": url}
        return self.store.line_items[url]

    def update_lineitem(self, update_data):
        raise NotImplementedError

    def delete_lineitem(self, line_item_id):
        raise NotImplementedError

    def update_score(self, line_item_id, score):
        if score["userId"] in self.store.not_in_course:
            return UpdateScoreStatus.NOTAPPLIED
        self.store.scores.append((line_item_id, score))
        return UpdateScoreStatus.SUCCESS

    def get_results(self, line_item_id, page=1, limit=None, user_id=None):
        raise NotImplementedError


class _Roster(NamesRoleProvisioningService):
    def __init__(self, request, conf, lms: FakeLms):
        super().__init__(request, conf, MEMBERSHIPS_URL)
        self.lms = lms

    def get_member_data_page(self, page=1, limit=None, role=None, since=None):
        page, limit = int(page), int(limit) if limit else len(self.lms.members) or 1
        start = (page - 1) * limit
        chunk = self.lms.members[start : start + limit]
        return {"content": chunk, "has_next": start + limit < len(self.lms.members)}

    def get_context_by_id(self):
        from lti1p3platform.membership import Context

        return Context(id=CONTEXT, label="A", title="LMS course A")


@dataclass
class FakeLms:
    key: PlatformKey
    tool_jwks: dict
    line_items: dict = field(default_factory=dict)
    scores: list = field(default_factory=list)
    members: list = field(default_factory=list)
    not_in_course: set = field(default_factory=set)
    token_requests: int = 0
    calls: list = field(default_factory=list)
    faults: deque = field(default_factory=deque)  # (method, path suffix, status or "timeout")

    def fail_next(self, method: str, suffix: str, *statuses) -> None:
        for status in statuses:
            self.faults.append((method, suffix, status))

    def gradebook(self) -> dict:
        """The last score per (line item, user): what the LMS shows."""
        return {(item, s["userId"]): s for item, s in self.scores}

    def handle(self, request: requests.PreparedRequest) -> tuple[int, object]:
        parts = urlsplit(request.url)
        self.calls.append((request.method, parts.path))
        for fault in list(self.faults):
            method, suffix, status = fault
            if method == request.method and parts.path.endswith(suffix):
                self.faults.remove(fault)
                if status == "timeout":
                    raise requests.Timeout("read timed out")
                return status, {"error": f"injected {status}"}
        conf = _Conf(key=self.key, tool_jwks=self.tool_jwks)
        ours = _Request(request)
        if parts.path == "/token":
            self.token_requests += 1
            return 200, conf.get_access_token(ours.form_data)
        if parts.path.endswith("/memberships"):
            roster = _Roster(ours, conf, self)
            response = roster.handle_resp(roster.handle_get_members)
            return response.code, response.result
        service = MemoryGradebook(ours, conf, self)
        path = parts.path
        if path.endswith("/scores"):
            item = f"{ISS}{path.removesuffix('/scores')}"
            response = service.handle_resp(service.handle_update_score, line_item_id=item)
        elif request.method == "POST":
            response = service.handle_resp(service.handle_create_lineitem)
        else:
            response = service.handle_resp(service.handle_get_lineitems)
        if response.code == 200 and response.result is None:
            return 200, {}
        return response.code, response.result


class LmsAdapter(BaseAdapter):
    def __init__(self, lms: FakeLms):
        super().__init__()
        self.lms = lms

    def send(self, request, **kwargs):
        status, body = self.lms.handle(request)
        headers = {}
        if isinstance(body, dict) and body.get("next"):
            # NRPS 2.0 pages with a Link header; lti1p3platform puts `next` in the body.
            headers["Link"] = f'<{body["next"]}>; rel="next"'
        return answer(status, body, request=request, headers=headers)

    def close(self):
        pass
