"""Shady Agents (rules/shady-agents.md): hidden teams, face-down tools, interrogations.

What exists so far is the rulebook as data and pure functions, ahead of the engine that the game
kit (issue 8) will carry: ``components`` (teams, tools, gifts, discards and the seat geometry of
§0-§1), ``cards`` (the 40-card interrogation deck of §6, judged on a ``Snapshot`` of round 1)
and ``scoring`` (the role deck for 4-10 players and the end-of-game scoring of §7). No records,
seats, bots or views yet, and the game is not registered.
"""
