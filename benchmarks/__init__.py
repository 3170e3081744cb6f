"""Benchmarks: each module measures our code beside a baseline in the same run."""
