"""Cards from spreadsheets: CSV (with or without a BOM, CRLF, multi-line cells), TSV and XLSX;
copies as one cell or a column per player count; the same checks as YAML, located by row and
column (and sheet)."""
from __future__ import annotations

import shutil

import pytest
from openpyxl import Workbook

from generator.source.load import load_game
from generator.source.project import Project
from tests.conftest import pnp
from tests.test_inputs import make

GOODS = "cards/inputs/goods.yaml"


@pytest.fixture
def game(tmp_path):
    return make(tmp_path / "project")


def _sheet(project, name: str, text: str, encoding="utf-8") -> None:
    (project / "cards/inputs" / name).write_bytes(text.encode(encoding))
    path = project / GOODS
    path.write_text(path.read_text(encoding="utf-8").replace("cards: goods.csv", f"cards: {name}"), encoding="utf-8")


def _cards(project):
    return load_game(Project.at(project), "inputs").decks["goods"].cards


def test_excel_csv_with_bom_crlf_and_a_multi_line_cell(game):
    deck = game / GOODS
    deck.write_text(deck.read_text().replace("    value:", "    note: {type: rich, required: false}\n    value:"))
    _sheet(game, "goods.csv", '\ufeffid,name,value,copies,note\r\nsalt,Salt,1,1,"Salt\r\nof the sea"\r\n'
                              'silk,Silk,3,1,\r\njade,Jade,5,1,\r\n')
    salt, silk, jade = _cards(game)
    assert salt.id == "salt" and salt.fields["note"] == "Salt\nof the sea" and salt.line == 2
    assert silk.line == 4 and silk.fields["value"] == 3 and isinstance(silk.fields["value"], int)
    assert jade.file == "cards/inputs/goods.csv"


def test_a_wrong_value_names_the_row_and_column(game):
    _sheet(game, "goods.csv", 'id,name,value,copies\nsalt,"Salt\nof the sea",1,1\nsilk,Silk,three,1\njade,Jade,5,x\n')
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert "cards/inputs/goods.csv:2:name: expected one line of text (use a 'rich' field for paragraphs)" in lines
    assert "cards/inputs/goods.csv:4:value: expected a whole number, got 'three'" in lines
    assert "cards/inputs/goods.csv:5:copies: expected a whole number or a mapping of player count to number" in lines
    assert "Traceback" not in result.output


def test_an_unknown_column_is_named_once_with_the_accepted_ones(game):
    _sheet(game, "goods.csv", "id,name,value,colour,copies\nsalt,Salt,1,red,1\nsilk,Silk,3,red,1\njade,Jade,5,,1\n")
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    assert result.output.count('unknown column "colour"') == 1
    assert ('cards/inputs/goods.csv:1: unknown column "colour" (hint: goods cards take: copies, id, name, '
            "source, value)") in result.output


def test_a_misspelt_column_is_one_line_at_the_header_naming_the_field_meant(game):
    """`vaule` for `value`: once at the header, with the field it is likely meant for; neither "no column
    'value'" nor 'required key is missing' for every row."""
    _sheet(game, "goods.csv", "id,name,vaule,copies\nsalt,Salt,1,1\nsilk,Silk,3,1\njade,Jade,5,1\n")
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == ['cards/inputs/goods.csv:1: unknown column "vaule" — did you mean '
                                                  '"value"?']


def test_a_misspelt_translation_column_names_the_text_field_meant(game):
    _sheet(game, "goods.csv", "id,nmae,value,copies,nmae@fr\nsalt,Salt,1,1,Sel\nsilk,Silk,3,1,Soie\n"
                              "jade,Jade,5,1,Jade\n")
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        'cards/inputs/goods.csv:1: unknown column "nmae" — did you mean "name"?',
        'cards/inputs/goods.csv:1: unknown column "nmae@fr" — did you mean "name@fr"?']


def test_a_misspelt_key_of_a_yaml_card_names_the_field_meant(game):
    people = game / "cards/inputs/people.yaml"
    people.write_text(people.read_text().replace("name: Smith", "nmae: Smith"))
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    line = next(n for n, text in enumerate(people.read_text().splitlines(), 1) if "nmae: Smith" in text)
    assert f"cards/inputs/people.yaml:{line}: card 'smith': unknown key 'nmae' — did you mean 'name'?" \
        in result.output.splitlines()


def test_copies_per_player_count_as_columns_or_one_cell(game):
    game_yaml = game / "cards/inputs/game.yaml"
    game_yaml.write_text(game_yaml.read_text().replace("      goods: {count: 3}", "      goods: {count: 4}")
                         .replace("packs:\n", "packs:\n  - players: 3\n    decks:\n      people: {count: 6}\n"
                                  "      goods: {count: 5}\n"))
    _sheet(game, "goods.tsv", "id\tname\tvalue\tcopies 2p\tcopies 3p\nsalt\tSalt\t1\t2\t3\nsilk\tSilk\t3\t1\t2\n"
                              "jade\tJade\t5\t1\t\n")
    salt, silk, jade = _cards(game)
    assert (salt.copies, silk.copies, jade.copies) == ({2: 2, 3: 3}, {2: 1, 3: 2}, {2: 1})
    _sheet(game, "goods.tsv", "id\tname\tvalue\tcopies\nsalt\tSalt\t1\t2: 2, 3: 3\nsilk\tSilk\t3\t2:1; 3:2\n"
                              "jade\tJade\t5\t2: 1\n")
    assert [c.copies for c in _cards(game)] == [{2: 2, 3: 3}, {2: 1, 3: 2}, {2: 1}]
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 0, result.output


def test_xlsx_by_sheet_name_with_the_sheet_in_each_problem(game):
    book = Workbook()
    book.active.title = "Notes"
    book.active.append(["not the cards"])
    sheet = book.create_sheet("Goods")
    for row in (["id", "name", "value", "copies"], ["salt", "Salt", 1, 1], ["silk", "Silk", 3.0, 1],
                ["jade", "Jade", "three", 1]):
        sheet.append(row)
    book.save(game / "cards/inputs/goods.xlsx")
    _sheet(game, "goods.xlsx", "")          # the deck file names it …
    (game / GOODS).write_text((game / GOODS).read_text().replace("cards: goods.xlsx", "cards: goods.xlsx#Goods"))
    book.save(game / "cards/inputs/goods.xlsx")
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    assert result.output.strip() == "cards/inputs/goods.xlsx[Goods]:4:value: expected a whole number, got 'three'"
    sheet["C4"] = 5
    book.save(game / "cards/inputs/goods.xlsx")
    salt, silk, jade = _cards(game)
    assert (salt.fields["value"], silk.fields["value"], jade.fields["value"]) == (1, 3, 5)
    (game / GOODS).write_text((game / GOODS).read_text().replace("#Goods", "#Sheet9"))
    missing = pnp(game, "validate", "inputs")
    assert missing.exit_code == 1 and "no sheet 'Sheet9' (sheets: Notes, Goods)" in missing.output


def test_an_unsupported_file_type_names_the_supported_ones(game):
    _sheet(game, "goods.ods", "whatever")
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    assert "unsupported card file type '.ods' (supported: .csv, .tsv, .xlsx, or a list of cards in YAML)" in result.output
    game_yaml = game / "cards/inputs/game.yaml"
    game_yaml.write_text(game_yaml.read_text().replace("people.yaml, goods.yaml", "people.yaml, goods.csv"))
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    assert ("cards/inputs/goods.csv: a deck file is YAML (.yaml); a spreadsheet of cards is named in one: "
            "`cards: goods.csv`") in result.output


def test_a_spreadsheet_deck_builds_and_its_edit_is_seen_by_the_stamp(game):
    args = ("build", "inputs", "--players", "2", "--paper", "a4")
    assert pnp(game, *args).exit_code == 0
    assert "up to date" in pnp(game, *args).output
    csv = game / "cards/inputs/goods.csv"
    csv.write_text(csv.read_text().replace("Jade", "Amber"))
    result = pnp(game, *args)
    assert "rendered 1 face," in result.output
    import subprocess
    text = subprocess.run(["pdftotext", str(game / "build/inputs/inputs-2p-a4.pdf"), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "Amber" in text and "Jade" not in text
    shutil.rmtree(game / "build")


def test_a_row_with_too_many_cells_an_empty_sheet_and_a_broken_workbook(game):
    _sheet(game, "goods.csv", "id,name,value,copies\nsalt,Salt,1,1\nsilk,Silk, the best,3,1\njade,Jade,5,1\n")
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    assert result.output.strip() == ("cards/inputs/goods.csv:3: 5 cells, but row 1 names 4 columns "
                                     "(hint: a cell holding a comma needs quotes around it)")
    (game / "cards/inputs/goods.csv").write_text("id,name,value,copies\n")
    result = pnp(game, "validate", "inputs")
    assert result.output.strip() == ("cards/inputs/goods.csv:1: no rows under the column names: a deck needs at "
                                     "least one card")
    (game / "cards/inputs/goods.xlsx").write_bytes(b"not a zip")
    (game / GOODS).write_text((game / GOODS).read_text().replace("cards: goods.csv", "cards: goods.xlsx"))
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1 and result.output.startswith("cards/inputs/goods.xlsx: not a readable XLSX workbook")
    assert "Traceback" not in result.output and "internal error" not in result.output


def test_a_table_takes_its_rows_from_a_spreadsheet(game):
    (game / "cards/inputs/stations.yaml").write_text(
        "table:\n  id: stations\n  name: Stations\n  fields:\n    name: {type: text}\n    stops: {type: list, of: int}\n"
        "rows: stations.csv\n")
    (game / "cards/inputs/stations.csv").write_text('id,name,stops\nnorth,North,"1;2"\nsouth,South,"3\n4"\n')
    game_yaml = game / "cards/inputs/game.yaml"
    game_yaml.write_text(game_yaml.read_text().replace("data:", "tables: [stations.yaml]\ndata:"))
    north, south = load_game(Project.at(game), "inputs").tables["stations"]
    assert (north.fields, south.fields) == ({"name": "North", "stops": [1, 2]}, {"name": "South", "stops": [3, 4]})
    assert pnp(game, "validate", "inputs").exit_code == 0
    (game / "cards/inputs/stations.csv").write_text('id,name,stops\nnorth,North,"1;x"\n')
    result = pnp(game, "validate", "inputs")
    assert result.output.strip() == "cards/inputs/stations.csv:2:stops: item 2: expected a whole number, got 'x'"


# --- hostile and broken workbooks (issue 38) -----------------------------------------------------

def _workbook(game, rows, edit=None) -> None:
    """goods.xlsx with these rows (shared strings, as a spreadsheet program writes them); `edit`
    changes the unpacked parts (name -> bytes) before they are zipped again."""
    import io
    import zipfile
    book = Workbook()
    for row in rows:
        book.active.append(row)
    out = io.BytesIO()
    book.save(out)
    parts = {i.filename: zipfile.ZipFile(out).read(i) for i in zipfile.ZipFile(out).infolist()}
    if edit:
        edit(parts)
    target = io.BytesIO()
    with zipfile.ZipFile(target, "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    _sheet(game, "goods.xlsx", "")
    (game / "cards/inputs/goods.xlsx").write_bytes(target.getvalue())


ROWS = [["id", "name", "value", "copies"], ["salt", "Salt", 1, 1], ["silk", "Silk", 3, 1], ["jade", "Jade", 5, 1]]
SHEET = "xl/worksheets/sheet1.xml"


def _with_strings(parts, prolog: bytes, reference: bytes) -> None:
    """The first shared string replaced by an entity reference, its declaration before the root."""
    strings = parts.get("xl/sharedStrings.xml")
    if strings is None:         # openpyxl writes strings inline: move one into a sharedStrings part
        strings = (b'<?xml version="1.0" encoding="UTF-8"?>\n<sst xmlns="http://schemas.openxmlformats.org/'
                   b'spreadsheetml/2006/main" count="1" uniqueCount="1"><si><t>x</t></si></sst>')
    head, _, rest = strings.partition(b"<sst")
    parts["xl/sharedStrings.xml"] = head + prolog + b"<sst" + rest.replace(b"<t>", b"<t>" + reference, 1)


@pytest.mark.parametrize("prolog, kind", [
    (b'<!DOCTYPE sst [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', "EntitiesForbidden"),
    (b'<!DOCTYPE sst [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
     b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>', "EntitiesForbidden"),
])
def test_an_xlsx_with_an_entity_is_refused_before_it_is_read(game, prolog, kind):
    _workbook(game, ROWS, lambda parts: _with_strings(parts, prolog, b"&xxe;" if b"xxe" in prolog else b"&d;"))
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1 and "root:" not in result.output
    assert result.output.splitlines() == [
        f"cards/inputs/goods.xlsx: xl/sharedStrings.xml: the XML declares an entity or DTD it may not ({kind}); a "
        "spreadsheet program never writes one (hint: save the sheet again from a spreadsheet program)"]


def test_an_xlsx_whose_dimension_understates_its_rows_keeps_every_card(game):
    import re
    _workbook(game, ROWS, lambda parts: parts.update({SHEET: re.sub(rb'<dimension ref="[^"]*"', b'<dimension ref="A2:B3"',
                                                                      parts[SHEET])}))
    import zipfile
    assert b'<dimension ref="A2:B3"' in zipfile.ZipFile(game / "cards/inputs/goods.xlsx").read(SHEET)
    assert [card.id for card in _cards(game)] == ["salt", "silk", "jade"]


def test_a_formula_without_a_saved_value_is_named_as_such(game):
    rows = [list(row) for row in ROWS]
    rows[3][2] = "=C2+C3"
    _workbook(game, rows)
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "cards/inputs/goods.xlsx[Sheet]:4:value: formula =C2+C3 has no saved value (hint: open the workbook in a "
        "spreadsheet program and save it (that stores each formula's value), or export the sheet as CSV)"]


def test_a_nul_byte_in_a_csv_is_named_at_its_line(game):
    _sheet(game, "goods.csv", "id,name,value,copies\nsalt,Salt,1,1\nsilk,Si\0lk,3,1\njade,Jade,5,1\n")
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "cards/inputs/goods.csv:3: a NUL byte (U+0000) in the text (hint: delete it: a text file holds none (was it "
        "saved by another program, or pasted?))"]


def test_an_entity_in_a_part_not_named_xml_is_refused_too(game):
    """The workbook's manifest may point its shared strings at any part name."""
    def move(parts):
        _with_strings(parts, b'<!DOCTYPE sst [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', b"&xxe;")
        parts["xl/strings.dat"] = parts.pop("xl/sharedStrings.xml")
        for name in ("xl/_rels/workbook.xml.rels", "[Content_Types].xml"):
            parts[name] = parts[name].replace(b"sharedStrings.xml", b"strings.dat")
    _workbook(game, ROWS, move)
    result = pnp(game, "validate", "inputs")
    assert result.exit_code == 1 and "root:" not in result.output
    assert result.output.splitlines() == [
        "cards/inputs/goods.xlsx: xl/strings.dat: the XML declares an entity or DTD it may not (EntitiesForbidden); "
        "a spreadsheet program never writes one (hint: save the sheet again from a spreadsheet program)"]
