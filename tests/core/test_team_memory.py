"""An error's identity for team memory (#36): its line as the team would know it again."""

from __future__ import annotations

from bot.core.extract import extract
from bot.core.team_memory import identities, identity, memorable


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


def test_an_error_quoted_inline_in_a_sentence_ends_with_its_code_span() -> None:
    said = identity("Every run fails with `ValueError: bad shard 'eu-7'` when running `etl sync -n nightly`.")
    assert said == "valueerror: bad shard eu- <n>"


def test_python_3_module_wording_also_gets_the_python_2_identity() -> None:
    py3 = identities(extract("AttributeError: module 'quarry.plan' has no attribute 'SHARDS'"))
    py2 = identities(extract("AttributeError: 'module' object has no attribute 'SHARDS'"))
    assert py2 == ["attributeerror: module object has no attribute shards"]
    assert py3 == ["attributeerror: module quarry.plan has no attribute shards", py2[0]]
    other = identities(extract("AttributeError: 'module' object has no attribute 'ROWS'"))
    assert not set(other) & set(py3)


def test_a_class_alone_on_its_line_takes_the_next_line_as_its_message() -> None:
    cleo = "  QuarryError\n\n  'shard_map'\n\n  at ~/.venv/lib/python3.12/site-packages/quarry/plan.py:79 in load\n"
    assert identities(extract(cleo)) == ["quarryerror: shard_map"]
    other = "  QuarryError\n\n  'row_map'\n\n  at ~/.venv/lib/python3.12/site-packages/quarry/plan.py:79 in load\n"
    assert identities(extract(other)) == ["quarryerror: row_map"]


def _raised(frame_path: str, code: str, error: str) -> list[str]:
    return identities(
        extract(
            'Traceback (most recent call last):\n  File "job.py", line 3, in <module>\n    q.rows\n'
            f'  File "{frame_path}", line 41, in __getattr__\n    {code}\n{error}\n'
        )
    )


def test_one_library_raise_with_other_names_is_one_error_but_a_bare_key_error_is_not() -> None:
    a = _raised(
        "/opt/conda/lib/python3.8/site-packages/quarry/table.py",
        "raise ShardError(f'{name!r} shard has no column {col!r}')",
        "ShardError: 'orders' shard has no column 'total'",
    )
    b = _raised(
        "C:\\py\\Lib\\site-packages\\quarry\\table.py",
        "raise ShardError(",
        "ShardError: 'users' shard has no column 'email'",
    )
    assert a[0] != b[0]
    assert a[1] == b[1] == "~ sharderror: <q> shard has no column <q> @ quarry/table.py in __getattr__"
    k1 = _raised("/v/lib/python3.11/site-packages/quarry/table.py", "raise KeyError(name)", "KeyError: 'orders'")
    k2 = _raised("/v/lib/python3.11/site-packages/quarry/table.py", "raise KeyError(name)", "KeyError: 'users'")
    assert k1 == ["keyerror: orders"] and k2 == ["keyerror: users"]


def test_a_library_frame_that_did_not_raise_is_no_raise_site() -> None:
    imported = _raised(
        "/v/lib/python3.11/site-packages/quarry/__init__.py",
        "from quarry._native import *",
        "ModuleNotFoundError: No module named 'quarry_native'",
    )
    assert imported == ["modulenotfounderror: no module named quarry_native"]


def test_a_traceback_class_line_does_not_take_the_next_line_as_its_message() -> None:
    chained = (
        'Traceback (most recent call last):\n  File "job.py", line 3, in <module>\n    q.rows\nQuarryError\n\n'
        "During handling of the above exception, another exception occurred:\n\n"
    )
    assert identities(extract(chained)) == []


def test_a_log_lines_head_is_the_loggers_not_the_errors() -> None:
    """A time, a level, a thread and a logger, or glog's `W0309 21:19:18.193471 4766 file.go:726] `."""
    bare = "Detected blocking call to open inside the event loop by integration 'demo'"
    logged = f"2024-05-01 10:30:42.230 WARNING (MainThread) [homeassistant.util.loop] {bare}"
    assert (
        identity(logged) == identity(bare) == "detected blocking call to open inside the event loop by integration demo"
    )
    glog = "W0309 21:19:18.193471    4766 docker.go:726] found a container with the k8s prefix, but too few fields"
    assert identity(glog) == "found a container with the k8s prefix, but too few fields"
    # a level with a colon is the error's own wording, as it is without a time
    assert identity("2023-01-02T03:04:05Z ERROR: boom failed") == identity("ERROR: boom failed") == "error: boom failed"


def test_a_generated_name_with_a_hash_in_it_is_volatile_as_a_whole() -> None:
    """Two kubelets' container names (other node, other hashes) in one glog warning: one error."""
    head = 'found a container with the "k8s" prefix, but too few fields (5): '
    a = identity(head + '"k8s_cadvisor.8d424740_agent-e2e-minion-o8wj.file_7fa8430d_52bafe5f"')
    b = identity(head + '"k8s_cadvisor.8d424740_agent-prod-minion-oazg.file_f67a53c9_43b09df6"')
    assert a == b == "found a container with the k8s prefix, but too few fields ( <n> ): <id>"
    # eight hex letters without a digit, or digits alone, are no hash: a word and a number
    assert identity("ValueError: unknown codec 'deadbeef'") == "valueerror: unknown codec deadbeef"
    assert identity("ValueError: unknown codec 'x_12345678'") == "valueerror: unknown codec x_12345678"


def test_a_urls_host_is_the_identity_and_the_host_less_line_a_secondary_key() -> None:
    line = 'Error: pull model manifest: Get "https://{}/token?n=A7&ts=1710339130": wsarecv: forcibly closed'
    keys = identities(extract(line.format("ollama.com")))
    assert keys == [
        "error: pull model manifest: get <url ollama.com> wsarecv: forcibly closed",
        "~ error: pull model manifest: get <url> wsarecv: forcibly closed",
    ]
    assert identities(extract(line.format("10.0.0.7:8080")))[0] == keys[0].replace("ollama.com", "n.n.n.n")
    # who logged in is not the host, and a key never holds a secret
    secret = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI3kM5"
    keyed = identity(f"fatal: unable to access 'https://{secret}@github.com/o/r.git/': 403")
    assert keyed == "fatal: unable to access <url github.com> <n>"
    slack = identity("RuntimeError: bad token xoxb-1234567890-1234567890-abcdefghij for bot")
    assert slack is not None and "abcdefghij" not in slack and "redacted" in slack


def test_a_logged_warning_is_remembered_and_chat_is_not() -> None:
    glog = "W0309 21:19:18.193471    4766 docker.go:726] found a container with the k8s prefix, but too few fields"
    chromium = "[0818/104648.606:ERROR:registration_protocol_win.cc(103)] CreateFile: The system cannot find it"
    assert memorable(extract(glog)) and memorable(extract(chromium))
    assert not memorable(extract("the deploy cannot find the file again, any idea?"))
