"""controller.doctor against mocked devices: MockFactory pins, sysfs files in a temp root,
a folder camera of real PNGs, a real SQLite file."""

from __future__ import annotations

import itertools
import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from controller import doctor
from controller.cli.main import main
from controller.doctor import Probe, run_checks
from controller.game.game import Setup
from controller.store import Store
from calibration import calibrate, save


@pytest.fixture
def factory():
    f = MockFactory()
    try:
        yield f
    finally:
        f.reset()


def empty_tray(seed: int = 3) -> np.ndarray:
    from vision import synthetic

    return synthetic.render_empty(synthetic.reference_scene(np.random.default_rng(seed), 5, size=(640, 480)))


def write_frames(folder: Path, n: int = 3, flat: bool = False) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    img = np.full((480, 640, 3), 90, np.uint8) if flat else empty_tray()
    for i in range(n):
        assert cv2.imwrite(str(folder / f"frame{i:02d}.png"), img)


@pytest.fixture
def pi(tmp_path):
    """A temp root that looks like a Pi with a 800x480 32-bit framebuffer, and a config for it."""
    root = tmp_path / "root"
    fb = root / "sys/class/graphics/fb0"
    fb.mkdir(parents=True)
    (fb / "bits_per_pixel").write_text("32\n")
    (fb / "virtual_size").write_text("800,480\n")
    (fb / "stride").write_text("3200\n")
    (root / "dev").mkdir()
    (root / "dev/fb0").write_bytes(b"\0" * 16)
    (root / "dev/gpiochip0").write_bytes(b"")
    (root / "proc/device-tree").mkdir(parents=True)
    write_frames(tmp_path / "frames")
    state = tmp_path / "state"
    state.mkdir()
    save(calibrate(empty_tray()), state / "calibration.json")
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        f"""
[camera]
source = "folder"
folder = "{tmp_path / 'frames'}"
[display]
device = "{root / 'dev/fb0'}"
[paths]
db = "{state / 'yatzycam.sqlite'}"
calibration = "{state / 'calibration.json'}"
images = "{state / 'throws'}"
"""
    )
    return {"root": root, "config": cfg, "state": state, "tmp": tmp_path}


def checks_by_name(config, probe, only=()):
    return {c.name: c for c in run_checks(config, only, probe)}


def test_all_pass_on_a_healthy_setup(pi, factory):
    probe = Probe(root=pi["root"], pin_factory=factory)
    Store(pi["state"] / "yatzycam.sqlite").close()
    checks = run_checks(pi["config"], (), probe)
    assert [c.name for c in checks] == list(doctor.CHECKS)
    assert all(c.ok for c in checks), doctor.report(checks)
    by = {c.name: c for c in checks}
    assert "10 frames 640x480" in by["camera"].detail and "frames/s" in by["camera"].detail
    assert "800x480, 32 bits per pixel, stride 3200" in by["display"].detail
    assert "MockFactory" in by["gpio"].detail and "gpiochip0" in by["gpio"].detail
    assert "10 pins free" in by["pins"].detail and "GPIO17 throw button" in by["pins"].detail
    assert "integrity ok" in by["database"].detail
    assert doctor.report(checks).endswith("9 of 9 checks passed")


def test_busy_pin_is_named(pi, factory):
    held = Button(17, pin_factory=factory)  # another program holds the throw button
    try:
        c = checks_by_name(pi["config"], Probe(root=pi["root"], pin_factory=factory), ["pins"])["pins"]
    finally:
        held.close()
    assert not c.ok and "GPIO17 (throw button)" in c.detail and "systemctl stop yatzycam" in c.fix


def test_pi5_needs_lgpio(pi, factory):
    (pi["root"] / "proc/device-tree/model").write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    c = checks_by_name(pi["config"], Probe(root=pi["root"], pin_factory=factory), ["gpio"])["gpio"]
    assert not c.ok and "Raspberry Pi 5" in c.detail and "GPIOZERO_PIN_FACTORY=mock" in c.fix
    # a fallback factory (what a venv without lgpio ends up with) is refused on a Pi 5
    native_like = type("NativeFactory", (MockFactory,), {})()
    try:
        c = checks_by_name(pi["config"], Probe(root=pi["root"], pin_factory=native_like), ["gpio"])["gpio"]
    finally:
        native_like.reset()
    assert not c.ok and "NativeFactory" in c.detail and "lgpio" in c.fix
    # a Pi 4 is fine with any working factory other than the mock
    (pi["root"] / "proc/device-tree/model").write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\0")
    native_like = type("NativeFactory", (MockFactory,), {})()
    try:
        c = checks_by_name(pi["config"], Probe(root=pi["root"], pin_factory=native_like), ["gpio"])["gpio"]
    finally:
        native_like.reset()
    assert c.ok, c


@pytest.mark.parametrize(
    "files,why",
    [
        ({"bits_per_pixel": "24"}, "24 bits per pixel is not supported"),
        ({"virtual_size": "garbage"}, "unexpected contents"),
        ({"stride": "100"}, "stride 100 is shorter"),
    ],
)
def test_framebuffer_problems(pi, factory, files, why):
    for name, text in files.items():
        (pi["root"] / "sys/class/graphics/fb0" / name).write_text(text)
    c = checks_by_name(pi["config"], Probe(root=pi["root"], pin_factory=factory), ["display"])["display"]
    assert not c.ok and why in c.detail and c.fix


def test_display_size_is_scaled(pi):
    cfg = pi["config"]
    cfg.write_text(cfg.read_text().replace("[display]\n", "[display]\nsize = [480, 320]\n"))
    c = checks_by_name(cfg, Probe(root=pi["root"]), ["display"])["display"]
    assert c.ok and "drawn at display.size 480x320 and scaled" in c.detail


def test_missing_framebuffer_lists_the_others(pi):
    (pi["root"] / "dev/fb0").unlink()
    (pi["root"] / "sys/class/graphics/fb1").mkdir()
    c = checks_by_name(pi["config"], Probe(root=pi["root"]), ["display"])["display"]
    assert not c.ok and "no such device" in c.detail and "fb0, fb1" in c.detail


def test_camera_problems(pi):
    probe = Probe(root=pi["root"])
    # flat frames: lens cap
    write_frames(pi["tmp"] / "flat", flat=True)
    cfg = pi["config"]
    text = cfg.read_text()
    cfg.write_text(text.replace(str(pi["tmp"] / "frames"), str(pi["tmp"] / "flat")))
    c = checks_by_name(cfg, probe, ["camera"])["camera"]
    assert not c.ok and "flat" in c.detail
    # a folder that is not there
    cfg.write_text(text.replace(str(pi["tmp"] / "frames"), str(pi["tmp"] / "nope")))
    c = checks_by_name(cfg, probe, ["camera"])["camera"]
    assert not c.ok and "did not open" in c.detail
    # too slow: the clock says every frame took a second
    cfg.write_text(text)
    ticks = itertools.count(0.0, 10.0)
    c = checks_by_name(cfg, replace(probe, clock=lambda: next(ticks)), ["camera"])["camera"]
    assert not c.ok and "1.0 frames/s" in c.detail and "below 2" in c.detail


def test_camera_and_calibration_sizes(pi):
    # the simulated camera honours camera.size; a calibration made at another size is refused
    cfg = pi["config"]
    cfg.write_text(cfg.read_text().replace('source = "folder"', 'source = "sim"\nsize = [640, 480]'))
    ok = checks_by_name(cfg, Probe(root=pi["root"], frames=2), ["camera", "calibration"])
    assert ok["camera"].ok and "640x480" in ok["camera"].detail
    assert "made at 640x480" in ok["calibration"].detail
    cfg.write_text(cfg.read_text().replace("size = [640, 480]", "size = [800, 600]"))
    c = checks_by_name(cfg, Probe(root=pi["root"], frames=2), ["calibration"])["calibration"]
    assert not c.ok and "camera gives 800x600" in c.detail


def test_calibration_missing_or_corrupt(pi):
    cal = pi["state"] / "calibration.json"
    cal.unlink()
    c = checks_by_name(pi["config"], Probe(root=pi["root"]), ["calibration"])["calibration"]
    assert not c.ok and "none yet" in c.detail and "calibrate" in c.fix
    cal.write_text("{not json")
    c = checks_by_name(pi["config"], Probe(root=pi["root"]), ["calibration"])["calibration"]
    assert not c.ok and str(cal) in c.detail


def test_database(pi):
    db = pi["state"] / "yatzycam.sqlite"
    c = checks_by_name(pi["config"], Probe(root=pi["root"]), ["database"])["database"]
    assert c.ok and "not created yet" in c.detail
    with Store(db) as store:
        store.new_game(Setup.create("yatzy", ["Anna", "Bo"]))
    before = (db.read_bytes(), db.stat().st_mtime_ns, sorted(p.name for p in db.parent.iterdir()))
    c = checks_by_name(pi["config"], Probe(root=pi["root"]), ["database"])["database"]
    assert c.ok and "1 games" in c.detail
    # doctor only reads: not a byte, not a new -wal/-shm file
    assert (db.read_bytes(), db.stat().st_mtime_ns, sorted(p.name for p in db.parent.iterdir())) == before
    other = sqlite3.connect(pi["state"] / "other.sqlite")
    other.execute("CREATE TABLE photos (id INTEGER)")
    other.close()
    cfg = pi["config"]
    cfg.write_text(cfg.read_text().replace("yatzycam.sqlite", "other.sqlite"))
    c = checks_by_name(cfg, Probe(root=pi["root"]), ["database"])["database"]
    assert not c.ok and "another program's database (tables: photos)" in c.detail
    cfg.write_text(cfg.read_text().replace("other.sqlite", "yatzycam.sqlite"))
    db.write_bytes(b"SQLite format 3\0" + b"\xff" * 4000)  # a torn file
    c = checks_by_name(pi["config"], Probe(root=pi["root"]), ["database"])["database"]
    assert not c.ok and "never delete" in c.fix


def test_disk_space(pi):
    c = checks_by_name(pi["config"], Probe(root=pi["root"], min_free_mb=10**9), ["disk"])["disk"]
    assert not c.ok and "MiB free" in c.detail


def test_python_stack_sees_a_shadowed_numpy(pi):
    ok = checks_by_name(pi["config"], Probe(root=pi["root"]), ["python"])["python"]
    assert ok.ok and "numpy" in ok.detail
    # apt's numpy present under the root: the venv's own numpy shadows it
    (pi["root"] / "usr/lib/python3/dist-packages/numpy").mkdir(parents=True)
    c = checks_by_name(pi["config"], Probe(root=pi["root"]), ["python"])["python"]
    assert not c.ok and "shadows apt's python3-numpy" in c.detail and "--system-site-packages" in c.fix


def test_python_stack_names_the_readers_engine_and_a_bad_choice_of_it(pi, monkeypatch):
    monkeypatch.setenv("YATZYCAM_DNN", "opencv")
    c = checks_by_name(pi["config"], Probe(root=pi["root"]), ["python"])["python"]
    assert c.ok and "the reader's nets run by OpenCV dnn" in c.detail
    monkeypatch.setenv("YATZYCAM_DNN", "tensorflow")
    c = checks_by_name(pi["config"], Probe(root=pi["root"]), ["python"])["python"]
    assert not c.ok and "YATZYCAM_DNN='tensorflow'" in c.detail and "onnxruntime or opencv" in c.fix


def test_picamera2_required_for_the_pi_camera(pi):
    cfg = pi["config"]
    cfg.write_text(cfg.read_text().replace('source = "folder"', 'source = "picamera2"'))
    c = checks_by_name(cfg, Probe(root=pi["root"]), ["python"])["python"]
    try:
        import picamera2  # noqa: F401

        assert c.ok
    except ImportError:
        assert not c.ok and "picamera2" in c.detail


def test_cli_exit_codes_and_json(pi, capsys):
    code = main(["doctor", "--config", str(pi["config"]), "--only", "database", "--only", "disk", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["ok"] and [c["name"] for c in out["checks"]] == ["database", "disk"]
    (pi["state"] / "calibration.json").unlink()
    code = main(["doctor", "--config", str(pi["config"]), "--only", "calibration"])
    out = capsys.readouterr().out
    assert code == 1 and "FAIL calibration" in out and "fix: calibrate" in out


def test_bad_config_is_a_failed_check(tmp_path, capsys):
    bad = tmp_path / "config.toml"
    bad.write_text('[camera]\nsource = "webcam"\n')
    code = main(["doctor", "--config", str(bad)])
    out = capsys.readouterr().out
    assert code == 1
    assert f"FAIL config       {bad}: camera.source: must be one of" in out
    assert "0 of 1 checks passed" in out


def test_live_frame_still_shows_the_calibrated_tray(pi):
    probe = Probe(root=pi["root"], frames=2)
    c = checks_by_name(pi["config"], probe, ["camera", "calibration"])["calibration"]
    assert c.ok and "the live frame still shows the calibrated tray" in c.detail, c
    # the camera was knocked: the tray now sits 120 px to the right
    moved = np.roll(empty_tray(), 120, axis=1)
    for f in (pi["tmp"] / "frames").iterdir():
        cv2.imwrite(str(f), moved)
    c = checks_by_name(pi["config"], probe, ["camera", "calibration"])["calibration"]
    assert not c.ok and "live frame:" in c.detail and "calibrate" in c.fix, c
    # --picture: the calibrated floor drawn on the live frame (the tray beside it)
    pic = pi["tmp"] / "moved.png"
    c = {x.name: x for x in run_checks(pi["config"], ["camera", "calibration"], probe, picture=pic)}["calibration"]
    assert not c.ok and f"drawn in {pic}" in c.detail
    drawn = cv2.imread(str(pic))
    assert drawn.shape == moved.shape and not np.array_equal(drawn, moved)
    # without the camera check there is no live frame: said so, not silently passed over
    c = checks_by_name(pi["config"], probe, ["calibration"])["calibration"]
    assert c.ok and "no live frame" in c.detail
