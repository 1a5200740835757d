"""An edition's packs made by two processes (sheets/parallel_packs.py): the same files, said in the
same order, as one process makes; what the helper read reaches the edition's stamp; a helper's refusal is
the build's error; a helper that fails leaves its packs to the build."""
from __future__ import annotations

import json
import os

import pytest

from generator.errors import PnpError, Problem
from generator.sheets import parallel_packs
from generator.sheets.pack import Written
from generator.sheets.parallel_packs import packs_written
from generator.source import reads
from tests.conftest import make_project, pnp, seed_store

TODO = [(f"{n}p", paper) for n in (2, 3, 4) for paper in ("a4", "letter")]    # six packs: three each


def _write_one(refuse: tuple | None = None, crash: tuple | None = None):
    def write_one(pack, paper):
        reads.note_hash(f"/inputs/{pack}-{paper}", "sha")
        if (pack, paper) == refuse:
            raise PnpError(Problem(f"build/{pack}-{paper}.pdf", None, "preflight: refused"))
        if (pack, paper) == crash and os.getpid() != PARENT:
            os._exit(3)                         # the helper dies without a word
        return Written(f"{pack}-{paper}", {"pid": os.getpid()}, True), {"file": f"{pack}-{paper}.pdf"}
    return write_one


PARENT = os.getpid()


def test_half_the_packs_are_made_by_a_helper_and_come_back_in_order_with_what_it_read():
    with reads.recording() as log:
        done = list(packs_written(TODO, _write_one(), jobs=2))
    assert [(d.pack, d.paper) for d in done] == TODO
    pids = [d.report["pid"] for d in done]
    assert pids[0::2] == [PARENT] * 3 and len(set(pids[1::2])) == 1 and pids[1] != PARENT     # six alike: turn about
    assert sorted(log.files) == sorted(f"/inputs/{p}-{q}" for p, q in TODO)
    assert [d.manifest["file"] for d in done] == [f"{p}-{q}.pdf" for p, q in TODO]


def test_one_core_or_one_pack_makes_them_all_here():
    done = list(packs_written(TODO, _write_one(), jobs=1))
    assert {d.report["pid"] for d in done} == {PARENT}
    one, = packs_written(TODO[:1], _write_one(), jobs=2, weights=[0])
    assert one.report == {"pid": PARENT} and (one.pack, one.paper) == TODO[0]


def test_a_pack_the_helper_refuses_is_the_builds_error_after_the_packs_before_it():
    done = []
    with pytest.raises(PnpError) as refused:
        for one in packs_written(TODO, _write_one(refuse=("4p", "letter")), jobs=2):
            done.append((one.pack, one.paper))
    assert done == TODO[:5]
    assert str(refused.value) == "build/4p-letter.pdf: preflight: refused"


def test_a_helper_that_dies_leaves_its_packs_to_the_build():
    done = list(packs_written(TODO, _write_one(crash=("3p", "letter")), jobs=2))
    assert [(d.pack, d.paper) for d in done] == TODO
    assert {d.report["pid"] for d in done} == {PARENT}


def test_no_process_to_fork_makes_them_all_here(monkeypatch):
    def no_fork(work):
        raise OSError("no process")
    monkeypatch.setattr(parallel_packs, "Helper", no_fork)
    done = list(packs_written(TODO, _write_one(), jobs=2))
    assert {d.report["pid"] for d in done} == {PARENT}


def test_an_edition_made_by_two_processes_is_the_one_one_process_makes(tmp_path, cephiro_built):
    """The session's cephiro was built on every core (two processes here); built again on one core
    from the same store of faces and drawings, every pack of the edition has the same bytes, and
    its stamp covers the same files read."""
    project = make_project(tmp_path / "project", ["cephiro-pillar"])
    seed_store(project, [cephiro_built])
    result = pnp(project, "build", "cephiro-pillar", "--lang", "zh-Hans", "--jobs", "1")
    assert result.exit_code == 0, result.output
    ours, theirs = project / "build/cephiro-pillar", cephiro_built.folder
    packs = sorted(p.name for p in ours.glob("cephiro-pillar-*-zh-Hans.*"))
    assert len(packs) == 20                  # four player counts and the rulebook, two papers, PDF and manifest
    for name in packs:
        assert (ours / name).read_bytes() == (theirs / name).read_bytes(), name
    stamp = ".edition-zh-Hans.json"
    read = [json.loads((folder / stamp).read_text(encoding="utf-8"))["builds"][0]["read"] for folder in (ours, theirs)]
    assert read[0].keys() == read[1].keys() and read[0]


def test_the_split_weighs_the_packs():
    """Each pack, heaviest first, goes to the process with less work so far; the build keeps the first
    (made while the faces rendered). reverse-wizard's edition as weighed (its 4-player A4 pack made
    ahead, then the other 4- and 3-player packs, then two small extras packs): the helper takes one
    pack of each player count, the build the rest."""
    from generator.sheets.parallel_packs import _shares
    assert _shares([198, 396, 380, 380, 101, 101]) == {1, 3}
    assert _shares([1] * 6) == {1, 3, 5} and _shares([1, 1]) == {1} and _shares([0, 9]) == {1}
    assert _shares([5, 1, 1, 1]) == {1, 2, 3} and _shares([9, 1]) == {1}
