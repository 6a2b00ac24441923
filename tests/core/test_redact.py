"""The secret redactor: what it must remove, what it must leave alone, and its algebra.

The secrets below are fake but shaped like the real thing; each is built from pieces so no
complete token sits in the source.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from bot.core.redact import redact, redact_text
from tests.conftest import REPO

AWS_KEY_ID = "AKIA" + "QX7Z2P4M9R3T8W5N"
AWS_SECRET = "Zk3/Ab9+" + "q" * 12 + "Rt5Yu7Io9Pl1Km3Nj5Hb"
SLACK_BOT = "xoxb-" + "2468013579-1357924680-" + "aB3dE5gH7jK9mN1pQ3sT5vW7"
SLACK_APP = "xapp-" + "1-A0123BCDE-1234567890-" + "9f8e7d6c5b4a"
WEBHOOK_PATH = "T0ABCDEF1/B0GHIJKL2/" + "Qw3Er5Ty7Ui9Op1As3Df5Gh"
GITHUB_PAT = "ghp_" + "R2d2C3poBb8Yoda1Luke2Leia3Han4Solo5Zz"
GITHUB_OAUTH = "gho_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"
GITHUB_FINE = "github_pat_" + "11ABCDEFG0" + "abcdefghijklmnopqrstuvwxyz_0123456789"
STRIPE_LIVE = "sk_live_" + "51H8aBcDeFgHiJkLmNoPqRsT"
STRIPE_RESTRICTED = "rk_live_" + "51H8zYxWvUtSrQpOnMlKjIhG"
GOOGLE_KEY = "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
OPENAI_KEY = "sk-proj-" + "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"
OPENAI_OLD = "sk-" + "T3BlbkFJ" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ"
    + ".c2lnbmF0dXJlX29mX3RoZV90b2tlbl9oZXJl"
)
PEM_BODY = "MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2\nKdcNpXVRsL2mLlQ6Hw8fuvY6b7aT3D\n"
PEM = "-----BEGIN RSA PRIVATE KEY-----\n" + PEM_BODY + "-----END RSA PRIVATE KEY-----"
URL_PASSWORD = "Pg" + "Pass_w0rd!9"

# (text with the secret, the secret, the kind, what must survive around it)
CASES = [
    (f"botocore: invalid key {AWS_KEY_ID} for bucket", AWS_KEY_ID, "aws-access-key", "for bucket"),
    (f"aws_secret_access_key = {AWS_SECRET}\nregion = eu-west-1", AWS_SECRET, "aws-secret-key", "region"),
    (f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}", AWS_SECRET, "aws-secret-key", "AWS_SECRET_ACCESS_KEY="),
    (f"slack_sdk.errors.SlackApiError: invalid_auth token {SLACK_BOT}", SLACK_BOT, "slack-token", "invalid_auth"),
    (f"SLACK_APP_TOKEN={SLACK_APP}", SLACK_APP, "slack-token", "SLACK_APP_TOKEN="),
    (
        f"POST https://hooks.slack.com/services/{WEBHOOK_PATH} returned 404",
        WEBHOOK_PATH,
        "slack-webhook",
        "hooks.slack.com",
    ),
    (f"remote: Invalid username or token {GITHUB_PAT}.", GITHUB_PAT, "github-token", "remote:"),
    (f"GH_TOKEN={GITHUB_OAUTH}", GITHUB_OAUTH, "github-token", "GH_TOKEN="),
    (f"token: {GITHUB_FINE}", GITHUB_FINE, "github-token", "token: "),
    (
        f"stripe.error.AuthenticationError: Invalid API Key provided: {STRIPE_LIVE}",
        STRIPE_LIVE,
        "stripe-key",
        "Invalid",
    ),
    (f"key={STRIPE_RESTRICTED}", STRIPE_RESTRICTED, "stripe-key", "key="),
    (f"googleapiclient 403 for url ...?key={GOOGLE_KEY}&alt=json", GOOGLE_KEY, "google-api-key", "&alt=json"),
    (f"openai.AuthenticationError: Incorrect API key provided: {OPENAI_KEY}.", OPENAI_KEY, "openai-key", "Incorrect"),
    (f"OPENAI_API_KEY={OPENAI_OLD}", OPENAI_OLD, "openai-key", "OPENAI_API_KEY="),
    (f"jwt.exceptions.ExpiredSignatureError for {JWT}", JWT, "jwt", "ExpiredSignatureError"),
    (f"key file:\n{PEM}\nssh: handshake failed", PEM_BODY, "private-key", "ssh: handshake failed"),
    (
        f"sqlalchemy.exc.OperationalError: (psycopg2) postgres://payroll:{URL_PASSWORD}@db.internal:5432/pay",
        URL_PASSWORD,
        "url-password",
        "postgres://payroll:",
    ),
    (
        f"redis.exceptions.AuthenticationError redis://:{URL_PASSWORD}@cache:6379/0",
        URL_PASSWORD,
        "url-password",
        "@cache",
    ),
    ("DB_PASSWORD=Hunt3r2-horse", "Hunt3r2-horse", "password", "DB_PASSWORD="),
    ('{"password": "correct horse battery"}', "correct horse battery", "password", '"password": "'),
    ("psql -h db password=s3cr3tP4ss sslmode=require", "s3cr3tP4ss", "password", "sslmode=require"),
    ("GET /api?token=a8f5f167f44f4964e6c998dee827110c&page=2", "a8f5f167f44f4964e6c998dee827110c", "token", "&page=2"),
    ("client_secret='q8Zr-9vLm-2xWk-7pTn'", "q8Zr-9vLm-2xWk-7pTn", "secret", "client_secret='"),
    ("requests: api_key=9b1c7e2f4a6d8053 rejected", "9b1c7e2f4a6d8053", "api-key", "rejected"),
    ("SECRET_KEY = 'django-insecure-7h#w!k2'", "django-insecure-7h#w!k2", "secret", "SECRET_KEY = '"),
    ("Authorization: Bearer 4f9c2a7e1b8d3f6a0c5e", "4f9c2a7e1b8d3f6a0c5e", "bearer-token", "Authorization: Bearer "),
    (
        "headers={'Authorization': 'Basic dXNlcjpodW50ZXIy'}",
        "dXNlcjpodW50ZXIy",
        "basic-auth",
        "'Authorization': 'Basic ",
    ),
]


@pytest.mark.parametrize(
    ("text", "secret", "kind", "kept"), CASES, ids=[c[2] + "-" + str(i) for i, c in enumerate(CASES)]
)
def test_each_kind_is_replaced_by_its_marker(text: str, secret: str, kind: str, kept: str) -> None:
    result = redact(text)
    assert secret not in result.text
    assert f"[redacted:{kind}]" in result.text
    assert kept in result.text
    assert kind in result.kinds


def test_url_password_keeps_user_and_host() -> None:
    text = f"could not connect to postgres://payroll_admin:{URL_PASSWORD}@db/pay"
    assert redact_text(text) == "could not connect to postgres://payroll_admin:[redacted:url-password]@db/pay"


def test_findings_point_at_the_secret_in_the_original() -> None:
    text = f"a {AWS_KEY_ID} b {STRIPE_LIVE} c"
    result = redact(text)
    assert [(f.kind, text[f.start : f.end]) for f in result.findings] == [
        ("aws-access-key", AWS_KEY_ID),
        ("stripe-key", STRIPE_LIVE),
    ]
    assert result.text == "a [redacted:aws-access-key] b [redacted:stripe-key] c"


def test_a_vendor_token_wins_over_the_keyword_around_it() -> None:
    assert redact_text(f"SLACK_BOT_TOKEN={SLACK_BOT}") == "SLACK_BOT_TOKEN=[redacted:slack-token]"


@pytest.mark.parametrize(
    ("secret", "kind"),
    [
        (STRIPE_LIVE, "stripe-key"),
        (AWS_KEY_ID, "aws-access-key"),
        (SLACK_BOT, "slack-token"),
        (GITHUB_PAT, "github-token"),
        (GOOGLE_KEY, "google-api-key"),
        (OPENAI_KEY, "openai-key"),
    ],
)
def test_a_key_glued_after_an_underscore_is_still_found(secret: str, kind: str) -> None:
    """`STRIPE_KEY_sk_live_…`, `creds_AKIA…`: no word boundary before the key, still a key."""
    assert redact_text(f"env STRIPE_KEY_{secret} set") == f"env STRIPE_KEY_[redacted:{kind}] set"


def test_a_vendor_prefix_inside_a_word_is_no_key() -> None:
    assert redact_text("mask-abcdefghijklmnopqrstuvwxyz and taskAKIA" + AWS_KEY_ID[4:]) == (
        "mask-abcdefghijklmnopqrstuvwxyz and taskAKIA" + AWS_KEY_ID[4:]
    )


def test_a_rejected_value_does_not_hide_the_key_inside_it() -> None:
    assert redact_text("token=$X_password='Hunt3r2x9'") == "token=$X_password='[redacted:password]'"


def test_lone_surrogates_are_scanned_and_kept() -> None:
    text = "\ud800 " + STRIPE_LIVE + " \udfff"
    assert redact_text(text) == "\ud800 [redacted:stripe-key] \udfff"


def test_offsets_are_characters_in_non_ascii_text() -> None:
    assert redact_text("né: password='Hunt3r2x9' é token=9f8e7d6c5b4a3210 ü") == (
        "né: password='[redacted:password]' é token=[redacted:token] ü"
    )


def test_kinds_are_distinct_in_order() -> None:
    assert redact(f"{STRIPE_LIVE} {AWS_KEY_ID} {STRIPE_RESTRICTED}").kinds == ("stripe-key", "aws-access-key")


ORDINARY = [
    "Segmentation fault at 0x7f3a9c0012f0 in libcuda.so.1",
    "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity)",
    "fatal: reference is not a tree: 3f786850e387550fdab836ed7e6dc881de23001b",
    "error: commit 9fceb02d0ae598e95dc970b74767f19372d61af8 not found",
    "KeyError: 'job-5f0c6e1a-8d2b-4c3e-9a7f-1b2c3d4e5f60'",
    "uuid 123e4567-e89b-12d3-a456-426614174000 is not a valid session",
    '  File "/home/sam/.venv/lib/python3.11/site-packages/slack_sdk/web/base_client.py", line 218, in api_call',
    "    client = WebClient(token=self.token)",
    "    return connect(host=host, password=password, user=user)",
    "    tok = AutoTokenizer.from_pretrained(name, token=os.environ['HF_TOKEN'])",
    "generate(max_tokens=4096, max_new_tokens=512)",
    "ValueError: token=None is not allowed",
    "jwt.exceptions.InvalidTokenError: Invalid header padding",
    'password authentication failed for user "payroll_admin"',
    "PWD=/home/sam/projects/api OLDPWD=/home/sam",
    "ModuleNotFoundError: No module named 'sklearn'; try pip install scikit-learn (not sk-learn-is-deprecated)",
    "git@github.com:org/repo.git: Permission denied (publickey)",
    "ssh://git@gitlab.example.com:2222/group/project.git",
    "https://pypi.org/simple/torch/ and http://localhost:8080/health",
    "the task-abcdefghijklmnopqrstuvwxyz failed, see disk-0123456789abcdefghij",
    "mongodb://user:pass@localhost:27017 (placeholder in the docs) and redis://:${REDIS_PASSWORD}@cache",
    "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
    "export API_KEY=<your key here>; password=******** token=xxxxxxxxxxxx",
    "hash mismatch: sha256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_error_text_is_left_alone(text: str) -> None:
    result = redact(text)
    assert result.findings == ()
    assert result.text == text


def test_the_seed_example_tracebacks_are_left_alone() -> None:
    """Real-looking pastes from every domain: a false positive here would blind the matcher."""
    files = sorted((REPO / "tests" / "seed_examples").rglob("*.txt"))
    assert len(files) > 100
    changed = {p.relative_to(REPO).as_posix(): redact(p.read_text()).kinds for p in files}
    assert {name: kinds for name, kinds in changed.items() if kinds} == {}


SECRETS = [AWS_KEY_ID, SLACK_BOT, SLACK_APP, GITHUB_PAT, GITHUB_FINE, STRIPE_LIVE, GOOGLE_KEY, OPENAI_KEY, JWT]
# Pieces that make redaction's edges interesting: keywords, separators, markers, URL parts, near-misses.
PIECES = [
    *SECRETS,
    "password=",
    "token=",
    "secret: ",
    "api_key='",
    "'",
    '"',
    "=",
    ":",
    "@",
    "://",
    "postgres://u:",
    "Authorization: Bearer ",
    "Bearer ",
    "[redacted:token]",
    "[redacted:",
    "]",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "hooks.slack.com/services/",
    "aws_secret_access_key=",
    AWS_SECRET,
    "xoxb-",
    "sk-",
    "eyJ",
    "Hunt3r2x9",
    "0x7f3a9c0012f0",
    " ",
    "\n",
    "(",
    ")",
    "-",
    "_",
    ".",
]
texts = st.one_of(
    st.text(max_size=200),
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), max_size=14).map("".join),
)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(texts)
def test_redaction_is_idempotent(text: str) -> None:
    once = redact_text(text)
    assert redact_text(once) == once


@settings(max_examples=300)
@given(texts)
def test_no_finding_means_unchanged_text_and_findings_mean_markers(text: str) -> None:
    result = redact(text)
    if not result.findings:
        assert result.text == text
    else:
        assert result.text != text
        assert result.text.count("[redacted:") >= len(result.findings)
        ends = [(f.start, f.end) for f in result.findings]
        assert all(a < b for a, b in ends)
        assert all(prev[1] <= nxt[0] for prev, nxt in zip(ends, ends[1:], strict=False))


SEPARATORS = st.sampled_from([" ", "\n", "\t", " (", ") ", ", ", "; ", " '", "' ", '"'])


@settings(max_examples=400)
@given(before=texts, secret=st.sampled_from(SECRETS), after=texts, left=SEPARATORS, right=SEPARATORS)
def test_a_secret_embedded_anywhere_is_removed(before: str, secret: str, after: str, left: str, right: str) -> None:
    assume(secret not in before and secret not in after)
    assert secret not in redact_text(before + left + secret + right + after)


FIVE_MB = 5_000_000


def _five_mb(unit: str, tail: str = "") -> str:
    return unit * (FIVE_MB // len(unit) + 1) + tail


ADVERSARIAL = {
    "keywords": _five_mb("password=token=secret:api_key="),
    "half-urls": _five_mb("a:") + "://" + _five_mb("b:"),
    "url-no-at": _five_mb("https://user:" + "p" * 200 + " "),
    "pem-no-end": _five_mb("-----BEGIN RSA PRIVATE KEY-----\n"),
    "jwt-dots": "eyJ" + _five_mb("a."),
    "bearer": _five_mb("Bearer Bearer authorization: "),
    "aws": _five_mb("aws_secret_", "="),
    "quotes": _five_mb("password='"),
    "markers": _five_mb("]AKIA" + "A" * 16),
    "unicode": _five_mb("é token=ü"),
}


def test_five_megabytes_of_adversarial_input_finishes() -> None:
    """Linear time: each ~5 MB input only has to finish. The timeout is a hang guard, not a measurement."""
    script = textwrap.dedent(
        """
        import sys
        from bot.core.redact import redact
        from tests.core.test_redact import ADVERSARIAL
        for name, text in ADVERSARIAL.items():
            assert len(text) >= 5_000_000, name
            redact(text)
            print(name, flush=True)
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=Path(REPO), capture_output=True, text=True, timeout=600, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == list(ADVERSARIAL)
