"""Breaks a red team found that are not fixed yet, each the smallest test that shows it, marked
``xfail(strict=True)`` with its reason: the day one passes, its mark must go (and the fix gets a
test of its own where it belongs)."""
