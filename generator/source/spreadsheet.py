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

from generator.errors import PnpError, Problem, abbreviate
from generator.source import reads
from generator.source.files import read_regular, text_of
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
        data = read_regular(path, display, MAX_SHEET_BYTES, None)
    except FileNotFoundError:
        raise PnpError(Problem(display, None, "file not found")) from None
    except OSError as exc:
        raise PnpError(Problem(display, None, f"cannot read file: {exc.strerror}")) from None
    reads.note(path, data)
    if suffix == ".xlsx":
        where, rows = _xlsx_rows(data, sheet, display)
    else:
        where, rows = display, _text_rows(data, "\t" if suffix == ".tsv" else ",", display)
    return _as_cards(rows, where)


def _text_rows(data: bytes, delimiter: str, display: str) -> list[tuple[int, list[Any]]]:
    """(line where the row starts, cells) for each row of a CSV or TSV file."""
    text = text_of(data, display, "save or export the sheet as CSV UTF-8")
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


MAX_UNZIPPED_BYTES = 200_000_000     # a workbook of thousands of cards unpacks to a few MB


def _xlsx_rows(data: bytes, sheet: str, display: str) -> tuple[str, list[tuple[int, list[Any]]]]:
    import zipfile

    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException
    _check_xml_parts(data, display)
    try:
        book = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, InvalidFileException, KeyError, ValueError, OSError, SyntaxError) as exc:
        raise PnpError(Problem(display, None, f"not a readable XLSX workbook ({exc})")) from None
    try:
        if sheet and sheet not in book.sheetnames:
            raise PnpError(Problem(display, None, f"no sheet '{sheet}' (sheets: {', '.join(book.sheetnames)})"))
        worksheet = book[sheet] if sheet else book.worksheets[0]
        where = f"{display}[{worksheet.title}]"
        rows = _all_rows(worksheet, where)
    finally:
        book.close()
    if any(cell is None for _, cells in rows for cell in cells):
        _formulas_without_values(data, worksheet.title, rows, where)
    return where, rows


def _all_rows(worksheet, where: str) -> list[tuple[int, list[Any]]]:
    """Every row, whatever the sheet's `<dimension>` says: a tool that writes it too small would
    drop the last cards without a word."""
    from xml.etree.ElementTree import ParseError
    worksheet.reset_dimensions()
    try:
        return [(number, list(cells)) for number, cells in
                enumerate(worksheet.iter_rows(min_row=1, min_col=1, values_only=True), 1)]
    except (ParseError, ValueError, KeyError, TypeError) as exc:
        raise PnpError(Problem(where, None, f"not a readable XLSX sheet ({exc})")) from None


def _formulas_without_values(data: bytes, title: str, rows, where: str) -> None:
    """An empty cell that holds a formula has no saved value (a workbook written by a program that
    does not calculate): say so, rather than report a missing field."""
    from openpyxl import load_workbook
    from openpyxl.utils import get_column_letter
    book = load_workbook(io.BytesIO(data), read_only=True, data_only=False)
    try:
        formulas = _all_rows(book[title], where)
    finally:
        book.close()
    header = next((cells for _, cells in rows if any(c is not None for c in cells)), [])
    for (line, cells), (_, written) in zip(rows, formulas):
        for index, (cell, formula) in enumerate(zip(cells, written)):
            if cell is None and isinstance(formula, str) and formula.startswith("="):
                column = header[index] if index < len(header) and header[index] else get_column_letter(index + 1)
                raise PnpError(Problem(where, line, f"formula {abbreviate(formula, 60)} has no saved value",
                                       "open the workbook in a spreadsheet program and save it (that stores each "
                                       "formula's value), or export the sheet as CSV", column=str(column)))


def _check_xml_parts(data: bytes, display: str) -> None:
    """Before openpyxl reads the workbook: its unpacked size is bounded (a zip bomb), and no XML
    part declares an entity (an external entity reads a file of this machine, nested ones are a
    billion laughs). A spreadsheet program never writes either. defusedxml's parser refuses
    them, and a declaration comes before the first element, so only each part's start is read."""
    import zipfile
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise PnpError(Problem(display, None, f"not a readable XLSX workbook ({exc})")) from None
    if sum(m.file_size for m in members) > MAX_UNZIPPED_BYTES:
        raise PnpError(Problem(display, None, f"unpacks to more than {MAX_UNZIPPED_BYTES // 1_000_000} MB: not a "
                               "workbook of cards (a zip bomb?)"))
    for member in members:
        try:
            with archive.open(member) as part:
                if not part.peek(64)[:64].lstrip().startswith(b"<"):
                    continue            # a picture or binary part: no XML (the manifest may name any part)
                for _ in iterparse(part, events=("start",)):
                    break
        except DefusedXmlException as exc:
            raise PnpError(Problem(display, None, f"{member.filename}: the XML declares an entity or DTD it may "
                                   f"not ({type(exc).__name__}); a spreadsheet program never writes one",
                                   "save the sheet again from a spreadsheet program")) from None
        except (ParseError, zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
            raise PnpError(Problem(display, None, f"not a readable XLSX workbook ({member.filename}: {exc})")) from None


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
