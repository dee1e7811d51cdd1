"""A task queued through Redis runs in a real worker and writes to PostgreSQL."""

from hardware_db.models import Accelerator
from hardware_db.tasks import hardware_reload


def test_worker_loads_the_hardware_catalog(celery_worker_process):
    assert Accelerator.objects.count() == 0
    result = hardware_reload.apply_async(queue=celery_worker_process)
    first = result.get(timeout=120)
    assert first["created"] > 15
    assert Accelerator.objects.filter(slug="h100-sxm").exists()
    again = hardware_reload.apply_async(queue=celery_worker_process).get(timeout=120)
    assert again == {"created": 0, "updated": 0, "unchanged": first["created"]}
