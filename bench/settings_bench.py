"""Settings for the HTTP benchmarks: the production settings (DEBUG=0 from the
environment), plus the floor endpoints (bench/urls.py) and throttles that never bite
(every request of a load generator comes from 127.0.0.1). Never used by the service.

BENCH_OBSERVABILITY=off takes out the metrics and request-log middleware, so one bench
can say what metrics and logging cost the answer path (issue 44, item 6)."""

import os

from config.settings import *  # noqa: F403
from config.settings import MIDDLEWARE, REST_FRAMEWORK

OBSERVABILITY = (
    "config.metrics_middleware.MetricsMiddleware",
    "config.request_log.RequestLogMiddleware",
)
if os.environ.get("BENCH_OBSERVABILITY") == "off":
    MIDDLEWARE = [m for m in MIDDLEWARE if m not in OBSERVABILITY]

ROOT_URLCONF = "bench.urls"
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {
        name: "1000000/1m" for name in REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {})
    },
}
