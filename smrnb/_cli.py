# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""The ``smrnb`` command: the pipeline CLI, or one clear line when the ``recon`` extra is missing."""

from __future__ import annotations

import sys

from smrnb._extras import MissingExtraError


def main(argv: list[str] | None = None) -> int:
    try:
        from smrnb.pipeline.cli import main as pipeline_main
    except MissingExtraError as exc:
        print(f"smrnb: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # while torch and the steps are imported: nothing has run yet
        print("smrnb: interrupted (Ctrl-C) while starting; nothing was written", file=sys.stderr, flush=True)
        return 130
    rc = pipeline_main(argv)
    if argv is None:  # the `smrnb` program itself: a Ctrl-C while Python shuts down is ignored (pipeline.cli)
        guard_shutdown()
    return rc


def guard_shutdown() -> None:
    """After a pipeline command ran in this process (``smrnb.pipeline.cli.guard_shutdown``); nothing otherwise."""
    cli = sys.modules.get("smrnb.pipeline.cli")
    if cli is not None:
        cli.guard_shutdown()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
