"""controller.doctor.calibrate_live: the guided calibration from a live FrameSource."""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from calibration.draw import FLOOR_BGR
from controller.doctor import CalibrationFailed, calibrate_live, grab
from hardware.camera import FolderSource
from vision import synthetic


@pytest.fixture(scope="module")
def frames():
    scene = synthetic.reference_scene(np.random.default_rng(7), 5, size=(640, 480))
    return synthetic.render_empty(scene), synthetic.render(scene)


def camera_folder(tmp_path: Path, frames, copies: int = 3) -> Path:
    folder = tmp_path / "camera"
    folder.mkdir()
    empty, ref = frames
    for i in range(copies):
        cv2.imwrite(str(folder / f"a{i}.png"), empty)
        cv2.imwrite(str(folder / f"b{i}.png"), ref)
    return folder


class Recorder:
    """The screen and the button of the test: what was shown, when the presses came."""

    def __init__(self, source) -> None:
        self.source = source
        self.events: list[str] = []

    def show(self, text: str) -> None:
        self.events.append(text)

    def press(self) -> None:
        self.events.append(f"press@{self.source.pos}")


def test_guided_flow_writes_the_profile(tmp_path, frames):
    src = FolderSource(camera_folder(tmp_path, frames))
    ui = Recorder(src)
    seen = {}

    def calibrate(empty: Path, reference: Path | None, n: int, out: Path) -> None:
        seen.update(empty=cv2.imread(str(empty)), reference=cv2.imread(str(reference)), n=n, out=out)
        out.write_text(json.dumps({"version": 1}))

    out = tmp_path / "state" / "calibration.json"
    got = calibrate_live(src, ui.press, ui.show, out, 5, tmp_path / "state" / "throws", calibrate, verify=lambda c, r, n: None)
    assert got == out and json.loads(out.read_text()) == {"version": 1}
    assert not out.with_name("calibration.json.new").exists()
    # the empty tray was taken after the first press, the dice after the second
    assert ui.events[0].startswith("Calibration 1/2: empty the tray")
    assert ui.events[1] == "press@0"
    assert ui.events[2].startswith("Calibration 2/2: put 5 dice flat")
    assert ui.events[3] == "press@3"
    assert ui.events[4].startswith("Calibrated")
    assert np.array_equal(seen["empty"], frames[0]) and np.array_equal(seen["reference"], frames[1])
    assert seen["n"] == 5 and seen["out"].name == "calibration.json.new"
    assert (tmp_path / "state/throws/calibration-empty.png").exists()


@pytest.mark.parametrize("stage", ["calibrate", "verify"])
def test_a_failed_attempt_keeps_the_old_profile(tmp_path, frames, stage):
    src = FolderSource(camera_folder(tmp_path, frames))
    ui = Recorder(src)
    out = tmp_path / "calibration.json"
    out.write_text("old")

    def calibrate(empty, reference, n, new):
        new.write_text("half-written")
        if stage == "calibrate":
            raise CalibrationFailed("no tray found in the empty frame")

    def verify(cal, ref, n):
        return "the reference throw read as [1, 2, 3] (reroll: missing)" if stage == "verify" else None

    with pytest.raises(CalibrationFailed, match="old calibration is kept") as e:
        calibrate_live(src, ui.press, ui.show, out, 5, tmp_path / "throws", calibrate, verify)
    assert out.read_text() == "old" and not (tmp_path / "calibration.json.new").exists()
    assert ui.events[-1].startswith("Calibration failed: ")
    assert ("no tray found" if stage == "calibrate" else "read as [1, 2, 3]") in str(e.value)


def test_grab_takes_the_median(tmp_path, frames):
    # one frame of three has a flash in it: the median frame does not
    folder = tmp_path / "f"
    folder.mkdir()
    flash = frames[0].copy()
    cv2.circle(flash, (320, 240), 60, (255, 255, 255), -1)
    for name, img in (("0", frames[0]), ("1", flash), ("2", frames[0])):
        cv2.imwrite(str(folder / f"{name}.png"), img)
    out = grab(FolderSource(folder), 3)
    assert np.array_equal(out, frames[0])
    assert not np.array_equal(grab(FolderSource(folder), 2), frames[0])  # a mean-like 2-frame median keeps some flash


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root (CI runs as root)")
def test_files_go_to_the_state_directory_owner_when_run_as_root(tmp_path, frames):
    state = tmp_path / "state"
    state.mkdir()
    os.chown(state, 4321, 4321)  # the service user's directory
    src = FolderSource(camera_folder(tmp_path, frames))
    ui = Recorder(src)
    out = calibrate_live(src, ui.press, ui.show, state / "calibration.json", 5, state / "throws",
                         lambda e, r, n, o: o.write_text("{}"), verify=None)
    for p in (out, state / "throws", state / "throws/calibration-empty.png"):
        assert (p.stat().st_uid, p.stat().st_gid) == (4321, 4321), p


def cli_config(tmp_path: Path, folder: Path) -> Path:
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        f'[camera]\nsource = "folder"\nfolder = "{folder}"\n'
        f'[paths]\ncalibration = "{tmp_path / "cal.json"}"\nimages = "{tmp_path / "throws"}"\n'
    )
    return cfg


def test_cli_keyboard_needs_a_press_per_step(tmp_path, frames, monkeypatch, capsys):
    import io

    from controller.cli.main import main

    cfg = cli_config(tmp_path, camera_folder(tmp_path, frames))
    (tmp_path / "cal.json").write_text("old")
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n"))  # a press, the found floor accepted, then the input ends
    code = main(["calibrate-live", "--config", str(cfg), "--keyboard"])
    out, err = capsys.readouterr()
    assert code == 2 and "no more input on stdin" in err
    assert "Calibration 1/2: empty the tray" in out and "Calibration 2/2: put 5 dice" in out
    assert "Tray floor found (green)" in out and "calibration-floor.png" in out
    assert (tmp_path / "cal.json").read_text() == "old"
    code = main(["calibrate-live", "--config", str(cfg), "--keyboard", "--dice", "0"])
    assert code == 2 and "argument --dice: a number of dice must be 1..12, not 0" in capsys.readouterr().err


def test_cli_end_to_end_with_the_real_calibration(tmp_path, monkeypatch, capsys):
    """Keyboard presses, a folder camera of rendered frames, calibration.calibrate and vision.reader.read.

    The outcome must be the calibration part's own verdict on the same frames (its accuracy is
    measured by `yatzycam bench`, not here): a profile that reads the reference throw back as
    5 dice is saved; anything else is refused with the calibration part's reason.
    """
    import io

    from calibration import CalibrationError, calibrate, load
    from controller.cli.main import main
    from vision.reader import read

    scene = synthetic.reference_scene(np.random.default_rng(3), 5, size=(640, 480))
    empty, ref = synthetic.render_empty(scene), synthetic.render(scene)
    try:
        cal = calibrate(empty, ref, 5)
        r = read(ref, cal, 5)
        expected = None if r.verdict == "ok" and len(r.values) == 5 else f"read as {list(r.values)}"
    except CalibrationError as e:
        expected = str(e)
    cfg = cli_config(tmp_path, camera_folder(tmp_path, (empty, ref)))
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n\n"))  # empty tray, the found floor accepted, the dice
    code = main(["calibrate-live", "--config", str(cfg), "--keyboard"])
    out, err = capsys.readouterr()
    if expected is None:
        assert code == 0, err
        assert "Calibrated: 5 dice read on the tray" in out
        saved = load(tmp_path / "cal.json")
        assert saved.image_size == (640, 480) and saved.n_dice == 5
        assert np.allclose(np.asarray(saved.floor, float), np.asarray(cal.floor, float), atol=0.01)
    else:
        assert code == 2 and expected in err and "no calibration yet" in err
        assert "Calibration failed: " in out and not (tmp_path / "cal.json").exists()


@pytest.mark.parametrize("choice", ["press", "hold"])
def test_the_found_floor_is_shown_and_the_player_takes_it_or_the_whole_frame(tmp_path, frames, choice):
    """calibrate_live with a screen: the empty frame with the found floor drawn; THROW accepts it, a hold
    takes the whole frame (the real calibrator)."""
    from calibration import load
    from vision.tray import whole_frame

    src = FolderSource(camera_folder(tmp_path, frames))
    ui = Recorder(src)
    shown = []
    out = tmp_path / "cal.json"
    calibrate_live(src, ui.press, ui.show, out, 5, tmp_path / "throws", verify=None,
                   show_frame=lambda img, text: shown.append((img, text)), wait_choice=lambda: choice)
    assert len(shown) == 1 and "Tray floor found" in shown[0][1] and "hold" in shown[0][1]
    assert shown[0][0].shape == frames[0].shape and not np.array_equal(shown[0][0], frames[0])
    cal = load(out)
    if choice == "hold":
        assert np.allclose(cal.floor, whole_frame((640, 480)), atol=0.01)
    else:
        assert len(cal.floor) != 4 or not np.allclose(cal.floor, whole_frame((640, 480)), atol=1)


def test_no_floor_found_is_said_in_words_and_a_hold_takes_the_whole_frame(tmp_path, frames, monkeypatch):
    from calibration import load
    from vision import tray

    def nothing(img, *a, **k):
        raise tray.TrayError("no clear tray floor in the empty frame (found 3% of the frame)")

    monkeypatch.setattr(tray, "find_floor", nothing)
    src = FolderSource(camera_folder(tmp_path, frames))
    ui = Recorder(src)
    shown = []
    out = tmp_path / "cal.json"
    calibrate_live(src, ui.press, ui.show, out, 5, tmp_path / "throws", verify=None,
                   show_frame=lambda img, text: shown.append(text), wait_choice=lambda: "hold")
    assert shown and shown[0].startswith("No tray floor found (no clear tray floor")
    assert np.allclose(load(out).floor, tray.whole_frame((640, 480)), atol=0.01)


# ------------------------------------------------------------------ on the configured display

FLOOR_INSTRUCTION = "Press THROW to accept it, hold it to use the whole frame"
PANEL = (800, 480)  # the png sink has no size of its own: screens are drawn at 800x480


def screen_config(tmp_path: Path, folder: Path, display: str) -> Path:
    cfg = cli_config(tmp_path, folder)
    cfg.write_text(cfg.read_text() + f"[display]\n{display}\n")
    return cfg


def png_display(tmp_path: Path) -> str:
    return f'sink = "png"\nfile = "{tmp_path / "screens" / "screen.png"}"'


def screens(tmp_path: Path) -> list[np.ndarray]:
    return [np.asarray(Image.open(p).convert("RGB")) for p in sorted((tmp_path / "screens").glob("screen-*.png"))]


def outline_px(rgb: np.ndarray) -> int:
    """Pixels of calibration.draw's floor outline colour (green; the rendered trays have none)."""
    r, g, b = (int(v) for v in FLOOR_BGR[::-1])
    a = rgb.astype(int)
    return int(((abs(a[..., 0] - r) < 40) & (abs(a[..., 1] - g) < 40) & (abs(a[..., 2] - b) < 40)).sum())


def test_cli_shows_each_step_and_the_found_floor_on_the_display(tmp_path, frames, monkeypatch, capsys):
    """display.sink = "png": every step in large letters, the floor found drawn on the empty frame with
    the instruction under it; calibration-floor.png is written too."""
    import io

    from controller.cli.main import main
    from controller.screen.message import render_message, render_picture

    cfg = screen_config(tmp_path, camera_folder(tmp_path, frames), png_display(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n"))  # empty tray, the floor accepted; no third press
    code = main(["calibrate-live", "--config", str(cfg), "--keyboard"])
    out, err = capsys.readouterr()
    assert code == 2 and "no more input on stdin" in err and "screen" not in err
    shown = screens(tmp_path)
    assert [s.shape for s in shown] == [(PANEL[1], PANEL[0], 3)] * 3
    step1, floor, step2 = shown
    assert np.array_equal(step1, render_message("Calibration 1/2: empty the tray, then press the button", PANEL))
    assert np.array_equal(step2, render_message("Calibration 2/2: put 5 dice flat on the tray, apart, then press the button", PANEL))
    # the floor's outline in the picture, none on the text screens nor on the undrawn frame
    assert outline_px(floor) > 200 and outline_px(step1) == outline_px(step2) == 0
    assert outline_px(render_picture(cv2.cvtColor(frames[0], cv2.COLOR_BGR2RGB), "x", PANEL)) == 0
    # the picture is the drawing written to calibration-floor.png, with the words said on the terminal under it
    drawn = cv2.imread(str(tmp_path / "throws" / "calibration-floor.png"))
    assert drawn is not None and not np.array_equal(drawn, frames[0])
    assert f"Tray floor found (green).\n{FLOOR_INSTRUCTION}" in out
    assert np.array_equal(floor, render_picture(cv2.cvtColor(drawn, cv2.COLOR_BGR2RGB), f"Tray floor found (green).\n{FLOOR_INSTRUCTION}", PANEL))


def test_cli_says_on_the_display_that_no_floor_was_found(tmp_path, frames, monkeypatch, capsys):
    import io

    from controller.cli.main import main
    from controller.screen.message import render_picture
    from vision import tray

    reason = "no clear tray floor in the empty frame (found 3% of the frame)"

    def nothing(img, *a, **k):
        raise tray.TrayError(reason)

    monkeypatch.setattr(tray, "find_floor", nothing)
    cfg = screen_config(tmp_path, camera_folder(tmp_path, frames), png_display(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO("\nh\n"))  # empty tray; no floor: hold (the whole frame); no third press
    code = main(["calibrate-live", "--config", str(cfg), "--keyboard"])
    out, err = capsys.readouterr()
    assert code == 2 and "no more input on stdin" in err
    said = f"No tray floor found ({reason}).\nPress THROW to try again, hold it to use the whole frame"
    assert said in out
    shown = screens(tmp_path)
    assert len(shown) == 3 and outline_px(shown[1]) == 0  # nothing drawn: the empty frame as the camera sees it
    empty_rgb = cv2.cvtColor(frames[0], cv2.COLOR_BGR2RGB)
    assert np.array_equal(shown[1], render_picture(empty_rgb, said, PANEL))
    assert not np.array_equal(shown[1], render_picture(empty_rgb, f"Tray floor found (green).\n{FLOOR_INSTRUCTION}", PANEL))


def test_cli_without_a_framebuffer_goes_on_on_the_terminal(tmp_path, monkeypatch, capsys):
    """display.sink = "framebuffer" on a device that is not there: one line on stderr, no traceback,
    and the calibration runs to its end (the calibration part's own verdict on these frames)."""
    import io

    from calibration import CalibrationError, calibrate
    from controller.cli.main import main
    from vision.reader import read

    scene = synthetic.reference_scene(np.random.default_rng(3), 5, size=(640, 480))
    empty, ref = synthetic.render_empty(scene), synthetic.render(scene)
    try:
        r = read(ref, calibrate(empty, ref, 5), 5)
        ok = r.verdict == "ok" and len(r.values) == 5
    except CalibrationError:
        ok = False
    cfg = screen_config(tmp_path, camera_folder(tmp_path, (empty, ref)), f'sink = "framebuffer"\ndevice = "{tmp_path / "fb97"}"')
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n\n"))
    code = main(["calibrate-live", "--config", str(cfg), "--keyboard"])
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[0] == ("yatzycam calibrate-live: the screen is not used (no framebuffer fb97: /sys/class/graphics/fb97 "
                        "does not exist (is the panel's driver loaded?)); the steps are on this terminal")
    assert "Traceback" not in err and sum("screen" in line for line in lines) == 1
    assert "Calibration 2/2: put 5 dice" in out and "Tray floor found (green)" in out
    if ok:
        assert code == 0 and len(lines) == 1 and "Calibrated: 5 dice read on the tray" in out
        assert (tmp_path / "cal.json").exists()
    else:
        assert code == 2 and "Calibration failed: " in out and len(lines) == 2


def test_cli_no_screen_leaves_the_display_alone(tmp_path, frames, monkeypatch, capsys):
    import io

    from controller.cli.main import main

    cfg = screen_config(tmp_path, camera_folder(tmp_path, frames), png_display(tmp_path))
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\n"))
    assert main(["calibrate-live", "--config", str(cfg), "--keyboard", "--no-screen"]) == 2
    out, err = capsys.readouterr()
    assert "Tray floor found (green)" in out and "screen" not in err
    assert screens(tmp_path) == []
