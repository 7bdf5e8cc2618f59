"""The error-text corpus of the doctor's explain is well formed and split by thread."""

import importlib.util
from pathlib import Path

import pytest

_SPLIT = Path(__file__).resolve().parent / "corpus" / "split.py"
_spec = importlib.util.spec_from_file_location("corpus_split", _SPLIT)
split = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(split)


def test_corpus_has_no_problems():
    dev, test = split.load(split.DEV), split.load(split.TEST)
    assert split.problems(dev, test) == []


def test_corpus_size_and_split_share():
    dev, test = split.load(split.DEV), split.load(split.TEST)
    n = len(dev) + len(test)
    assert n >= 150
    threads = {e["url"] for e in dev + test}
    share = sum(split.part_of(u) == "test" for u in threads) / len(threads)
    assert 0.25 <= share <= 0.55


def test_split_is_by_thread():
    dev, test = split.load(split.DEV), split.load(split.TEST)
    assert not ({e["url"] for e in dev} & {e["url"] for e in test})


@pytest.mark.parametrize("bad, needle", [
    ({"url": "https://example.com/x"}, "thread address"),
    ({"cause": "not_a_code"}, "neither"),
])
def test_checker_catches_bad_entries(bad, needle):
    good = {"id": "x-1", "url": "https://github.com/a/b/issues/1", "project": "p",
            "text": "some error text", "cause": "cuda_oom", "also": [], "fix": "a fix"}
    entry = {**good, **bad}
    part = split.part_of(entry["url"])
    probs = split.problems(*(([entry], []) if part == "dev" else ([], [entry])))
    assert any(needle in p for p in probs)


def test_checker_catches_wrong_part_and_duplicate_text():
    e1 = {"id": "x-1", "url": "https://github.com/a/b/issues/1", "project": "p",
          "text": "some error text", "cause": "cuda_oom", "also": [], "fix": "a fix"}
    e2 = {**e1, "id": "x-2"}
    wrong = "test" if split.part_of(e1["url"]) == "dev" else "dev"
    probs = split.problems(*(([e1, e2], []) if wrong == "dev" else ([], [e1, e2])))
    assert any("belongs to" in p for p in probs)
    assert any("same text" in p for p in probs)


def test_heldout_has_no_problems_and_shares_nothing_with_dev_test():
    dev, test, held = split.load(split.DEV), split.load(split.TEST), split.load(split.HELDOUT)
    assert len(held) >= 60
    assert split.heldout_problems(held, dev, test) == []


def test_heldout_checker_catches_shared_thread_text_and_codes():
    dev = [{"id": "x-1", "url": "https://github.com/Org/Repo/issues/7", "project": "p",
            "text": "some error text", "cause": "cuda_oom", "also": [], "fix": "a fix"}]
    good = {"id": "h-1", "url": "https://github.com/o/r/issues/1", "project": "proj", "text": "other text",
            "cause": "cuda_oom", "also": [], "fix": "a fix", "evidence": "reporter: fixed", "query": "F10"}
    assert split.heldout_problems([good], dev, []) == []
    cases = [
        ({"url": "https://github.com/org/repo/pull/7"}, "also in dev/test"),   # same repo + number
        ({"text": "Some  error text"}, "same text"),
        ({"cause": "not_a_code"}, "neither"),
        ({"cause": "unknown", "also": ["cuda_oom"]}, "never combined"),
        ({"id": "x-1"}, "duplicate id"),
    ]
    for bad, needle in cases:
        probs = split.heldout_problems([{**good, **bad}], dev, [])
        assert any(needle in p for p in probs), (bad, probs)
    many = [{**good, "id": f"h-{i}", "text": f"text {i}"} for i in range(4)]
    assert any("more than 3 texts" in p for p in split.heldout_problems(many, dev, []))


def test_second_heldout_has_no_problems_and_shares_nothing_with_earlier_parts():
    dev, test = split.load(split.DEV), split.load(split.TEST)
    held, held2 = split.load(split.HELDOUT), split.load(split.HELDOUT2)
    assert len(held2) >= 80
    assert split.heldout_problems(held2, dev, test, earlier=held, name="heldout2") == []
    keys2 = {split.thread_key(e["url"]) for e in held2}
    assert not keys2 & {split.thread_key(e["url"]) for e in dev + test + held}


def test_second_heldout_checker_catches_what_the_first_heldout_already_has():
    held = [{"id": "h-1", "url": "https://github.com/Org/Repo/issues/9", "project": "proj", "text": "first text",
             "cause": "cuda_oom", "also": [], "fix": "a fix", "evidence": "reporter: fixed", "query": "F10"}]
    good = {**held[0], "id": "h2-1", "url": "https://github.com/o/r/issues/1", "text": "second text"}
    assert split.heldout_problems([good], [], [], earlier=held) == []
    cases = [
        ({"url": "https://github.com/org/repo/issues/9"}, "also in dev/test/heldout"),
        ({"text": "First  text"}, "same text as h-1"),
        ({"id": "h-1"}, "duplicate id"),
    ]
    for bad, needle in cases:
        probs = split.heldout_problems([{**good, **bad}], [], [], earlier=held)
        assert any(needle in p for p in probs), (bad, probs)


def test_third_heldout_has_no_problems_and_shares_nothing_with_earlier_parts():
    dev, test = split.load(split.DEV), split.load(split.TEST)
    held, held2, held3 = split.load(split.HELDOUT), split.load(split.HELDOUT2), split.load(split.HELDOUT3)
    assert len(held3) >= 80
    assert split.heldout_problems(held3, dev, test, earlier=held + held2, name="heldout3",
                                  other_parts="dev/test/heldout/heldout2") == []
    keys3 = {split.thread_key(e["url"]) for e in held3}
    assert not keys3 & {split.thread_key(e["url"]) for e in dev + test + held + held2}
    assert len(keys3) == len({e["url"] for e in held3})   # one address form per thread


def test_third_heldout_spread_over_families_and_unknown_share():
    held3 = split.load(split.HELDOUT3)
    per_family: dict[str, int] = {}
    for e in held3:
        family = e["query"].split()[0]
        per_family[family] = per_family.get(family, 0) + 1
    assert max(per_family.values()) <= 0.08 * len(held3)
    assert sum(e["cause"] == split.UNKNOWN for e in held3) <= split.MAX_UNKNOWN_SHARE * len(held3)


def test_third_heldout_checker_catches_what_the_second_heldout_already_has():
    held2 = [{"id": "h2-1", "url": "https://github.com/Org/Repo/issues/5", "project": "proj", "text": "second text",
              "cause": "cuda_oom", "also": [], "fix": "a fix", "evidence": "reporter: fixed", "query": "F10"}]
    good = {**held2[0], "id": "h3-1", "url": "https://github.com/o/r/issues/1", "text": "third text"}
    kwargs = {"earlier": held2, "name": "heldout3", "other_parts": "dev/test/heldout/heldout2"}
    assert split.heldout_problems([good], [], [], **kwargs) == []
    cases = [
        ({"url": "https://github.com/org/repo/issues/5"}, "also in dev/test/heldout/heldout2"),
        ({"text": "Second  TEXT"}, "same text as h2-1"),
        ({"id": "h2-1"}, "duplicate id"),
        ({"cause": "not_a_code"}, "neither"),
    ]
    for bad, needle in cases:
        probs = split.heldout_problems([{**good, **bad}], [], [], **kwargs)
        assert any(needle in p for p in probs), (bad, probs)


def test_fourth_heldout_has_no_problems_and_shares_nothing_with_earlier_parts():
    dev, test = split.load(split.DEV), split.load(split.TEST)
    held, held2, held3 = split.load(split.HELDOUT), split.load(split.HELDOUT2), split.load(split.HELDOUT3)
    held4 = split.load(split.HELDOUT4)
    assert len(held4) >= 80
    assert split.heldout_problems(held4, dev, test, earlier=held + held2 + held3, name="heldout4",
                                  other_parts="dev/test/heldout/heldout2/heldout3") == []
    keys4 = {split.thread_key(e["url"]) for e in held4}
    assert not keys4 & {split.thread_key(e["url"]) for e in dev + test + held + held2 + held3}
    assert len(keys4) == len({e["url"] for e in held4})   # one address form per thread


def test_fourth_heldout_spread_over_families_and_unknown_share():
    held4 = split.load(split.HELDOUT4)
    per_family: dict[str, int] = {}
    for e in held4:
        family = e["query"].split()[0]
        per_family[family] = per_family.get(family, 0) + 1
    assert max(per_family.values()) <= 0.08 * len(held4)
    assert sum(e["cause"] == split.UNKNOWN for e in held4) <= split.MAX_UNKNOWN_SHARE * len(held4)


def test_fourth_heldout_checker_catches_what_the_third_heldout_already_has():
    held3 = [{"id": "h3-1", "url": "https://github.com/Org/Repo/issues/7", "project": "proj", "text": "third text",
              "cause": "cuda_oom", "also": [], "fix": "a fix", "evidence": "reporter: fixed", "query": "F10"}]
    good = {**held3[0], "id": "h4-1", "url": "https://github.com/o/r/issues/1", "text": "fourth text"}
    kwargs = {"earlier": held3, "name": "heldout4", "other_parts": "dev/test/heldout/heldout2/heldout3"}
    assert split.heldout_problems([good], [], [], **kwargs) == []
    cases = [
        ({"url": "https://github.com/org/repo/issues/7"}, "also in dev/test/heldout/heldout2/heldout3"),
        ({"text": "Third  TEXT"}, "same text as h3-1"),
        ({"id": "h3-1"}, "duplicate id"),
        ({"cause": "not_a_code"}, "neither"),
    ]
    for bad, needle in cases:
        probs = split.heldout_problems([{**good, **bad}], [], [], **kwargs)
        assert any(needle in p for p in probs), (bad, probs)


def test_fifth_heldout_has_no_problems_and_shares_nothing_with_earlier_parts():
    dev, test = split.load(split.DEV), split.load(split.TEST)
    held, held2, held3 = split.load(split.HELDOUT), split.load(split.HELDOUT2), split.load(split.HELDOUT3)
    held4, held5 = split.load(split.HELDOUT4), split.load(split.HELDOUT5)
    assert len(held5) >= 60
    assert split.heldout_problems(held5, dev, test, earlier=held + held2 + held3 + held4, name="heldout5",
                                  other_parts="dev/test/heldout/heldout2/heldout3/heldout4") == []
    keys5 = {split.thread_key(e["url"]) for e in held5}
    assert not keys5 & {split.thread_key(e["url"]) for e in dev + test + held + held2 + held3 + held4}
    assert len(keys5) == len({e["url"] for e in held5})   # one address form per thread


def test_fifth_heldout_spread_over_families_and_unknown_share():
    held5 = split.load(split.HELDOUT5)
    per_family: dict[str, int] = {}
    for e in held5:
        family = e["query"].split()[0]
        per_family[family] = per_family.get(family, 0) + 1
    assert max(per_family.values()) <= 0.08 * len(held5)
    assert sum(e["cause"] == split.UNKNOWN for e in held5) <= split.MAX_UNKNOWN_SHARE * len(held5)


def test_fifth_heldout_checker_catches_what_the_fourth_heldout_already_has():
    held4 = [{"id": "h4-1", "url": "https://github.com/Org/Repo/issues/9", "project": "proj", "text": "fourth text",
              "cause": "cuda_oom", "also": [], "fix": "a fix", "evidence": "reporter: fixed", "query": "F10"}]
    good = {**held4[0], "id": "h5-1", "url": "https://github.com/o/r/issues/1", "text": "fifth text"}
    kwargs = {"earlier": held4, "name": "heldout5", "other_parts": "dev/test/heldout/heldout2/heldout3/heldout4"}
    assert split.heldout_problems([good], [], [], **kwargs) == []
    cases = [
        ({"url": "https://github.com/org/repo/issues/9"}, "also in dev/test/heldout/heldout2/heldout3/heldout4"),
        ({"text": "Fourth  TEXT"}, "same text as h4-1"),
        ({"id": "h4-1"}, "duplicate id"),
        ({"cause": "not_a_code"}, "neither"),
    ]
    for bad, needle in cases:
        probs = split.heldout_problems([{**good, **bad}], [], [], **kwargs)
        assert any(needle in p for p in probs), (bad, probs)
