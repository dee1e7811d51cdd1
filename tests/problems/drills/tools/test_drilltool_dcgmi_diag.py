"""dcgmi diag renders DCGM 3.3's boxed table, per run level, with per-GPU failures."""

import pytest

from problems.drills.tools.dcgmi_diag import (
    DiagFinding,
    DiagRun,
    faulty_memory,
    low_pcie_bandwidth,
    nvlink_errors,
    pending_row_remap,
    render_dcgmi_diag,
    thermal_violations,
    volatile_dbe,
)

# Hand-checked against the 3.3.9 -r 3 capture's rows and Diag.cpp's mixed-result layout.
EXPECTED_R3_MEMORY_FAIL = """\
Successfully ran diagnostic for group.
+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
|-----  Metadata  ----------+------------------------------------------------|
| DCGM Version              | 3.3.9                                          |
| Driver Version Detected   | 550.90.07                                      |
| GPU Device IDs Detected   | 2330,2330,2330,2330,2330,2330,2330,2330        |
|-----  Deployment  --------+------------------------------------------------|
| Denylist                  | Pass                                           |
| NVML Library              | Pass                                           |
| CUDA Main Library         | Pass                                           |
| Permissions and OS Blocks | Pass                                           |
| Persistence Mode          | Pass                                           |
| Environment Variables     | Pass                                           |
| Page Retirement/Row Remap | Pass                                           |
| Graphics Processes        | Pass                                           |
| Inforom                   | Pass                                           |
+-----  Integration  -------+------------------------------------------------+
| PCIe                      | Pass - All                                     |
+-----  Hardware  ----------+------------------------------------------------+
| GPU Memory                | Pass - GPUs: 0, 1, 2, 4, 5, 6, 7               |
|                           | Fail - GPU: 3                                  |
| Warning                   | Found 2 faulty memory elements on GPU 3 Run a  |
|                           |  field diagnostic on the GPU.                  |
| Diagnostic                | Pass - All                                     |
+-----  Stress  ------------+------------------------------------------------+
| Targeted Stress           | Pass - All                                     |
| Targeted Power            | Pass - All                                     |
| Memory Bandwidth          | Pass - All                                     |
| EUD Test                  | Skip - All                                     |
+---------------------------+------------------------------------------------+"""

EIGHT = tuple(range(8))


def test_r3_memory_fail_on_gpu_3_exact():
    run = DiagRun(3, EIGHT, "2330", "550.90.07", findings=(faulty_memory(3, 2),))
    assert render_dcgmi_diag(run) == EXPECTED_R3_MEMORY_FAIL


def test_every_line_is_78_columns():
    run = DiagRun(
        3,
        EIGHT,
        "2330",
        "550.90.07",
        findings=(
            faulty_memory(3, 2),
            low_pcie_bandwidth(5, "h2d", 3.91, 18.0),
            thermal_violations(6, 41.5),
            nvlink_errors(1, 12),
        ),
        deployment=(pending_row_remap(3),),
    )
    lines = render_dcgmi_diag(run).splitlines()
    assert lines[0] == "Successfully ran diagnostic for group."
    assert all(len(line) == 78 for line in lines[1:]), [ln for ln in lines if len(ln) != 78]
    assert all(line[0] in "|+" and line[28] in "|+" and line[-1] in "|+" for line in lines[1:])


def test_r1_shows_only_metadata_and_deployment():
    out = render_dcgmi_diag(DiagRun(1, EIGHT, "2330", "550.90.07"))
    assert "Integration" not in out and "Hardware" not in out and "Stress" not in out
    assert (
        out.splitlines()[-2]
        == "| Inforom                   | Pass                                           |"
    )


def test_r2_has_pcie_memory_and_an_empty_stress_block():
    lines = render_dcgmi_diag(DiagRun(2, (0, 1, 2, 3), "20b5", "550.54.15", "3.3.5")).splitlines()
    assert lines[-6:] == [
        "+-----  Integration  -------+------------------------------------------------+",
        "| PCIe                      | Pass - All                                     |",
        "+-----  Hardware  ----------+------------------------------------------------+",
        "| GPU Memory                | Pass - All                                     |",
        "+-----  Stress  ------------+------------------------------------------------+",
        "+---------------------------+------------------------------------------------+",
    ]
    assert "| GPU Device IDs Detected   | 20b5,20b5,20b5,20b5                            |" in lines


def test_two_pcie_failures_list_both_gpus_and_both_warnings():
    run = DiagRun(
        2,
        (0, 1, 2, 3),
        "20b5",
        "550.54.15",
        findings=(
            low_pcie_bandwidth(2, "h2d", 3.91, 18.0),
            low_pcie_bandwidth(3, "d2h", 3.88, 18.0),
        ),
    )
    lines = render_dcgmi_diag(run).splitlines()
    i = lines.index(
        "| PCIe                      | Pass - GPUs: 0, 1                              |"
    )
    assert (
        lines[i + 1]
        == "|                           | Fail - GPUs: 2, 3                              |"
    )
    assert (
        lines[i + 2]
        == "| Warning                   | Bandwidth of GPU 2 in direction h2d of 3.91 d  |"
    )
    assert sum(1 for ln in lines if ln.startswith("| Warning ")) == 2
    text = "".join(ln[30:75] for ln in lines[i + 2 :] if ln.startswith("| "))
    assert "minimum required bandwidth of 18.00." in text


def test_all_gpus_failing_reads_fail_all():
    run = DiagRun(
        3, (0, 1), "2330", "550.90.07", findings=tuple(thermal_violations(g, 30.0) for g in (0, 1))
    )
    out = render_dcgmi_diag(run)
    assert "| Targeted Power            | Fail - All                                     |" in out
    assert out.count("| Warning ") == 2


def test_deployment_failure_prints_error_lines():
    run = DiagRun(1, EIGHT, "2330", "550.90.07", deployment=(pending_row_remap(4),))
    lines = render_dcgmi_diag(run).splitlines()
    i = lines.index(
        "| Page Retirement/Row Remap | Fail                                           |"
    )
    assert (
        lines[i + 1]
        == "| Error                     | GPU 4 had memory errors and row remappings ar  |"
    )
    assert lines[i + 2].startswith("|                           | e pending Check DCGM")


def test_warn_and_skip_statuses_and_dbe_wording():
    run = DiagRun(
        3,
        (0, 1, 2),
        "2330",
        "550.90.07",
        findings=(
            DiagFinding("Diagnostic", 1, "Warn", "GPU 1 warned"),
            volatile_dbe(2, 3, test="Diagnostic"),
        ),
    )
    out = render_dcgmi_diag(run)
    assert "| Diagnostic                | Pass - GPU: 0                                  |" in out
    assert "|                           | Fail - GPU: 2                                  |" in out
    assert "|                           | Warn - GPU: 1                                  |" in out
    joined = "".join(ln[30:75] for ln in out.splitlines() if ln.startswith("| "))
    assert "Detected 3 volatile double-bit ECC error(s) in GPU 2. Drain the GPU" in joined


def test_long_values_are_cut_with_an_ellipsis():
    run = DiagRun(1, tuple(range(12)), "2330", "550.90.07")
    row = next(ln for ln in render_dcgmi_diag(run).splitlines() if "Device IDs" in ln)
    assert row.endswith(",2330,233... |") and len(row) == 78


def test_bad_level_and_status_rejected():
    with pytest.raises(ValueError):
        render_dcgmi_diag(DiagRun(4, EIGHT, "2330", "550.90.07"))
    with pytest.raises(ValueError):
        DiagFinding("PCIe", 0, "Pass")
