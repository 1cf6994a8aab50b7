"""Shady Agents: the rulebook as data (cards, scoring)."""
