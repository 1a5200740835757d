"""The build server (commands/server.py): a command handed to it runs in a fork of a process that
has the libraries loaded, and must be indistinguishable from one run in a new process: the same
files byte for byte, the same lines, the same exit status, Ctrl-C obeyed. Nothing here measures
time (that is `make bench`).

The rest of the suite runs with PNP_SERVER=0 (conftest.py); these tests turn it on with a socket
folder of their own."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import types
from pathlib import Path

import psutil
import pytest

from generator.commands import server
from tests.conftest import ROOT
from tests.test_sheet_cache import _sizes

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the build server is Linux-only")


@pytest.fixture
def served(tmp_path, monkeypatch):
    """This user's server sockets in a folder of the test's own, servers on, and one started;
    the server's process id. Stopped afterwards."""
    runtime = tmp_path / "run"
    runtime.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("PNP_SERVER", "1")
    monkeypatch.delenv("CI", raising=False)
    process = server.start(dict(os.environ))
    deadline = time.monotonic() + 60
    while server.running() is None:
        assert process.poll() is None, "the server stopped while starting"
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.1)
    yield process
    server.stop_all()
    process.wait(timeout=30)


def _here(project: Path, *args: str) -> subprocess.CompletedProcess:
    """The command in a new process of its own, servers off."""
    return subprocess.run([sys.executable, "-m", "generator", "--project", str(project), *args], cwd=ROOT,
                          capture_output=True, text=True, env={**os.environ, "PNP_SERVER": "0"})


def _files(folder: Path) -> dict[str, bytes]:
    """The packs, manifests and records (not the stamp: it holds the outputs' times)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())
            if p.suffix in (".pdf", ".json") and p.name != ".stamp.json"}


def test_a_served_build_writes_and_says_what_a_new_process_does(tmp_path, served, capfd):
    alone, there = _sizes(tmp_path / "alone"), _sizes(tmp_path / "there")
    expected = _here(alone, "build", "sizes", "--paper", "a4")
    assert expected.returncode == 0, expected.stderr
    capfd.readouterr()

    code = server.hand_over(["pnp", "--project", str(there), "build", "sizes", "--paper", "a4"])

    out, err = capfd.readouterr()
    assert code == 0
    assert (out, err) == (expected.stdout, expected.stderr)
    assert "wrote build/sizes/sizes-1p-a4.pdf" in out
    built, cold = _files(there / "build/sizes"), _files(alone / "build/sizes")
    assert built.keys() == cold.keys() and len(built) >= 2
    assert built == cold
    assert served.poll() is None                  # the command ran in a copy; the server is still there


def test_a_served_command_fails_as_a_new_process_does(tmp_path, served, capfd, monkeypatch):
    project = _sizes(tmp_path / "p")
    cards = project / "cards/sizes/poker.yaml"
    cards.write_text(cards.read_text(encoding="utf-8") + "\n  - {id: broken, title: [unclosed\n", encoding="utf-8")
    expected = _here(project, "build", "sizes", "--paper", "a4")
    assert expected.returncode == 1 and expected.stdout == ""
    capfd.readouterr()

    code = server.hand_over(["pnp", "--project", str(project), "build", "sizes", "--paper", "a4"])
    out, err = capfd.readouterr()
    assert (code, out, err) == (1, "", expected.stderr)
    assert err.startswith(f"{Path('cards/sizes/poker.yaml')}:") and err.count("\n") == 1

    original = cards.read_text(encoding="utf-8").split("\n  - {id: broken")[0]
    cards.write_text(original.replace("  size: poker\n", "  size: poker\n  sleeve: clear\n"), encoding="utf-8")
    expected = _here(project, "validate", "sizes")     # a schema's finding: its validator built in the server
    assert expected.returncode == 1 and "sleeve" in expected.stdout + expected.stderr
    capfd.readouterr()
    code = server.hand_over(["pnp", "--project", str(project), "validate", "sizes"])
    assert (code, *capfd.readouterr()) == (1, expected.stdout, expected.stderr)

    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))     # as in the pnp script
    code = server.hand_over(["/somewhere/pnp", "--project", str(project), "build", "--paper", "B5"])
    out, err = capfd.readouterr()
    assert code == 2
    assert "Usage: pnp build [OPTIONS] [GAME]" in err and "'B5' is not one of" in err


def _sleeping(project: Path, seconds: int = 120) -> Path:
    """The game's rules module sleeps while it loads: a command that is still running when signalled."""
    (project / "cards/sizes/rules.py").write_text(f"import time\ntime.sleep({seconds})\n\n\ndef derive(game):\n    return {{}}\n")
    return project


def _caller(project: Path, *args: str, **options) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "generator", "--project", str(project), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ), **options)


def _commands(served) -> list:
    """The server's forked copies running commands now."""
    return psutil.Process(served.pid).children()


def test_ctrl_c_reaches_the_served_command(tmp_path, served):
    project = _sleeping(_sizes(tmp_path / "p"))
    caller = _caller(project, "build", "sizes")
    time.sleep(3)                                  # handed over, and the rules module is sleeping
    assert caller.poll() is None and len(_commands(served)) == 1
    caller.send_signal(signal.SIGINT)
    out, err = caller.communicate(timeout=30)
    assert caller.returncode == 130
    assert err == "interrupted; earlier outputs are unchanged\n"
    assert not (project / "build/sizes").exists() or not list((project / "build/sizes").glob("*.pdf"))


def test_a_killed_caller_takes_its_command_with_it(tmp_path, served):
    caller = _caller(_sleeping(_sizes(tmp_path / "p")), "build", "sizes")
    time.sleep(3)
    [command] = _commands(served)
    caller.kill()
    caller.wait()
    command.wait(timeout=30)                       # killed by the server, not left building
    assert served.poll() is None


def test_a_command_killed_by_a_signal_kills_its_caller_the_same_way(tmp_path, served):
    project = _sizes(tmp_path / "p")
    (project / "cards/sizes/rules.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGTERM)\n")
    alone = _here(project, "validate", "sizes")
    caller = _caller(project, "validate", "sizes")
    caller.communicate(timeout=60)
    assert alone.returncode == caller.returncode == -signal.SIGTERM


def test_a_stopped_server_is_not_waited_for(tmp_path, served, capfd):
    project = _sizes(tmp_path / "p")
    served.send_signal(signal.SIGSTOP)
    try:
        caller = _caller(project, "list")
        out, err = caller.communicate(timeout=60)     # ran in its own process instead
    finally:
        served.send_signal(signal.SIGCONT)
    assert caller.returncode == 0 and out.startswith("sizes: ")


def test_what_a_served_command_finds_as_a_new_process_would(tmp_path, served, capfd, monkeypatch):
    project = _sizes(tmp_path / "p")
    (project / "helpers.py").write_text("NOTHING = {}\n")
    (project / "cards/sizes/rules.py").write_text("def derive(game):\n    import helpers\n    return helpers.NOTHING\n")
    monkeypatch.syspath_prepend(str(project))     # `python -m generator` run in the project folder
    assert server.hand_over(["pnp", "--project", str(project), "validate", "sizes"]) == 0
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    assert server.hand_over(["pnp", "--project", str(project), "list"]) is None   # runs here, and says so
    assert server.running() == served.pid         # the server is still there for others
    closed = subprocess.run([sys.executable, "-m", "generator", "--project", str(project), "list"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            preexec_fn=lambda: os.close(0), env=dict(os.environ), cwd=ROOT)
    assert closed.returncode == 0 and closed.stdout.startswith(b"sizes: ")


def test_one_server_a_socket(served):
    second = server.start(dict(os.environ))
    assert second.wait(timeout=60) == 0           # it found the lock taken and left at once
    assert server.running() == served.pid


def test_a_dead_servers_socket_is_cleared_and_the_command_runs_here(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("PNP_SERVER", "1")
    monkeypatch.delenv("CI", raising=False)
    path = server._socket_path()
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as gone:
        gone.bind(str(path))                      # bound, never listening: as a killed server leaves it
    assert path.is_socket()
    assert server.hand_over(["pnp", "list"]) is None
    assert not path.exists()


def test_which_commands_and_machines_use_a_server(tmp_path, monkeypatch):
    assert not server.enabled({"PNP_SERVER": "0"})
    assert not server.enabled({"CI": "true"})
    assert server.enabled({}) == (sys.platform == "linux")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("PNP_SERVER", "1")
    monkeypatch.delenv("CI", raising=False)
    for argv in (["pnp", "watch"], ["pnp", "serve", "--port", "0"], ["pnp", "server", "stop"]):
        assert server.hand_over(argv) is None     # long-lived, or about the server: never handed over
    assert server.folder() == tmp_path / "pnp"
    os.chmod(tmp_path / "pnp", 0o755)
    assert server.folder() is None                # a socket folder others may enter is not used
    deep = tmp_path / ("d" * 90)
    deep.mkdir()
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    assert server.folder() == Path(f"/tmp/pnp-{os.getuid()}")     # a socket's path must fit in 107 bytes


def test_an_edited_engine_gets_a_new_server(tmp_path, monkeypatch):
    engine = tmp_path / "generator"
    shutil.copytree(ROOT / "generator/commands", engine / "commands", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(server, "ENGINE", engine)
    before = server.fingerprint({})
    assert server.fingerprint({}) == before
    touched = engine / "commands/cli.py"
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 1))
    assert server.fingerprint({}) != before
    assert server.fingerprint({"LD_LIBRARY_PATH": "/opt/other"}) != server.fingerprint({})


def test_stop_ends_the_server(served):
    assert server.running() == served.pid
    assert server.stop_all() == [served.pid]
    served.wait(timeout=30)
    assert server.running() is None
    assert not list(server.folder().glob("*.sock"))


def test_pnp_and_python_m_generator_share_a_server():
    """./pnp runs the virtualenv's python3, `python -m generator` its python: one program, one server."""
    code = "from generator.commands import server; print(server.fingerprint())"
    names = [p for p in (Path(sys.executable).parent / n for n in ("python", "python3")) if p.exists()]
    prints = {subprocess.run([str(p), "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
              for p in names}
    assert len(names) == 2 and len(prints) == 1
