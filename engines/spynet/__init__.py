"""SpyNet (rules/spynet.md): 2-4 spymasters, alone or in two teams of two, and a 76-card deck.

What exists so far is the rulebook as data and pure functions, ready for the engine that comes
after the game kit:

* ``cards``: the 84 cards of §2 (76 in the deck, 8 situations), their effects and conditions;
* ``scoring``: seats and teams (§1), power and dominance (§3), mission conditions, the score
  and the tie-break (§2.5, §9);
* ``setup``: the situation option, the deal and the draft (§4), the recruit with its pile
  order, refills and end trigger (§6), the final round (§9.1);
* ``deploy``: the per-turn agent counters (§7) and the targets and outcome of special effects
  (§8, §13);
* ``errors``: the typed errors these raise, attributed to a seat and seq by the engine.

Not yet written: the engine (records, deck protocol, seats, bots, views); the game is not
registered.
"""
