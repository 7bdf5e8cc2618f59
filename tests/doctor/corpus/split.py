"""Split and check the doctor's error-text corpus.

The corpus is split by thread: an entry belongs to the test part when
``int(sha256(url).hexdigest(), 16) % 10 < 4``, else to the development part, so every
entry of one thread lands in the same part and the split never depends on order.

    python tests/doctor/corpus/split.py check          # re-derive the split and check all parts
    python tests/doctor/corpus/split.py add NEW.jsonl  # distribute new entries into dev/test

``heldout.jsonl`` is a third, separate part (see ``heldout.md``): texts from threads in neither
dev nor test, labelled before the doctor ever saw them. It is never split and never written by
``add``; ``check`` verifies its codes, its ids and that none of its threads (address, or GitHub
repository + issue number) and none of its texts also occur in dev or test.

``heldout2.jsonl`` is a second held-out part (see ``heldout2.md``), sampled the same way with other
queries after the first one had been scored: ``check`` verifies it by the same rules against dev,
test and the first held-out part (no thread, id or text shared with any of them).

``heldout3.jsonl`` is a third held-out part (see ``heldout3.md``), sampled after the second one had
been scored: ``check`` verifies it by the same rules against dev, test and both earlier held-out
parts.

``heldout4.jsonl`` is a fourth held-out part (see ``heldout4.md``), sampled after the third one had
been scored: ``check`` verifies it by the same rules against dev, test and all three earlier
held-out parts.

``heldout5.jsonl`` is a fifth held-out part (see ``heldout5.md``), sampled after the fourth one had
been scored: ``check`` verifies it by the same rules against dev, test and all four earlier
held-out parts.

``heldout6.jsonl``, ``dev6.jsonl`` and ``dev7.jsonl`` are the sixth collection (``heldout6.md``); ``heldout7.jsonl``,
``dev8.jsonl`` and ``dev9.jsonl`` the seventh (``heldout7.md``): each split by a hash of the thread (``pool_part``)
into a held-out part and development parts, and checked against every earlier part and each other.

``check`` never prints texts of the test or held-out parts.
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
HELDOUT = HERE / "heldout.jsonl"
HELDOUT2 = HERE / "heldout2.jsonl"
HELDOUT3 = HERE / "heldout3.jsonl"
HELDOUT4 = HERE / "heldout4.jsonl"
HELDOUT5 = HERE / "heldout5.jsonl"
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
HELDOUT_KEYS = (*KEYS, "evidence", "query")
UNKNOWN = "unknown"          # held-out only: an error the doctor should honestly call unknown
MAX_PER_THREAD = 3           # held-out texts taken from one thread at most
MAX_UNKNOWN_SHARE = 0.10     # held-out texts labelled unknown at most
_GH_RE = re.compile(r"^https://github\.com/([\w.-]+)/([\w.-]+)/(?:issues|pull|discussions)/(\d+)")
_NUM_RE = re.compile(r"^https://([^/]+)/(?:questions|t/[^/]+)/(\d+)")


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


def thread_key(url: str) -> tuple:
    """One key per thread: GitHub repository (case-insensitive) + number, whatever the URL form."""
    m = _GH_RE.match(url)
    if m:
        return ("github", m.group(1).lower(), m.group(2).lower(), m.group(3))
    m = _NUM_RE.match(url)
    if m:
        return (m.group(1).lower(), m.group(2))
    return (url.rstrip("/").lower(),)


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


def heldout_problems(held: list[dict], dev: list[dict], test: list[dict],
                     earlier: list[dict] | None = None, name: str = "heldout",
                     other_parts: str | None = None) -> list[str]:
    """Every violation of the held-out rules (empty when the held-out part is sound).

    ``earlier`` are the entries of held-out parts made before this one: their threads, ids and
    texts are as forbidden as those of dev and test. ``other_parts`` names those parts in the
    messages (``dev/test`` or ``dev/test/heldout`` by default).
    """
    out: list[str] = []
    causes = known_causes() | {UNKNOWN}
    others = dev + test + list(earlier or [])
    if other_parts is None:
        other_parts = "dev/test" if not earlier else "dev/test/heldout"
    corpus_threads = {thread_key(e["url"]) for e in others if isinstance(e.get("url"), str)}
    corpus_ids = {e.get("id") for e in others}
    corpus_texts = {_norm(e["text"]): e.get("id") for e in others if isinstance(e.get("text"), str)}
    seen_ids: set[str] = set()
    seen_texts: dict[str, str] = {}
    per_thread: dict[tuple, int] = {}
    for e in held:
        eid = e.get("id", "?")
        if tuple(sorted(e)) != tuple(sorted(HELDOUT_KEYS)):
            out.append(f"{eid}: keys {sorted(e)} != {sorted(HELDOUT_KEYS)}")
            continue
        if not ID_RE.match(eid):
            out.append(f"{eid}: id is not a short slug")
        if eid in seen_ids or eid in corpus_ids:
            out.append(f"{eid}: duplicate id")
        seen_ids.add(eid)
        if not URL_RE.match(e["url"]):
            out.append(f"{eid}: url does not look like a thread address: {e['url']}")
        key = thread_key(e["url"])
        if key in corpus_threads:
            out.append(f"{eid}: thread {e['url']} is also in {other_parts}")
        per_thread[key] = per_thread.get(key, 0) + 1
        if per_thread[key] > MAX_PER_THREAD:
            out.append(f"{eid}: more than {MAX_PER_THREAD} texts from one thread")
        if not isinstance(e["also"], list):
            out.append(f"{eid}: also is not a list")
            continue
        for c in [e["cause"], *e["also"]]:
            if c not in causes:
                out.append(f"{eid}: cause {c!r} is in neither CAUSES.md nor CODES.md nor {UNKNOWN!r}")
        if e["cause"] in e["also"]:
            out.append(f"{eid}: cause repeated in also")
        if UNKNOWN in e["also"] or (e["cause"] == UNKNOWN and e["also"]):
            out.append(f"{eid}: {UNKNOWN!r} is a cause of its own, never combined with others")
        for k in ("text", "fix", "project", "evidence", "query"):
            if not isinstance(e[k], str) or len(e[k].strip()) < 3:
                out.append(f"{eid}: empty {k}")
        norm = _norm(e["text"]) if isinstance(e["text"], str) else ""
        if norm in corpus_texts:
            out.append(f"{eid}: same text as {corpus_texts[norm]} of {other_parts}")
        if norm in seen_texts:
            out.append(f"{eid}: same text as {seen_texts[norm]}")
        seen_texts[norm] = eid
    if held and sum(e.get("cause") == UNKNOWN for e in held) > MAX_UNKNOWN_SHARE * len(held):
        out.append(f"more than {MAX_UNKNOWN_SHARE:.0%} of the {name} texts are labelled {UNKNOWN!r}")
    return out


#: threads in 10 a collection's held-out part takes (3 unless named): the eighth and ninth collections keep half of their
#: threads held out, since a collection's development half cannot be worked on in the session that collects it
HELD_TENTHS = {"heldout8": 5, "heldout9": 5, "heldout10": 5, "heldout11": 5, "heldout12": 5, "heldout13": 5,
               "heldout14": 5, "heldout15": 5, "heldout16": 5, "heldout17": 5, "heldout18": 5, "heldout19": 5,
               "heldout20": 10, "heldout21": 10}
#: the sixth and later collections: the held-out part and the development parts of each, in the order collected
COLLECTIONS = (("heldout6", ("dev6", "dev7")), ("heldout7", ("dev8", "dev9")), ("heldout8", ("dev10",)),
               ("heldout9", ("dev11",)), ("heldout10", ("dev12",)), ("heldout11", ("dev13",)),
               ("heldout12", ("dev14",)), ("heldout13", ("dev15",)),
               ("heldout14", ("dev16", "dev17")), ("heldout15", ("dev18",)), ("heldout16", ("dev19",)),
               ("heldout17", ("dev20",)), ("heldout18", ("dev21",)), ("heldout19", ("dev22",)),
               ("heldout20", ()), ("heldout21", ()))


def pool_part(url: str, held: str = "heldout6") -> str:
    """Where a text of a collection goes, by its thread alone (fixed before any of it was scored): ``held`` (the
    collection's held-out part, ``heldout6`` for the sixth, ``heldout7`` for the seventh, ``heldout8`` for the eighth, ``heldout9`` for the ninth, ``heldout10`` for the tenth, ``heldout11`` for the eleventh, ``heldout12`` for the twelfth, ``heldout13`` for the thirteenth, ``heldout14`` for the fourteenth, ``heldout15`` for the fifteenth, ``heldout16`` for the sixteenth, ``heldout17`` for the seventeenth, ``heldout18`` for the eighteenth, ``heldout19`` for the nineteenth, ``heldout20`` for the twentieth and ``heldout21`` for the twenty-first, which keep every thread) for
    ``HELD_TENTHS`` threads in 10, else a development part (the sixth: ``dev6`` for the first four labellers' files,
    ``dev7`` for the next four's; the seventh: ``dev8`` for labellers a-e, ``dev9`` for f-k; the eighth: ``dev10``; the ninth: ``dev11``; the tenth: ``dev12``; the eleventh: ``dev13``; the twelfth: ``dev14``; the thirteenth: ``dev15``; the fourteenth: ``dev16`` for its first wave of labellers (a-f), ``dev17`` for its second (g-l); the fifteenth: ``dev18``; the sixteenth: ``dev19``; the seventeenth: ``dev20``; the eighteenth: ``dev21``; the nineteenth: ``dev22``)."""
    key = f"{held}:" + "/".join(thread_key(url))
    return held if int(hashlib.sha256(key.encode()).hexdigest(), 16) % 10 < HELD_TENTHS.get(held, 3) else "dev"


def distribute_pool(groups: dict[str, list[Path]], held: str = "heldout6") -> None:
    """Split a collection's files (labelled, nothing scored) into ``held``.jsonl and the development part each
    group names (``{"dev6": [a.jsonl, ...], "dev7": [...]}``)."""
    parts: dict[str, list[dict]] = {held: [], **{name: [] for name in groups}}
    for name, paths in groups.items():
        for path in paths:
            for e in load(path):
                e = {k: e.get(k, [] if k == "also" else "") for k in HELDOUT_KEYS}
                e["id"] = re.sub(r"[^a-z0-9_-]", "-", str(e["id"]).lower())  # "llama.cpp-8117" -> "llama-cpp-8117"
                parts[held if pool_part(e["url"], held) == held else name].append(e)
    for name, entries in parts.items():
        (HERE / f"{name}.jsonl").write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries),
                                            encoding="utf-8")


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
    if len(argv) >= 3 and argv[0] == "pool":  # pool heldout7 dev8=a.jsonl,b.jsonl dev9=f.jsonl,...
        distribute_pool({g.split("=")[0]: [Path(x) for x in g.split("=")[1].split(",")] for g in argv[2:]}, argv[1])
    dev, test = load(DEV), load(TEST)
    held, held2, held3, held4 = load(HELDOUT), load(HELDOUT2), load(HELDOUT3), load(HELDOUT4)
    held5 = load(HELDOUT5)
    bad = (problems(dev, test) + heldout_problems(held, dev, test)
           + heldout_problems(held2, dev, test, earlier=held, name="heldout2")
           + heldout_problems(held3, dev, test, earlier=held + held2, name="heldout3",
                              other_parts="dev/test/heldout/heldout2")
           + heldout_problems(held4, dev, test, earlier=held + held2 + held3, name="heldout4",
                              other_parts="dev/test/heldout/heldout2/heldout3")
           + heldout_problems(held5, dev, test, earlier=held + held2 + held3 + held4, name="heldout5",
                              other_parts="dev/test/heldout/heldout2/heldout3/heldout4"))
    collected: dict[str, list[dict]] = {}  # every part of the sixth and later collections, in order
    for held_name, parts in COLLECTIONS:
        mine: dict[str, list[dict]] = {}
        for name in (held_name, *parts):
            path = HERE / f"{name}.jsonl"
            if path.exists():
                mine[name] = load(path)
        for name, entries in mine.items():
            earlier = (held + held2 + held3 + held4 + held5 + [e for v in collected.values() for e in v]
                       + [e for k, v in mine.items() if k != name for e in v])
            bad += heldout_problems(entries, dev, test, earlier=earlier, name=name,
                                    other_parts="dev/test/heldout/heldout2-5/the earlier collections/the other parts "
                                                f"of the {held_name} collection")
            bad += [f"{e.get('id')}: in {name} but its thread belongs to {pool_part(e['url'], held_name)}"
                    for e in entries if (pool_part(e["url"], held_name) == held_name) != (name == held_name)]
        collected.update(mine)
    for line in bad:
        print(line)
    print(f"dev {len(dev)} entries / {len({e['url'] for e in dev})} threads; "
          f"test {len(test)} entries / {len({e['url'] for e in test})} threads; "
          f"heldout {len(held)} entries / {len({thread_key(e['url']) for e in held})} threads; "
          f"heldout2 {len(held2)} entries / {len({thread_key(e['url']) for e in held2})} threads; "
          f"heldout3 {len(held3)} entries / {len({thread_key(e['url']) for e in held3})} threads; "
          f"heldout4 {len(held4)} entries / {len({thread_key(e['url']) for e in held4})} threads; "
          f"heldout5 {len(held5)} entries / {len({thread_key(e['url']) for e in held5})} threads; "
          + "".join(f"{k} {len(v)} entries / {len({thread_key(e['url']) for e in v})} threads; "
                    for k, v in collected.items())
          + f"{len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
