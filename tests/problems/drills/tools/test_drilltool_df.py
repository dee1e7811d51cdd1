"""df -h / df -i render as GNU coreutils does: 1024 powers rounded up, aligned columns."""

import pytest

from problems.drills.tools.df import (
    Mount,
    human,
    percent,
    render_df_h,
    render_df_i,
    render_enospc_oserror,
    render_torch_save_enospc,
)

G = 1024**3
T = 1024**4

ROOT = Mount("/dev/nvme0n1p2", "/", 1888 * G, 412 * G, 1380 * G, 122093568, 1873121, "ext4")
SHM = Mount("tmpfs", "/dev/shm", 1008 * G, 0, 1008 * G, 264093234, 1, "tmpfs")  # noqa: S108
CKPT = Mount(
    "10.12.0.5@o2ib:/ckpt",
    "/mnt/checkpoints",
    10 * T - 200 * G,
    10 * T - 200 * G,
    0,
    5242880,
    5242880,
    "lustre",
)

# Hand-checked: 1888G/1024 = 1.84 -> 1.9T; 1380G -> 1.35 -> 1.4T; 9.8046T -> 9.9T (ceil);
# Filesystem column widened to the Lustre source (20), numbers to 5, Use% to 4.
EXPECTED_DF_H = """\
Filesystem            Size  Used Avail Use% Mounted on
/dev/nvme0n1p2        1.9T  412G  1.4T  23% /
tmpfs                1008G     0 1008G   0% /dev/shm
10.12.0.5@o2ib:/ckpt  9.9T  9.9T     0 100% /mnt/checkpoints"""

EXPECTED_DF_I = """\
Filesystem              Inodes   IUsed     IFree IUse% Mounted on
/dev/nvme0n1p2       122093568 1873121 120220447    2% /
tmpfs                264093234       1 264093233    1% /dev/shm
10.12.0.5@o2ib:/ckpt   5242880 5242880         0  100% /mnt/checkpoints"""


def test_df_h_exact():
    assert render_df_h([ROOT, SHM, CKPT]) == EXPECTED_DF_H


def test_df_i_exact():
    assert render_df_i([ROOT, SHM, CKPT]) == EXPECTED_DF_I


def test_short_names_keep_the_minimum_widths():
    out = render_df_h([Mount("/dev/sda1", "/boot", 1 * G, 200 * 1024**2, 700 * 1024**2)])
    assert out == (
        "Filesystem      Size  Used Avail Use% Mounted on\n"
        "/dev/sda1       1.0G  200M  700M  23% /boot"
    )


def test_columns_align_on_their_edges():
    lines = render_df_h([ROOT, SHM, CKPT]).splitlines()
    mount_col = lines[0].index("Mounted on")
    pct_col = lines[0].index("%")
    avail_end = lines[0].index("Avail") + len("Avail") - 1
    for line in lines[1:]:
        assert line[mount_col] == "/" and line[mount_col - 1] == " "
        assert line[pct_col] == "%"  # Use% right-aligned under its header
        assert line[avail_end] != " " and line[avail_end + 1] == " "


def test_type_column():
    out = render_df_h([ROOT, CKPT], show_type=True).splitlines()
    assert out[0] == "Filesystem           Type    Size  Used Avail Use% Mounted on"
    assert out[2] == "10.12.0.5@o2ib:/ckpt lustre  9.9T  9.9T     0 100% /mnt/checkpoints"


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0"),
        (1023, "1023"),
        (1024, "1.0K"),
        (1025, "1.1K"),
        (9 * 1024 + 1, "9.1K"),
        (10 * 1024 - 1, "10K"),
        (10 * 1024 + 1, "11K"),
        (1023 * 1024 + 1, "1.0M"),
        (512 * G, "512G"),
        (2 * T, "2.0T"),
        (int(9.95 * G), "10G"),
    ],
)
def test_human_rounds_up_like_gnulib(n, text):
    assert human(n) == text


def test_percent_rounds_up_and_full_volume_reads_100():
    assert percent(1, 199) == "1%"
    assert percent(0, 10) == "0%"
    assert percent(5, 0) == "100%"
    assert percent(0, 0) == "-"
    # Reserved blocks: used + avail < size still reads 100% once nothing is available.
    reserved = Mount("/dev/md0", "/data", 100 * G, 95 * G, 0)
    assert render_df_h([reserved]).splitlines()[1].endswith("100% /data")


def test_impossible_mounts_rejected():
    with pytest.raises(ValueError):
        Mount("x", "/x", 10, 8, 5)
    with pytest.raises(ValueError):
        Mount("x", "/x", 10, 1, 1, inodes=1, iused=2)


def test_torch_save_enospc_traceback():
    out = render_torch_save_enospc(record=37, pos=56833600, short=108)
    lines = out.splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert (
        "RuntimeError: [enforce fail at inline_container.cc:858] . PytorchStreamWriter "
        "failed writing file data/37: file write failed"
    ) in lines
    assert "During handling of the above exception, another exception occurred:" in lines
    assert lines[-1] == (
        "RuntimeError: [enforce fail at inline_container.cc:664] . unexpected pos "
        "56833600 vs 56833492"
    )


def test_plain_write_enospc():
    assert render_enospc_oserror().splitlines()[-1] == (
        "OSError: [Errno 28] No space left on device"
    )
