"""Hidden-information sub-protocols with their own state, composed by several games.

``role_deal``: hidden roles from a proven-shuffled deck, with recognition (The Resistance, Shady
Agents). ``deck_ops``: a shared mental-poker deck (SpyNet).
"""
