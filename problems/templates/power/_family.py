"""What the power templates share: the catalog servers that publish a system power,
and their rating in kW as the generators state it, so a statement can name them.
"""

from __future__ import annotations

import math

from hardware_db import catalog


def server_kw_of(server: catalog.Server) -> float:
    return round(server.system_power_watts / 1000, 6)


def powered_servers(max_kw: float | None = None) -> list[catalog.Server]:
    return [
        s
        for s in catalog.servers()
        if s.system_power_watts and (max_kw is None or s.system_power_watts <= max_kw * 1000)
    ]


def matching_servers(server_kw: float, gpus_per_server: int | None = None) -> list[str]:
    return [
        s.name
        for s in powered_servers()
        if math.isclose(server_kw_of(s), server_kw, rel_tol=1e-9)
        and (gpus_per_server is None or s.n_accelerators == gpus_per_server)
    ]
