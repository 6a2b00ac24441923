"""Views: votes follow a workaround's text, and workarounds are shown best first."""

from __future__ import annotations

from bot.core.records import Record
from bot.core.views import Tally, rank_workarounds, workaround_key


def test_a_workaround_key_ignores_case_and_spacing_only() -> None:
    assert workaround_key("Clip  the gradients") == workaround_key(" clip the Gradients ")
    assert workaround_key("Clip the gradients") != workaround_key("Clip gradients")
    assert len(workaround_key("anything")) == 16


def test_team_votes_reorder_workarounds_and_keep_their_position() -> None:
    rec = Record.model_validate(
        {
            "id": "python/example-error",
            "signature": "ExampleError: the widget broke",
            "regex": "ExampleError",
            "workarounds": [
                {"action": "Replace the widget", "success_rate": 0.8},
                {"action": "Restart the widget", "success_rate": 0.6},
            ],
        }
    )
    assert [w.index for w in rank_workarounds(rec, {})] == [0, 1]
    voted = rank_workarounds(rec, {workaround_key("Restart the widget"): Tally(9, 1)})
    assert [w.index for w in voted] == [1, 0]
    assert (voted[0].votes_up, voted[0].votes_down, voted[0].prior_rate) == (9, 1, 0.6)
    # no evidence: a prior worth 3 votes; (0.6 * 3 + 9) / (3 + 10) beats an untouched 0.8
    assert (round(voted[0].success_rate, 4), round(voted[1].success_rate, 4)) == (0.8308, 0.8)
