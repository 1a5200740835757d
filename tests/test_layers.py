"""The engine's folders are its pipeline: a module imports only down the pipeline or inside its stage.

source → check → render → sheets → export → commands; the foundations (errors, atomic, geometry, versions, pdfbytes, processes,
filehash, fingerprint) sit
below every stage and import none. A lower stage importing a higher one fails here, naming both.
"""
from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "generator"
STAGES = ["source", "check", "render", "sheets", "export", "commands"]
FOUNDATIONS = {"errors", "atomic", "geometry", "versions", "pdfbytes", "processes", "filehash", "fingerprint",
               "__init__"}
ENTRY = "__main__"          # `python -m generator`: above every stage


def _level(module: str) -> int:
    """-1 for a foundation, else the stage's place in the pipeline."""
    parts = module.split(".")
    if parts[0] != "generator":
        raise ValueError(module)
    if len(parts) == 2 and parts[1] == ENTRY:
        return len(STAGES)
    if len(parts) == 1 or parts[1] in FOUNDATIONS:
        return -1
    return STAGES.index(parts[1])


def _imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("generator"):
            names = [node.module] if node.module != "generator" else [f"generator.{a.name}" for a in node.names]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("generator")]
    return found


def _module(path: Path) -> str:
    return ".".join(("generator",) + path.relative_to(ENGINE).with_suffix("").parts)


def test_every_engine_module_is_in_a_stage_or_a_foundation():
    for path in ENGINE.rglob("*.py"):
        parts = path.relative_to(ENGINE).parts
        if parts[0] == "scaffold":
            continue
        assert (parts[0] in STAGES and len(parts) == 2) or (len(parts) == 1 and path.stem in FOUNDATIONS | {ENTRY}), path


def test_imports_go_down_the_pipeline_or_stay_in_their_stage():
    wrong = []
    for path in sorted(ENGINE.rglob("*.py")):
        if "scaffold" in path.parts:
            continue
        mine = _level(_module(path))
        for line, name in _imports(path):
            if name == "generator.__version__":
                continue
            theirs = _level(name)
            if theirs > mine or (mine == -1 and theirs != -1):
                wrong.append(f"{path.relative_to(ENGINE)}:{line} imports {name}")
    assert wrong == []


def test_the_layer_check_catches_an_upward_import(tmp_path):
    """The check above can fail: a source module importing sheets is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("from generator.sheets.pack import PackBuilder\n")
    assert [n for _, n in _imports(bad)] == ["generator.sheets.pack"]
    assert _level("generator.sheets.pack") > _level("generator.source.load")


def test_no_engine_file_names_a_shipped_game():
    """A game is data + templates + one rules module: the engine never mentions one by id or title."""
    import yaml
    cards = ENGINE.parent / "cards"
    names = set()
    for spec in cards.glob("*/game.yaml"):
        data = yaml.safe_load(spec.read_text(encoding="utf-8"))
        names |= {data["id"], data["title"].split("：")[0]}
    assert len(names) >= 6
    hits = [f"{path.relative_to(ENGINE)} names {name}" for path in ENGINE.rglob("*") if path.is_file()
            and path.suffix in {".py", ".html", ".css", ".yaml", ".md", ".po"}
            for name in names if name in path.read_text(encoding="utf-8")]
    assert hits == []
