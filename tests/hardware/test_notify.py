"""hardware.notify: sd_notify datagrams on a real unix socket, the watchdog pace."""

from __future__ import annotations

import os
import socket
import uuid

import pytest

from hardware.notify import Notifier, Watchdog, watchdog_interval


@pytest.fixture
def sock(tmp_path):
    path = tmp_path / "notify"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(str(path))
    s.settimeout(1.0)
    yield str(path), s
    s.close()


def recv_all(s: socket.socket) -> list[str]:
    out = []
    s.setblocking(False)
    try:
        while True:
            out.append(s.recv(4096).decode())
    except BlockingIOError:
        pass
    s.setblocking(True)
    return out


def test_messages_arrive(sock):
    path, s = sock
    n = Notifier.from_env({"NOTIFY_SOCKET": path})
    assert n.enabled
    assert n.ready("waiting for a throw")
    assert n.status("reading\nthe dice")
    assert n.watchdog()
    assert n.stopping()
    assert recv_all(s) == ["READY=1\nSTATUS=waiting for a throw", "STATUS=reading the dice", "WATCHDOG=1", "STOPPING=1"]


def test_abstract_socket():
    name = f"yatzycam-test-{uuid.uuid4().hex}"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind("\0" + name)
    try:
        assert Notifier.from_env({"NOTIFY_SOCKET": "@" + name}).ready()
        assert s.recv(100) == b"READY=1"
    finally:
        s.close()


def test_no_socket_is_a_no_op(tmp_path):
    n = Notifier.from_env({})
    assert not n.enabled and not n.ready() and not n.watchdog()
    # a socket that went away: no exception, just False
    gone = Notifier.from_env({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert gone.enabled and not gone.watchdog()
    assert not Notifier.from_env({"NOTIFY_SOCKET": "vsock:2:1234"}).enabled


def test_watchdog_interval():
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    assert watchdog_interval({"WATCHDOG_USEC": "0"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": str(os.getpid())}) == 15.0
    assert watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}, pid=4242) is None


def test_watchdog_fed_from_a_loop_at_half_the_interval(sock):
    path, s = sock
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"}  # WatchdogSec=4 -> ping every 2 s
    dog = Watchdog.from_env(env)
    # a loop iteration every 0.5 s for 10 s of driven time
    sent_at = [t / 2 for t in range(21) if dog.feed(t / 2)]
    assert sent_at == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    assert recv_all(s) == ["WATCHDOG=1"] * 6 and dog.sent == 6
    # a loop that hangs stops feeding: the gap is what systemd sees
    assert not dog.feed(10.5)


def test_watchdog_off_outside_systemd():
    dog = Watchdog.from_env({"WATCHDOG_USEC": "4000000"})
    assert not any(dog.feed(t) for t in range(10))
