"""Device protocols, drivers and simulators: card shoe, chip sensors, board camera."""
