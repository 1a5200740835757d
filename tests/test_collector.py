"""What a build loads is kept out of the cyclic collector's walk (generator/collector.py), and a
long-lived process (pnp watch) still gets back what it froze and let go."""
import gc
import weakref

from generator.atomic import read_record, write_record
from generator.collector import LARGE, collect_frozen, loading
from generator.source.yamlsrc import load_yaml
from generator.source.assets import Assets
from generator.source.project import Project
from tests.conftest import make_project, pnp


class Node:
    """A weakly referenceable object that can sit in a reference cycle."""


def _collections_during(action) -> list[int]:
    """The generations the collector collected while action ran."""
    seen = []

    def note(phase, info):
        if phase == "start":
            seen.append(info["generation"])
    gc.callbacks.append(note)
    try:
        action()
    finally:
        gc.callbacks.remove(note)
    return seen


def test_a_large_yaml_file_loads_without_a_collection_and_is_frozen_after(tmp_path):
    cards = tmp_path / "cards.yaml"
    cards.write_text("cards:\n" + "".join(f"  - {{id: c{i}, title: 第{i}张, body: [a, b]}}\n" for i in range(20000)),
                     encoding="utf-8")
    assert cards.stat().st_size >= LARGE
    frozen = gc.get_freeze_count()
    loaded = []
    assert _collections_during(lambda: loaded.append(load_yaml(cards, "cards.yaml"))) == []
    data = loaded[0]
    assert len(data["cards"]) == 20000 and data["cards"].line_of(19999) == 20001
    assert gc.get_freeze_count() >= frozen + 20000          # every card's mapping at least
    assert not any(gc.is_tracked(o) and o is data for o in gc.get_objects())
    collect_frozen()


def test_a_record_loads_without_a_collection_and_is_frozen_after(tmp_path):
    write_record(tmp_path / "index.json", {f"face{i}": [str(i), {"in": "sha"}, [1, 2, 3, 4]] for i in range(20000)})
    assert (tmp_path / "index.json").stat().st_size >= LARGE
    frozen = gc.get_freeze_count()
    loaded = []
    assert _collections_during(lambda: loaded.append(read_record(tmp_path / "index.json"))) == []
    assert loaded[0]["face19999"][2] == [1, 2, 3, 4]
    assert gc.get_freeze_count() >= frozen + 20000
    collect_frozen()


def test_garbage_frozen_with_a_load_is_collected_between_rebuilds():
    cycle = Node()
    cycle.itself = cycle
    gone = weakref.ref(cycle)
    with loading(LARGE):
        pass                        # freezes the cycle with everything else
    del cycle
    gc.collect()
    assert gone() is not None       # frozen: out of the collector's reach
    collect_frozen()
    assert gone() is None
    assert gc.get_freeze_count() > 0 and gc.isenabled()


def test_the_collector_is_enabled_again_after_a_failed_load(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    try:
        read_record(bad)
    except ValueError:
        pass
    assert gc.isenabled()


def test_a_small_game_builds_without_freezing_its_garbage(tmp_path):
    """Only large loads freeze (collector.py): a build of a shipped game, whose files are small,
    leaves what it rendered to the collector (freezing at every small load pinned hundreds of MB of
    page layouts in a build of every game)."""
    project = make_project(tmp_path / "project", ["cephiro-pillar"])
    collect_frozen()
    frozen = gc.get_freeze_count()
    for _ in range(2):              # cold, then a rebuild that reads every record
        result = pnp(project, "build", "cephiro-pillar", "--players", "2", "--paper", "a4")
        assert result.exit_code == 0, result.output
    assert gc.get_freeze_count() <= frozen      # (frozen objects freed meanwhile count no more)


def test_what_a_command_is_done_with_is_kept_one_thing_at_a_time_and_let_go_between_rebuilds():
    """keep_till_exit holds the last thing of each kind it was given (the next replaces it, so a
    process that builds again and again does not grow); collect_frozen, which pnp watch calls after
    a rebuild, lets them go."""
    from generator.collector import keep_till_exit
    first, second = Node(), Node()
    first_ref, second_ref = weakref.ref(first), weakref.ref(second)
    other = Node()
    other_ref = weakref.ref(other)
    keep_till_exit("a kind", first)
    keep_till_exit("another kind", other)
    del first, other
    assert first_ref() is not None and other_ref() is not None
    keep_till_exit("a kind", second)
    del second
    assert first_ref() is None and second_ref() is not None and other_ref() is not None
    collect_frozen()
    assert second_ref() is None and other_ref() is None


def test_a_build_collects_its_young_objects_less_often_and_its_render_workers_as_python_does(tmp_path, monkeypatch):
    """collector.building: while build_game runs, the youngest generation is collected every
    BUILD_YOUNG allocations (what a build makes mostly lives as long as it); afterwards, and in a
    render worker forked meanwhile (WeasyPrint's layouts are cycles), at Python's own thresholds.
    `pnp build`, whose process ends with its builds, keeps BUILD_YOUNG (collect_less_often)."""
    from generator.collector import BUILD_YOUNG, PYTHON_DEFAULT, building
    from generator.render.workers import worker_pool
    from generator.sheets import kit
    seen = []
    real = kit.check_game
    monkeypatch.setattr(kit, "check_game", lambda *args, **kwargs: seen.append(gc.get_threshold()) or real(*args, **kwargs))
    before = gc.get_threshold()
    project = make_project(tmp_path / "project", ["cephiro-pillar"])
    try:
        gc.set_threshold(*PYTHON_DEFAULT)
        assert kit.build_game(Project.at(project), Assets(Project.at(project)), "cephiro-pillar", [2], ["a4"],
                              say=lambda _: None)
        assert seen == [(BUILD_YOUNG, *PYTHON_DEFAULT[1:])] and gc.get_threshold() == PYTHON_DEFAULT
        with building():
            pool = worker_pool(1)
            try:
                assert pool.submit(gc.get_threshold).result() == PYTHON_DEFAULT
            finally:
                pool.shutdown()
        assert gc.get_threshold() == PYTHON_DEFAULT
        # `pnp build`, a process that ends with its build, keeps the threshold: nothing to put back
        result = pnp(project, "build", "cephiro-pillar", "--players", "2", "--paper", "a4")
        assert result.exit_code == 0, result.output
        assert seen[1:] == [(BUILD_YOUNG, *PYTHON_DEFAULT[1:])] and gc.get_threshold()[0] == BUILD_YOUNG
    finally:
        gc.set_threshold(*before)
