"""Split and check the doctor's error-text corpus.

The corpus is split by thread: an entry belongs to the test part when
``int(sha256(url).hexdigest(), 16) % 10 < 4``, else to the development part, so every
entry of one thread lands in the same part and the split never depends on order.

    python tests/doctor/corpus/split.py check          # re-derive the split and check both parts
    python tests/doctor/corpus/split.py add NEW.jsonl  # distribute new entries into dev/test

``check`` never prints texts of the test part.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEV = HERE / "dev.jsonl"
TEST = HERE / "test.jsonl"
CAUSES = HERE / "CAUSES.md"
CODES = HERE.parents[2] / "smrnb" / "doctor" / "CODES.md"
KEYS = ("id", "url", "project", "text", "cause", "also", "fix")
URL_RE = re.compile(
    r"^https://(github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+"
    r"|discuss\.pytorch\.org/t/[\w%-]+/\d+"
    r"|forums\.developer\.nvidia\.com/t/[\w%-]+/\d+"
    r"|discourse\.jupyter\.org/t/[\w%-]+/\d+"
    r"|stackoverflow\.com/questions/\d+"
    r"|(\w+\.)?stackexchange\.com/questions/\d+"
    r"|askubuntu\.com/questions/\d+"
    r"|superuser\.com/questions/\d+"
    r"|serverfault\.com/questions/\d+)"
)
ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{2,60}$")


def part_of(url: str) -> str:
    """'test' or 'dev' for a thread address."""
    return "test" if int(hashlib.sha256(url.encode()).hexdigest(), 16) % 10 < 4 else "dev"


def known_causes() -> set[str]:
    """Codes defined in CAUSES.md and in the doctor's CODES.md."""
    codes = set(re.findall(r"^- `([a-z0-9_]+)`:", CAUSES.read_text(), re.M))
    if CODES.exists():
        codes |= set(re.findall(r"^\| `([a-z0-9_]+)` \|", CODES.read_text(), re.M))
    return codes


def load(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def problems(dev: list[dict], test: list[dict]) -> list[str]:
    """Every violation of the corpus rules (empty when the corpus is sound)."""
    out: list[str] = []
    causes = known_causes()
    seen_ids: set[str] = set()
    seen_texts: dict[str, str] = {}
    for part, entries in (("dev", dev), ("test", test)):
        for e in entries:
            eid = e.get("id", "?")
            if tuple(sorted(e)) != tuple(sorted(KEYS)):
                out.append(f"{eid}: keys {sorted(e)} != {sorted(KEYS)}")
                continue
            if not ID_RE.match(eid):
                out.append(f"{eid}: id is not a short slug")
            if eid in seen_ids:
                out.append(f"{eid}: duplicate id")
            seen_ids.add(eid)
            if not URL_RE.match(e["url"]):
                out.append(f"{eid}: url does not look like a thread address: {e['url']}")
            if part_of(e["url"]) != part:
                out.append(f"{eid}: in {part}, but its thread belongs to {part_of(e['url'])}")
            for c in [e["cause"], *e["also"]]:
                if c not in causes:
                    out.append(f"{eid}: cause {c!r} is in neither CAUSES.md nor CODES.md")
            if e["cause"] in e["also"]:
                out.append(f"{eid}: cause repeated in also")
            if not isinstance(e["also"], list):
                out.append(f"{eid}: also is not a list")
            for k in ("text", "fix", "project"):
                if not isinstance(e[k], str) or len(e[k].strip()) < 3:
                    out.append(f"{eid}: empty {k}")
            key = _norm(e["text"])
            if key in seen_texts:
                out.append(f"{eid}: same text as {seen_texts[key]}")
            seen_texts[key] = eid
    return out


def add(new_path: Path) -> None:
    dev, test = load(DEV), load(TEST)
    for e in load(new_path):
        e = {k: e.get(k, [] if k == "also" else "") for k in KEYS}
        (test if part_of(e["url"]) == "test" else dev).append(e)
    for path, entries in ((DEV, dev), (TEST, test)):
        path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries))


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "add":
        add(Path(argv[1]))
    dev, test = load(DEV), load(TEST)
    bad = problems(dev, test)
    for line in bad:
        print(line)
    print(f"dev {len(dev)} entries / {len({e['url'] for e in dev})} threads; "
          f"test {len(test)} entries / {len({e['url'] for e in test})} threads; {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
