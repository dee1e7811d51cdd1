"""ibstat, perfquery and sysfs counters render as infiniband-diags prints them."""

import pytest

from problems.drills.tools.ibstat import (
    VALUE_COLUMN,
    IbCa,
    IbPort,
    PortCounters,
    render_ibstat,
    render_perfquery,
    render_sysfs_counters,
    roce_port_guid,
)

HEALTHY = IbCa(
    name="mlx5_0",
    ca_type="MT4129",
    firmware="28.39.1002",
    node_guid=0xA088C20300F1E2D0,
    system_image_guid=0xA088C20300F1E2D0,
    ports=(IbPort(base_lid=176, sm_lid=104, port_guid=0xA088C20300F1E2D0),),
)
DEGRADED = IbCa(
    name="mlx5_1",
    ca_type="MT4129",
    firmware="28.39.1002",
    node_guid=0xA088C20300F1E2D4,
    system_image_guid=0xA088C20300F1E2D4,
    ports=(IbPort(rate=200, base_lid=89, sm_lid=104, port_guid=0xA088C20300F1E2D4),),
)

EXPECTED_TWO_CAS = """\
CA 'mlx5_0'
\tCA type: MT4129
\tNumber of ports: 1
\tFirmware version: 28.39.1002
\tHardware version: 0
\tNode GUID: 0xa088c20300f1e2d0
\tSystem image GUID: 0xa088c20300f1e2d0
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 400
\t\tBase lid: 176
\t\tLMC: 0
\t\tSM lid: 104
\t\tCapability mask: 0xa651e848
\t\tPort GUID: 0xa088c20300f1e2d0
\t\tLink layer: InfiniBand
CA 'mlx5_1'
\tCA type: MT4129
\tNumber of ports: 1
\tFirmware version: 28.39.1002
\tHardware version: 0
\tNode GUID: 0xa088c20300f1e2d4
\tSystem image GUID: 0xa088c20300f1e2d4
\tPort 1:
\t\tState: Active
\t\tPhysical state: LinkUp
\t\tRate: 200
\t\tBase lid: 89
\t\tLMC: 0
\t\tSM lid: 104
\t\tCapability mask: 0xa651e848
\t\tPort GUID: 0xa088c20300f1e2d4
\t\tLink layer: InfiniBand"""


def test_two_cas_exact():
    assert render_ibstat([DEGRADED, HEALTHY]) == EXPECTED_TWO_CAS


def test_cas_in_libibumad_name_order():
    names = [f"mlx5_{i}" for i in (2, 10, 0, 1)]
    cas = [IbCa(n, "MT4129", "28.39.1002", 1, 1, (IbPort(),)) for n in names]
    heads = [line for line in render_ibstat(cas).splitlines() if line.startswith("CA ")]
    assert heads == ["CA 'mlx5_0'", "CA 'mlx5_1'", "CA 'mlx5_10'", "CA 'mlx5_2'"]


def test_single_port_form_is_unindented():
    out = render_ibstat([HEALTHY, DEGRADED], "mlx5_1", 1)
    assert out.splitlines()[:4] == [
        "CA: 'mlx5_1'",
        "Port 1:",
        "State: Active",
        "Physical state: LinkUp",
    ]
    assert "Rate: 200" in out
    assert "\t" not in out


def test_down_port_and_roce_and_sdr_rate():
    down = IbCa(
        "mlx5_3",
        "MT4129",
        "28.39.1002",
        0x58A2E10300DAE626,
        0x58A2E10300DAE626,
        (
            IbPort(
                state="Down",
                physical_state="Disabled",
                rate=2,
                capability_mask=0x00010000,
                port_guid=roce_port_guid(0x58A2E10300DAE626),
                link_layer="Ethernet",
            ),
        ),
    )
    out = render_ibstat([down])
    assert "\t\tState: Down\n\t\tPhysical state: Disabled\n\t\tRate: 2.5\n" in out
    assert "\t\tCapability mask: 0x00010000" in out
    # The EUI-64 of the MAC, as the Mooncake capture shows it.
    assert "\t\tPort GUID: 0x5aa2e1fffedae626" in out
    assert out.endswith("\t\tLink layer: Ethernet")


def test_unknown_states_rejected():
    with pytest.raises(ValueError):
        IbPort(state="Up")
    with pytest.raises(ValueError):
        IbPort(physical_state="Linkup")


def test_missing_ca_and_port():
    assert "can't be found" in render_ibstat([HEALTHY], "mlx5_7")
    assert "has no port number 2 - max (1)" in render_ibstat([HEALTHY], "mlx5_0", 2)


EXPECTED_PERFQUERY = """\
# Port counters: Lid 89 port 1 (CapMask: 0x5A00)
PortSelect:......................1
CounterSelect:...................0x0000
SymbolErrorCounter:..............65535
LinkErrorRecoveryCounter:........37
LinkDownedCounter:...............12
PortRcvErrors:...................4
PortRcvRemotePhysicalErrors:.....0
PortRcvSwitchRelayErrors:........0
PortXmitDiscards:................0
PortXmitConstraintErrors:........0
PortRcvConstraintErrors:.........0
CounterSelect2:..................0x00
LocalLinkIntegrityErrors:........15
ExcessiveBufferOverrunErrors:....0
QP1Dropped:......................0
VL15Dropped:.....................0
PortXmitData:....................50334712
PortRcvData:.....................50322429
PortXmitPkts:....................699290
PortRcvPkts:.....................698925
PortXmitWait:....................0"""

FLAPPING = PortCounters(
    symbol_errors=70_000,
    link_error_recovery=37,
    link_downed=12,
    rcv_errors=4,
    local_link_integrity_errors=40,
    xmit_data=50334712,
    rcv_data=50322429,
    xmit_pkts=699290,
    rcv_pkts=698925,
)


def test_perfquery_exact_and_saturating():
    assert render_perfquery(89, 1, FLAPPING) == EXPECTED_PERFQUERY


def test_perfquery_values_start_at_column_33():
    for line in render_perfquery(1, 1, PortCounters(link_downed=300)).splitlines()[1:]:
        _, _, rest = line.partition(":")
        value = rest.lstrip(".")
        assert len(line) - len(value) == VALUE_COLUMN, line
    assert "LinkDownedCounter:...............255" in render_perfquery(
        1, 1, PortCounters(link_downed=300)
    )


def test_sysfs_counters():
    assert render_sysfs_counters("mlx5_1", 1, FLAPPING) == (
        "/sys/class/infiniband/mlx5_1/ports/1/counters/link_downed:12\n"
        "/sys/class/infiniband/mlx5_1/ports/1/counters/link_error_recovery:37\n"
        "/sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error:65535"
    )
