"""Display sinks on real files: a framebuffer device emulated by a file plus a sysfs folder, PNGs, blanking."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from PIL import Image

from controller.screen import scoreboard as sb
from hardware import display as D


def make_fb(tmp_path, bpp: int, size=(480, 320), pad: int = 64, virtual_h: int | None = None, modes: bool = True):
    """A fake /sys/class/graphics/fb1 and /dev/fb1 (a file of the full virtual size)."""
    w, h = size
    vh = virtual_h or h
    stride = w * bpp // 8 + pad
    sysfs = tmp_path / "sys"
    d = sysfs / "fb1"
    d.mkdir(parents=True)
    (d / "bits_per_pixel").write_text(f"{bpp}\n")
    (d / "stride").write_text(f"{stride}\n")
    (d / "virtual_size").write_text(f"{w},{vh}\n")
    if modes:
        (d / "modes").write_text(f"U:{w}x{h}p-0\n")
    dev = tmp_path / "dev" / "fb1"
    dev.parent.mkdir()
    dev.write_bytes(b"\xaa" * (stride * vh))
    return dev, sysfs, stride


def quantize565(a: np.ndarray) -> np.ndarray:
    r5, g6, b5 = a[..., 0] >> 3, a[..., 1] >> 2, a[..., 2] >> 3
    return np.stack([(r5 << 3) | (r5 >> 2), (g6 << 2) | (g6 >> 4), (b5 << 3) | (b5 >> 2)], axis=-1).astype(np.uint8)


@pytest.fixture(scope="module")
def screen() -> np.ndarray:
    return sb.render(sb.sample_view("maxi", 2, notice="Tärning på kant — kasta igen"), (480, 320))


@pytest.mark.parametrize("bpp", [16, 32])
def test_framebuffer_file_written_and_read_back(tmp_path, screen, bpp):
    dev, sysfs, stride = make_fb(tmp_path, bpp, virtual_h=640)  # double-buffered virtual size
    sink = D.FramebufferSink(dev, sysfs)
    assert sink.size == (480, 320) and sink.info.stride == stride and sink.info.virtual_height == 640
    sink.show(screen)
    sink.close()
    raw = dev.read_bytes()
    assert len(raw) == stride * 640  # nothing appended
    back = D.unpack(raw, sink.info)
    if bpp == 32:
        assert np.array_equal(back, screen)
        lines = np.frombuffer(raw, np.uint8)[: stride * 320].reshape(320, stride)
        assert (lines[:, 3 : 480 * 4 : 4] == 255).all()  # the X byte
    else:
        assert np.array_equal(back, quantize565(screen))
        assert np.abs(back.astype(int) - screen).max() <= 7
        lines = np.frombuffer(raw, np.uint8)[: stride * 320].reshape(320, stride)
    # stride padding is written as zeros; the second (virtual) buffer is left alone
    assert (lines[:, stride - 64 :] == 0).all()
    assert set(raw[stride * 320 :]) == {0xAA}


def test_pixel_formats_byte_for_byte(tmp_path):
    px = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [18, 52, 86]]], np.uint8)  # 1 x 4
    info16 = D.FbInfo(16, 8, 4, 1, 4, 1)
    info32 = D.FbInfo(32, 16, 4, 1, 4, 1)
    assert D.pack(px, info16) == bytes([0x00, 0xF8, 0xE0, 0x07, 0x1F, 0x00]) + ((18 >> 3) << 11 | (52 >> 2) << 5 | 86 >> 3).to_bytes(2, "little")
    assert D.pack(px, info32) == bytes([0, 0, 255, 255, 0, 255, 0, 255, 255, 0, 0, 255, 86, 52, 18, 255])


def test_letterbox_to_the_panel(tmp_path):
    dev, sysfs, _ = make_fb(tmp_path, 32, size=(480, 320), pad=0)
    frame = np.full((480, 800, 3), 200, np.uint8)  # 800x480 onto 480x320: 480x288 and bars of 16 lines
    sink = D.FramebufferSink(dev, sysfs)
    sink.show(frame)
    back = D.unpack(dev.read_bytes(), sink.info)
    assert (back[:16] == 0).all() and (back[-16:] == 0).all()
    assert (back[16:-16] == 200).all()


def test_framebuffer_without_modes_uses_virtual_size(tmp_path, screen):
    dev, sysfs, _ = make_fb(tmp_path, 16, modes=False)
    assert D.read_fb_info("fb1", sysfs).width == 480


def test_missing_or_unusable_framebuffer_is_one_clear_error(tmp_path):
    with pytest.raises(D.DisplayError, match="no framebuffer fb3") as e:
        D.FramebufferSink(tmp_path / "fb3", tmp_path)
    assert e.value.user_error is True
    dev, sysfs, _ = make_fb(tmp_path, 16)
    dev.unlink()
    with pytest.raises(D.DisplayError, match="cannot open .*fb1"):
        D.FramebufferSink(dev, sysfs)
    (sysfs / "fb1" / "bits_per_pixel").write_text("24\n")
    with pytest.raises(D.DisplayError, match="24 bits per pixel"):
        D.FramebufferSink(dev, sysfs)
    (sysfs / "fb1" / "bits_per_pixel").write_text("garbage\n")
    with pytest.raises(D.DisplayError, match="unexpected contents"):
        D.read_fb_info("fb1", sysfs)
    with pytest.raises(D.DisplayError, match="not a framebuffer"):
        D.FramebufferSink(tmp_path / "video0", sysfs)


def test_read_only_device_is_a_clear_error(tmp_path):
    dev, sysfs, _ = make_fb(tmp_path, 16)
    os.chmod(dev, 0o444)
    if os.access(dev, os.W_OK):  # root ignores file modes: use a directory, which cannot be opened for writing
        dev.unlink()
        dev.mkdir()
    with pytest.raises(D.DisplayError, match="cannot open"):
        D.FramebufferSink(dev, sysfs)


def test_png_sink_numbers_each_change(tmp_path, screen):
    sink = D.PngSink(tmp_path / "shots")
    other = screen.copy()
    other[0, 0] = (1, 2, 3)
    assert sink.show(screen) is not None
    assert sink.show(screen) is None  # no change, no file
    sink.show(other)
    files = sorted(p.name for p in (tmp_path / "shots").iterdir())
    assert files == ["screen-000001.png", "screen-000002.png"]
    assert np.array_equal(np.asarray(Image.open(tmp_path / "shots" / files[1])), other)
    again = D.PngSink(tmp_path / "shots")  # a restart goes on numbering
    assert again.show(screen).name == "screen-000003.png"


def test_window_without_a_desktop_is_a_clear_error():
    with pytest.raises(D.DisplayError, match="no desktop") as e:
        D.WindowSink(env={})
    assert e.value.user_error


def test_terminal_prints_text_when_it_changes():
    out = io.StringIO()
    t = D.TerminalSink(out)
    t.show(None, "Anna 12")
    t.show(None, "Anna 12")
    t.show(None, "Anna 15")
    assert out.getvalue() == "Anna 12\nAnna 15\n"


def test_blanking_after_idle_time_and_wake_on_press(tmp_path, screen):
    png = D.PngSink(tmp_path / "shots")
    out = io.StringIO()
    disp = D.BlankingDisplay([png, D.TerminalSink(out)], idle_s=60, now=0)
    disp.show(screen, "board", now=0)
    assert not disp.tick(59.9)
    disp.show(screen, "board", now=30)  # the same screen again is not activity
    assert disp.tick(60.0) and disp.is_blank
    black = np.asarray(Image.open(png.written[-1]))
    assert black.shape == screen.shape and not black.any()
    assert disp.press(75) is True  # the press only wakes it
    assert np.array_equal(np.asarray(Image.open(png.written[-1])), screen)
    assert disp.press(80) is False
    assert not disp.tick(139.9) and disp.tick(140)
    other = screen.copy()
    other[5, 5] = 0
    disp.show(other, "board 2", now=150)  # new content wakes the screen
    assert not disp.is_blank and np.array_equal(np.asarray(Image.open(png.written[-1])), other)
    assert out.getvalue() == "board\nboard 2\n"  # the terminal shows no blanks and no repeats
    assert len(png.written) == 5


def test_blanking_disabled_with_zero():
    b = D.Blanker(0, 0.0)
    assert not b.blank(1e9)
