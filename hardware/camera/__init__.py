"""Board camera: capture (``cv2.VideoCapture``), board geometry, card recognition, stabiliser.

Importing this package registers the ``camera:`` and ``sim://camera`` drivers with
:mod:`hardware.base` (kind ``"camera"``). Heavy modules (:mod:`.capture`, :mod:`.recognizer`)
import OpenCV; import them directly.
"""

from hardware.camera import registry as registry
