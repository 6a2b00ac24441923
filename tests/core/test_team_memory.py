"""An error's identity for team memory (#36): its line as the team would know it again."""

from __future__ import annotations

from bot.core.extract import extract
from bot.core.team_memory import identities, identity


def test_what_changes_between_two_pastes_of_one_error_is_left_out() -> None:
    a = identity("ImportError: /opt/conda/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister at 0x7f3a2b1c")
    b = identity("ImportError: /home/u/.venv/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister at 0x55d0e1f0")
    assert a == b == "importerror: <path> : undefined symbol: ncclcommregister at <hex>"


def test_the_names_are_the_identity_not_the_class() -> None:
    assert identity("KeyError: 'token_type_ids'") != identity("KeyError: 'input_ids'")
    assert identity("KeyError: 'token_type_ids'") == identity('KeyError: "token_type_ids"')


def test_the_words_before_the_exception_are_the_persons_not_the_errors() -> None:
    said = identity("if we run the code above we get RuntimeError: quantile() input tensor is too large.")
    assert said == identity("RuntimeError: quantile() input tensor is too large")


def test_a_package_qualified_exception_is_the_same_error() -> None:
    qualified = identity("torch.nn.modules.module.ModuleAttributeError: 'Net' object has no attribute 'fc9'")
    assert qualified == identity("ModuleAttributeError: 'Net' object has no attribute 'fc9'")
    assert qualified == "moduleattributeerror: net object has no attribute fc9"


def test_a_line_that_names_nothing_but_its_class_identifies_nothing() -> None:
    assert identity("KeyError") is None and identity("RuntimeError: 42") is None
    assert identities(extract('Traceback (most recent call last):\n  File "a.py", line 1\nKeyError: 0\n')) == []


def test_a_paste_is_known_by_its_two_best_error_lines() -> None:
    paste = (
        'Traceback (most recent call last):\n  File "etl.py", line 3, in <module>\n'
        "QuarryLockError: shard 'orders' held by pid 4\n\nThe above exception was the direct cause of:\n\n"
        "JobFailedError: job 'nightly' gave up after 3 tries\n"
    )
    assert len(identities(extract(paste))) == 2
