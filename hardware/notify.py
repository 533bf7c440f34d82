"""systemd's notify protocol (sd_notify) over ``$NOTIFY_SOCKET``, and the watchdog.

Under ``Type=notify`` the service tells systemd ``READY=1`` once it runs,
``WATCHDOG=1`` from its main loop (at least every ``WATCHDOG_USEC``, or systemd
kills and restarts it), ``STATUS=...`` for ``systemctl status``, and
``STOPPING=1`` when it shuts down. Outside systemd (no ``NOTIFY_SOCKET``) every
call is a no-op, so the same code runs on a desktop and in tests.

    notifier = Notifier.from_env()
    dog = Watchdog(notifier, watchdog_interval())
    notifier.ready("waiting for a throw")
    while running:
        dog.feed(time.monotonic())   # sends WATCHDOG=1 when half the interval has passed
        ...
    notifier.stopping()
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Notifier:
    """Sends sd_notify datagrams; ``address`` None = not under systemd (no-op)."""

    address: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Notifier:
        env = os.environ if env is None else env
        addr = env.get("NOTIFY_SOCKET") or None
        if addr and addr[0] not in "/@":
            addr = None  # vsock and other addresses are not for us
        return cls(addr)

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def send(self, *fields: str) -> bool:
        """Send ``KEY=value`` lines in one datagram; False when disabled or unsent."""
        if self.address is None or not fields:
            return False
        addr = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        data = "\n".join(f.replace("\n", " ") for f in fields).encode()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
                s.connect(addr)
                s.sendall(data)
        except OSError:
            return False  # systemd gone (shutting down): never crash the app over it
        return True

    def ready(self, status: str | None = None) -> bool:
        return self.send("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.send(f"STATUS={text}")

    def watchdog(self) -> bool:
        return self.send("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        return self.send("STOPPING=1", *([f"STATUS={status}"] if status else []))


def watchdog_interval(env: Mapping[str, str] | None = None, pid: int | None = None) -> float | None:
    """Seconds between WATCHDOG=1 pings (half of ``WatchdogSec=``), or None when off.

    Honours ``WATCHDOG_PID``: the watchdog is meant for that process only.
    """
    env = os.environ if env is None else env
    usec = env.get("WATCHDOG_USEC", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    wpid = env.get("WATCHDOG_PID", "")
    if wpid and wpid.isdigit() and int(wpid) != (os.getpid() if pid is None else pid):
        return None
    return int(usec) / 1e6 / 2


class Watchdog:
    """Feeds the watchdog from a loop at the right pace; the caller passes the time.

    ``feed(now)`` sends WATCHDOG=1 on the first call and then whenever
    ``interval`` seconds have passed; it returns True when it sent. A loop that
    stops (a camera call that never returns) stops feeding, and systemd restarts
    the service after ``WatchdogSec=``.
    """

    def __init__(self, notifier: Notifier, interval: float | None) -> None:
        self.notifier = notifier
        self.interval = interval
        self.last: float | None = None
        self.sent = 0

    def feed(self, now: float) -> bool:
        if self.interval is None or not self.notifier.enabled:
            return False
        if self.last is not None and now - self.last < self.interval:
            return False
        if self.notifier.watchdog():
            self.last = now
            self.sent += 1
            return True
        return False

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Watchdog:
        return cls(Notifier.from_env(env), watchdog_interval(env))
