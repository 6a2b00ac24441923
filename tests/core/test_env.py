"""Environment hints: what a record is specific to, and whether a paste agrees."""

from __future__ import annotations

from bot.core.env import domain_words, env_agreement, record_env
from bot.core.records import Record


def record(rid: str, **fields: object) -> Record:
    return Record.model_validate({"id": rid, "signature": "X failed", "regex": "X failed", **fields})


def test_a_records_environment_comes_from_its_id_suffix_tags_and_os_notes() -> None:
    assert record_env(record("python/module-not-found/py311-linux")) == {"python:3.11", "os:linux"}
    assert record_env(record("pytorch/oom/pt2.1-cuda12-win")) == {"torch:2.1", "cuda:12", "os:windows"}
    assert record_env(record("git/push-rejected", tags=["os:macOS"])) == {"os:macos"}
    assert record_env(record("a/b/c", os_specific={"WSL": "only under WSL"})) == {"os:wsl"}
    assert record_env(record("python/module-not-found")) == frozenset()  # no variant suffix
    assert record_env(record("python/module-not-found/py39")) == {"python:3.9"}  # two digits: 3.9
    assert record_env(record("python/module-not-found/py3")) == {"python:3"}


def test_agreement_rewards_confirmed_hints_and_punishes_a_contradicted_os() -> None:
    linux = frozenset({"os:linux", "python:3.11"})
    assert env_agreement(linux, frozenset({"os:linux", "python:3.11"})) == 1.0
    assert env_agreement(linux, frozenset({"os:linux"})) == 0.5
    assert env_agreement(linux, frozenset({"os:windows"})) == -0.5
    assert env_agreement(frozenset({"cuda:12"}), frozenset({"cuda:11"})) == -0.25  # another major version
    assert env_agreement(linux, frozenset()) == env_agreement(frozenset(), linux) == 0.0


def test_a_domain_is_named_by_its_words_or_by_itself() -> None:
    assert "kubectl" in domain_words("kubernetes")
    assert domain_words("terraform") == ("terraform",)
