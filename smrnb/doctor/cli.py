# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""``smr-doctor``: the environment doctor on the command line.

Commands::

    smr-doctor [check]                  collect facts, print findings (default)
    smr-doctor explain [TEXT|FILE|-]    explain a pasted error (argument, a file, or stdin with - / nothing)
    smr-doctor fix kernelspec [--name N] [--dry-run] [--force]
    smr-doctor fix snippets             ~/.bashrc, sbatch, systemd, JupyterHub snippets
    smr-doctor codes [--write]          print CODES.md (every finding code), or write it beside the code

Options (any position): ``--json``, ``--markdown``, ``--layer L`` (repeatable), ``--extension PATH``
(repeatable), ``--package NAME`` (repeatable: the compiled modules of an installed distribution),
``--import-check``, ``--timeout S``.
Exit status: 0 no errors found, 1 errors found (or a fix failed), 2 usage error; ``explain``: 1 a cause found
(error or warning), 0 only notes (``user_code_error``), 3 the text was not recognised (no known cause in it; not
an all-clear).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import stat
import sys
from collections.abc import Sequence

from smrnb._errors import SmrnbError, SmrnbValueError
from smrnb._files import atomic_write
from smrnb._text import console_safe
from smrnb.doctor import diagnose, explain
from smrnb.doctor._cluster import diagnose_cluster
from smrnb.doctor._codes import CODES, CODES_PATH, codes_markdown
from smrnb.doctor._fixes import snippets_text, write_kernelspec
from smrnb.doctor._model import DEFAULT_TIMEOUT, LAYERS, MAX_TIMEOUT, check_timeout
from smrnb.doctor._paste import decode
from smrnb.doctor._redact import process_secrets, redact_text
from smrnb.doctor._scheduler import parse_scheduler_address, probe_scheduler


def _positive_float(text: str) -> float:
    """``--timeout``: a finite number of seconds in (0, MAX_TIMEOUT]; anything else is a usage error."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    try:
        return check_timeout(v)
    except SmrnbError:
        raise argparse.ArgumentTypeError(f"must be > 0 and <= {MAX_TIMEOUT:g} seconds, got {text!r}") from None


def _common(defaults: bool) -> argparse.ArgumentParser:
    """Options accepted before and after the command (subparsers must not reset them: SUPPRESS)."""
    d = (lambda v: v) if defaults else (lambda v: argparse.SUPPRESS)
    p = argparse.ArgumentParser(add_help=False)
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", default=d(False), help="print the report as JSON")
    out.add_argument("--markdown", action="store_true", default=d(False),
                     help="print markdown for a bug report (home, user, host and secrets redacted)")
    p.add_argument("--layer", action="append", choices=LAYERS, default=d(None), metavar="LAYER",
                   help=f"check only this layer (repeatable): {', '.join(LAYERS)}")
    p.add_argument("--extension", action="append", default=d(None), metavar="PATH",
                   help="also inspect this compiled extension (.so) in the loader and ABI layers (repeatable)")
    p.add_argument("--package", action="append", default=d(None), metavar="NAME",
                   help="also inspect the compiled modules (.so) of this installed distribution (pytorch3d, flash_attn, "
                        "torch_scatter, ...) in the loader and ABI layers (repeatable)")
    p.add_argument("--import-check", action="store_true", default=d(False),
                   help="also import torch and kaolin in subprocesses (slow: ~10 s on a GPU machine); runs after "
                        "the other layers, with its own budget of 60 s")
    p.add_argument("--timeout", type=_positive_float, default=d(DEFAULT_TIMEOUT), metavar="S",
                   help=f"seconds per external command, > 0 and <= {MAX_TIMEOUT:g} (default {DEFAULT_TIMEOUT:g}); "
                        "the static layers are cut off after 2*S+1 s (the import check has its own budget)")
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="smr-doctor", parents=[_common(True)],
        description="Diagnose the CUDA / PyTorch / kaolin / Jupyter environment and print fixes.",
        epilog="Exit status: 0 no errors, 1 errors found, 2 usage error; explain: 1 a cause found (error or "
               "warning), 0 only notes (user_code_error), 3 the text was not recognised (no known cause; not an "
               "all-clear).")
    sub = parser.add_subparsers(dest="command", metavar="{check,explain,fix,codes,cluster}")
    sub.add_parser("check", parents=[_common(False)], help="check this environment (default)")
    ex = sub.add_parser("explain", parents=[_common(False)], help="explain a pasted error text",
                        epilog="Exit status: 1 a cause found (error or warning), 0 only notes (user_code_error: "
                               "not the environment), 2 usage error, 3 the text was not recognised (no known "
                               "cause; not an all-clear).")
    ex.add_argument("text", nargs="*", help="the error text, or a file holding it (a log); '-' or nothing reads stdin")
    ex.add_argument("--offline", action="store_true", help="use only the text, not this machine's facts")
    fx = sub.add_parser("fix", parents=[_common(False)], help="write fixes (always with a dry run)")
    fsub = fx.add_subparsers(dest="fix_command", metavar="{kernelspec,snippets}")
    fsub.required = True
    ks = fsub.add_parser("kernelspec", parents=[_common(False)],
                         help="write a kernelspec whose env carries LD_LIBRARY_PATH / CUDA_HOME / PATH")
    ks.add_argument("--name", help="kernelspec name (default <current>-smrnb, or the one smr-doctor wrote "
                    "before for this Python, rewritten in place; never another existing one)")
    ks.add_argument("--dry-run", action="store_true", help="print the kernel.json, write nothing")
    ks.add_argument("--force", action="store_true", help="replace an existing kernelspec of that name")
    fsub.add_parser("snippets", parents=[_common(False)],
                    help="print ~/.bashrc, sbatch, systemd and JupyterHub snippets")
    cd = sub.add_parser("codes", help="print the documentation of every finding code (CODES.md)")
    cd.add_argument("--write", action="store_true", help="write smrnb/doctor/CODES.md instead of printing it")
    cd.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                    help="print every code as JSON ({code: {layer, severity, meaning, fix, ...}})")
    cl = sub.add_parser("cluster", parents=[_common(False)],
                        help="run the doctor on every worker of a Dask cluster and show what differs",
                        epilog="Exit status: 0 no errors, 1 errors found (or a worker's doctor did not answer), "
                               "2 usage error or no Dask scheduler at the address. What listens at the address is "
                               "asked first, within --timeout seconds: a web server (the dashboard's port) or "
                               "anything else that does not greet as a Dask scheduler is named, never waited on.")
    cl.add_argument("--scheduler", required=True, metavar="ADDRESS",
                    help="the Dask scheduler: tcp://HOST:PORT (8786 by default; 8787 is its dashboard), or "
                         "tls://HOST:PORT with Dask's TLS settings (distributed.comm.tls.ca-file, .client.cert, "
                         ".client.key)")
    return parser


def _emit(report, args) -> int:
    if args.json:
        print(report.to_json())
    elif args.markdown:
        print(report.to_markdown(redact=True))
    else:
        print(report.to_text(), end="")
    return report.exit_code


def _redacted(text: str) -> str:
    return redact_text(text, process_secrets())


def _explain_options(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """(blind audit 36, A-M2/M3) Options explain cannot honour are usage errors, never dropped without a word: '-' beside
    more text, and the options that inspect this machine's own files (--extension, --package, --import-check: the
    check's, ``smr-doctor --extension PATH``)."""
    if "-" in args.text and len(args.text) > 1:
        parser.error("explain: '-' reads the text from stdin and must be given alone (got more text beside it: "
                     "quote the text instead, or pass it on stdin)")
    given = [o for o, v in (("--extension", getattr(args, "extension", None)), ("--package", getattr(args, "package", None)),
                           ("--import-check", getattr(args, "import_check", False))) if v]
    if given:
        parser.error(f"explain: {', '.join(given)} inspect this machine's own files, which explain does not: run "
                     f"them with the check (smr-doctor {given[0]} ...), then explain the text on its own")


#: a single argument that names a file rather than holding an error: one word, with a log's or a text's suffix
_FILE_ARG_RE = re.compile(r"[^\s]{1,4000}\.(?:txt|log|out|err|md|json|stderr|stdout)")


def _text_file(words: list[str], parser: argparse.ArgumentParser) -> tuple[str, str] | None:
    """(blind audit 36) ``explain FILE``: the text and encoding of the one argument where it names a regular file
    (read as stdin is: its bytes, decoded); a usage error where it names something else that exists (a directory, a
    FIFO: never opened) or a missing file with a log's suffix; None where the argument is the error text itself."""
    if len(words) != 1 or not words[0] or any(c.isspace() for c in words[0]):
        return None
    path = os.path.expanduser(words[0])
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        if _FILE_ARG_RE.fullmatch(words[0]):
            parser.error(f"explain: {words[0]!r} looks like a file name but no such file exists (to explain a text, "
                         "pass it quoted, or on stdin: smr-doctor explain < build.log)")
        return None
    if not stat.S_ISREG(st.st_mode):
        parser.error(f"explain: {words[0]!r} is not a regular file (a directory, a FIFO or a device: not read); "
                     "give a file that holds the error text, or the text on stdin")
    try:
        with open(path, "rb") as fh:
            return decode(fh.read(MAX_FILE_BYTES))
    except OSError as exc:
        parser.error(f"explain: cannot read {words[0]!r}: {exc.strerror or exc}")
    return None


#: the most of a file explain reads (explain caps a long text to its head, tail and error lines after)
MAX_FILE_BYTES = 256 << 20


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``smr-doctor``; returns the exit status (argparse exits 2 on usage errors).
    Never a traceback: an unexpected failure is one redacted line on stderr and exit status 1."""
    console_safe()  # an ASCII-only terminal gets [ok]/[error] instead of no report
    try:
        return _main(argv)
    except BrokenPipeError:  # `smr-doctor --json | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
    except SystemExit:
        raise
    except Exception as exc:  # the doctor never ends in a traceback
        print(_redacted(f"smr-doctor: failed: {type(exc).__name__}: {exc}"), file=sys.stderr)
        return 1


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    cmd = args.command or "check"
    if cmd == "codes":
        return _codes(args, parser)
    if cmd == "cluster":
        return _cluster(args, parser)
    if cmd == "check":
        try:
            report = diagnose(layers=args.layer, extension_paths=args.extension or (), packages=args.package or (),
                              import_check=args.import_check, timeout=args.timeout)
        except SmrnbValueError as exc:
            parser.error(str(exc))
        return _emit(report, args)
    if cmd == "explain":
        _explain_options(args, parser)
        text = " ".join(args.text)
        encoding = "utf-8"
        if not args.text or text.strip() == "-":
            if sys.stdin is None or sys.stdin.closed:  # (blind audit 36, A-M1) `explain <&-`: no stdin at all
                parser.error("explain needs an error text (argument, or on stdin): stdin is closed")
            raw = getattr(sys.stdin, "buffer", None)  # bytes as they came (a file of another encoding, a pipe)
            text, encoding = decode(raw.read()) if raw is not None else (sys.stdin.read(), "utf-8")
        elif (read := _text_file(args.text, parser)) is not None:  # (blind audit 36, F15) explain build.log
            text, encoding = read
        if encoding not in ("utf-8", "utf-8-sig"):
            print(f"smr-doctor explain: the input is not UTF-8; read as {encoding}", file=sys.stderr)
        if not text.strip():
            if args.json:  # (round 29, audit 29) a tool reading --json gets JSON for an empty paste too
                usage = "explain needs an error text (argument, or on stdin)"
                print(json.dumps({"summary": {"errors": 0, "warnings": 0, "exit_code": 2, "text": usage,
                                              "recognised": False}, "findings": [], "facts": {}, "recognised": False,
                                  "next_steps": [], "error": usage}, indent=2))
                print(f"smr-doctor: error: {usage}", file=sys.stderr)
                return 2
            parser.error("explain needs an error text (argument, or on stdin)")
        report = explain(text, live=not args.offline, layers=args.layer, timeout=args.timeout)
        return _emit(report, args)
    # fix
    report = diagnose(layers=["torch", "toolkit", "jupyter", "context"], timeout=args.timeout)
    if args.fix_command == "snippets":
        print(_redacted(snippets_text(facts=report.facts)), end="")
        return 0
    try:
        if args.dry_run:
            print(write_kernelspec(args.name, dry_run=True, force=args.force, facts=report.facts).describe())
            return 0
        res = write_kernelspec(args.name, force=args.force, facts=report.facts)
    except SmrnbValueError as exc:  # (blind audit 36, C-L5) a name refused is a usage error (2), as elsewhere
        parser.error(_redacted(f"fix kernelspec --name: {str(exc).replace('pass force=True (--force)', 'pass --force')}"
                               " (nothing was written)"))
    except SmrnbError as exc:
        print(_redacted(f"smr-doctor fix kernelspec: {exc}"), file=sys.stderr)
        return 1
    except OSError as exc:
        print(_redacted(f"smr-doctor fix kernelspec: could not back up or write the kernelspec (nothing was "
                        f"removed): {exc}"), file=sys.stderr)
        return 1
    print(res.describe())
    return 0


def _codes(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """``codes``: CODES.md, or (blind audit 36, C-L6) every code as JSON with ``--json`` before or after ``codes``;
    the options of a check (--layer, --extension, --package, --import-check) do not apply and are usage errors."""
    given = [o for o, v in (("--layer", args.layer), ("--extension", args.extension), ("--package", args.package),
                           ("--import-check", args.import_check)) if v]
    if given:
        parser.error(f"codes: {', '.join(given)} do not apply to codes (it prints the table of every finding code)")
    if args.write:
        if args.json or args.markdown:
            parser.error("codes --write writes CODES.md; --json / --markdown do not apply to it")
        atomic_write(CODES_PATH, codes_markdown(), "CODES.md")
        print(f"wrote {CODES_PATH}")
    elif args.json:
        print(json.dumps({code: {"layer": c.layer, "severity": c.severity, "meaning": c.meaning, "fix": c.fix,
                                 "told_from": c.told_from, "check": c.check, "source": c.source, "decided_by":
                                 list(c.homes)} for code, c in CODES.items()}, indent=1))
    else:
        print(codes_markdown(), end="")  # CODES.md is markdown: --markdown prints the same
    return 0


_TLS_SETTINGS = ("Dask's TLS settings: the CA and this client's certificate and key (distributed.comm.tls.ca-file, "
                 "distributed.comm.tls.client.cert and distributed.comm.tls.client.key in the Dask config, or "
                 "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT and "
                 "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY)")


def _tls_security(addr, parser):
    """The ``Security`` of Dask's config and the client's connection arguments for a tls:// address (a usage
    error when no certificate is set); ``(None, {})`` for tcp://."""
    if addr.scheme != "tls":
        return None, {}
    from distributed.security import Security

    try:
        security = Security()
        conn = security.get_connection_args("client")
    except Exception as exc:  # a certificate file that is missing or unreadable, a bad TLS version
        parser.error(_redacted(f"--scheduler {addr} needs {_TLS_SETTINGS}; they could not be read: "
                               f"{type(exc).__name__}: {exc}"))
    if conn.get("ssl_context") is None:
        parser.error(_redacted(f"--scheduler {addr} needs {_TLS_SETTINGS}; none are set (a tcp:// scheduler needs "
                               f"none)"))
    return security, conn


def _cluster(args, parser) -> int:
    try:
        addr = parse_scheduler_address(args.scheduler)
    except SmrnbValueError as exc:
        parser.error(_redacted(str(exc)))
    try:
        from distributed import Client
    except ImportError:
        print('smr-doctor cluster: needs dask.distributed: pip install "smrnb[cluster]"', file=sys.stderr)
        return 2
    security, conn = _tls_security(addr, parser)
    # distributed waits for ever on a server that accepts and says nothing, and allocates whatever length a
    # foreign server's first bytes spell: ask what listens there first, with a plain socket, within --timeout
    probe = probe_scheduler(addr, args.timeout, conn.get("ssl_context"), conn.get("server_hostname"))
    if not probe.ok:
        where = (f"no Dask scheduler at {addr}: something listens there but does not speak Dask's protocol"
                 if probe.listens else f"no Dask scheduler answers at {addr}")
        print(_redacted(f"smr-doctor cluster: {where} ({probe.reason})"), file=sys.stderr)
        return 2
    try:
        client = Client(str(addr), timeout=args.timeout, security=security)
    except (OSError, TimeoutError) as exc:
        print(_redacted(f"smr-doctor cluster: no Dask scheduler answers at {addr} within --timeout {args.timeout:g} s "
                        f"({type(exc).__name__}: {exc})"), file=sys.stderr)
        return 2
    try:
        rep = diagnose_cluster(client, layers=args.layer, timeout=args.timeout)
    finally:
        client.close()
    print(json.dumps(rep.to_dict(), indent=1, default=str) if args.json else rep)
    errors = any(f.get("severity") == "error" for g in rep.groups for f in g.findings)
    return 1 if errors or rep.failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
