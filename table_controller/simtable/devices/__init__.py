"""Simulated devices a daemon reaches as real ones: ``sim run``, its control socket, practice."""
