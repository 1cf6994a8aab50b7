"""Confusion: the rulebook as data (board, movement)."""
