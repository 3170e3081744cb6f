"""Registers the board cameras with :mod:`hardware.base`: ``camera:`` and ``sim://camera``.

Both factories import OpenCV lazily. Open a camera with
:func:`hardware.base.open_camera` (``"camera://0"``, ``"camera:///dev/video0"``,
``"camera://?url=rtsp://..."``, ``"sim://camera?level=hard&seed=3"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hardware.base import DeviceUrl, register_scheme


def _merged(url: DeviceUrl, options: Mapping[str, Any]) -> dict[str, Any]:
    merged: dict[str, Any] = dict(url.query)
    merged.update(options)
    merged.pop("device", None)
    return merged


def open_cv_camera(url: DeviceUrl, options: Mapping[str, Any]) -> Any:
    """Build a camera for ``camera:`` URLs (:class:`hardware.camera.capture.CvCamera`)."""
    from hardware.camera.capture import CvCamera, camera_source

    merged = _merged(url, options)
    source = camera_source(url.path, merged)
    merged.pop("url", None)
    return CvCamera(url.url, source, merged)


def open_sim_camera(url: DeviceUrl, options: Mapping[str, Any]) -> Any:
    """Build a ``sim://camera`` (:class:`hardware.sim.camera.SimCamera`)."""
    from hardware.sim.camera import sim_camera_from_options

    return sim_camera_from_options(url.url, _merged(url, options))


register_scheme("camera", open_cv_camera, kind="camera")
register_scheme("sim://camera", open_sim_camera, kind="camera")
