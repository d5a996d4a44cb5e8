"""The Python package against the command line: the same library, the same answers.

Needs the yz binary: $YZ_BIN, else target/release/yz of the repository (built by
`cargo build --release`). Each test has a data directory of its own.
"""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import yz

REPOSITORY = Path(__file__).resolve().parents[2]
YZ = os.environ.get("YZ_BIN") or str(REPOSITORY / "target" / "release" / "yz")


def cli(data, *args):
    """`yz --json --data DATA ARGS...` as JSON."""
    if not os.access(YZ, os.X_OK):
        pytest.fail(f"no yz binary at {YZ}: run cargo build --release or set YZ_BIN")
    done = subprocess.run([YZ, "--json", "--data", str(data), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_official_game_is_worth_254_5896(tmp_path):
    # docs/published.md: 254.5896 (Verhoeff; Glenn 2006), the value of an empty card.
    value = yz.solo.value("", data=tmp_path)
    assert abs(value - 254.5896) < 5e-5
    assert value == cli(tmp_path, "solo", "value", "--card", "")["expected_final"]


def test_advice_is_the_command_lines(tmp_path):
    for card, dice, rolls_left in [("", "13356", 2), ("ones=3,fh=25", "22356", 1), ("sixes=24", "23455", 0)]:
        advice = yz.solo.advise(card, dice, rolls_left, data=tmp_path)
        expected = cli(tmp_path, "solo", "advise", "--card", card, "--dice", dice, "--rolls-left", str(rolls_left))
        assert advice == expected
    yatzy = yz.solo.advise("ones=2,pair=12", "55521", 0, rules="yatzy", data=tmp_path)
    assert yatzy == cli(tmp_path, "solo", "advise", "--rules", "yatzy", "--card", "ones=2,pair=12", "--dice", "55521",
                        "--rolls-left", "0")


def test_strategy_statistics_are_the_command_lines(tmp_path):
    stats = yz.strategy.stats("greedy", data=tmp_path)
    expected = cli(tmp_path, "strategy", "eval", "greedy")
    assert stats["expected_score"] == expected["expected_score"]
    assert stats["boxes"] == expected["boxes"]
    distribution = stats["distribution"]
    assert isinstance(distribution, np.ndarray) and distribution.dtype == np.float64
    assert abs(distribution.sum() - 1) < 1e-12
    assert abs(np.arange(len(distribution)) @ distribution - stats["expected_score"]) < 1e-9


def test_a_target_curve_has_the_tables_mean(tmp_path):
    # The first six boxes: the curve solved below the empty card, then read from the target
    # table `yz targets solve` writes: the same numbers, and their mean the table's.
    below = yz.targets.curve("", first=6, data=tmp_path)
    solved = cli(tmp_path, "targets", "solve", "--first", "6")
    from_table = yz.targets.curve("", first=6, data=tmp_path)
    assert isinstance(from_table, np.ndarray)
    assert np.array_equal(below, from_table)
    assert from_table[0] == 1.0 and np.all(np.diff(from_table) <= 0)
    assert abs(from_table[1:].sum() - solved["start_curve_mean"]) < 1e-9
    advice = yz.targets.advise("", "13356", 2, 60, first=6, data=tmp_path)
    assert advice == cli(tmp_path, "targets", "advise", "--first", "6", "--card", "", "--dice", "13356",
                         "--rolls-left", "2", "--target", "60")


def test_a_first_4_two_player_value_is_yz_duel_values(tmp_path):
    value = yz.duel.value("", "", first=4, data=tmp_path)
    assert value == cli(tmp_path, "duel", "value", "--first", "4", "--me", "", "--opp", "")["value"]
    advice = yz.duel.advise("ones=3", "twos=6", "11123", 2, first=4, data=tmp_path)
    assert advice == cli(tmp_path, "duel", "advise", "--first", "4", "--me", "ones=3", "--opp", "twos=6",
                         "--dice", "11123", "--rolls-left", "2")


def test_refusals_raise_the_librarys_message(tmp_path):
    with pytest.raises(yz.Error, match=r"^ones=7 is impossible"):
        yz.solo.value("ones=7", data=tmp_path)
    with pytest.raises(yz.Error, match=r"^expected five dice such as 13356"):
        yz.solo.advise("", "1234", 2, data=tmp_path)
    with pytest.raises(yz.Error, match="rules"):
        yz.solo.value("", rules="yahtzy", data=tmp_path)
    with pytest.raises(yz.Error, match="boxes filled"):
        yz.duel.value("ones=3,twos=6", "", first=4, data=tmp_path)
    with pytest.raises(yz.Error):
        yz.strategy.stats("nobody", data=tmp_path)
