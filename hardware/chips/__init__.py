"""Chip-sensor array: reference-protocol messages and the serial driver."""
