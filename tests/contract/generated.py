"""A Python client generated from the live schema by openapi-python-client, and the one way
the contract tests call it.

`GeneratedApi.call("lessons_practice_create", token=..., slug=...)` imports the operation's
generated module, sends the request through its `sync_detailed` (the client, not the test,
builds the HTTP request and parses the answer) and then checks the raw response, seen by an
httpx event hook, against the schema document (tests/openapi.py). Whatever
goes wrong (a module that does not import, a status the schema does not list, a body the
schema does not describe, a body the generated models cannot parse) fails the call with
the request, the response and every complaint in one message.
"""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

from tests.openapi import OpenApiDocument

GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "burnin_api_client"


@dataclass
class Generation:
    command: list[str]
    returncode: int
    output: str
    parent: Path

    @property
    def package_dir(self) -> Path:
        return self.parent / PACKAGE


def generate(schema_file: Path, parent: Path) -> Generation:
    """Run the generator the way its README does: no config, default post-hooks (ruff,
    found on PATH beside this interpreter), no packaging metadata."""
    command = [
        str(GENERATOR),
        "generate",
        "--path",
        str(schema_file),
        "--output-path",
        str(parent / PACKAGE),
        "--meta",
        "none",
        "--overwrite",
        "--fail-on-warning",
    ]
    env = {**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(command, cwd=parent, env=env, capture_output=True, text=True, timeout=120)
    return Generation(command, done.returncode, done.stdout + done.stderr, parent)


def module_names(generation: Generation) -> list[str]:
    """Every module of the generated package, dotted, in a stable order."""
    names = []
    for path in sorted(generation.package_dir.rglob("*.py")):
        parts = path.relative_to(generation.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


class ContractViolation(AssertionError):
    pass


class GeneratedApi:
    def __init__(self, generation: Generation, app, document: OpenApiDocument):
        """`app` is the LiveApp serving base_url (its log explains a 500)."""
        if str(generation.parent) not in sys.path:
            sys.path.insert(0, str(generation.parent))
        self.app = app
        self.base_url = app.url
        self.document = document
        self.client_module = importlib.import_module(f"{PACKAGE}.client")
        self._ops = {
            path.stem: ".".join(path.relative_to(generation.parent).with_suffix("").parts)
            for path in (generation.package_dir / "api").rglob("*.py")
            if path.stem != "__init__"
        }
        self._last = None

    # -------------------------------------------------------------------- the pieces

    def op(self, name: str) -> types.ModuleType:
        if name not in self._ops:
            raise ContractViolation(
                f"the generated client has no operation module {name!r}; it has: "
                + ", ".join(sorted(self._ops))
            )
        return importlib.import_module(self._ops[name])

    def body(self, op_name: str, data: dict):
        """The operation's generated request model, built from its wire form (from_dict),
        which must serialise back to the same JSON."""
        annotation = inspect.signature(self.op(op_name).sync_detailed).parameters["body"]
        candidates = (
            annotation.annotation.__args__
            if isinstance(annotation.annotation, types.UnionType)
            else (annotation.annotation,)
        )
        model = next(c for c in candidates if hasattr(c, "from_dict"))
        built = model.from_dict(data)
        assert built.to_dict() == data, (model.__name__, built.to_dict(), data)
        return built

    def client(self, token: str | None = None):
        common = {
            "base_url": self.base_url,
            "raise_on_unexpected_status": True,
            "timeout": 30.0,
            "httpx_args": {"event_hooks": {"response": [self._record]}},
        }
        if token is None:
            return self.client_module.Client(**common)
        return self.client_module.AuthenticatedClient(token=token, prefix="Token", **common)

    def _record(self, response) -> None:
        response.read()
        self._last = response

    # ---------------------------------------------------------------------- the call

    def call(self, op_name: str, *, token: str | None = None, **kwargs):
        """One operation through the generated client; its generated Response."""
        module = self.op(op_name)
        self._last = None
        failure = None
        log_offset = self.app.log_size()
        try:
            response = module.sync_detailed(client=self.client(token), **kwargs)
        except Exception as exc:  # noqa: BLE001 - reported below with the raw exchange
            failure, response = exc, None
        raw = self._last
        if raw is None:
            raise ContractViolation(f"{op_name}: nothing was sent: {failure!r}") from failure
        method, path = raw.request.method, raw.request.url.path
        exchange = f"{method} {raw.request.url.raw_path.decode()} -> {raw.status_code}"
        problems = self.document.problems(
            method, path, raw.status_code, raw.headers.get("content-type"), raw.content
        )
        if failure is not None:
            problems.append(f"the generated client raised {failure!r}")
        if raw.status_code >= 500:
            problems.append(f"the server logged:\n{self.app.errors_since(log_offset)}")
        if problems:
            sent = raw.request.content[:500].decode(errors="replace")
            got = raw.content[:800].decode(errors="replace")
            raise ContractViolation(
                f"{exchange} ({op_name})\n  sent: {sent}\n  got:  {got}\n"
                + "\n".join(f"  - {p}" for p in problems)
            ) from failure
        return response

    def expect(self, response, status: int, model: str):
        """The response has this status and the client parsed it into this model."""
        parsed = response.parsed
        assert int(response.status_code) == status and type(parsed).__name__ == model, (
            f"expected {status} {model}, got {int(response.status_code)} "
            f"{type(parsed).__name__}: {response.content[:500]!r}"
        )
        return parsed
