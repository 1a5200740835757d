"""Cards from a spreadsheet: CSV, TSV or XLSX rows as a deck's cards (or a table's rows).

A deck file says `cards: goods.csv` (or `goods.xlsx`, `goods.xlsx#Sheet name`), relative to
the game folder. Row 1 names the columns, which are the deck's fields plus `id` and `copies`;
copies per player count may be one cell (`2: 1, 3: 2`) or a column per count (`copies 3p`).
Each later row is one card, located by its row (the line where it starts, for a CSV whose
cells hold line breaks) and column, so a problem reads `goods.csv:14:value: expected a whole
number, got 'three'`. CSV is read as UTF-8 with or without a byte-order mark (Excel's "CSV
UTF-8" and Google Sheets' "download as CSV" both work); XLSX is read with openpyxl.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from generator.errors import PnpError, Problem
from generator.source import reads
from generator.source.yamlsrc import LocDict, LocList

SHEET_TYPES = (".csv", ".tsv", ".xlsx")
MAX_SHEET_BYTES = 20_000_000
PER_COUNT = re.compile(r"^copies[ _@:-]?(\d+)p?$", re.I)      # "copies 3p", "copies_3", "copies@3"
TRANSLATED = re.compile(r"^([a-z_][a-z0-9_]*)@([A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)$")  # "name@en": name in English


class SheetRow(LocDict):
    """One row, as a card's mapping; `file` names the sheet, `line` its row; `translations`
    the row's `field@lang` cells ({lang: {field: text}}), an edition's text kept beside the source."""
    translations: dict


class SheetRows(LocList):
    columns: list[str]
    header_line: int = 1


def is_sheet(name: str) -> bool:
    return Path(name.split("#", 1)[0]).suffix.lower() in SHEET_TYPES


def read_sheet(folder: Path, reference: str, display: str) -> SheetRows:
    """The rows of `reference` (a file under `folder`, `#sheet` for one sheet of a workbook).
    `display` is how to name the file in problems."""
    name, _, sheet = reference.partition("#")
    path = folder / name
    suffix = path.suffix.lower()
    if suffix not in SHEET_TYPES:
        raise PnpError(Problem(display, None, f"unsupported card file type '{suffix or name}' "
                               f"(supported: {', '.join(SHEET_TYPES)}, or a list of cards in YAML)"))
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise PnpError(Problem(display, None, "file not found")) from None
    except OSError as exc:
        raise PnpError(Problem(display, None, f"cannot read file: {exc.strerror}")) from None
    reads.note(path, data)
    if len(data) > MAX_SHEET_BYTES:
        raise PnpError(Problem(display, None, f"file is {len(data) // 1_000_000} MB; the limit is "
                               f"{MAX_SHEET_BYTES // 1_000_000} MB"))
    if suffix == ".xlsx":
        where, rows = _xlsx_rows(data, sheet, display)
    else:
        where, rows = display, _text_rows(data, "\t" if suffix == ".tsv" else ",", display)
    return _as_cards(rows, where)


def _text_rows(data: bytes, delimiter: str, display: str) -> list[tuple[int, list[Any]]]:
    """(line where the row starts, cells) for each row of a CSV or TSV file."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise PnpError(Problem(display, line, "not UTF-8 text", "save or export the sheet as CSV UTF-8")) from None
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows, start = [], 1
    try:
        for cells in reader:
            rows.append((start, cells))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise PnpError(Problem(display, reader.line_num, f"unreadable {'TSV' if delimiter == chr(9) else 'CSV'}: "
                               f"{exc}")) from None
    return rows


def _xlsx_rows(data: bytes, sheet: str, display: str) -> tuple[str, list[tuple[int, list[Any]]]]:
    import zipfile

    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, ValueError, OSError) as exc:
        raise PnpError(Problem(display, None, f"not a readable XLSX workbook ({exc})")) from None
    try:
        if sheet and sheet not in book.sheetnames:
            raise PnpError(Problem(display, None, f"no sheet '{sheet}' (sheets: {', '.join(book.sheetnames)})"))
        worksheet = book[sheet] if sheet else book.worksheets[0]
        rows = [(number, list(cells)) for number, cells in enumerate(worksheet.iter_rows(values_only=True), 1)]
        return f"{display}[{worksheet.title}]", rows
    finally:
        book.close()


def _as_cards(rows: list[tuple[int, list[Any]]], where: str) -> SheetRows:
    rows = [(line, cells) for line, cells in rows if any(_blank(c) is not None for c in cells)]
    if not rows:
        raise PnpError(Problem(where, None, "the sheet is empty; row 1 names the columns (id, then the fields)"))
    header_line, header = rows[0]
    columns = [str(c).strip() if c is not None else "" for c in header]
    seen = set()
    for column in columns:
        if column and column in seen:
            raise PnpError(Problem(where, header_line, f"column '{column}' appears twice"))
        seen.add(column)
    if len(rows) == 1:
        raise PnpError(Problem(where, header_line, "no rows under the column names: a deck needs at least one card"))
    out = SheetRows()
    out.file, out.line, out.item_lines, out.columns, out.header_line = where, header_line, [], columns, header_line
    ragged = [Problem(where, line, f"{len(cells)} cells, but row {header_line} names {len(columns)} columns",
                      "a cell holding a comma needs quotes around it") for line, cells in rows[1:]
              if len([c for c in cells[len(columns):] if _blank(c) is not None])]
    if ragged:
        raise PnpError(ragged)
    for line, cells in rows[1:]:
        row = SheetRow()
        row.file, row.line, row.key_lines, row.translations = where, line, {}, {}
        per_count = {}
        for column, cell in zip(columns, cells):
            value = _blank(cell)
            if not column or value is None:
                continue
            count = PER_COUNT.match(column)
            if count:
                per_count[int(count.group(1))] = _copies(value)
                continue
            translated = TRANSLATED.match(column)
            if translated:
                row.translations.setdefault(translated.group(2), {})[translated.group(1)] = str(value)
                continue
            row[column] = _copies(value) if column == "copies" else value
            row.key_lines[column] = line
        if per_count and "copies" not in row:
            row["copies"] = per_count
            row.key_lines["copies"] = line
        out.append(row)
        out.item_lines.append(line)
    return out


def _blank(cell: Any) -> Any:
    """A cell's value; None for an empty one. Whole numbers a workbook stores as 3.0 are 3."""
    if cell is None:
        return None
    if isinstance(cell, str):
        return cell if cell.strip() else None
    if isinstance(cell, float) and cell.is_integer():
        return int(cell)
    return cell


def _copies(value: Any) -> Any:
    """`3`, or `2: 1, 3: 2` (player count: copies) as a mapping; anything else as it is, for
    the same error YAML would give."""
    if isinstance(value, int) or not isinstance(value, str):
        return value
    text = value.strip()
    if re.fullmatch(r"\d+", text):
        return int(text)
    pairs = [p.split(":") for p in re.split(r"[,;\n]", text) if p.strip()]
    if pairs and all(len(p) == 2 and p[0].strip().isdigit() and p[1].strip().isdigit() for p in pairs):
        return {int(k): int(v) for k, v in pairs}
    return value


def cell_value(kind: str, item_kind: str | None, values: list | None, value: Any) -> Any:
    """A cell's text as the value a YAML file would have given for a field of this type, when it
    reads as one; otherwise the text itself, so the usual check names what is wrong with it."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if kind in ("int", "number"):
        try:
            return int(text)
        except ValueError:
            pass
        try:
            return float(text)
        except ValueError:
            return value
    if kind == "bool":
        return {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}.get(text.lower(), value)
    if kind == "enum" and values and any(isinstance(v, int) for v in values) and re.fullmatch(r"-?\d+", text):
        return int(text)
    if kind == "list":
        parts = [p.strip() for p in re.split(r"\n|;", value) if p.strip()]
        return [cell_value(item_kind or "text", None, None, p) for p in parts]
    return value.replace("\r\n", "\n")
