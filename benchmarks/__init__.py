"""Timed comparisons against the named peers, measured side by side in one run (not tests)."""
