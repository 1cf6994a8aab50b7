"""Confusion (rules/confusion.md): spies whose owner does not know how they move.

What exists so far is the rulebook as data and pure functions, ahead of the engine that the game
kit (issue 8) will carry: ``board`` (the 11x11 board, square names, owner frames, lines and
paths, start squares and home rows of §2 and §4) and ``movement`` (the 13 movement types of §3,
the assignment's permutation of §4, the yes and no sets of a line with the Double Agent in both,
promotion statements, and which announcements are legal on a given ``Situation``, §6.1-6.2 and
§6.5). No records, proofs, seats, bots, notebook or views yet, and the game is not registered.
"""
