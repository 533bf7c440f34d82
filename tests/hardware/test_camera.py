"""Frame sources: folder replay, OpenCV errors, picamera2 control locking, the simulated tray."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware.camera import (
    CameraError,
    FolderSource,
    ManualClock,
    OpenCVSource,
    PiCameraSource,
    SimulatedSource,
    lock_controls,
    to_small,
)


def test_folder_replays_in_order_and_repeats_last(tmp_path):
    for i, v in enumerate([10, 80, 200]):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((48, 64, 3), v, np.uint8))
    (tmp_path / "notes.txt").write_text("not an image")
    with FolderSource(tmp_path) as src:
        assert src.capture_small().shape == (48, 64)
        got = [int(src.capture()[0, 0, 0]) for _ in range(5)]
    assert got == [10, 80, 200, 200, 200]
    src = FolderSource(tmp_path, loop=True)
    assert [int(src.capture()[0, 0, 0]) for _ in range(4)] == [10, 80, 200, 10]


def test_folder_errors(tmp_path):
    with pytest.raises(CameraError):
        FolderSource(tmp_path / "nope")
    with pytest.raises(CameraError):
        FolderSource(tmp_path)  # empty
    (tmp_path / "bad.png").write_bytes(b"not a png")
    src = FolderSource(tmp_path)
    with pytest.raises(CameraError, match="not a readable image"):
        src.capture()


def test_opencv_missing_device_is_a_camera_error():
    with pytest.raises(CameraError):
        OpenCVSource("/nonexistent/video99")


def test_picamera2_missing_is_a_camera_error(capsys):
    try:
        import picamera2  # noqa: F401
    except ImportError:
        with pytest.raises(CameraError, match="picamera2"):
            PiCameraSource()
        assert "python3-picamera2" in capsys.readouterr().err
    else:  # pragma: no cover - on a Pi
        pytest.skip("picamera2 is installed here")


def test_lock_controls_freezes_what_auto_found():
    md = {"ExposureTime": 12000, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.4), "LensPosition": 3.2}
    controls, locked = lock_controls(md, has_af=True)
    assert controls["AeEnable"] is False and controls["AwbEnable"] is False
    assert controls["ExposureTime"] == 12000 and controls["ColourGains"] == (1.8, 1.4)
    assert controls["AfMode"] == 0 and controls["LensPosition"] == 3.2
    assert locked.lens_position == 3.2
    controls, locked = lock_controls(md, has_af=False, exposure_us=8000)
    assert "AfMode" not in controls and locked.lens_position is None and controls["ExposureTime"] == 8000
    with pytest.raises(CameraError):
        lock_controls({"AnalogueGain": 1.0}, has_af=False)


def test_to_small_is_gray_and_small():
    frame = np.zeros((960, 1280, 3), np.uint8)
    small = to_small(frame)
    assert small.shape == (120, 160) and small.dtype == np.uint8


def _table():
    from vision.synthetic import SimTable

    return SimTable(3, np.random.default_rng(3), size=(320, 240), cocked_rate=0.0, off_rate=0.0)


def test_simulated_tray_moves_while_rolling_then_stills():
    clock = ManualClock()
    src = SimulatedSource(_table(), clock, roll_s=0.5, fps=30)
    src.show()
    a, b = src.capture_small(), src.capture_small()
    assert np.array_equal(a, b)
    src.throw(keep=[])
    assert src.rolling
    rolling = [src.capture() for _ in range(10)]
    assert any(not np.array_equal(rolling[i], rolling[i + 1]) for i in range(9))
    clock.advance(0.5)
    assert not src.rolling
    x, y = src.capture(), src.capture()
    assert np.array_equal(x, y)
    assert src.frames == 14 and clock.now() == pytest.approx(0.5 + 14 / 30)


def test_simulated_flicker_and_failures():
    clock = ManualClock()
    src = SimulatedSource(_table(), clock, flicker=0.05)
    src.show()
    frames = [src.capture_small().astype(int) for _ in range(6)]
    assert len({int(f.mean()) for f in frames}) > 1  # brightness ripples, nothing moves
    src.fail_next = 2
    for _ in range(2):
        with pytest.raises(CameraError):
            src.capture()
    assert src.capture().shape == (240, 320, 3)
    src.close()
    with pytest.raises(CameraError):
        src.capture()
