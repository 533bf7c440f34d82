"""A safe shutdown of the Pi: ``systemctl poweroff``, so it is not unplugged mid-write.

The service runs as the unprivileged ``yatzycam`` user with NoNewPrivileges, so
sudo is out; the installer adds a polkit rule (``50-yatzycam.rules``) that lets
that user power off and reboot through logind. ``run`` is injectable: tests
pass a recorder instead of ``subprocess.run``.

The panel side (a long hold, then a confirming press on the screen) is the
app's; :class:`ShutdownRequest` is the small state machine it can use.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

POWEROFF = ("systemctl", "poweroff")
REBOOT = ("systemctl", "reboot")

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


class PowerError(RuntimeError):
    user_error = True


def poweroff(run: Runner = subprocess.run, command: Sequence[str] = POWEROFF, timeout: float = 30.0) -> None:
    """Ask systemd to power off (returns; systemd then stops the service). Raises PowerError."""
    try:
        r = run(list(command), capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise PowerError(f"{' '.join(command)}: {e}") from None
    if r.returncode != 0:
        why = (r.stderr or r.stdout or "").strip().splitlines()
        raise PowerError(f"{' '.join(command)} failed ({r.returncode}): {why[-1] if why else 'no message'}")


def reboot(run: Runner = subprocess.run) -> None:
    poweroff(run, REBOOT)


@dataclass(frozen=True)
class ShutdownRequest:
    """Hold -> ask on screen -> a press within ``confirm_s`` confirms; anything else cancels.

    Pure: each step returns the next state; the caller passes the time.
    """

    asked_at: float | None = None
    confirm_s: float = 10.0

    def held(self, now: float) -> ShutdownRequest:
        """The shutdown hold was seen: show "press again to shut down"."""
        return ShutdownRequest(now, self.confirm_s)

    @property
    def pending(self) -> bool:
        return self.asked_at is not None

    def expired(self, now: float) -> bool:
        return self.asked_at is not None and now - self.asked_at > self.confirm_s

    def pressed(self, now: float) -> tuple[ShutdownRequest, bool]:
        """A press: (next state, shut down now?)."""
        if self.asked_at is None:
            return self, False
        return ShutdownRequest(None, self.confirm_s), not self.expired(now)
