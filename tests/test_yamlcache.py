"""generator/source/yamlcache.py: a large card file parsed again only where it changed gives
exactly the whole parse's value and lines, and anything it cannot cut safely is parsed whole."""
import json
import random

import pytest

from generator.errors import PnpError
from generator.source import yamlcache
from generator.source.yamlsrc import MIN_CHUNKED_BYTES, LocDict, LocList, load_yaml

HEAD = "# a deck\ndeck:\n  id: spells\n  fields:\n    title: {type: text}\n  tags:\n    - a\n    - b\ncards:\n"


def _flow(count: int) -> list[str]:
    return [f'  - {{id: c{i}, title: "Card {i} 第{i}张", cost: {i % 7}, rare: {str(i % 5 == 0).lower()}}}\n'
            for i in range(count)]


def _block(count: int) -> list[str]:
    """Items over several lines: nested mappings and lists, a block scalar, comments, a number
    that is a float, an empty value."""
    items = []
    for i in range(count):
        items.append(f"  - id: b{i}\n    # a comment inside\n    title: Card {i}\n    cost: {i * 0.5}\n"
                     f"    stats: {{atk: {i % 9}, def: {i % 4}}}\n    keywords:\n      - swift\n      - k{i % 3}\n"
                     f"    text: |\n      Line one of {i}.\n      - not an item\n\n      # not a comment\n"
                     f"    empty:\n\n")
    return items


def _shape(value):
    """Everything a later check can see: values, types, files and every line."""
    if isinstance(value, LocDict):
        return ("m", value.file, value.line, [(k, type(k), value.key_lines[k], _shape(v)) for k, v in value.items()])
    if isinstance(value, LocList):
        return ("l", value.file, value.line, value.item_lines, [_shape(v) for v in value])
    return (type(value).__name__, value)


class Deck:
    """A card file in tmp_path, loaded with its record and compared with the whole parse."""

    def __init__(self, tmp_path, items: list[str], head: str = HEAD):
        self.path, self.record = tmp_path / "cards.yaml", tmp_path / "record.json"
        self.head, self.items = head, items

    def text(self) -> str:
        return self.head + "".join(self.items)

    def load(self):
        """(chunked value, whole value, how many chunks were parsed alone)."""
        self.path.write_text(self.text(), encoding="utf-8")
        parsed = []
        real = yamlcache.yaml.load

        def counting(text, Loader):
            parsed.append(text)
            return real(text, Loader=Loader)

        yamlcache.yaml.load = counting
        try:
            chunked = load_yaml(self.path, "cards/x/cards.yaml", self.record)
        finally:
            yamlcache.yaml.load = real
        whole = load_yaml(self.path, "cards/x/cards.yaml")
        alone = [text for text in parsed if not text.startswith(self.head)]   # a chunk parsed alone
        return chunked, whole, len(alone)


@pytest.mark.parametrize("make", [_flow, _block])
def test_edits_insertions_deletions_and_moves_give_the_whole_parse(tmp_path, make):
    deck = Deck(tmp_path, make(1200))
    assert len(deck.text().encode()) >= MIN_CHUNKED_BYTES
    first, whole, _ = deck.load()
    assert _shape(first) == _shape(whole) and deck.record.is_file()
    rng = random.Random(7)
    for round_ in range(12):
        recorded = _recorded(deck)
        i = rng.randrange(len(deck.items))
        kind = round_ % 4
        if kind == 0:                                   # one card edited
            deck.items[i] = deck.items[i].replace("Card", "Carte", 1)
        elif kind == 1:                                 # one inserted: every later line moves
            deck.items.insert(i, deck.items[i].replace("id: ", "id: new", 1))
        elif kind == 2:                                 # one deleted
            del deck.items[i]
        else:                                           # two swapped
            j = rng.randrange(len(deck.items))
            deck.items[i], deck.items[j] = deck.items[j], deck.items[i]
        chunked, whole, alone = deck.load()
        assert _shape(chunked) == _shape(whole), round_
        # only the chunks the record does not hold (edited or inserted since it was written)
        assert alone == sum(item not in recorded for item in deck.items) <= 6, round_


def _recorded(deck) -> set[str]:
    return set(json.loads(deck.record.read_text(encoding="utf-8"))["chunks"])


def test_the_record_is_written_again_once_enough_chunks_are_new(tmp_path):
    """1,200 cards: one edited leaves the record as it was (that chunk is parsed alone next time
    too); five edited (more than one in 256) write it again, holding them."""
    deck = Deck(tmp_path, _flow(1200))
    deck.load()
    written = deck.record.read_bytes()
    deck.items[7] = deck.items[7].replace("Card", "Carte", 1)
    assert deck.load()[2] == 1 and deck.record.read_bytes() == written
    assert deck.load()[2] == 1 and deck.record.read_bytes() == written
    for i in (100, 200, 300, 400):
        deck.items[i] = deck.items[i].replace("Card", "Carte", 1)
    chunked, whole, alone = deck.load()
    assert alone == 5 and _shape(chunked) == _shape(whole) and deck.record.read_bytes() != written
    assert set(deck.items) <= _recorded(deck)
    assert deck.load()[2] == 0


def test_windows_line_ends_and_items_at_the_margin(tmp_path):
    items = [line.replace("  - ", "- ", 1).replace("\n", "\r\n") for line in _flow(1500)]
    deck = Deck(tmp_path, items, HEAD.replace("\n", "\r\n"))
    deck.load()
    deck.items[700] = deck.items[700].replace("Card", "Karte")
    chunked, whole, alone = deck.load()
    assert _shape(chunked) == _shape(whole) and alone == 1
    assert chunked["cards"].line_of(700) == whole["cards"].line_of(700) == HEAD.count("\n") + 701


@pytest.mark.parametrize("head, tail", [
    ("%YAML 1.1\n---\n" + HEAD, ""),                  # a directive and a document marker
    (HEAD, "other: 1\n"),                               # a key after the sequence
    (HEAD.replace("cards:", "cards: # the cards"), "  # the end\n"),   # (this one is cut)
])
def test_what_cannot_be_cut_safely_is_parsed_whole(tmp_path, head, tail):
    deck = Deck(tmp_path, _flow(1500) + [tail], head)
    assert (yamlcache.cut(deck.text()) is None) == (not tail.startswith("  #"))
    deck.load()
    deck.items[3] = deck.items[3].replace("Card", "Karte")
    chunked, whole, alone = deck.load()
    assert _shape(chunked) == _shape(whole)
    assert alone == (1 if tail.startswith("  #") else 0)


def test_an_alias_to_a_changed_anchor_is_never_stale(tmp_path):
    deck = Deck(tmp_path, _flow(1500))
    deck.items[5] = '  - &base {id: c5, title: "Old"}\n'
    deck.items[900] = "  - {<<: *base, id: c900}\n"
    deck.load()
    deck.items[5] = '  - &base {id: c5, title: "New"}\n'
    chunked, whole, _ = deck.load()
    assert chunked["cards"][900]["title"] == whole["cards"][900]["title"] == "New"


@pytest.mark.parametrize("bad, line", [
    ('  - {id: c700, title: "unterminated}\n', 710),
    ("  - {id: c700, id: c701}\n", 710),
])
def test_a_problem_in_a_changed_card_is_the_whole_files_problem(tmp_path, bad, line):
    deck = Deck(tmp_path, _flow(1500))
    deck.load()
    deck.items[700] = bad
    deck.path.write_text(deck.text(), encoding="utf-8")
    with pytest.raises(PnpError) as whole:
        load_yaml(deck.path, "cards/x/cards.yaml")
    with pytest.raises(PnpError) as chunked:
        load_yaml(deck.path, "cards/x/cards.yaml", deck.record)
    assert str(chunked.value) == str(whole.value)
    assert whole.value.problems[0].line >= line


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],
    lambda text: "[]",
    lambda text: text.replace('"m"', '"x"'),
    lambda text: text.replace("Card 3 ", "Changed by hand ", 1).replace('"fingerprint":"', '"fingerprint":"0'),
])
def test_a_damaged_record_is_ignored(tmp_path, damage):
    deck = Deck(tmp_path, _flow(1500))
    deck.load()
    deck.record.write_text(damage(deck.record.read_text(encoding="utf-8")), encoding="utf-8")
    deck.items[3] = deck.items[3].replace("Card", "Karte")
    chunked, whole, _ = deck.load()
    assert _shape(chunked) == _shape(whole)


def test_values_json_cannot_keep_are_parsed_each_time(tmp_path):
    deck = Deck(tmp_path, _flow(1500))
    deck.items[10] = "  - {id: c10, when: 2024-05-01, big: 123456789012345678901234567890, odd: .inf}\n"
    deck.load()
    deck.items[20] = deck.items[20].replace("Card", "Karte")
    chunked, whole, alone = deck.load()
    assert _shape(chunked) == _shape(whole) and alone == 2          # the changed card and c10
    assert type(chunked["cards"][10]["when"]).__name__ == "date"


def test_small_files_are_parsed_whole_and_leave_no_record(tmp_path):
    deck = Deck(tmp_path, _flow(20))
    chunked, whole, _ = deck.load()
    assert _shape(chunked) == _shape(whole) and not deck.record.exists()


def test_an_anchor_defined_twice_is_the_whole_files_error(tmp_path):
    """Alone, each chunk has one anchor; the whole file has two of that name."""
    for head in (HEAD, HEAD.replace("deck:", "deck: &t")):
        deck = Deck(tmp_path, _flow(1500))
        deck.head = head
        deck.load()
        deck.items[7] = "  - {id: c7, title: &t Seven}\n"
        if head == HEAD:
            deck.items[9] = "  - {id: c9, title: &t Nine}\n"
        deck.path.write_text(deck.text(), encoding="utf-8")
        with pytest.raises(PnpError) as whole:
            load_yaml(deck.path, "cards/x/cards.yaml")
        with pytest.raises(PnpError) as chunked:
            load_yaml(deck.path, "cards/x/cards.yaml", deck.record)
        assert str(chunked.value) == str(whole.value)


def test_text_with_stars_and_ampersands_is_kept(tmp_path):
    """Cards whose text has "**bold**" or "&" hold no anchor or alias: they are kept like any other."""
    items = _flow(1500)
    for i in range(0, 1500, 10):
        items[i] = f'  - {{id: c{i}, title: "Fire & Ice", body: "Deal **{i}** damage"}}\n'
    deck = Deck(tmp_path, items)
    deck.load()
    deck.items[5] = deck.items[5].replace("Card", "Karte")
    chunked, whole, alone = deck.load()
    assert _shape(chunked) == _shape(whole) and alone == 1
    deck.items[20] = deck.items[20].replace("Fire", "Frost")     # a changed one of them, parsed alone
    chunked, whole, alone = deck.load()
    assert _shape(chunked) == _shape(whole) and alone == 2       # with card 5's (one in 1,500: not recorded)
    assert deck.items[0] in _recorded(deck) and deck.items[20] not in _recorded(deck)


@pytest.mark.parametrize("item", [
    "  - {id: c7, 99999999999999999999: big}\n",           # a key JSON cannot keep
    "  - {id: c7, .nan: odd}\n",
    "  - {id: c7, deep: " + "[" * 130 + "x" + "]" * 130 + "}\n",   # deeper than orjson writes
])
def test_a_value_the_record_cannot_hold_is_parsed_each_time_without_a_traceback(tmp_path, item):
    deck = Deck(tmp_path, _flow(1500))
    deck.load()
    deck.items[7] = item
    for _ in range(2):
        chunked, whole, alone = deck.load()
        assert _shape(chunked) == _shape(whole) and alone == 1


def test_values_nested_too_deeply_are_one_line_with_or_without_a_record(tmp_path):
    deck = Deck(tmp_path, _flow(1500))
    deck.load()
    deck.items[7] = "  - {id: c7, deep: " + "[" * 400 + "x" + "]" * 400 + "}\n"
    deck.path.write_text(deck.text(), encoding="utf-8")
    for record in (None, deck.record):
        with pytest.raises(PnpError) as error:
            load_yaml(deck.path, "cards/x/cards.yaml", record)
        assert str(error.value) == ("cards/x/cards.yaml: invalid YAML: values nested too deeply "
                                    "(hint: a card's data is a few levels deep; look for unclosed [ or {)")


def _items_by_pattern(text: str, begin: int, indent: str):
    """What yamlcache._items must give, said as the two patterns it replaces: an item is a line of
    `indent` spaces, "-", then a space, a line end or the text's end; any other line as indented
    or less that is not blank nor a comment means the sequence is not the file's end (None)."""
    import re
    item = re.compile(rf"^{indent}-(?: |\r?\n|$)", re.M)
    other = re.compile(rf"^(?!{indent}-(?: |\r?\n|$)) {{0,{len(indent)}}}[^ \r\n#]", re.M)
    if other.search(text, begin):
        return None
    positions = [m.start() for m in item.finditer(text, begin)]
    return positions, [text.count("\n", 0, p) for p in positions]


def test_items_are_the_lines_the_item_pattern_finds():
    """Random files of item lines, keys, comments, blanks, tabs, CR LF and bare CR endings."""
    rng = random.Random(11)
    pieces = ["  - a: 1", "  -", "  -\r", "  - ", "    b: 2", "  # c", "", " x: 1", "  -x", "\t- y", "   - z",
              "  -\tq", "k:", "  ", "#", "  - {id: 1}", "\r", " -", "-", "  -  ", "    - deep"]
    checked = 0
    for _ in range(4000):
        lines = ["cards:"] + [rng.choice(pieces) for _ in range(rng.randint(1, 8))]
        text = rng.choice(["\n", "\r\n"]).join(lines) + rng.choice(["", "\n", "\r", "\r\n"])
        first = next(yamlcache._ITEM.finditer(text), None)
        if first is not None:
            checked += 1
            assert yamlcache._items(text, first.start(), len(first.group(1))) == \
                _items_by_pattern(text, first.start(), first.group(1)), repr(text)
    assert checked > 3000
