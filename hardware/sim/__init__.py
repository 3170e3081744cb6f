"""Simulated devices that speak the real wire protocols, and rendered camera scenes."""
