"""The build's store (build/.cache/): it holds data only, so a project folder or a cache received from
someone else never runs code, and every entry that does not read back whole is made again."""
from __future__ import annotations

import shutil
from pathlib import Path

from jinja2.bccache import BytecodeCache, Bucket

from tests.conftest import ROOT, pnp

GAME = "night-market"
# PDF, JSON, PNG, fonts, SVG/XML, and fontconfig's own cache of the bundled fonts (its binary format,
# magic 0xFC02FC04, read by the C library as data)
DATA_SIGNATURES = (b"%PDF-", b"{", b"[", b"\x89PNG", b"\x00\x01\x00\x00", b"OTTO", b"wOF2", b"<", b"\x04\xfc\x02\xfc")


def _docs_game(target: Path) -> Path:
    shutil.copytree(ROOT / "tests/fixtures/docs-game", target)
    for shared in ("fonts", "icons"):
        (target / shared).symlink_to(ROOT / shared)
    return target


def _build(project: Path) -> None:
    result = pnp(project, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output


def test_compiled_templates_planted_in_the_cache_never_run(tmp_path):
    """Where the engine once kept compiled templates (build/.cache/jinja/<key>.bin, marshalled code),
    a file whose code would write a marker is planted for every template, under the exact name and
    with the exact source checksum Jinja would accept: the build compiles from source, and the
    marker never appears."""
    project = _docs_game(tmp_path / "project")
    marker = tmp_path / "planted-code-ran"
    folder = project / "build/.cache/jinja"
    folder.mkdir(parents=True)
    planted = 0
    for root in (project / "templates", ROOT / "generator/templates"):
        for path in (p for p in root.rglob("*") if p.is_file()):
            name = path.relative_to(root).as_posix()
            source = path.read_text(encoding="utf-8")
            key = BytecodeCache().get_cache_key(name, str(path))
            bucket = Bucket(None, key, BytecodeCache().get_source_checksum(source))
            bucket.code = compile(f"open({str(marker)!r}, 'w').write('ran')", name, "exec")
            (folder / f"{key}.bin").write_bytes(bucket.bytecode_to_string())
            planted += 1
    assert planted > 5
    _build(project)
    assert not marker.exists()


def test_the_store_holds_data_only(tmp_path):
    """Every file a build leaves under build/.cache/ is a PDF, JSON, a picture or a font: nothing
    that is code, pickled or marshalled."""
    project = _docs_game(tmp_path / "project")
    _build(project)
    files = [p for p in (project / "build/.cache").rglob("*") if p.is_file()]
    assert files
    for path in files:
        assert path.read_bytes()[:5].startswith(DATA_SIGNATURES), path


def test_the_engine_fingerprint_covers_every_engine_file_and_nothing_compiled(tmp_path, monkeypatch):
    """Every artifact's key holds the engine's fingerprint: any file of the engine package, code,
    built-in template or catalogue, changes it; compiled bytecode beside the sources does not."""
    from generator import fingerprint
    copy = tmp_path / "generator"
    shutil.copytree(fingerprint.ENGINE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fingerprint, "ENGINE", copy)

    def now() -> str:
        fingerprint.engine_fingerprint.cache_clear()
        return fingerprint.engine_fingerprint()
    seen = {now()}
    (copy / "__pycache__").mkdir()
    (copy / "__pycache__/x.cpython-311.pyc").write_bytes(b"compiled")
    assert now() in seen
    for name in ("sheets/booklet.py", "templates/base/rulebook.css", "locale/en/LC_MESSAGES/pnp.po"):
        path = copy / name
        assert path.is_file(), name
        path.write_bytes(path.read_bytes() + b"\n")
        seen.add(now())
    assert len(seen) == 4
    fingerprint.engine_fingerprint.cache_clear()
