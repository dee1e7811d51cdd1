from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# A worker warms itself before it serves (config.warmup); WARM_UP=0 skips it.
if os.environ.get("WARM_UP", "1") != "0":
    from config.warmup import warm

    warm()
