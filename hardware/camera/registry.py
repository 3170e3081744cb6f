"""Registers the board cameras with :mod:`hardware.base`: ``camera:`` (kinds camera and board).

Both factories import OpenCV lazily. Open a camera with :func:`hardware.base.open_camera`
(``"camera://0"``, ``"camera:///dev/video0"``, ``"camera://?url=rtsp://..."``), or the board
source over it with :func:`hardware.base.open_board_source` and the camera profile
(``profile=``). The simulated cameras (``sim://camera``) register themselves in
:mod:`hardware.sim`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from hardware.base import CameraProfile, DeviceUrl, open_camera, register_scheme
from table_controller.errors import ConfigError

if TYPE_CHECKING:
    from hardware.camera.source import FrameBoardSource
    from hardware.camera.worker import ProcessBoardSource


def merged_options(url: DeviceUrl, options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the URL's query updated with the keyword options (``device`` dropped)."""
    merged: dict[str, Any] = dict(url.query)
    merged.update(options)
    merged.pop("device", None)
    return merged


def open_cv_camera(url: DeviceUrl, options: Mapping[str, Any]) -> Any:
    """Build a camera for ``camera:`` URLs (:class:`hardware.camera.capture.CvCamera`)."""
    from hardware.camera.capture import CvCamera, camera_source

    merged = merged_options(url, options)
    source = camera_source(url.path, merged)
    merged.pop("url", None)
    return CvCamera(url.url, source, merged)


def open_camera_board(url: DeviceUrl, options: Mapping[str, Any]) -> FrameBoardSource:
    """Build the board source over a camera: frames -> the profile's recognizer -> stabiliser.

    In the caller's process (:func:`open_camera_board_source` builds a ``camera:`` URL's).

    :param options: ``profile`` (required): the camera profile; the rest goes to the camera.
    :raises ConfigError: without a profile.
    """
    from hardware.camera.source import FrameBoardSource
    from hardware.camera.stabilizer import BoardStabilizer

    opts = dict(options)
    profile: CameraProfile | None = opts.pop("profile", None)
    if profile is None:
        raise ConfigError(f"camera {url.url}: a board source needs calibration.camera_profile")
    return FrameBoardSource(open_camera(url.url, **opts), profile.recognizer(),
                            BoardStabilizer(frames=3), interval=0.1, design=profile.design)


def open_camera_board_source(
    url: DeviceUrl, options: Mapping[str, Any]
) -> FrameBoardSource | ProcessBoardSource:
    """Build a ``camera:`` board source: :func:`open_camera_board`, by default in a child.

    The source runs in a child process (:class:`~hardware.camera.worker.ProcessBoardSource`:
    recognition holds no lock of the caller's interpreter) unless ``process=0`` is given (URL
    query or keyword), which builds it in the caller's process and sets that process to one
    OpenCV thread and one BLAS thread, as the child is (:func:`~hardware.camera.onecore.one_core`,
    process-wide: the daemon's other work does no array arithmetic). ``nice=N`` (0-19, default
    :data:`~hardware.camera.worker.CHILD_NICENESS`) is how much lower the child's priority is.

    :param options: ``profile`` (required), ``process``, ``nice``; the rest goes to the camera.
    :raises ConfigError: without a profile, for a ``process`` value other than 0 or 1, or a
        ``nice`` that is not 0-19 or given with ``process=0``.
    """
    opts = dict(options)
    wanted: object = opts.pop("process", url.query.get("process", True))
    if isinstance(wanted, str):
        if wanted not in ("0", "1"):
            raise ConfigError(f"camera {url.url}: process={wanted!r} must be 0 or 1")
        wanted = wanted == "1"
    nice: object = opts.pop("nice", url.query.get("nice"))
    if opts.get("profile") is None:
        raise ConfigError(f"camera {url.url}: a board source needs calibration.camera_profile")
    camera_url = _without(url, ("process", "nice"))
    if wanted:
        from hardware.camera.worker import CHILD_NICENESS, ProcessBoardSource

        return ProcessBoardSource(camera_url, {**opts, "process": False}, interval=0.1,
                                  niceness=CHILD_NICENESS if nice is None else _nice(url, nice))
    if nice is not None:
        raise ConfigError(f"camera {url.url}: nice= is the recogniser process's; with "
                          "process=0 there is none")
    query = {k: v for k, v in url.query.items() if k not in ("process", "nice")}
    from hardware.camera.onecore import one_core

    one_core()
    return open_camera_board(DeviceUrl(camera_url, url.scheme, url.key, url.path, query), opts)


def _nice(url: DeviceUrl, value: object) -> int:
    """Parse the ``nice`` option: a whole number 0-19."""
    text = str(value)
    if not text.isdigit() or int(text) > 19:
        raise ConfigError(f"camera {url.url}: nice={value!r} must be a whole number 0-19")
    return int(text)


def _without(url: DeviceUrl, keys: tuple[str, ...]) -> str:
    """Return ``url`` less the query options ``keys`` (the camera does not take them)."""
    if not any(k in url.query for k in keys):
        return url.url
    base, _, query = url.url.partition("?")
    kept = "&".join(part for part in query.split("&") if part.split("=")[0] not in keys)
    return f"{base}?{kept}" if kept else base


register_scheme("camera", open_cv_camera, kind="camera")
register_scheme("camera", open_camera_board_source, kind="board")
