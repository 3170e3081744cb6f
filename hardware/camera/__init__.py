"""Board camera: capture (``cv2.VideoCapture``), board geometry, card recognition, stabiliser.

Heavy modules (:mod:`.capture`, :mod:`.recognizer`) import OpenCV; import them directly.
"""
