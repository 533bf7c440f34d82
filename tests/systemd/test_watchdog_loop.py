"""The watchdog is fed from the app's main loop: the real App loop on a simulated rig,
WATCHDOG=1 datagrams on a real notify socket at the pace the unit's WatchdogSec= needs."""

from __future__ import annotations

import re
import socket
from pathlib import Path

from controller.app import simulated_rig
from hardware.camera import ManualClock
from hardware.notify import Notifier, Watchdog

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "yatzycam.service"


def watchdog_sec() -> float:
    return float(re.search(r"^WatchdogSec=(\d+)$", UNIT.read_text(), re.M).group(1))


def test_the_app_loop_feeds_the_watchdog(tmp_path):
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    limit = watchdog_sec()
    clock = ManualClock()
    dog = Watchdog(Notifier(str(path)), limit / 2)  # what watchdog_interval() gives under the unit
    try:
        with simulated_rig("yatzy", 1, seed=5, size=(320, 240), clock=clock) as rig:
            sends: list[float] = []

            def feed() -> None:  # as controller.app.play wires it: dog.feed(clock.now())
                if dog.feed(clock.now()):
                    sends.append(clock.now())

            rig.app.watchdog = feed
            rig.app.refresh()
            start = clock.now()
            for _ in range(120):  # two idle minutes of loop turns, one a second
                rig.app.step(0)
                clock.advance(1.0)
            elapsed = clock.now() - start
        got = []
        while True:
            try:
                got.append(sock.recv(64))
            except BlockingIOError:
                break
    finally:
        sock.close()
    assert set(got) == {b"WATCHDOG=1"} and len(got) == dog.sent
    # one ping every WatchdogSec/2 of loop time: systemd never sees a gap of WatchdogSec
    assert len(sends) >= elapsed // (limit / 2) >= 7
    gaps = [b - a for a, b in zip([start, *sends], [*sends, start + elapsed])]
    assert gaps[0] < 1.5 and max(gaps) < limit / 2 + 1.5 < limit


def test_a_loop_that_stops_stops_the_pings(tmp_path):
    # a camera call that never returns = no more step() calls = no more pings
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.setblocking(False)
    clock = ManualClock()
    dog = Watchdog(Notifier(str(path)), watchdog_sec() / 2)
    try:
        with simulated_rig("yatzy", 1, seed=5, size=(320, 240), clock=clock) as rig:
            rig.app.watchdog = lambda: dog.feed(clock.now())
            rig.app.step(0)
            sent = dog.sent
            clock.advance(10 * watchdog_sec())  # hung: time passes, the loop does not turn
            assert dog.sent == sent == 1
            rig.app.step(0)  # the loop turns again (after systemd's restart: a fresh process)
            assert dog.sent == 2
    finally:
        sock.close()
