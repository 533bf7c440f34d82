"""Calibration: empty-tray (and reference-throw) frames -> a Calibration profile (versioned JSON)."""

from calibration.calibrate import calibrate, check_frame
from calibration.profile import KIND, VERSION, Calibration, CalibrationError, FloorNotFound, load, save

__all__ = ["KIND", "VERSION", "Calibration", "CalibrationError", "FloorNotFound", "calibrate", "check_frame", "load", "save"]
