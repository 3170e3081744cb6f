"""RFID gaming-chip inventory reader: per-antenna tag lists over the reference link."""
