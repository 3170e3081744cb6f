"""One core for recognition: OpenCV and the loaded OpenBLAS limited to one thread."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from hardware.camera.onecore import blas_libraries, blas_threads, one_core


def test_one_core_sets_opencv_and_every_openblas_loaded() -> None:
    before = cv2.getNumThreads()
    try:
        found = blas_libraries()
        assert one_core() == len(blas_threads())
        assert cv2.getNumThreads() == 1
        assert all(n == 1 for n in blas_threads())
        # NumPy's wheels bundle OpenBLAS: it is found where NumPy was built with it.
        if "openblas" in str(np.show_config(mode="dicts")).lower():
            assert found
    finally:
        cv2.setNumThreads(before)


def test_no_maps_no_libraries(tmp_path: Path) -> None:
    assert blas_libraries(tmp_path / "missing") == []
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/libopenblas.so.0\n"
                    "7f01-7f02 r-xp 00000000 08:01 2 /usr/lib/libc.so.6\n"
                    "7f02-7f03 rw-p 00000000 00:00 0\n")
    assert blas_libraries(maps) == ["/usr/lib/libopenblas.so.0"]
