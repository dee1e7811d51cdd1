"""`ibstat`, `perfquery` and the sysfs port counters of an InfiniBand or RoCE host.

The drill's slow node in a multi-node nccl-tests run is the one whose port these show
degraded: trained below its rated speed (`Rate: 200` or `100` on a 400 Gb/s NDR port) or
flapping (a port whose LinkDownedCounter and LinkErrorRecoveryCounter climb, whose
SymbolErrorCounter says the cable or transceiver is bad).

Formats follow infiniband-diags as shipped in rdma-core (v50, Ubuntu 24.04's
infiniband-diags 50.0; unchanged through v56):

- `ibstat`: rdma-core infiniband-diags/ibstat.c (ca_dump and port_dump): `CA '<name>'`,
  then tab-indented `CA type`, `Number of ports`, `Firmware version`, `Hardware version`,
  `Node GUID` and `System image GUID` (0x and 16 hex digits), then per port `Port N:` and
  two-tab-indented `State` (Down, Initializing, Armed, Active), `Physical state` (Sleep,
  Polling, Disabled, PortConfigurationTraining, LinkUp, LinkErrorRecovery, PhyTest),
  `Rate` (an integer in Gb/s; 2.5 for 1x SDR), `Base lid`, `LMC`, `SM lid`, `Capability
  mask` (0x and 8 hex digits), `Port GUID`, `Link layer` (InfiniBand, or Ethernet for
  RoCE, where the lids read 0). With a CA name and port number, ibstat prints `CA:
  '<name>'` and that port alone, unindented. CAs come in the name order libibumad lists
  /sys/class/infiniband in (alphabetical: mlx5_0, mlx5_1, mlx5_10, mlx5_2). Man page:
  https://man7.org/linux/man-pages/man8/ibstat.8.html ("Output includes LID, SMLID, port
  state, link width active, and port physical state"). Public captures show each field
  (NVIDIA/l2fwd-nv#6, kvcache-ai/Mooncake#1999 with a Down/Disabled port, linux-rdma/
  rdma-core#847 with tabs, an 8x ConnectX-6 HDR host at 2x width reading `Rate: 100`).
- `perfquery [-C ca -P port]`: rdma-core infiniband-diags/perfquery.c prints `# Port
  counters: Lid <lid> port <port> (CapMask: 0x%02X)` and libibmad's PortCounters fields
  (libibmad fields.c, dump.c mad_dump_perfcounters: QP1Dropped is printed before
  VL15Dropped) as `Name:` padded with dots so every value starts at column 33. The
  counters are the IBA PortCounters attribute's and saturate at their width (SymbolError
  16 bits, LinkErrorRecovery and LinkDowned 8, LocalLinkIntegrity 4, data and packets 32).
  Man page: https://man7.org/linux/man-pages/man8/perfquery.8.html.
- The kernel's per-port counters: /sys/class/infiniband/<ca>/ports/<n>/counters/
  symbol_error, link_error_recovery, link_downed (Linux Documentation/ABI/stable/
  sysfs-class-infiniband), printed the way `grep . <files>` prints them, `path:value`.

Public flapping and rate-drop cases and what they mean: NVIDIA UFM's port counter
reference (docs.nvidia.com/networking/display/ufmsdnappumv4184/InfiniBand+Port+Counters:
"Link Error Recovery", "Link Error Downed", "Symbol Errors").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

STATES = ("Down", "Initializing", "Armed", "Active")
PHYSICAL_STATES = (
    "Sleep",
    "Polling",
    "Disabled",
    "PortConfigurationTraining",
    "LinkUp",
    "LinkErrorRecovery",
    "PhyTest",
)
LINK_LAYERS = ("InfiniBand", "Ethernet")
# ConnectX-7 (MT4129) on an NDR fabric, as public ibstat captures print it.
IB_CAPABILITY_MASK = 0xA651E848
ROCE_CAPABILITY_MASK = 0x00010000


@dataclass(frozen=True)
class IbPort:
    """One port of a channel adapter, as the local IB driver reports it."""

    number: int = 1
    state: str = "Active"
    physical_state: str = "LinkUp"
    rate: int = 400
    base_lid: int = 0
    lmc: int = 0
    sm_lid: int = 0
    capability_mask: int = IB_CAPABILITY_MASK
    port_guid: int = 0
    link_layer: str = "InfiniBand"

    def __post_init__(self) -> None:
        if self.state not in STATES:
            raise ValueError(f"unknown port state {self.state!r}")
        if self.physical_state not in PHYSICAL_STATES:
            raise ValueError(f"unknown physical state {self.physical_state!r}")
        if self.link_layer not in LINK_LAYERS:
            raise ValueError(f"unknown link layer {self.link_layer!r}")


@dataclass(frozen=True)
class IbCa:
    """A channel adapter (mlx5_N) with its ports."""

    name: str
    ca_type: str
    firmware: str
    node_guid: int
    system_image_guid: int
    ports: tuple[IbPort, ...]
    hardware_version: str = "0"


def _hex64(value: int) -> str:
    return f"0x{value:016x}"


def _rate(rate: int) -> str:
    """ibstat prints the rate as an integer, except 1x SDR's 2.5 (stored as 2)."""
    return "2.5" if rate == 2 else str(rate)


def _port_lines(port: IbPort, indent: str) -> list[str]:
    return [
        f"{indent}State: {port.state}",
        f"{indent}Physical state: {port.physical_state}",
        f"{indent}Rate: {_rate(port.rate)}",
        f"{indent}Base lid: {port.base_lid}",
        f"{indent}LMC: {port.lmc}",
        f"{indent}SM lid: {port.sm_lid}",
        f"{indent}Capability mask: 0x{port.capability_mask:08x}",
        f"{indent}Port GUID: {_hex64(port.port_guid)}",
        f"{indent}Link layer: {port.link_layer}",
    ]


def render_ibstat(cas: Sequence[IbCa], ca_name: str | None = None, port: int | None = None) -> str:
    """`ibstat`, `ibstat <ca>` or `ibstat <ca> <port>`: CAs in libibumad's name order."""
    chosen = sorted(cas, key=lambda ca: ca.name)
    if ca_name is not None:
        chosen = [ca for ca in chosen if ca.name == ca_name]
        if not chosen:
            return f"ibpanic: [2719] main: '{ca_name}' IB device can't be found"
    if port is not None:
        (ca,) = chosen
        match = [p for p in ca.ports if p.number == port]
        if not match:
            return (
                f"ibwarn: [2719] ca_stat: CA: '{ca.name}' has no port number {port} - "
                f"max ({len(ca.ports)})"
            )
        return "\n".join([f"CA: '{ca.name}'", f"Port {port}:", *_port_lines(match[0], "")])
    lines: list[str] = []
    for ca in chosen:
        lines += [
            f"CA '{ca.name}'",
            f"\tCA type: {ca.ca_type}",
            f"\tNumber of ports: {len(ca.ports)}",
            f"\tFirmware version: {ca.firmware}",
            f"\tHardware version: {ca.hardware_version}",
            f"\tNode GUID: {_hex64(ca.node_guid)}",
            f"\tSystem image GUID: {_hex64(ca.system_image_guid)}",
        ]
        for p in sorted(ca.ports, key=lambda p: p.number):
            lines.append(f"\tPort {p.number}:")
            lines += _port_lines(p, "\t\t")
    return "\n".join(lines)


@dataclass(frozen=True)
class PortCounters:
    """The IBA PortCounters attribute of one port (values beyond a field's width saturate)."""

    symbol_errors: int = 0
    link_error_recovery: int = 0
    link_downed: int = 0
    rcv_errors: int = 0
    rcv_remote_physical_errors: int = 0
    rcv_switch_relay_errors: int = 0
    xmit_discards: int = 0
    xmit_constraint_errors: int = 0
    rcv_constraint_errors: int = 0
    local_link_integrity_errors: int = 0
    excessive_buffer_overrun_errors: int = 0
    qp1_dropped: int = 0
    vl15_dropped: int = 0
    xmit_data: int = 0
    rcv_data: int = 0
    xmit_pkts: int = 0
    rcv_pkts: int = 0
    xmit_wait: int = 0


# (printed name, attribute, bits) in mad_dump_perfcounters' order.
_PC_FIELDS: tuple[tuple[str, str, int], ...] = (
    ("SymbolErrorCounter", "symbol_errors", 16),
    ("LinkErrorRecoveryCounter", "link_error_recovery", 8),
    ("LinkDownedCounter", "link_downed", 8),
    ("PortRcvErrors", "rcv_errors", 16),
    ("PortRcvRemotePhysicalErrors", "rcv_remote_physical_errors", 16),
    ("PortRcvSwitchRelayErrors", "rcv_switch_relay_errors", 16),
    ("PortXmitDiscards", "xmit_discards", 16),
    ("PortXmitConstraintErrors", "xmit_constraint_errors", 8),
    ("PortRcvConstraintErrors", "rcv_constraint_errors", 8),
)
_PC_FIELDS_2: tuple[tuple[str, str, int], ...] = (
    ("LocalLinkIntegrityErrors", "local_link_integrity_errors", 4),
    ("ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors", 4),
    ("QP1Dropped", "qp1_dropped", 16),
    ("VL15Dropped", "vl15_dropped", 16),
    ("PortXmitData", "xmit_data", 32),
    ("PortRcvData", "rcv_data", 32),
    ("PortXmitPkts", "xmit_pkts", 32),
    ("PortRcvPkts", "rcv_pkts", 32),
    ("PortXmitWait", "xmit_wait", 32),
)
VALUE_COLUMN = 33  # libibmad pads "Name:" with dots to this column


def _field(name: str, value: str) -> str:
    head = f"{name}:"
    return head + "." * max(VALUE_COLUMN - len(head), 0) + value


def render_perfquery(lid: int, port: int, counters: PortCounters, cap_mask: int = 0x5A00) -> str:
    """`perfquery -C <ca> -P <port>`: the port's PortCounters, saturated at each width."""
    lines = [
        f"# Port counters: Lid {lid} port {port} (CapMask: 0x{cap_mask:02X})",
        _field("PortSelect", str(port)),
        _field("CounterSelect", "0x0000"),
    ]
    for name, attr, bits in _PC_FIELDS:
        lines.append(_field(name, str(min(getattr(counters, attr), 2**bits - 1))))
    lines.append(_field("CounterSelect2", "0x00"))
    for name, attr, bits in _PC_FIELDS_2:
        lines.append(_field(name, str(min(getattr(counters, attr), 2**bits - 1))))
    return "\n".join(lines)


SYSFS_COUNTERS = (
    ("link_downed", "link_downed", 8),
    ("link_error_recovery", "link_error_recovery", 8),
    ("symbol_error", "symbol_errors", 16),
)


def render_sysfs_counters(ca: str, port: int, counters: PortCounters) -> str:
    """`grep . /sys/class/infiniband/<ca>/ports/<port>/counters/{link_downed,...}`."""
    base = f"/sys/class/infiniband/{ca}/ports/{port}/counters"
    return "\n".join(
        f"{base}/{name}:{min(getattr(counters, attr), 2**bits - 1)}"
        for name, attr, bits in SYSFS_COUNTERS
    )


def roce_port_guid(node_guid: int) -> int:
    """A RoCE port's GUID: the EUI-64 of its MAC (node GUID with 0xfffe in the middle and
    the universal/local bit flipped), as the Mooncake and l2fwd-nv captures show it
    (node 0x0c42a103001dd12a, port 0x0e42a1fffe1dd12a)."""
    oui = (node_guid >> 40) & 0xFFFFFF
    nic = node_guid & 0xFFFFFF
    return ((oui ^ 0x020000) << 40) | (0xFFFE << 24) | nic
