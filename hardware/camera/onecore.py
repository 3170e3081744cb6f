"""One core for recognition: OpenCV's threads and the BLAS library's threads limited to one.

The recogniser's budget is CPU per frame on one core (docs/vision.md). OpenCV is told
``cv2.setNumThreads(1)``; NumPy's matrix products go to the BLAS library it was built with
(OpenBLAS in NumPy's wheels), which starts a thread per core and splits even small products
among them. A recogniser's products are small (the corner indices: 52 templates by 49 shifts of
about a thousand pixels, :mod:`hardware.camera.index`): split, the threads mostly wait for each
other, and on a loaded machine for a core. Measured on the stream benchmark's frames
(docs/benchmarks.md, run 54): a frame where one card is laid cost 34.5 ms of the reading
thread's CPU and 67 ms of the process's with OpenBLAS's threads, 19 ms of either with one; the
same readings.

Rules this module keeps:

1. :func:`one_core` sets both, at run time (the BLAS library is already loaded by then): every
   OpenBLAS loaded in the process (found in ``/proc/self/maps``, Linux) is called with its own
   ``set_num_threads`` (plain, or the ``scipy_openblas`` names of NumPy's wheels). A BLAS of
   another kind, or none found, is left as it is; the count of libraries set says which.
2. Process-wide: it is called where the recognition runs, when its board source is built
   (the camera worker's child; :func:`hardware.camera.registry.open_camera_board_source` for a
   ``process=0`` source, in the daemon's own process) and in the benchmarks. In the daemon's
   process it limits the rest as well: nothing else there does array arithmetic (the event
   loop, the rules engine and the serial devices use neither NumPy nor OpenCV; a camera's
   FFmpeg decoding keeps its own threads), and a frame's products then cost the reading
   thread's CPU alone instead of waking a thread per core. It is called before the source's
   first frame, while no other thread of the process is inside the BLAS library (OpenBLAS's
   setter is not safe against a product running). The simulated camera (``sim://camera``,
   always in-process: tests and demonstrations) is left as it is.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from pathlib import Path

import cv2

#: The thread-count setters OpenBLAS exports (NumPy's wheels prefix and suffix them).
SETTERS = ("openblas_set_num_threads", "scipy_openblas_set_num_threads64_",
           "scipy_openblas_set_num_threads_64_", "scipy_openblas_set_num_threads")
#: And the matching getters (:func:`blas_threads`).
GETTERS = ("openblas_get_num_threads", "scipy_openblas_get_num_threads64_",
           "scipy_openblas_get_num_threads_64_", "scipy_openblas_get_num_threads")


def blas_libraries(maps: Path = Path("/proc/self/maps")) -> list[str]:
    """Return the paths of the OpenBLAS libraries mapped into this process (none off Linux)."""
    try:
        lines = maps.read_text().splitlines()
    except OSError:
        return []
    paths = {line.split(maxsplit=5)[-1] for line in lines if len(line.split()) >= 6}
    return sorted(p for p in paths if "openblas" in Path(p).name.lower())


def _function(path: str, names: tuple[str, ...]) -> Callable[..., int] | None:
    """Return the first of ``names`` that the library at ``path`` exports, or None."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for name in names:
        fn = getattr(lib, name, None)
        if fn is not None:
            return fn  # type: ignore[no-any-return]
    return None


def blas_threads() -> list[int]:
    """Return each loaded OpenBLAS library's thread count (:func:`blas_libraries`' order)."""
    getters = (_function(p, GETTERS) for p in blas_libraries())
    return [int(fn()) for fn in getters if fn is not None]


def one_core() -> int:
    """Limit OpenCV and every loaded OpenBLAS to one thread; return how many BLAS were set."""
    cv2.setNumThreads(1)
    done = 0
    for path in blas_libraries():
        fn = _function(path, SETTERS)
        if fn is not None:
            fn(1)
            done += 1
    return done
