"""`dcgmi diag -r 1|2|3` as DCGM 3.3 prints it: the boxed "Diagnostic | Result" table.

The version followed is DCGM 3.3 (3.3.0 to 3.3.9, the hostengine the GPU Operator and
DGX OS shipped through 2024); DCGM 4 renamed the rows (software, memory, ...) and prints
per-GPU lines, so a drill must not mix the two. Layout from NVIDIA/DCGM dcgmi/Diag.cpp
(3.3 branch): the stencil `| <DATA_NAME> | <DATA_INFO> |` is 78 columns, the name field
25 and the result field 46 (CommandOutputController pads with spaces and cuts a longer
value to its width, ending it in "..."); "Successfully ran diagnostic for group." comes
first; a Metadata block (DCGM Version, Driver Version Detected, GPU Device IDs Detected
joined by commas); the Deployment block (the software plugin's checks, each Pass / Fail /
Skip, a failed one followed by `Error` lines); then, when per-GPU tests ran, Integration
(PCIe), Hardware (GPU Memory; Diagnostic when it ran) and Stress (Targeted Stress,
Targeted Power, Memory Bandwidth, and the EUD Test's `Skip - All` when the EUD package is
absent), each a `+-----  Name  ---...+` rule, and the footer rule. A per-GPU test reads
`Pass - All` (or Fail/Warn/Skip - All) when every GPU agrees; otherwise one line per
status, `Pass - GPUs: 0, 1, 2` / `Fail - GPU: 3` (a space-padded list), followed by the
failing GPUs' `Warning` text cut into 45-character pieces (DisplayVerboseInfo), each after
the first under an empty name.

Which tests each run level shows follows public 3.3 captures: -r 1 the Deployment block
alone; -r 2 PCIe and GPU Memory with an empty Stress block (3.3.0, 3.3.3); -r 3 adds
Diagnostic and the Stress tests (3.3.9: "Targeted Stress", "Targeted Power", "Memory
Bandwidth", "EUD Test | Skip - All"). Run levels: https://docs.nvidia.com/datacenter/
dcgm/latest/user-guide/dcgm-diagnostics.html#run-levels-and-tests.

Failure texts are DCGM's error catalog (dcgmlib/dcgm_errors.h): the DCGM_FR_* message,
then a space and its suggested next step (nvvs DcgmError::SetFullError), e.g. faulty
memory "Found %d faulty memory elements on GPU %u" + "Run a field diagnostic on the
GPU.", low PCIe bandwidth "Bandwidth of GPU %u in direction %s of %.2f did not exceed
minimum required bandwidth of %.2f." + its topology advice, thermal violations "There
were thermal violations totaling %.1f seconds for GPU %u" + the cooling check. Error
reference (ids, severities, categories): https://docs.nvidia.com/datacenter/dcgm/latest/
reference/diagnostics/errors.html; the memory plugin's patterns and ECC checks:
https://docs.nvidia.com/datacenter/dcgm/latest/reference/diagnostics/plugins/memory.html.
Public 3.3 captures of failures: NVIDIA/go-dcgm#52 (3.3.1, "Pass - GPU: 1" over "Fail -
GPU: 0" and wrapped Warning text), IBM/autopilot#68 (3.3.5, a PCIe failure at -r 3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

NAME_WIDTH = 25
INFO_WIDTH = 46
PIECE = 45  # DATA_INFO_TAG_LEN: a verbose line shows this much of the message
RULE = "+" + "-" * 27 + "+" + "-" * 48 + "+"
HEADER = (
    "Successfully ran diagnostic for group.",
    RULE,
    "| Diagnostic                | Result                                         |",
    "+" + "=" * 27 + "+" + "=" * 48 + "+",
)
METADATA = "|-----  Metadata  ----------+------------------------------------------------|"
DEPLOYMENT = "|-----  Deployment  --------+------------------------------------------------|"
INTEGRATION = "+-----  Integration  -------+------------------------------------------------+"
HARDWARE = "+-----  Hardware  ----------+------------------------------------------------+"
STRESS = "+-----  Stress  ------------+------------------------------------------------+"

DEPLOYMENT_TESTS = (
    "Denylist",
    "NVML Library",
    "CUDA Main Library",
    "Permissions and OS Blocks",
    "Persistence Mode",
    "Environment Variables",
    "Page Retirement/Row Remap",
    "Graphics Processes",
    "Inforom",
)
# (section rule, tests shown) by run level, in Diag.cpp's display order.
LEVEL_TESTS: dict[int, tuple[tuple[str, tuple[str, ...]], ...]] = {
    1: (),
    2: (
        (INTEGRATION, ("PCIe",)),
        (HARDWARE, ("GPU Memory",)),
        (STRESS, ()),
    ),
    3: (
        (INTEGRATION, ("PCIe",)),
        (HARDWARE, ("GPU Memory", "Diagnostic")),
        (STRESS, ("Targeted Stress", "Targeted Power", "Memory Bandwidth", "EUD Test")),
    ),
}
SKIPPED_BY_DEFAULT = frozenset({"EUD Test"})  # the EUD package is not installed
STATUSES = ("Pass", "Fail", "Warn", "Skip")

# DCGM's next-step texts (dcgm_errors.h), appended to each message after a space.
FIELD_DIAG = "Run a field diagnostic on the GPU."
COOLING = (
    "Verify that the cooling on this machine is functional, including external, thermal "
    "material interface, fans, and any other components."
)
SYSTEM_TRIAGE = "Check DCGM and system logs for errors. Reset GPU. Restart DCGM. Rerun diagnostics."
LOW_BANDWIDTH_NEXT = (
    "Verify that your minimum bandwidth setting is appropriate for the topology of each "
    "GPU. If so, and errors are consistent, please run a field diagnostic."
)
DBE_NEXT = "Drain the GPU and reset it or reboot the node."


@dataclass(frozen=True)
class DiagFinding:
    """One GPU's non-passing result in one test, with DCGM's warning text."""

    test: str
    gpu: int
    status: str = "Fail"
    message: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES[1:]:
            raise ValueError(f"a finding is Fail, Warn or Skip, not {self.status!r}")


@dataclass(frozen=True)
class DeploymentFailure:
    """A failed software-plugin check (e.g. Page Retirement/Row Remap) with its error."""

    check: str
    message: str
    status: str = "Fail"


@dataclass(frozen=True)
class DiagRun:
    """What one `dcgmi diag -r LEVEL` saw on the node's GPUs."""

    level: int
    gpus: tuple[int, ...]
    device_id: str
    driver: str
    dcgm_version: str = "3.3.9"
    findings: tuple[DiagFinding, ...] = ()
    deployment: tuple[DeploymentFailure, ...] = ()


def faulty_memory(gpu: int, elements: int) -> DiagFinding:
    """The memory plugin found bad cells (DCGM_FR_FAULTY_MEMORY)."""
    msg = f"Found {elements} faulty memory elements on GPU {gpu} {FIELD_DIAG}"
    return DiagFinding("GPU Memory", gpu, "Fail", msg)


def volatile_dbe(gpu: int, count: int, test: str = "GPU Memory") -> DiagFinding:
    """Uncorrectable ECC errors during the test (DCGM_FR_VOLATILE_DBE_DETECTED)."""
    msg = f"Detected {count} volatile double-bit ECC error(s) in GPU {gpu}. {DBE_NEXT}"
    return DiagFinding(test, gpu, "Fail", msg)


def low_pcie_bandwidth(gpu: int, direction: str, measured: float, required: float) -> DiagFinding:
    """A host<->GPU copy below the plugin's floor (DCGM_FR_LOW_BANDWIDTH); direction is
    the PCIe plugin's subtest tag, h2d or d2h."""
    msg = (
        f"Bandwidth of GPU {gpu} in direction {direction} of {measured:.2f} did not exceed "
        f"minimum required bandwidth of {required:.2f}. {LOW_BANDWIDTH_NEXT}"
    )
    return DiagFinding("PCIe", gpu, "Fail", msg)


def nvlink_errors(gpu: int, count: int, kind: str = "CRC FLIT") -> DiagFinding:
    """NVLink errors seen by the PCIe plugin (DCGM_FR_NVLINK_ERROR_CRITICAL)."""
    msg = f"Detected {count} {kind} NvLink errors on GPU {gpu}'s NVLink (should be 0) {FIELD_DIAG}"
    return DiagFinding("PCIe", gpu, "Fail", msg)


def thermal_violations(gpu: int, seconds: float, test: str = "Targeted Power") -> DiagFinding:
    """Clocks held back for heat during a stress test (DCGM_FR_THERMAL_VIOLATIONS)."""
    msg = f"There were thermal violations totaling {seconds:.1f} seconds for GPU {gpu} {COOLING}"
    return DiagFinding(test, gpu, "Fail", msg)


def pending_row_remap(gpu: int) -> DeploymentFailure:
    """The software plugin's row-remap check (DCGM_FR_PENDING_ROW_REMAP)."""
    msg = f"GPU {gpu} had memory errors and row remappings are pending {SYSTEM_TRIAGE}"
    return DeploymentFailure("Page Retirement/Row Remap", msg)


def _cell(value: str, width: int) -> str:
    """CommandOutputController's fill: pad with spaces, or cut and end in '...'."""
    if len(value) > width:
        return value[: width - 3] + "..."
    return value.ljust(width)


def _row(name: str, info: str) -> str:
    return f"| {_cell(name, NAME_WIDTH)} | {_cell(info, INFO_WIDTH)} |"


def _verbose(name: str, text: str) -> list[str]:
    """DisplayVerboseInfo: the text in 45-character pieces, the name on the first only."""
    return [
        _row(name if at == 0 else "", text[at : at + PIECE]) for at in range(0, len(text), PIECE)
    ]


def _gpu_list(label: str, gpus: list[int]) -> str:
    plural = "s" if len(gpus) > 1 else ""
    return f"{label} - GPU{plural}: " + ", ".join(str(g) for g in gpus) + "   "


def _test_rows(test: str, gpus: Sequence[int], findings: Sequence[DiagFinding]) -> list[str]:
    """HelperDisplayGpuResults: one test's rows over the run's GPUs."""
    mine = {f.gpu: f for f in findings if f.test == test}
    default = "Skip" if test in SKIPPED_BY_DEFAULT else "Pass"
    status = {g: (mine[g].status if g in mine else default) for g in gpus}
    rows: list[str] = []
    for label in STATUSES:
        if all(s == label for s in status.values()):
            rows.append(_row(test, f"{label} - All"))
            break
    else:
        first = True
        for label in ("Pass", "Fail", "Warn", "Skip"):
            group = [g for g in gpus if status[g] == label]
            if group:
                rows.append(_row(test if first else "", _gpu_list(label, group)))
                first = False
    # A pass shows no details; anything else shows every GPU's warning text.
    if any(s != "Pass" for s in status.values()):
        for g in gpus:
            if g in mine and mine[g].message:
                rows += _verbose("Warning", mine[g].message.strip())
    return rows


def render_dcgmi_diag(run: DiagRun) -> str:
    """The full `dcgmi diag -r LEVEL` output for this run."""
    if run.level not in LEVEL_TESTS:
        raise ValueError(f"run level must be 1, 2 or 3, not {run.level}")
    lines = [*HEADER, METADATA]
    lines.append(_row("DCGM Version", run.dcgm_version))
    lines.append(_row("Driver Version Detected", run.driver))
    lines.append(_row("GPU Device IDs Detected", ",".join(run.device_id for _ in run.gpus)))
    lines.append(DEPLOYMENT)
    failed = {d.check: d for d in run.deployment}
    for check in DEPLOYMENT_TESTS:
        if check in failed:
            lines.append(_row(check, failed[check].status))
            lines += _verbose("Error", failed[check].message)
        else:
            lines.append(_row(check, "Pass"))
    for rule, tests in LEVEL_TESTS[run.level]:
        lines.append(rule)
        for test in tests:
            lines += _test_rows(test, run.gpus, run.findings)
    lines.append(RULE)
    return "\n".join(lines)
