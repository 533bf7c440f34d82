"""A calibration profile drawn on a frame, for a player to look at what was learnt: the tray floor
(green), the keep zone (yellow) and a die's top face at the measured size (cyan square in the floor's
middle), with a line of text. Used by `yatzycam show-calibration`, `doctor --picture` and
`calibrate-live`'s screen."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import Calibration

FLOOR_BGR = (60, 220, 60)
KEEP_BGR = (0, 220, 240)
DIE_BGR = (240, 220, 0)


def describe(cal: Calibration) -> str:
    die = f"die {cal.die_px:.0f} px" if cal.die_px else "die size not measured"
    keep = "keep zone" if cal.keep_zone else "no keep zone"
    return f"floor {len(cal.floor)} corners, {keep}, {die}"


def draw(frame: np.ndarray, cal: Calibration, text: str | None = None, thickness: int | None = None) -> np.ndarray:
    """A BGR copy of `frame` (scaled to the profile's size when it differs) with the profile drawn on it
    in lines `thickness` pixels wide (default: a 320th of the width, at least 2) and `text` (default:
    `describe(cal)`; "" for none) in a bar at the top."""
    img = frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    w, h = cal.image_size
    if img.shape[1] != w or img.shape[0] != h:
        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    out = img.copy()
    th = thickness or max(2, round(w / 320))
    floor = np.round(np.asarray(cal.floor)).astype(np.int32)
    shade = out.copy()
    cv2.fillPoly(shade, [floor], FLOOR_BGR)
    out = cv2.addWeighted(shade, 0.18, out, 0.82, 0)
    cv2.polylines(out, [floor], True, FLOOR_BGR, th, cv2.LINE_AA)
    if cal.keep_zone:
        cv2.polylines(out, [np.round(np.asarray(cal.keep_zone)).astype(np.int32)], True, KEEP_BGR, th, cv2.LINE_AA)
    if cal.die_px:
        m = cv2.moments(floor.astype(np.float32))
        cx, cy = (m["m10"] / m["m00"], m["m01"] / m["m00"]) if m["m00"] else (w / 2, h / 2)
        r = cal.die_px / 2
        cv2.rectangle(out, (round(cx - r), round(cy - r)), (round(cx + r), round(cy + r)), DIE_BGR, th, cv2.LINE_AA)
    label = text if text is not None else describe(cal)
    if not label:  # "": no line of text (calibrate-live puts its words under the picture)
        return out
    scale = max(0.4, w / 1400)
    (tw, tht), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    cv2.rectangle(out, (0, 0), (min(w - 1, tw + 12), tht + base + 10), (0, 0, 0), -1)
    cv2.putText(out, label, (6, tht + 5), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out
