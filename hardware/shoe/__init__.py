"""RFID card shoe: reference-protocol messages, the serial driver and tag-to-card resolution."""
