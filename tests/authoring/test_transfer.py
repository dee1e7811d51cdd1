"""`manage.py authoring import|export`: a folder of YAML files round-trips."""

import shutil
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from authoring.models import AuthoredTemplate, AuthoredVersion
from tests.factories import CourseFactory

EXAMPLE = Path(__file__).parents[1] / "problems" / "authored" / "data" / "team-kv-budget.yaml"
pytestmark = pytest.mark.django_db


def test_import_export_round_trip(tmp_path, capsys):
    course = CourseFactory()
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(EXAMPLE, src)
    call_command("authoring", "import", str(src), "--course", course.slug)
    row = AuthoredTemplate.objects.get(slug="team-kv-budget")
    assert row.course == course and row.versions.count() == 1

    out = tmp_path / "out"
    call_command("authoring", "export", "--course", course.slug, str(out))
    exported = yaml.safe_load((out / "team-kv-budget.yaml").read_text())
    original = yaml.safe_load(EXAMPLE.read_text())
    original.pop("version", None)
    assert exported == original

    call_command("authoring", "import", str(out), "--course", course.slug)
    assert "team-kv-budget: unchanged" in capsys.readouterr().out
    assert AuthoredVersion.objects.count() == 1

    exported["title"] = "Renamed"
    (out / "team-kv-budget.yaml").write_text(yaml.safe_dump(exported))
    call_command("authoring", "import", str(out), "--course", course.slug)
    assert list(row.versions.values_list("number", flat=True)) == [1, 2]


def test_import_of_an_invalid_file_stores_nothing(tmp_path):
    course = CourseFactory()
    data = yaml.safe_load(EXAMPLE.read_text())
    del data["title"]
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(CommandError, match="bad.yaml: title"):
        call_command("authoring", "import", str(tmp_path), "--course", course.slug)
    assert not AuthoredTemplate.objects.exists()


def test_problems_import_and_export_are_the_same_commands(tmp_path, capsys):
    """`manage.py problems import|export`, where the spec puts them, do what authoring's do."""
    course = CourseFactory()
    src = tmp_path / "in"
    src.mkdir()
    shutil.copy(EXAMPLE, src)
    call_command("problems", "import", str(src), "--course", course.slug)
    assert AuthoredTemplate.objects.get(slug="team-kv-budget").course == course
    call_command("problems", "export", "--course", course.slug, str(tmp_path / "out"))
    assert (tmp_path / "out" / "team-kv-budget.yaml").exists()
    with pytest.raises(CommandError, match="no course"):
        call_command("problems", "import", str(src), "--course", "no-such-course")
