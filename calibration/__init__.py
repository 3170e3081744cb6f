"""Calibration: deck profiles (tag to card), chip zones, camera profiles."""
