"""The build server: a `pnp` command run by a process that has the libraries loaded already.

A new pnp process spends about 0.7 s importing pydantic, pikepdf, Jinja, HarfBuzz and WeasyPrint
before it can draw a card: most of a one-card rebuild. So on Linux a command that needed them
leaves a server behind, started once the command is done (it never competes with it): a process
that imports them and waits on a socket. The next `pnp` command hands it its arguments, folder,
environment, umask and terminal (stdin, stdout and stderr themselves, passed over the socket), and
the server forks a copy of itself that runs the command there as a new process would, writing
straight to the caller's terminal. The caller waits for the exit status, passing Ctrl-C on. Nothing
is ever built in the server itself, so a served command finds nothing an earlier one left behind
and writes the same bytes as one run in a new process (tested).

- One server per user and engine: its socket is named by a hash of the Python, the engine's files
  (names, sizes, modification times), the installed libraries' names and versions and the
  environment variables that decide what loads. An edited engine or an upgraded library gets a new
  server; the old one notices and stops.
- A server stops after IDLE_SECONDS without a command, and with `./pnp server stop`.
- Off with PNP_SERVER=0, under CI (CI set: nothing would reuse it), and on systems other than
  Linux; a server that cannot be reached is never waited for: the command runs in its own process.
- The socket is in $XDG_RUNTIME_DIR/pnp (or /tmp/pnp-<uid>), a folder only its user may enter, and
  the server serves its own user's processes only (the socket's peer credentials).
- `watch` and `serve` (long-lived processes of their own) and `server` always run in their own process.

This module is imported by every `pnp` start, so it imports nothing beyond the standard library.
"""
from __future__ import annotations

import atexit
import gc
import hashlib
import io
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import time
import traceback
import types
import warnings
from pathlib import Path

IDLE_SECONDS = 15 * 60
CHECK_SECONDS = 30          # how often an idle server asks whether the engine it loaded is still current
MESSAGE = 1 << 16           # largest request (arguments and environment)
OWN_PROCESS_WORDS = ("watch", "serve", "server")     # long-lived, or about the server itself
# Environment variables that change what a Python process loads: a server is only shared by
# callers that agree on them.
LOADING_VARIABLES = ("PYTHON", "LD_", "GI_", "GDK_", "WEASYPRINT")
ENGINE = Path(__file__).resolve().parent.parent


def enabled(environ=os.environ) -> bool:
    return (sys.platform == "linux" and environ.get("PNP_SERVER", "1").lower() not in ("0", "off", "no", "false")
            and not environ.get("CI"))


def folder(environ=os.environ) -> Path | None:
    """The folder of this user's server sockets, made private; None if it is not safely ours."""
    runtime = environ.get("XDG_RUNTIME_DIR")
    path = Path(runtime) / "pnp" if runtime and os.path.isdir(runtime) else Path(f"/tmp/pnp-{os.getuid()}")
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
    except OSError:
        return None
    private = info.st_uid == os.getuid() and not info.st_mode & 0o077 and os.path.isdir(path) \
        and not os.path.islink(path)
    return path if private else None


def fingerprint(environ=os.environ) -> str:
    """What the server loaded: the Python, the engine's files, the installed libraries and the
    variables that steer loading (a few milliseconds: names and stat, nothing read)."""
    # Not sys.path itself: its first entry is the caller's folder or script's, which loads nothing
    # of pnp's (a game's rules module is loaded from its file).
    digest = hashlib.sha256(f"{sys.executable}\0{sys.version}\0{sys.prefix}\0{ENGINE}".encode())
    for name in sorted(environ):
        if name.startswith(LOADING_VARIABLES):
            digest.update(f"{name}={environ[name]}\0".encode())
    for root, dirs, files in os.walk(ENGINE):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "scaffold"))
        for name in sorted(f for f in files if f.endswith(".py")):
            info = os.stat(os.path.join(root, name))
            digest.update(f"{root}/{name}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    for entry in sys.path:
        if entry.endswith(("site-packages", "dist-packages")) and os.path.isdir(entry):
            digest.update("\0".join(sorted(os.listdir(entry))).encode())     # dist-info names carry versions
    return digest.hexdigest()[:20]


def _socket_path(environ=os.environ) -> Path | None:
    base = folder(environ)
    return base / f"{fingerprint(environ)}.sock" if base else None


# ---------------------------------------------------------------- the caller's side


def hand_over(argv: list[str]) -> int | None:
    """Run this command in a server; its exit status, or None when it must run here."""
    if not enabled() or any(word in OWN_PROCESS_WORDS for word in argv[1:]):
        return None
    path = _socket_path()
    if path is None:
        return None
    client = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        client.connect(str(path))
        socket.send_fds(client, [json.dumps(_request(argv)).encode()], _terminal())
        started = json.loads(client.recv(MESSAGE) or b"null")
    except (ConnectionRefusedError, FileNotFoundError):
        client.close()
        if path.is_socket():
            _unlink(path)               # a server that was killed: its socket answers no one
        return None
    except (OSError, ValueError):
        client.close()
        return None                     # run here
    if not started:
        client.close()
        return None
    return _wait(client, started["pid"])


def _request(argv: list[str]) -> dict:
    main = sys.modules.get("__main__")
    streams = {name: {"encoding": stream.encoding, "errors": stream.errors, "line_buffering": stream.line_buffering}
               for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout), ("stderr", sys.stderr))
               if isinstance(stream, io.TextIOWrapper)}
    umask = os.umask(0)
    os.umask(umask)
    return {"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ), "umask": umask, "streams": streams,
            "main_package": getattr(main, "__package__", None)}


def _terminal() -> list[int]:
    """stdin, stdout and stderr (a closed one as /dev/null, as the command would see nothing there)."""
    fds = []
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
            fds.append(fd)
        except OSError:
            fds.append(os.open(os.devnull, os.O_RDWR))
    return fds


def _wait(client: socket.socket, pid: int) -> int:
    """The served command's exit status; Ctrl-C and termination go on to it (its process group)."""
    def forward(signum, frame):
        try:
            os.killpg(pid, signum)
        except OSError:
            try:
                os.kill(pid, signum)
            except OSError:
                pass
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        signal.signal(signum, forward)
    while True:
        try:
            reply = client.recv(MESSAGE)
            break
        except InterruptedError:
            continue
    client.close()
    if not reply:
        sys.stderr.write("pnp: the build server stopped before the command ended (PNP_SERVER=0 runs without it)\n")
        return 1
    return json.loads(reply)["exit"]


def start_later(environ: dict) -> None:
    """Leave a server for the next command when this one needed the heavy libraries and none runs.

    `environ` is the environment this process started with (the command changes its own)."""
    if not enabled(environ) or not {"pikepdf", "weasyprint"} & sys.modules.keys():
        return
    path = _socket_path(environ)
    if path is None or path.exists():
        return
    try:
        subprocess.Popen([sys.executable, "-m", "generator.commands.server"], env=environ, cwd="/",
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True, close_fds=True)
    except OSError:
        pass


def stop_all(environ=os.environ) -> list[int]:
    """Ask every server of this user to stop; their process ids."""
    base = folder(environ)
    stopped = []
    for path in sorted(base.glob("*.sock")) if base else []:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as client:
                client.connect(str(path))
                client.send(json.dumps({"stop": True}).encode())
                stopped.append(json.loads(client.recv(MESSAGE))["pid"])
        except (OSError, ValueError, KeyError):
            _unlink(path)
    return stopped


def running(environ=os.environ) -> int | None:
    """The process id of the server this engine would use now, if one answers."""
    path = _socket_path(environ)
    if path is None:
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as client:
            client.connect(str(path))
            client.send(json.dumps({"ping": True}).encode())
            return json.loads(client.recv(MESSAGE))["pid"]
    except (OSError, ValueError, KeyError):
        return None


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


# ---------------------------------------------------------------- the server's side


def preload() -> None:
    """Import what commands use, and build the schemas' validators, with fontconfig pointed at an
    empty configuration meanwhile: a command points it at its project's fonts, and nothing loaded
    here may have seen this machine's (WeasyPrint loads a configuration at import to check it)."""
    empty = Path(folder() or "/tmp") / "no-fonts.conf"
    empty.write_text('<?xml version="1.0"?>\n<fontconfig></fontconfig>\n')
    previous = os.environ.get("FONTCONFIG_FILE")
    os.environ["FONTCONFIG_FILE"] = str(empty)
    try:
        import generator.commands.cli  # noqa: F401
        import generator.sheets.kit  # noqa: F401
        import generator.check.preflight  # noqa: F401
        from generator.render.weasy import weasyprint
        from generator.source.schema import build_validators
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")         # "no fonts configured": as intended, here
            weasyprint()
        build_validators()
    finally:
        if previous is None:
            os.environ.pop("FONTCONFIG_FILE", None)
        else:
            os.environ["FONTCONFIG_FILE"] = previous


class Server:
    def __init__(self, path: Path):
        self.path, self.pid = path, os.getpid()
        self.children: dict[int, socket.socket] = {}
        self.last = time.monotonic()
        self.stopping = False
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        spare = path.with_name(f".{path.stem}-{self.pid}.sock")
        _unlink(spare)
        self.listener.bind(str(spare))
        self.listener.listen(16)
        os.replace(spare, path)                 # callers see the socket only once it listens
        self.inode = os.stat(path).st_ino
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_w.setblocking(False)
        signal.set_wakeup_fd(self.wake_w.fileno())
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: self.stop())
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")

    def run(self) -> None:
        checked = time.monotonic()
        while not (self.stopping and not self.children):
            for key, _ in self.selector.select(timeout=CHECK_SECONDS):
                if key.data == "accept":
                    self.accept()
                else:
                    self.wake_r.recv(512)
            self.reap()
            now = time.monotonic()
            if not self.children and now - self.last > IDLE_SECONDS:
                self.stop()
            if now - checked >= CHECK_SECONDS:
                checked = now
                if self.path.name != f"{fingerprint()}.sock":
                    self.stop()                 # the engine or a library changed since it loaded
        self.close()

    def stop(self) -> None:
        if not self.stopping:
            self.stopping = True
            self.selector.unregister(self.listener)
            self.release_path()

    def release_path(self) -> None:
        """Remove the socket's name, unless another server has taken it since."""
        try:
            if os.stat(self.path).st_ino == self.inode:
                self.path.unlink()
        except OSError:
            pass

    def close(self) -> None:
        self.release_path()
        self.listener.close()

    def accept(self) -> None:
        conn, _ = self.listener.accept()
        self.last = time.monotonic()
        conn.settimeout(5)
        fds: list[int] = []
        try:
            _, uid, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
            if uid != os.getuid():
                raise PermissionError("another user")
            message, fds, _, _ = socket.recv_fds(conn, MESSAGE, 3)
            request = json.loads(message)
            if "argv" not in request:
                conn.send(json.dumps({"pid": self.pid}).encode())
                if request.get("stop"):
                    self.stop()
                raise ConnectionAbortedError("answered")
            if self.stopping or len(fds) != 3:
                raise ConnectionAbortedError("not serving")
        except (OSError, ValueError, struct.error):
            for fd in fds:
                os.close(fd)
            conn.close()
            return
        pid = os.fork()
        if pid == 0:
            try:
                self.become_command(conn, request, fds)
            finally:
                os._exit(1)             # never back into the server's loop
        for fd in fds:
            os.close(fd)
        try:
            conn.send(json.dumps({"pid": pid}).encode())
        except OSError:
            pass
        self.children[pid] = conn

    def reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is not None:
                code = os.waitstatus_to_exitcode(status)
                try:
                    conn.send(json.dumps({"exit": code if code >= 0 else 128 - code}).encode())
                except OSError:
                    pass
                conn.close()
            self.last = time.monotonic()

    def become_command(self, conn: socket.socket, request: dict, fds: list[int]) -> None:
        """In the forked copy: become the caller's command, run it, exit with its status."""
        signal.set_wakeup_fd(-1)
        for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for sock in (self.listener, self.wake_r, self.wake_w, conn):
            sock.close()
        self.selector.close()
        for other in self.children.values():
            other.close()
        os.setpgid(0, 0)                        # the caller passes Ctrl-C to the whole group (pool workers too)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os._exit(run_command(request))


def run_command(request: dict) -> int:
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = request["argv"]
    main = types.ModuleType("__main__")          # click names the program from it (pnp, python -m generator)
    main.__package__ = request["main_package"]
    sys.modules["__main__"] = main
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        settings = request["streams"].get(name, {})
        stream = io.TextIOWrapper(io.open(fd, "rb" if fd == 0 else "wb", closefd=False),
                                  encoding=settings.get("encoding"), errors=settings.get("errors"),
                                  line_buffering=settings.get("line_buffering", False))
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
    code = 0
    try:
        from generator.commands.cli import main as command
        command()
    except SystemExit as exc:
        code = _exit_status(exc.code)
    except KeyboardInterrupt:
        code = 130
    except BaseException:
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def _exit_status(code) -> int:
    """As Python exits on SystemExit(code)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def serve() -> None:
    path = _socket_path()
    if path is None or running() is not None:
        return
    preload()
    # What is loaded now lives as long as the server: out of the collector's reach, each command's
    # collections stop walking it (0.2–0.3 s of a 5,000-card rebuild) and leave its pages shared.
    gc.freeze()
    Server(path).run()


if __name__ == "__main__":
    serve()
