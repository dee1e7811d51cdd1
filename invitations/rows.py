"""Reading a bulk invitation: addresses pasted (one a line, or separated by commas,
semicolons or spaces) or a CSV file (an `email` column, else the first column). Pure: no
database, so a whole list is judged before anything is written.

Each row says its line, what was there, the address it reads as (lower case) and, when
it is bad, why. A row repeating an address already listed is not bad: it is marked and
invited once.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, replace

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

MAX_ROWS = 200
MAX_CSV_BYTES = 256 * 1024
_SEPARATORS = re.compile(r"[,;\s]+")


class Unreadable(ValueError):
    """The whole input cannot be read (not text, too many rows, no address at all)."""


@dataclass(frozen=True)
class Row:
    line: int
    raw: str
    email: str | None  # lower case, when it reads as an address
    problem: str = ""
    repeat: bool = False  # the same address as an earlier row
    source: str = "pasted"  # or "CSV"

    @property
    def bad(self) -> bool:
        return bool(self.problem)

    @property
    def where(self) -> str:
        return f"CSV line {self.line}" if self.source == "CSV" else f"line {self.line}"


def _address(raw: str) -> tuple[str | None, str]:
    text = raw.strip().strip("<>").strip()
    if not text:
        return None, "no address"
    try:
        validate_email(text)
    except ValidationError:
        return None, f"{raw.strip()!r} is not an email address"
    return text.lower(), ""


def _rows(cells: list[tuple[int, str]], source: str = "pasted") -> list[Row]:
    if not cells:
        raise Unreadable("There is no address to invite.")
    if len(cells) > MAX_ROWS:
        raise Unreadable(f"At most {MAX_ROWS} addresses at once; this has {len(cells)}.")
    seen: set[str] = set()
    rows = []
    for line, raw in cells:
        email, problem = _address(raw)
        repeat = email is not None and email in seen
        if email is not None:
            seen.add(email)
        rows.append(Row(line, raw.strip(), email, problem=problem, repeat=repeat, source=source))
    return rows


def rows_marked(rows: list[Row]) -> list[Row]:
    """Rows of two inputs (pasted and CSV) together: an address in both is a repeat."""
    seen: set[str] = set()
    out = []
    for row in rows:
        if row.email is not None:
            row = replace(row, repeat=row.email in seen)
            seen.add(row.email)
        out.append(row)
    return out


def rows_from_text(text: str) -> list[Row]:
    """Pasted addresses: every non-empty piece of every line is a row, numbered by line."""
    cells = [
        (number, piece)
        for number, line in enumerate(text.splitlines(), start=1)
        for piece in _SEPARATORS.split(line)
        if piece
    ]
    return _rows(cells)


def rows_from_csv(data: bytes) -> list[Row]:
    """A CSV file (UTF-8, a BOM allowed): the `email` column if its header has one, else
    the first column; empty lines are skipped, an empty cell is a bad row."""
    if len(data) > MAX_CSV_BYTES:
        raise Unreadable(f"The file is larger than {MAX_CSV_BYTES // 1024} KB.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Unreadable("The file is not UTF-8 text (save it as CSV UTF-8).") from None
    if "\x00" in text:
        raise Unreadable("The file is not a CSV file.")
    try:
        lines = list(csv.reader(io.StringIO(text), strict=True))
    except csv.Error as err:
        raise Unreadable(f"The file is not readable as CSV: {err}.") from None
    column, start = 0, 1
    if lines:
        header = [cell.strip().lower() for cell in lines[0]]
        if "email" in header:
            column, start = header.index("email"), 2
            lines = lines[1:]
    cells = [
        (number, (cells[column] if column < len(cells) else ""))
        for number, cells in enumerate(lines, start=start)
        if any(cell.strip() for cell in cells)
    ]
    return _rows(cells, source="CSV")
