"""`df -h` and `df -i` as GNU coreutils prints them, and the checkpoint write that hits a
full volume (a PyTorch `torch.save` traceback ending in ENOSPC).

The drill's stalled job is writing to a checkpoint volume that `df -h` shows at 100%.

Formatting follows GNU coreutils 9.4 (Ubuntu 24.04) src/df.c and gnulib lib/human.c:

- Columns: Filesystem, Size, Used, Avail, Use%, Mounted on (with -i: Inodes, IUsed,
  IFree, IUse%). Each column is as wide as its widest cell, never narrower than df.c's
  field_data minimum (Filesystem 14, numbers 5, percentages 4); cells are joined by one
  space; the filesystem and the mount point are left-aligned, the rest right-aligned;
  the last column is not padded (df.c print_table, MBA_NO_RIGHT_PAD).
- Sizes (-h): powers of 1024 with the suffixes K, M, G, T, P, E; human.c with df's
  default rounding, which is up (human_ceiling): below 10 one decimal is shown (2.0G,
  9.9T), from 10 on none (512G, 15T); a value that rounds up to 1024 shows as 1.0 of
  the next unit. Sizes below 1024 bytes print as plain numbers (0).
- Use%: used / (used + available) rounded up (df.c: "u100 / nonroot_total +
  (u100 % nonroot_total != 0)"), so a volume with nothing available reads 100% even when
  reserved blocks keep used below size; `-` when both are zero. IUse% likewise over
  inodes.
Manual: https://www.gnu.org/software/coreutils/manual/html_node/df-invocation.html
("-h ... Append a size letter to each size, such as 'M' for mebibytes. Powers of 1024
are used"; "a percentage of used blocks ... rounded up").

A full checkpoint volume surfaces in the job in one of two ways. torch.save (PyTorch 2.x,
zip format) writes through caffe2's PyTorchStreamWriter, which on a failed write raises
"RuntimeError: [enforce fail at inline_container.cc:858] . PytorchStreamWriter failed
writing file data/N: file write failed", and while that unwinds, closing the archive
raises "[enforce fail at inline_container.cc:664] . unexpected pos A vs B" (public
reports of checkpoints to full disks print exactly this pair; the caffe2 line numbers
are those of PyTorch 2.1 to 2.4). A plain Python write to the volume (a metadata JSON,
a log) raises "OSError: [Errno 28] No space left on device" (errno ENOSPC, man 3
errno). The serialization.py line numbers in the traceback are indicative only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil

SUFFIXES = ("", "K", "M", "G", "T", "P", "E", "Z", "Y")
BASE = 1024


@dataclass(frozen=True)
class Mount:
    """One mounted filesystem as statfs reports it (bytes and inode counts)."""

    source: str
    target: str
    size: int
    used: int
    avail: int
    inodes: int = 0
    iused: int = 0
    fstype: str = ""

    def __post_init__(self) -> None:
        if min(self.size, self.used, self.avail, self.inodes, self.iused) < 0:
            raise ValueError("sizes and counts are never negative")
        if self.used + self.avail > self.size:
            raise ValueError(f"{self.target}: used + avail exceeds size")
        if self.iused > self.inodes:
            raise ValueError(f"{self.target}: more inodes used than exist")


def human(n: int) -> str:
    """gnulib human_readable with human_autoscale | human_SI | human_base_1024 and
    df's default ceiling rounding."""
    if n < BASE:
        return str(n)
    exponent, amount = 0, n
    while amount >= BASE and exponent < len(SUFFIXES) - 1:
        amount //= BASE
        exponent += 1
    value = Fraction(n, BASE**exponent)
    if amount < 10:
        tenths = ceil(value * 10)
        if tenths < 100:
            return f"{tenths // 10}.{tenths % 10}{SUFFIXES[exponent]}"
        return f"10{SUFFIXES[exponent]}"
    whole = ceil(value)
    if whole == BASE and exponent < len(SUFFIXES) - 1:
        return f"1.0{SUFFIXES[exponent + 1]}"
    return f"{whole}{SUFFIXES[exponent]}"


def percent(used: int, avail: int) -> str:
    """df's Use%: used over used + available, rounded up; '-' when both are zero."""
    total = used + avail
    if total == 0:
        return "-"
    return f"{-(-used * 100 // total)}%"


def _table(rows: Sequence[Sequence[str]], minimum: Sequence[int], right: Sequence[bool]) -> str:
    widths = [max([m, *(len(r[c]) for r in rows)]) for c, m in enumerate(minimum)]
    out = []
    for row in rows:
        cells = []
        for c, cell in enumerate(row):
            if c == len(row) - 1:
                cells.append(cell)
            elif right[c]:
                cells.append(cell.rjust(widths[c]))
            else:
                cells.append(cell.ljust(widths[c]))
        out.append(" ".join(cells))
    return "\n".join(out)


def render_df_h(mounts: Sequence[Mount], show_type: bool = False) -> str:
    """`df -h` (or `df -hT` with show_type) over the mounts, in the order given (mount
    table order, which is what df follows)."""
    head = ["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on"]
    minimum = [14, 5, 5, 5, 4, 0]
    right = [False, True, True, True, True, False]
    rows = [head]
    for m in mounts:
        rows.append(
            [
                m.source,
                human(m.size),
                human(m.used),
                human(m.avail),
                percent(m.used, m.avail),
                m.target,
            ]
        )
    if show_type:
        rows = [
            [r[0], "Type" if i == 0 else mounts[i - 1].fstype, *r[1:]] for i, r in enumerate(rows)
        ]
        minimum = [14, 4, *minimum[1:]]
        right = [False, False, *right[1:]]
    return _table(rows, minimum, right)


def render_df_i(mounts: Sequence[Mount]) -> str:
    """`df -i`: inode counts as plain numbers; IUse% like Use%."""
    rows = [["Filesystem", "Inodes", "IUsed", "IFree", "IUse%", "Mounted on"]]
    for m in mounts:
        free = m.inodes - m.iused
        rows.append(
            [m.source, str(m.inodes), str(m.iused), str(free), percent(m.iused, free), m.target]
        )
    return _table(rows, [14, 5, 5, 5, 4, 0], [False, True, True, True, True, False])


TORCH = "/usr/local/lib/python3.10/dist-packages/torch/serialization.py"


def render_torch_save_enospc(
    record: int,
    pos: int,
    short: int,
    script: str = "/workspace/train.py",
    line: int = 412,
) -> str:
    """torch.save of a checkpoint failing on a full volume: the failed record write,
    then the archive's close finding the file shorter than it wrote (`short` bytes)."""
    return "\n".join(
        [
            "Traceback (most recent call last):",
            f'  File "{TORCH}", line 628, in save',
            "    _save(obj, opened_zipfile, pickle_module, pickle_protocol, "
            "_disable_byteorder_record)",
            f'  File "{TORCH}", line 862, in _save',
            "    zip_file.write_record(name, storage, num_bytes)",
            "RuntimeError: [enforce fail at inline_container.cc:858] . PytorchStreamWriter "
            f"failed writing file data/{record}: file write failed",
            "",
            "During handling of the above exception, another exception occurred:",
            "",
            "Traceback (most recent call last):",
            f'  File "{script}", line {line}, in <module>',
            "    save_checkpoint(model, optimizer, step, ckpt_dir)",
            f'  File "{script}", line {line - 301}, in save_checkpoint',
            "    torch.save(state, path)",
            f'  File "{TORCH}", line 627, in save',
            "    with _open_zipfile_writer(f) as opened_zipfile:",
            f'  File "{TORCH}", line 475, in __exit__',
            "    self.file_like.write_end_of_file()",
            "RuntimeError: [enforce fail at inline_container.cc:664] . unexpected pos "
            f"{pos} vs {pos - short}",
        ]
    )


def render_enospc_oserror(script: str = "/workspace/train.py", line: int = 118) -> str:
    """A plain write to the full volume (the checkpoint's metadata file): a failed
    write() names no file, unlike a failed open()."""
    return "\n".join(
        [
            "Traceback (most recent call last):",
            f'  File "{script}", line {line}, in save_checkpoint',
            "    json.dump(meta, fh)",
            '  File "/usr/lib/python3.10/json/__init__.py", line 180, in dump',
            "    fp.write(chunk)",
            "OSError: [Errno 28] No space left on device",
        ]
    )
