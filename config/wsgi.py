from __future__ import annotations

import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# A worker warms itself before it serves (config.warmup); WARM_UP=0 skips it.
if os.environ.get("WARM_UP", "1") != "0":
    from config.warmup import warm

    warm()

# What the worker holds now (Django, the views, the problem registry, the warm caches:
# about 190 MB of objects) lives as long as it does: freezing it moves it out of the
# collector's generations, so a full collection no longer walks it. At 20,000 learners
# those walks were the slow tail of the instructors' pages: the memo queue's p95 357 ms
# at a p50 of 108 ms, 176 ms with the freeze (bench/scale_bench.py, issue 43).
gc.freeze()
