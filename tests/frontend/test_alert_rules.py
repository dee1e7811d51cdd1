"""The example alert rules (deploy/prometheus/burnin-alerts.yml) are well formed and name
only what the service exports: every metric is one /metrics lists (tests/frontend/
test_metrics.py reads each), every route label a pattern the URLconf resolves. Checked
by promtool too where it is installed (Debian's prometheus package carries it)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from django.urls import resolve

from tests.frontend.test_metrics import READ_AT_SCRAPE, RECORDED

RULES = Path(__file__).resolve().parents[2] / "deploy" / "prometheus" / "burnin-alerts.yml"
pytestmark = pytest.mark.db_independent
EXPORTED = set(RECORDED + READ_AT_SCRAPE) | {"burnin_celery_queue_depth"}


def _rules() -> list[dict]:
    doc = yaml.safe_load(RULES.read_text())
    return [rule for group in doc["groups"] for rule in group["rules"]]


def test_every_rule_has_what_an_operator_needs():
    rules = _rules()
    assert len(rules) >= 8
    for rule in rules:
        assert set(rule) == {"alert", "expr", "for", "labels", "annotations"}, rule["alert"]
        assert rule["labels"]["severity"] in {"page", "ticket", "info"}
        assert rule["annotations"]["summary"] and rule["annotations"]["description"]
        assert re.fullmatch(r"\d+[smh]", rule["for"])


def _series(name: str) -> str:
    for suffix in ("_bucket", "_count", "_sum"):
        if name.endswith(suffix) and name.removesuffix(suffix) in EXPORTED:
            return name.removesuffix(suffix)
    return name


def test_rules_name_only_exported_metrics_and_real_routes():
    for rule in _rules():
        names = {_series(n) for n in re.findall(r"\bburnin_\w+", rule["expr"])}
        assert names and names <= EXPORTED, (rule["alert"], names - EXPORTED)
        for route in re.findall(r'route="([^"]+)"', rule["expr"]):
            sample = re.sub(r"<int:\w+>", "1", route)
            assert "/" + resolve(sample).route == route


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool is not installed")
def test_promtool_accepts_the_rules():
    out = subprocess.run(
        ["promtool", "check", "rules", str(RULES)], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stdout + out.stderr
