"""Settings for the HTTP benchmarks: the production settings (DEBUG=0 from the
environment), plus the floor endpoints (bench/urls.py) and throttles that never bite
(every request of a load generator comes from 127.0.0.1). Never used by the service."""

from config.settings import *  # noqa: F403
from config.settings import REST_FRAMEWORK

ROOT_URLCONF = "bench.urls"
REST_FRAMEWORK = {
    **REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {
        name: "1000000/1m" for name in REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES", {})
    },
}
