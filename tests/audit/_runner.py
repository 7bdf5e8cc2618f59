# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Child side of the audit: ``python -m tests.audit._runner CASE...`` runs the cases and prints one
JSON line per case (``status``: ``ok`` returned, ``smrnb`` a SmrnbError, ``raw`` any other exception)."""

from __future__ import annotations

import json
import sys
import traceback


def main(names: list[str]) -> int:
    from tests.audit._cases import all_cases

    cases = all_cases()
    import smrnb

    for name in names:
        c = cases[name]
        out = {"name": name}
        try:
            c.fn()
            out["status"] = "ok"
        except smrnb.SmrnbError as exc:
            out.update(status="smrnb", type=type(exc).__name__, message=str(exc)[:4000],
                       is_value_or_type=isinstance(exc, (ValueError, TypeError)))
        except AssertionError as exc:
            out.update(status="wrong", type="AssertionError", message=(str(exc) or traceback.format_exc(limit=3))[:4000])
        except BaseException as exc:
            out.update(status="raw", type=type(exc).__name__, message=f"{str(exc)[:2000]}\n"
                       f"{traceback.format_exc(limit=-4)[-2000:]}")
        sys.stdout.write("AUDIT " + json.dumps(out) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
