"""Environment hints: which OS, runtime and library versions a record is specific to, whether a
paste agrees, and the words that name a record's domain (pure).

They only break near-ties between variants of one error (per OS, per `torch 2.1`, per `CUDA 12`);
the paste's own environment comes from bot/core/extract.py.
"""

from __future__ import annotations

import re

from bot.core.records import Record

_ENV_PART = re.compile(r"^([a-z]+?)(\d+(?:\.\d+)?)$")
_PART_NAMES = {
    "py": "python",
    "pt": "torch",
    "pytorch": "torch",
    "torch": "torch",
    "cuda": "cuda",
    "node": "node",
    "jdk": "java",
    "go": "go",
    "rust": "rust",
    "pip": "pip",
    "tf": "tensorflow",
    "hf": "transformers",
    "k8s": "kubernetes",
    "ts": "typescript",
    "docker": "docker",
    "git": "git",
    "react": "react",
    "nextjs": "next",
    "python": "python",
    "numpy": "numpy",
}
_DOMAIN_WORDS = {
    "pytorch": ("torch", "pytorch"),
    "kubernetes": ("kubectl", "k8s", "pod", "kubernetes", "kubelet"),
    "node": ("node", "npm", "nodejs", "yarn"),
    "typescript": ("ts", "tsc", "typescript", "tsx"),
    "huggingface": ("transformers", "huggingface", "hf", "tokenizer", "datasets"),
    "python": ("python", "py", "pip"),
    "cuda": ("cuda", "nvidia", "gpu", "nvcc"),
    "docker": ("docker", "dockerfile", "container", "compose"),
    "pip": ("pip", "pip3", "conda", "wheel", "venv"),
    "go": ("go", "golang"),
    "rust": ("rust", "cargo", "rustc"),
    "java": ("java", "jvm", "maven", "gradle", "jar"),
    "nextjs": ("next", "nextjs"),
    "react": ("react", "jsx"),
    "numpy": ("numpy", "np"),
    "pandas": ("pandas", "pd", "dataframe"),
    "jupyter": ("jupyter", "notebook", "ipykernel"),
}
_OS_WORDS = {
    "linux": "os:linux",
    "win": "os:windows",
    "windows": "os:windows",
    "macos": "os:macos",
    "mac": "os:macos",
    "wsl": "os:wsl",
}


def record_env(rec: Record) -> frozenset[str]:
    """Environment tokens a record is specific to, from its tags and its id's variant suffix."""
    env: set[str] = set()
    for tag in rec.tags:
        if tag.startswith("os:"):
            env.add(tag.lower())
    parts = rec.id.lower().split("/")
    if len(parts) >= 3:
        for part in parts[-1].split("-"):
            if part in _OS_WORDS:
                env.add(_OS_WORDS[part])
                continue
            m = _ENV_PART.match(part)
            if m and m.group(1) in _PART_NAMES:
                name, ver = _PART_NAMES[m.group(1)], m.group(2)
                if name == "python" and "." not in ver and len(ver) >= 2:
                    ver = f"{ver[0]}.{ver[1:]}"
                env.add(f"{name}:{ver}")
    for os_name in rec.os_specific:
        env.add(_OS_WORDS.get(os_name.lower(), f"os:{os_name.lower()}"))
    return frozenset(env) if env else _NO_ENV


_NO_ENV: frozenset[str] = frozenset()  # shared: most records name no environment


def env_agreement(record: frozenset[str], paste: frozenset[str]) -> float:
    """+ for each of the record's env tokens the paste confirms, - for a contradicted OS."""
    if not record or not paste:
        return 0.0
    score = 0.0
    paste_os = {t for t in paste if t.startswith("os:")}
    for tok in record:
        if tok in paste:
            score += 1.0
        elif tok.startswith("os:") and paste_os:
            score -= 1.0
        elif ":" in tok and "." not in tok.split(":", 1)[1]:
            name = tok.split(":", 1)[0]
            if any(p.startswith(name + ":") for p in paste):
                score -= 0.5
    return max(-1.0, min(1.0, score / 2))


def domain_words(domain: str) -> tuple[str, ...]:
    """Words whose presence in a paste names the record's domain (`kubectl` for kubernetes); a
    domain without a list is named by itself. `domain` is lower-cased."""
    return _DOMAIN_WORDS.get(domain) or (domain,)
