"""The parts of a candidate's score, pinned with this test's own numbers (#20): each test was
written for a mutant of bot/core/matcher.py that passed the rest of the suite (docs/testing.md),
and fails with that mutant planted."""

from __future__ import annotations

from bot.core.extract import extract
from bot.core.matcher import Matcher
from bot.core.records import Record

OTHER = Record(id="b/other", signature="ValueError: something else broke", regex="something else broke")
FLUX_RX = Record(id="a/flux", signature="ZorblaxError: the flux capacitor misfired", regex="flux capacitor misfired")


def parts_of(records: list[Record], paste: str, rid: str) -> dict[str, float]:
    found = {c.id: c.parts for c in Matcher(records).match(extract(paste), limit=len(records))}
    return found[rid]


def test_a_line_without_content_words_explains_none_of_a_record() -> None:
    """`Error: 1 2 3 4` has no content word (numbers are placeholders): its line coverage is 0,
    not full, though its regex and wording match the record exactly (lcover 1.0 would lift it)."""
    numbers = Record(id="a/numbers", signature="Error: 1 2 3 4", regex=r"Error: \d \d")
    parts = parts_of([numbers, OTHER], "Error: 1 2 3 4", numbers.id)
    assert (parts["rx_line"], parts["fuzzy2"], parts["lcover"]) == (1.0, 1.0, 0.0)


def test_a_missing_word_counts_by_its_rarity_against_the_rarest_possible() -> None:
    """The paste lacks "alpha", which all three records have: its IDF is ln 2 against the rarest
    possible word's ln 4 (three records), so `miss` is 0.5, where a word no other record has
    would be 1.0."""
    wanted = Record(id="a/abg", signature="ValueError: alpha beta gamma", regex="beta gamma")
    others = [
        Record(id="b/ad", signature="TypeError: alpha delta", regex="zzqq never"),
        Record(id="c/az", signature="KeyError: alpha zeta", regex="zzqx never"),
    ]
    assert parts_of([wanted, *others], "ValueError: beta gamma", wanted.id)["miss"] == 0.5
    rare = Record(id="a/rare", signature="ValueError: omega beta gamma", regex="beta gamma")
    assert parts_of([rare, *others], "ValueError: beta gamma", rare.id)["miss"] == 1.0
    assert parts_of([wanted, *others], "ValueError: alpha beta gamma", wanted.id)["miss"] == 0.0


def test_a_record_with_no_wording_counts_as_missing_its_rarest_word() -> None:
    """A blank signature (import accepts one) leaves nothing to find in the paste: `miss` is
    the most it can be, 1.0, however the regex matched."""
    blank = Record(id="a/blank", signature="   ", regex="blank thing happened")
    assert parts_of([blank, OTHER], "RuntimeError: blank thing happened", blank.id)["miss"] == 1.0


def test_a_regex_hit_counts_its_matched_length_up_to_forty_characters() -> None:
    """`span` is the matched text's length over 40, at most 1: 23 characters give 0.575 on the
    error line and in the rest of the paste alike; 44 give 1.0, not 1.1. A record found only by
    its words has neither span nor specificity."""
    line = parts_of([FLUX_RX, OTHER], "ZorblaxError: the flux capacitor misfired", FLUX_RX.id)
    assert (line["rx_line"], line["rx_text"], line["span"], line["spec"]) == (1.0, 0.0, 0.575, 1.0)  # one or other
    text = parts_of([FLUX_RX, OTHER], "note: flux capacitor misfired\nRuntimeError: stopped", FLUX_RX.id)
    assert (text["rx_text"], text["span"], text["cover"]) == (1.0, 0.575, 0.0)  # no word on its error line
    longer = Record(id="a/long", signature=FLUX_RX.signature, regex="ZorblaxError: the flux capacitor misfired at")
    paste = "ZorblaxError: the flux capacitor misfired at warp nine"
    assert parts_of([longer, OTHER], paste, longer.id)["span"] == 1.0
    worded = Record(id="a/worded", signature=FLUX_RX.signature, regex="zzqq never matches")
    found = parts_of([worded, OTHER], "ZorblaxError: the flux capacitor misfired", worded.id)
    assert (found["rx_line"], found["rx_text"], found["span"], found["spec"]) == (0.0, 0.0, 0.0, 0.0)


FLUX = Record(
    id="a/flux-words", signature="ZorblaxError: the flux capacitor misfired", regex="zzqq never", domain="zorblax"
)


def test_coverage_is_the_signatures_rare_words_the_paste_has_capped_at_one() -> None:
    """Three of the signature's four words (each in this record only, so of equal weight): 0.75.
    A paste that also has the alias's four words shares more than the signature holds: 1.0."""
    assert parts_of([FLUX, OTHER], "ZorblaxError: flux capacitor", FLUX.id)["cover"] == 0.75
    aliased = FLUX.model_copy(update={"id": "a/aliased", "aliases": ["warp coil overload melted"]})
    paste = "ZorblaxError: the flux capacitor misfired warp coil overload melted"
    assert parts_of([aliased, OTHER], paste, aliased.id)["cover"] == 1.0


def test_the_domain_counts_when_the_paste_names_it() -> None:
    """A domain of its own is named by its name; kubernetes by any one of its words (`kubectl`)."""
    assert parts_of([FLUX, OTHER], "ZorblaxError: the flux capacitor misfired", FLUX.id)["domain"] == 0.0
    named = "ZorblaxError: the flux capacitor misfired\nzorblax 2.1 here"
    assert parts_of([FLUX, OTHER], named, FLUX.id)["domain"] == 1.0
    k8s = FLUX.model_copy(update={"id": "a/k8s", "domain": "kubernetes"})
    assert parts_of([k8s, OTHER], "$ kubectl apply\n" + named, k8s.id)["domain"] == 1.0
    assert parts_of([k8s, OTHER], named, k8s.id)["domain"] == 0.0


def test_fuzzy_wording_is_squared_and_strong_only_on_an_error_line() -> None:
    """`ZorblaxError: flux capacitor` against the signature: a fuzzy score of 0.812, which gives
    fuzzy2 0.659 (its square) and, on an error line (weight 1.0), strong_fuzzy 0.812. The same
    wording on a warning line (weight 0.45) is not strong."""
    error = parts_of([FLUX, OTHER], "ZorblaxError: flux capacitor", FLUX.id)
    assert (error["fuzzy2"], error["strong_fuzzy"], error["close"]) == (0.659, 0.812, 0.812)
    warning = parts_of([FLUX, OTHER], "warning: the flux capacitor misfired", FLUX.id)
    assert (warning["fuzzy2"], warning["strong_fuzzy"]) == (0.648, 0.0)


def test_a_hit_on_the_error_line_alone_counts_its_span() -> None:
    """The error line first, then over 100,000 characters of log: the whole-paste pass no longer
    sees the line, the pass over the error lines does, and its 23 characters count (0.575)."""
    filler = "".join(f"batch {n:06d} done\n" for n in range(6_000))  # 108,000 characters
    parts = parts_of([FLUX_RX, OTHER], "ZorblaxError: the flux capacitor misfired\n" + filler, FLUX_RX.id)
    assert (parts["rx_line"], parts["rx_text"], parts["span"]) == (1.0, 0.0, 0.575)


def test_a_team_record_takes_a_seeds_place_and_logit_below_another_error() -> None:
    """A paste with two errors: the first candidate (another seed) shadows nothing, and the team
    record still takes the second place from the seed it shadows, with the seed's logit."""
    seed = Record(
        id="python/foo-error",
        signature="FooError: widget frobnication failed",
        regex="frobnication failed|Frobnizieren",
    )
    team = Record(id="team/foo-error", signature="Fehler beim Frobnizieren widget", regex=r"frobnication failed$")
    qux = Record(
        id="python/qux-error",
        signature="QuxError: the gamma flange overheated badly",
        regex="gamma flange overheated badly",
    )
    m = Matcher([seed, team, qux], seeds=frozenset({seed.id, qux.id}))
    paste = "QuxError: the gamma flange overheated badly\nFooError: widget frobnication failed\n"
    first, second, third = m.match(extract(paste), limit=3)
    assert [first.id, second.id, third.id] == [qux.id, team.id, seed.id]
    assert second.parts["shadows"] == 1.0 and second.parts["z"] == third.parts["z"]


WARP = Record(id="a/warp", signature="ZorblaxError: the flux capacitor misfired during warp", regex="zzqq never")


def test_the_best_wording_of_any_line_counts_however_slightly_better() -> None:
    """The first line (`fatal:`, weight 0.9, a strong line) is worded like the record at 69.47 %,
    the second (`npm ERR!`, 0.8) at 70.10 %: the better one counts, by a hair or not, so fuzzy2 is
    0.701² = 0.491 and, from a line under 0.9, nothing strong; so does the better plain likeness,
    80.41 % against 80.00 % (close 0.804). On the `fatal:` line alone, 0.9 is strong:
    strong_fuzzy is its 0.695."""
    both = parts_of(
        [WARP, OTHER],
        "fatal: the flux capacitor misfired in warp\nnpm ERR! the flux capacitor misfired in warp",
        WARP.id,
    )
    assert (both["fuzzy2"], both["strong_fuzzy"], both["close"]) == (0.491, 0.0, 0.804)
    alone = parts_of([WARP, OTHER], "fatal: the flux capacitor misfired in warp", WARP.id)
    assert (alone["fuzzy2"], alone["strong_fuzzy"], alone["close"]) == (0.483, 0.695, 0.8)


def test_of_two_lines_worded_alike_the_stronger_counts() -> None:
    """Both lines have every word of the record's short wording (100 %): the stronger line (the
    `fatal:` one, ranked first) is the one that counts, so the wording is strong."""
    short = Record(id="a/short", signature="flux capacitor misfired", regex="zzqq never")
    paste = "fatal: the flux capacitor misfired\nnpm ERR! flux capacitor misfired"
    parts = parts_of([short, OTHER], paste, short.id)
    assert (parts["fuzzy2"], parts["strong_fuzzy"]) == (1.0, 1.0)


def test_a_longer_line_counts_by_its_best_aligned_part_however_slightly_better() -> None:
    """The `npm ERR!` line is longer than the record's wording and holds a mistyped copy of it:
    its best-aligned part matches at 77.36 %, a hair over the `fatal:` line's 76.77 % (its
    wording as a whole only 61 %). The part counts: fuzzy2 is 0.7736² = 0.598, not strong."""
    paste = (
        "fatal: the flux capacitor misfired during warm\n"
        "npm ERR! the warp core says: the flux caacitor misfird duqng warp again"
    )
    parts = parts_of([WARP, OTHER], paste, WARP.id)
    assert (parts["fuzzy2"], parts["strong_fuzzy"]) == (0.598, 0.0)


def test_words_without_an_error_line_explain_none_of_a_record() -> None:
    """A chat message that names the error (its regex matches the text) has no error line to
    compare: no wording score and no line coverage, 0.0 each, not the most a line could give."""
    parts = parts_of([FLUX_RX, OTHER], "so the flux capacitor misfired again yesterday, any idea why", FLUX_RX.id)
    assert (parts["rx_text"], parts["fuzzy2"], parts["lcover"], parts["close"]) == (1.0, 0.0, 0.0, 0.0)


def test_line_coverage_and_closeness_are_kept_to_three_decimals() -> None:
    """Two of the line's three words (each in one record or none: equally rare) are the
    record's: line coverage 2/3, kept as 0.667 (not rounded to a whole, nor to 0.6667); the
    line's plain similarity to the wording, 76.36 %, is kept as 0.764."""
    two_words = Record(id="a/two", signature="ZorblaxError: flux capacitor", regex="zzqq never")
    parts = parts_of([two_words, OTHER], "ZorblaxError: flux misfired", two_words.id)
    assert (parts["lcover"], parts["close"]) == (0.667, 0.764)


def test_a_paste_is_strong_from_an_exception_line_of_weight_eight_tenths() -> None:
    """`…: ZorblaxError: …` inside a log line is an exception line (0.8): the paste counts as
    strong in the calibration; a warning line (0.45) alone does not."""
    inside = parts_of([FLUX_RX, OTHER], "step 3 raised ZorblaxError: the flux capacitor misfired", FLUX_RX.id)
    warned = parts_of([FLUX_RX, OTHER], "WARNING: the flux capacitor misfired", FLUX_RX.id)
    assert (inside["strong"], warned["strong"]) == (1.0, 0.0)


def test_the_six_best_error_lines_are_compared_not_a_seventh() -> None:
    """Seven error lines, the record worded like the seventh best only (the lowest weight, and
    the first of its weight): the wording is compared on the first six, so it scores nothing."""
    lines = [f"fatal: unrelated widget number {k} gave up" for k in range(6)]
    paste = "\n".join(["npm ERR! the flux capacitor misfired", *lines])
    assert len(extract(paste).lines) == 7 and extract(paste).lines[6].raw.startswith("npm ERR!")
    assert parts_of([FLUX_RX, OTHER], paste, FLUX_RX.id)["fuzzy2"] < 0.3
