"""hardware.power: the poweroff command and the hold-then-confirm request."""

from __future__ import annotations

import subprocess

import pytest

from hardware.power import PowerError, ShutdownRequest, poweroff, reboot


class Recorder:
    def __init__(self, returncode: int = 0, stderr: str = "", exc: Exception | None = None) -> None:
        self.calls: list[list[str]] = []
        self.returncode, self.stderr, self.exc = returncode, stderr, exc

    def __call__(self, cmd, **kw):
        self.calls.append(cmd)
        assert kw["check"] is False and kw["timeout"] > 0
        if self.exc:
            raise self.exc
        return subprocess.CompletedProcess(cmd, self.returncode, "", self.stderr)


def test_poweroff_runs_systemctl():
    r = Recorder()
    poweroff(r)
    reboot(r)
    assert r.calls == [["systemctl", "poweroff"], ["systemctl", "reboot"]]


def test_poweroff_failure_is_one_line():
    r = Recorder(1, "Call to PowerOff failed: Access denied\n")
    with pytest.raises(PowerError, match=r"failed \(1\): Call to PowerOff failed: Access denied$"):
        poweroff(r)
    with pytest.raises(PowerError, match="systemctl poweroff"):
        poweroff(Recorder(exc=FileNotFoundError("systemctl")))


def test_real_subprocess_path():
    # the default runner really runs a command: `false` fails, `true` passes
    poweroff(command=("true",))
    with pytest.raises(PowerError):
        poweroff(command=("false",))


def test_hold_then_confirm():
    req = ShutdownRequest(confirm_s=10)
    req2, go = req.pressed(0.0)
    assert not go and not req2.pending  # a press with nothing asked: nothing
    asked = req.held(100.0)
    assert asked.pending and not asked.expired(105.0) and asked.expired(111.0)
    done, go = asked.pressed(105.0)
    assert go and not done.pending
    late, go = asked.pressed(111.0)
    assert not go and not late.pending  # too late: cancelled
