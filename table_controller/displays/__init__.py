"""displays package."""
