"""Pure rules of no-limit Texas hold'em: cards, betting, pots, showdown, the table across hands.

No I/O, clock or randomness in this package: cards are passed in (they come from the shoe).
"""
