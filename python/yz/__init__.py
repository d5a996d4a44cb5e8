"""yz from Python: exact Yahtzee and Scandinavian Yatzy.

Every function calls yz's library (the Rust crate's facade) and answers what the command
line's ``--json`` prints for the same question, as Python objects, with NumPy arrays for
distributions and curves:

- ``yz.solo``: ``value(card)``, the expected final score under optimal play (254.5896 for
  an empty official card); ``advise(card, dice, rolls_left)``, every choice ranked.
- ``yz.strategy``: ``stats(name)``, the exact statistics of a strategy of the zoo
  (``optimal``, ``greedy``, ``means``, ...), its score distribution as an array.
- ``yz.targets``: ``curve(card)``, P(final total >= t) for every t; ``advise(card, dice,
  rolls_left, target)``.
- ``yz.duel``: ``value(me, opp)``, the mover's winning chance P(win) + P(draw)/2;
  ``advise(me, opp, dice, rolls_left)``.

Every function takes ``rules=`` (``official``, ``yatzy``, ...), ``first=`` or
``categories=`` (a game of some boxes) and ``data=`` (the data directory of the tables,
default as the command line's: ``$YZ_DATA``, ``$XDG_DATA_HOME/yz``, ``~/.local/share/yz``),
where tables are solved and written on first use. What yz refuses raises ``yz.Error``
with the library's message.
"""

import sys
import types

from . import _native
from ._native import Error

__all__ = ["Error", "solo", "strategy", "targets", "duel"]


def _module(name, doc, **functions):
    """A submodule ``yz.NAME`` holding ``functions``, importable as ``from yz.NAME import f``."""
    module = types.ModuleType(f"{__name__}.{name}", doc)
    for public, function in functions.items():
        setattr(module, public, function)
    module.__all__ = list(functions)
    sys.modules[module.__name__] = module
    return module


solo = _module("solo", "Single player, maximum expected score.", value=_native.solo_value, advise=_native.solo_advise)
strategy = _module("strategy", "Any strategy of the zoo, analysed exactly.", stats=_native.strategy_stats)
targets = _module(
    "targets", "The best chance of reaching every final total.", curve=_native.target_curve, advise=_native.target_advise
)
duel = _module("duel", "Two players: P(win) + P(draw)/2.", value=_native.duel_value_of, advise=_native.duel_advise_of)
