"""The docs' examples work: every runnable block runs green against a live server on the
demo data, a broken one fails the runner (and is named), illustrative blocks parse, and
the compose file they describe has what compose needs.

The server is tools/docs/server.py's: a fresh SQLite file in a temporary folder,
migrated and loaded as `make run` does, `runserver` on a free port (about 12 s,
once for the module). The convention is in tools/docs/examples.py and on
docs/developers/testing.md.
"""

from pathlib import Path

import pytest
import yaml

from tools.docs import examples
from tools.docs.server import demo_server

ROOT = Path(__file__).resolve().parents[2]

# Its own database (a temporary SQLite file), whatever DATABASE_URL says.
pytestmark = pytest.mark.db_independent


@pytest.fixture(scope="module")
def server():
    with demo_server() as url:
        yield url


def page(tmp_path: Path, text: str) -> list[examples.Block]:
    path = tmp_path / "example.md"
    path.write_text(text)
    return examples.read_blocks(path, page="example.md")


def test_the_docs_have_runnable_examples_for_each_api_walkthrough():
    blocks = examples.all_blocks()
    runnable = [b for b in blocks if b.marker == "runnable"]
    assert {b.page for b in runnable} >= {"api.md", "managers.md", "developers/templates.md"}
    api = "\n".join(b.code for b in runnable if b.page == "api.md")
    for needed in ("/api/auth/token/", "/practice/", "/responses/", "/finish/", "/api/me/mastery/"):
        assert needed in api, needed
    assert any(b.lang == "python" for b in runnable)


def test_every_block_is_marked_and_every_illustrative_one_parses():
    assert examples.check(examples.all_blocks(), base_url=None) == []


def test_every_runnable_example_runs_green(server):
    failures = examples.check(examples.all_blocks(), base_url=server)
    assert failures == [], "\n".join(map(str, failures))


def test_a_broken_example_fails_and_is_named(server, tmp_path):
    blocks = page(
        tmp_path,
        """# Example

```sh title="runnable"
COURSES=$(curl -sSf http://127.0.0.1:8000/api/courses/)
```

Then a route that is not there:

```sh title="runnable"
curl -sSf http://127.0.0.1:8000/api/no-such-route/
echo "never printed"
```

```python title="runnable"
raise SystemExit("a Python example that fails")
```
""",
    )
    failures = examples.check(blocks, base_url=server)
    assert [(f.block.line, f.block.lang) for f in failures] == [(9, "sh"), (14, "python")]
    assert "exit 22" in failures[0].reason and "404" in failures[0].reason  # curl -f
    assert "a Python example that fails" in failures[1].reason
    # The same page with the route fixed runs green: the server was not the problem.
    fixed = page(
        tmp_path,
        (tmp_path / "example.md")
        .read_text()
        .replace("/api/no-such-route/", "/api/courses/")
        .replace('raise SystemExit("a Python example that fails")', "print('ok')"),
    )
    assert examples.check(fixed, base_url=server) == []


def test_an_unmarked_or_unparsable_block_fails_without_a_server(tmp_path):
    blocks = page(
        tmp_path,
        """```sh
curl http://127.0.0.1:8000/
```

```sh title="illustrative"
if then fi (
```

```yaml title="illustrative"
services: [unclosed
```

```python title="illustrative"
def broken(:
```

    indented listings are plain text: $(never checked
""",
    )
    failures = examples.check(blocks, base_url=None)
    assert [f.block.line for f in failures] == [1, 5, 9, 13]
    assert "titled runnable or illustrative" in failures[0].reason


def test_the_compose_file_has_what_compose_needs():
    """No container engine runs here, so `docker compose up` on the operators' page is
    illustrative; the file it runs is held to compose's shape instead."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert set(compose) <= {"services", "volumes", "networks", "configs", "secrets", "name"} | {
        key for key in compose if key.startswith("x-")
    }
    services = compose["services"]
    assert {"migrate", "web", "worker", "review-worker", "beat", "db", "redis"} <= set(services)
    for name, service in services.items():
        assert "image" in service or "build" in service, name
        for dependency in service.get("depends_on", {}):
            assert dependency in services, (name, dependency)
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            assert source.startswith((".", "/")) or source in compose.get("volumes", {}), volume
    assert services["review-worker"]["command"].split("--queues ")[1].startswith("reviews")
    assert services["web"]["ports"] == ["8000:8000"]
