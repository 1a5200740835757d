"""The shipped games as a group plays them: every pack holds its rulebook, whose setup states that
pack's own figures (computed by the game's rules module, read back from the PDF), and every English
page is English."""
from __future__ import annotations

import re
import subprocess

import pytest

from tests.conftest import GAMES, built

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def _pages_text(path, numbers=None) -> list[str]:
    """Each page's text as poppler's pdftotext reads it (a form feed ends each page)."""
    pages = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"], capture_output=True, text=True,
                           check=True).stdout.split("\f")[:-1]
    return [pages[n - 1] for n in numbers] if numbers else pages


def _rulebook_text(kit, manifest) -> str:
    numbers = [e["number"] for e in manifest["pages"] if e["role"] == "rulebook"]
    assert numbers, "the pack has no rulebook"
    return re.sub(r"\s+", "", "".join(_pages_text(kit.folder / manifest["file"], numbers)))


@pytest.mark.parametrize("game", GAMES)
def test_every_pack_holds_its_rulebook(tmp_path_factory, game):
    kit = built(tmp_path_factory, game)
    for path in sorted(kit.folder.glob(f"{game}-*.json")):
        if "-rules-" in path.name or "-cut" in path.name:
            continue
        import json
        manifest = json.loads(path.read_text(encoding="utf-8"))
        assert any(c["kind"] == "rulebook" for c in manifest["components"]), path.name
        assert any(e["role"] == "rulebook" for e in manifest["pages"]), path.name
    for paper in ("a4", "letter"):
        for lang in ("zh-Hans", "en"):
            assert (kit.folder / f"{game}-rules-{paper}-{lang}.pdf").is_file()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_cephiro_setup_states_the_packs_own_figures(cephiro_built, players):
    """塞菲罗支柱 3 players: 24 power cards, stability 9 — from rules.py and the pack, not typed."""
    from generator.source.load import load_game
    from generator.source.project import Project
    from generator.check.validate import derive
    project = Project.at(cephiro_built.project)
    game = load_game(project, "cephiro-pillar")
    assert derive(project, game) == []
    stability = game.derived["stability_start"][players]
    zh = cephiro_built.manifest(players, "a4")
    power = next(c for c in zh["components"] if c["id"] == "power")["count"]
    text = _rulebook_text(cephiro_built, zh)
    assert f"稳定度起始{stability}" in text
    assert re.search(rf"战力卡「心愿之刃」{power}张", text), text[:400]
    en = _load(cephiro_built, f"cephiro-pillar-{players}p-a4-en.json")
    text = _rulebook_text(cephiro_built, en)
    assert f"Stabilitystartsat{stability}" in text
    assert re.search(rf"[“\"]?WishBlade[”\"]?{power}", text), text[:400]
    if players == 3:
        assert (stability, power) == (9, 24)          # the issue's own example


def _load(kit, name):
    import json
    return json.loads((kit.folder / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("game", GAMES)
def test_english_packs_print_no_chinese(tmp_path_factory, game):
    kit = built(tmp_path_factory, game)
    for path in sorted(kit.folder.glob(f"{game}-*-a4-en.pdf")):
        for number, text in enumerate(_pages_text(path), 1):
            found = CJK.findall(text)
            assert not found, f"{path.name} page {number}: {''.join(found)[:40]}"
