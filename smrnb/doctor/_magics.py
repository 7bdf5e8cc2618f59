# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""IPython surfaces of the doctor: ``%load_ext smrnb``, ``%smr_doctor``, ``%%smr_explain``.

Loading the extension

* registers ``%smr_doctor`` (returns a :class:`smrnb.doctor.Report`, rendered as HTML) and the
  ``%%smr_explain`` cell magic;
* checks the loader environment right away: it warns when ``LD_LIBRARY_PATH`` (or ``CUDA_HOME``,
  ``CUDA_PATH``, the CUDA entries of ``PATH``) differs from what this kernel process started with
  (``/proc/self/environ``), or when a library an installed extension needs is findable only
  through a directory that was not on the start-time search path;
* adds a ``post_run_cell`` hook that warns right after any cell that changed those variables
  (``os.environ[...] = ...``, ``%env``);
* installs an exception hook for ``ImportError``/``OSError``/``RuntimeError`` that appends a
  one-line diagnosis to a traceback whose error explain recognises (the same engine and the same code as
  ``smrnb.explain``; silent on what it does not know), with ``%smr_doctor --explain-last``, which explains
  that same error in full. Switch it off with ``%smr_doctor --no-hook`` (back on: ``--hook``) or by starting
  the kernel with ``SMRNB_NO_EXCEPTION_HOOK=1``.

Each warning is shown once: as a :class:`SmrnbEnvironmentWarning` when the warning filters let it
through, else printed to the cell's stderr (visible whatever the filters). A cell that restores a
variable's start value is silent (the loader and the process agree again). Nothing here raises from a
magic except ``UsageError`` for bad options; the doctor itself never hangs (its probes have
timeouts and an overall deadline).

To load it for every kernel, add to ``~/.ipython/profile_default/ipython_config.py``::

    c.InteractiveShellApp.extensions = ["smrnb"]
"""

from __future__ import annotations

import glob
import importlib.util
import os
import sys
import warnings
from collections.abc import Mapping
from typing import Any

from smrnb._errors import SmrnbError, SmrnbTypeError, SmrnbValueError
from smrnb.doctor import EMPTY_TEXT, diagnose, explain
from smrnb.doctor._fixes import snippets_text, write_kernelspec
from smrnb.doctor._ldso import (
    change_effect,
    cuda_path_entries,
    libraries_only_findable_via_new_dirs,
    start_env_changes,
)
from smrnb.doctor._model import LAYERS, check_timeout, read_proc_environ
from smrnb.doctor._redact import process_secrets, redact_text

__all__ = ["SmrnbEnvironmentWarning", "load_ipython_extension", "unload_ipython_extension",
           "check_start_environment", "env_snapshot"]

WATCHED = ("LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "PATH")
HOOK_ENV_OFF = "SMRNB_NO_EXCEPTION_HOOK"
FIX_COMMAND = "smr-doctor fix kernelspec"
_HOOK_EXCEPTIONS = (ImportError, OSError, RuntimeError)


class SmrnbEnvironmentWarning(UserWarning):
    """The kernel's loader environment differs from what the user set (the loader will not see it)."""


# ---------------------------------------------------------------------- environment comparison
def env_snapshot(environ: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """The watched variables now (``PATH`` reduced to its CUDA entries)."""
    env = os.environ if environ is None else environ
    snap: dict[str, str | None] = {k: env.get(k) for k in WATCHED if k != "PATH"}
    snap["PATH"] = ":".join(cuda_path_entries(env.get("PATH"))) or None
    return snap


def _changes(start_env: Mapping[str, str] | None, now_env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """``{var: {"start", "now", "added", "removed"}}`` of watched variables that differ; ``{}`` if start is
    unknown."""
    return start_env_changes(start_env, now_env)


def _installed_extension_paths() -> list[str]:
    """Compiled extensions of interest that are installed (kaolin's ``_C*.so``), found without importing."""
    out: list[str] = []
    try:
        spec = importlib.util.find_spec("kaolin")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            out += sorted(glob.glob(os.path.join(d, "_C*.so")))
    return out


def check_start_environment(start_env: Mapping[str, str] | None = None, now_env: Mapping[str, str] | None = None,
                            paths: list[str] | None = None, mapped: Mapping[str, str] | None = None) -> list[str]:
    """Messages (empty: nothing to warn about) comparing the start environment with now.

    Parameters
    ----------
    start_env : mapping, optional
        The environment the process started with (default ``/proc/self/environ``). When unknown,
        nothing can be compared and no message is produced.
    now_env : mapping, optional
        Default ``os.environ``.
    paths : list of str, optional
        Extensions to check (default: installed kaolin ``_C*.so``).
    mapped : mapping, optional
        ``{soname: path}`` already loaded (default ``/proc/self/maps``).
    """
    start_env = read_proc_environ() if start_env is None else start_env
    now_env = dict(os.environ) if now_env is None else now_env
    if start_env is None:
        return []
    msgs: list[str] = []
    changes = _changes(start_env, now_env)
    if changes:
        msgs.append(change_message(changes, when="since this kernel started"))
    try:
        exts = _installed_extension_paths() if paths is None else list(paths)
        only_new = libraries_only_findable_via_new_dirs(exts, start_env, now_env, mapped) if exts else []
    except Exception:  # an unreadable extension or loader file: this part is skipped, the check never raises
        only_new = []
    for item in only_new or []:
        if isinstance(item, Mapping):
            msgs.append(
                f"{item.get('library')} (needed by {item.get('extension')}) is findable only through "
                f"{item.get('dir')}, which came into {item.get('variable', 'LD_LIBRARY_PATH')} after this kernel "
                f"started: importing that extension in this kernel will fail with 'cannot open shared object file'. "
                f"Fix: `{FIX_COMMAND}`, then restart into the new kernel.")
    return msgs


def change_message(changes: Mapping[str, Mapping[str, Any]], when: str) -> str:
    """The warning text for changed loader variables: the values, what each change reaches and what
    not (the loader reads only LD_LIBRARY_PATH, and only at start), the fix."""
    lines = [f"smrnb: the loader environment changed {when}:"]
    for var, ch in changes.items():
        before = f", before this cell {ch.get('before')!r}" if "before" in ch else ""
        lines.append(f"  {var}: at start {ch.get('start')!r}{before}, now {ch.get('now')!r}")
    for var in changes:
        lines.append(f"- {change_effect(var)}.")
    if "LD_LIBRARY_PATH" in changes:
        lines.append(f"Fix: run `{FIX_COMMAND}` (writes a kernelspec whose env carries these values), then "
                     "switch this notebook to that kernel and restart it.")
    else:
        lines.append(f"To keep them for the next kernel start: `{FIX_COMMAND}`, then switch to that kernel.")
    return "\n".join(lines)


def _announce(msg: str) -> None:
    """Show ``msg`` once: as a :class:`SmrnbEnvironmentWarning` when the warning filters let it through
    (then the warning *is* the visible message), else printed to stderr (visible whatever the filters). (Blind audit
    36, H6) the values it quotes are redacted as the reports redact them: a token or a URL's password never shows."""
    msg = _redacted(msg)
    try:
        with warnings.catch_warnings(record=True) as seen:  # the user's filters, recording instead of showing
            warnings.warn(msg, SmrnbEnvironmentWarning, stacklevel=2)
        shown = bool(seen)
    except Exception:  # a filter that turns warnings into errors: print instead, never raise
        shown = False
    if shown:
        # a fresh registry: shown whatever was shown before ("default" would hide a repeat)
        warnings.warn_explicit(msg, SmrnbEnvironmentWarning, "smrnb", 0, module=__name__, registry={})
    else:
        print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------- hooks
class _State:
    def __init__(self, ip: Any):
        self.ip = ip
        self.snapshot = env_snapshot()
        start = read_proc_environ()
        self.start = env_snapshot(start) if start is not None else None
        self.hook_on = False

    def post_run_cell(self, result: Any = None) -> None:
        try:
            now = env_snapshot()
            if now == self.snapshot:
                return
            before, self.snapshot = self.snapshot, now
            changed = {}
            for k in now:
                if now[k] == before[k]:
                    continue
                if self.start is not None and now[k] == self.start[k]:
                    continue  # the cell restored the start value: the loader and the process agree again
                changed[k] = {"start": self.start[k] if self.start is not None else "(unknown)",
                              "before": before[k], "now": now[k]}
            if changed:
                _announce(change_message(changed, when="in the cell that just ran"))
        except Exception as exc:  # a hook must never break the user's cell
            print(f"smrnb: the environment check after this cell failed: {type(exc).__name__}", file=sys.stderr)


_STATE: dict[int, _State] = {}


def error_text(etype: type, value: BaseException) -> str:
    """The text of an exception as the hook reads it (and ``--explain-last`` explains): ``Type: message``,
    with the messages of the exceptions it was raised from or during (``raise ... from``)."""
    parts = [f"{getattr(etype, '__name__', 'Exception')}: {value}"]
    seen = {id(value)}
    cur = getattr(value, "__cause__", None) or getattr(value, "__context__", None)
    while cur is not None and id(cur) not in seen and len(parts) < 5:  # the errors it was raised from, first
        seen.add(id(cur))
        parts.append(f"{type(cur).__name__}: {cur}")
        cur = cur.__cause__ or cur.__context__
    return "\n".join(reversed(parts))


#: the text of the last exception the hook saw, per shell (what ``%smr_doctor --explain-last`` explains)
_LAST_ERROR: dict[int, str] = {}


def _exception_handler(shell: Any, etype: type, value: BaseException, tb: Any, tb_offset: int | None = None) -> Any:
    """IPython custom exception handler: the normal traceback, then a one-line diagnosis."""
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    try:
        text = error_text(etype, value)
        _LAST_ERROR[id(shell)] = text
        line = _hook_line(_redacted_last_line(text))
    except Exception:  # the hook must never hide the user's traceback
        line = None
    if line:
        print(_redacted(line), file=sys.stderr, flush=True)  # the echoed error text may carry a secret
    return None


def _redacted_last_line(text: str, limit: int = 4096) -> str:
    """``text`` with the start of its last line redacted (the part a diagnosis echoes), before any
    truncation can cut a token below the length its shape needs; O(len(text)), cheap for 1 MB."""
    head, sep, tail = text.rstrip().rpartition("\n")
    return head + sep + _redacted(tail[:limit]) + tail[limit:]


def _redacted(text: str) -> str:
    """``text`` with secrets removed (by name and by value, :mod:`smrnb.doctor._redact`); never raises."""
    try:
        return redact_text(text, process_secrets())
    except Exception:  # never print what could not be checked
        return "smrnb: (message withheld: it could not be checked for secrets)"


#: the command the hook's line suggests: it explains the same error text in full, as printed
EXPLAIN_LAST = "%smr_doctor --explain-last"


#: the magics' --timeout when none is given
MAGIC_TIMEOUT = 5.0


def diagnosis_line(text: str, facts: Mapping[str, Any] | None = None) -> str | None:
    """One line for an error whose text explain recognises (its first finding: the same code and title as
    ``smrnb.explain(text, live=False)``, or with this machine's ``facts`` (``collect``) as ``smrnb.explain(text)``
    ranks them), else None: the hook says nothing about what it does not know."""
    from smrnb.doctor._codes import is_cause
    from smrnb.doctor._explain import (
        explain_result,  # the readers and the rules: loaded at the first traceback
    )

    # capped and normalised there: a 1 MB message costs what its head and tail cost; the readings of similar
    # known reports are guesses, which the hook never says
    res = explain_result(text, facts, similar=False, same_machine=facts is not None)
    if not any(is_cause(f.code) for f in res.findings):  # (a failure with only notes: the note, as explain lists it)
        return None
    f = res.findings[0]
    others = [g.code for g in res.findings[1:3] if any(e.startswith("another reading") for e in g.evidence)]
    undecided = ("the text alone cannot tell; this machine's facts decide" if facts is None else
                 "the text alone cannot tell, and it shows another machine than this one" if res.read_alone else
                 "neither the text nor this machine's facts tell which")
    alt = f" (or [{'] or ['.join(others)}]: {undecided})" if others else ""
    return f"smrnb doctor: [{f.code}] {f.title}{alt}. Details and fix: {EXPLAIN_LAST}"


def _hook_line(text: str) -> str | None:
    """(blind audit 36, C-L8) The hook's line. It never probes (it runs at every traceback and must cost
    milliseconds): where this process's machine was looked at already (``%smr_doctor``, ``--explain-last``, a live
    ``smrnb.explain`` or ``diagnose`` of every layer), the text is ranked with those facts, as ``--explain-last``
    ranks it; before that, by the text alone, naming the other reading this machine's facts would decide."""
    from smrnb.doctor import machine_facts_seen

    return diagnosis_line(text, machine_facts_seen())


def _unquoted(text: str) -> str:
    """(blind audit 30, N07) ``%smr_doctor --explain "..."``: IPython splits a magic's line without removing quotes,
    so the text came with the quotes the user wrapped it in (and was read as another text than the command line's
    ``smr-doctor explain``). One pair of the same quote around the whole text goes, where that quote is not in it."""
    t = text.strip()
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "\"'" and t[0] not in t[1:-1]:
        return t[1:-1]
    return text


def _set_hook(ip: Any, on: bool) -> None:
    st = _STATE.get(id(ip))
    if on:
        ip.set_custom_exc(_HOOK_EXCEPTIONS, _exception_handler)
    elif st is None or st.hook_on:
        ip.set_custom_exc((), None)
    if st is not None:
        st.hook_on = on


# ---------------------------------------------------------------------- magics
def _make_magics_class() -> type:
    from IPython.core import magic_arguments
    from IPython.core.error import UsageError
    from IPython.core.magic import Magics, cell_magic, line_magic, magics_class

    @magics_class
    class DoctorMagics(Magics):
        """``%smr_doctor`` and ``%%smr_explain``."""

        @magic_arguments.magic_arguments()
        @magic_arguments.argument("--json", action="store_true", help="render the report as JSON")
        @magic_arguments.argument("--markdown", action="store_true",
                                  help="render markdown for a bug report (home, user, host, secrets redacted)")
        @magic_arguments.argument("--layer", action="append", default=None,
                                  help=f"only this layer (repeatable): {', '.join(LAYERS)}")
        @magic_arguments.argument("--extension", action="append", default=None,
                                  help="also inspect this compiled extension .so (repeatable)")
        @magic_arguments.argument("--package", action="append", default=None,
                                  help="also inspect the compiled modules of this installed distribution (repeatable)")
        @magic_arguments.argument("--import-check", action="store_true",
                                  help="import kaolin in a subprocess (slow)")
        @magic_arguments.argument("--timeout", type=float, default=None, help="seconds per external command")
        @magic_arguments.argument("--explain", nargs="+", default=None, metavar="TEXT",
                                  help="explain this error text instead of a full check")
        @magic_arguments.argument("--explain-last", action="store_true",
                                  help="explain the last error raised in this kernel (what the hook's line named)")
        @magic_arguments.argument("--offline", action="store_true",
                                  help="with --explain / --explain-last: the text alone, not this machine's facts")
        @magic_arguments.argument("--fix", choices=("kernelspec", "snippets"), default=None,
                                  help="write / print a fix")
        @magic_arguments.argument("--dry-run", action="store_true", help="with --fix kernelspec: only show it")
        @magic_arguments.argument("--force", action="store_true", help="with --fix kernelspec: replace a spec")
        @magic_arguments.argument("--name", default=None, help="with --fix kernelspec: the kernelspec name")
        @magic_arguments.argument("--no-hook", action="store_true",
                                  help="switch off the exception hook (one-line diagnosis after tracebacks)")
        @magic_arguments.argument("--hook", action="store_true", help="switch the exception hook back on")
        @line_magic
        def smr_doctor(self, line: str = "") -> Any:
            """Diagnose this kernel's CUDA / torch / kaolin / Jupyter environment; returns a Report."""
            args = magic_arguments.parse_argstring(self.smr_doctor, line)
            if args.json and args.markdown:
                raise UsageError("--json and --markdown are exclusive")
            for layer in args.layer or ():
                if layer not in LAYERS:
                    raise UsageError(f"--layer must be one of {', '.join(LAYERS)}, got {layer!r}")
            if args.timeout is not None:
                try:
                    check_timeout(args.timeout, "--timeout")
                except SmrnbError as exc:
                    raise UsageError(str(exc)) from None
            if (args.dry_run or args.force or args.name) and args.fix != "kernelspec":
                raise UsageError("--dry-run, --force and --name go with --fix kernelspec")
            if args.hook and args.no_hook:
                raise UsageError("--hook and --no-hook are exclusive")
            if args.explain and args.explain_last:
                raise UsageError("--explain and --explain-last are exclusive")
            if args.no_hook or args.hook:
                _set_hook(self.shell, on=bool(args.hook))
                print(f"smrnb: exception hook {'on' if args.hook else 'off'}")
                if not (args.explain or args.explain_last or args.fix or args.layer or args.json or args.markdown):
                    return None
            fmt = "json" if args.json else "markdown" if args.markdown else "html"
            timeout = args.timeout if args.timeout is not None else MAGIC_TIMEOUT
            try:
                if args.fix:
                    return _run_fix(args, timeout)
                if args.explain_last:
                    last = last_error(self.shell)
                    if last is None:
                        print("smrnb: no error was raised in this kernel since %load_ext smrnb (or the hook is off)")
                        return None
                    report = explain(last, live=not args.offline, layers=args.layer, timeout=timeout)
                elif args.explain:
                    try:
                        report = explain(_unquoted(" ".join(args.explain)), live=not args.offline, layers=args.layer,
                                         timeout=timeout)
                    except SmrnbValueError as exc:  # (blind audit 36 A-L3) an empty text: the user's argument
                        raise UsageError(str(exc)) from None
                else:
                    try:
                        report = diagnose(layers=args.layer, extension_paths=args.extension or (),
                                          packages=args.package or (), import_check=args.import_check, timeout=timeout)
                    except SmrnbValueError as exc:  # an unknown package name: the user's argument
                        raise UsageError(str(exc)) from None
            except UsageError:
                raise
            except Exception as exc:  # the doctor never raises from a magic
                print(_redacted(f"smrnb doctor failed: {type(exc).__name__}: {exc}"), file=sys.stderr)
                return None
            return report.as_format(fmt)

        @magic_arguments.magic_arguments()
        @magic_arguments.argument("--offline", action="store_true", help="only the text, no live facts")
        @magic_arguments.argument("--json", action="store_true", help="render as JSON")
        @cell_magic
        def smr_explain(self, line: str, cell: str) -> Any:
            """Explain the error text pasted in the cell; returns a Report."""
            args = magic_arguments.parse_argstring(self.smr_explain, line)
            if not cell.strip():  # (blind audit 36 A-L3) as %smr_doctor --explain "" and the CLI
                raise UsageError(f"{EMPTY_TEXT}: the cell is empty")
            try:
                report = explain(cell, live=not args.offline)
            except Exception as exc:  # never raise from a magic
                print(_redacted(f"smrnb explain failed: {type(exc).__name__}: {exc}"), file=sys.stderr)
                return None
            return report.as_format("json" if args.json else "html")

    return DoctorMagics


def last_error(shell: Any) -> str | None:
    """The text of the last exception raised in ``shell``: what the hook saw, else IPython's ``sys.last_value``."""
    text = _LAST_ERROR.get(id(shell))
    if text is None and getattr(sys, "last_value", None) is not None:
        text = error_text(type(sys.last_value), sys.last_value)
    return text


def _run_fix(args: Any, timeout: float) -> Any:
    facts = diagnose(layers=["torch", "toolkit", "jupyter", "context"], timeout=timeout).facts
    if args.fix == "snippets":
        print(_redacted(snippets_text(facts=facts)), end="")
        return None
    try:
        res = write_kernelspec(args.name, dry_run=args.dry_run, force=args.force, facts=facts)
    except (SmrnbError, OSError) as exc:
        print(_redacted(f"smrnb fix kernelspec: {exc}"), file=sys.stderr)
        return None
    print(res.describe())  # the plan (or what was written) is the whole answer: no result object under it
    return None


def __getattr__(name: str) -> Any:
    if name == "DoctorMagics":  # built on first use: importing this module does not import IPython
        cls = _make_magics_class()
        globals()["DoctorMagics"] = cls
        return cls
    raise AttributeError(f"module 'smrnb.doctor._magics' has no attribute {name!r}")


def load_ipython_extension(ip: Any) -> None:
    """``%load_ext smrnb``: register the magics, check the start environment, add the hooks."""
    if not hasattr(ip, "register_magics"):
        raise SmrnbTypeError(f"ipython must be an IPython shell (get_ipython()), got {type(ip).__name__}")
    ip.register_magics(__getattr__("DoctorMagics"))
    st = _State(ip)
    old = _STATE.pop(id(ip), None)
    if old is not None:
        try:
            ip.events.unregister("post_run_cell", old.post_run_cell)
        except ValueError:
            pass
    _STATE[id(ip)] = st
    ip.events.register("post_run_cell", st.post_run_cell)
    hook_off = os.environ.get(HOOK_ENV_OFF, "").strip().lower() in ("1", "true", "yes", "on")
    ours_before = old is not None and old.hook_on
    if not hook_off and tuple(getattr(ip, "custom_exceptions", ())) and not ours_before:
        print("smrnb: another custom exception handler is installed; the smrnb traceback diagnosis stays off "
              "(`%smr_doctor --hook` replaces it)", file=sys.stderr)
    elif not hook_off:
        _set_hook(ip, on=True)
    try:
        msgs = check_start_environment()
    except Exception as exc:  # never fail loading over the check
        msgs = []
        print(f"smrnb: the start-environment check failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    for msg in msgs:
        _announce(msg)


def unload_ipython_extension(ip: Any) -> None:
    """``%unload_ext smrnb``: remove the post-cell hook and the exception hook."""
    st = _STATE.pop(id(ip), None)
    if st is None:
        return
    try:
        ip.events.unregister("post_run_cell", st.post_run_cell)
    except ValueError:
        pass
    if st.hook_on:
        ip.set_custom_exc((), None)
