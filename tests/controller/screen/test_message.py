"""controller.screen.message: words in large letters, a picture with a caption under it."""

from __future__ import annotations

import numpy as np
import pytest

from controller.screen import message
from controller.screen import scoreboard as sb

REASON = "No tray floor found (no clear tray floor in the empty frame (found 3% of the frame))."
WHAT_TO_DO = "Press THROW to try again, hold it to use the whole frame"


@pytest.mark.parametrize("size", sb.SIZES + tuple((h, w) for w, h in sb.SIZES))
def test_screens_are_the_panel_size_with_text_on_them(size):
    w, h = size
    msg = message.render_message("Calibration 1/2: empty the tray, then press the button", size)
    pic = message.render_picture(np.full((480, 640, 3), 90, np.uint8), f"{REASON}\n{WHAT_TO_DO}", size)
    for a in (msg, pic):
        assert a.shape == (h, w, 3) and a.dtype == np.uint8
    assert (msg == sb.TEXT).all(axis=-1).sum() > 0.02 * w * h  # large letters: at least 2% of the screen is text
    assert (pic == 90).all(axis=-1).sum() > 0.3 * w * h  # the picture takes a good part of the screen (4:3 on 16:9: 38%)
    assert (pic == sb.OPTION).all(axis=-1).any() and (pic == sb.TEXT).all(axis=-1).any()  # both paragraphs drawn


def test_letters_grow_for_short_words():
    big, _ = message._block("Calibrated.", 700, 400, 80, 24)
    small, _ = message._block("Calibration failed: " + "a long reason " * 12, 700, 400, 80, 24)
    assert big == 80 and 24 <= small < big


def test_what_to_do_is_kept_whole_when_the_caption_is_cut():
    """On a small panel the reason is cut with an ellipsis, never the instruction."""
    px, lines = message._block(f"{REASON} {REASON}\n{WHAT_TO_DO}", 468, 107, 21, 18, 3)
    assert px == 18 and len(lines) == 3
    assert lines[-1] == (WHAT_TO_DO, False) and lines[-2][0].endswith(sb.ELLIPSIS)
