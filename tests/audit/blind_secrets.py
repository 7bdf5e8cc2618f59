# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Blind audit, kind ``secret``: the doctor on pasted texts and environments that hold secrets and
terminal control sequences.

Each case plants secrets (deterministic random values in the syntax of a real credential) next to a
well-known CUDA / torch / kaolin error, so that the doctor has something to say about the text, and
then reads everything the user sees: ``to_text`` (plain and verbose), ``to_json`` (and its decoded
strings), ``to_markdown``, the notebook HTML, ``repr``, ``summary``, the CLI's stdout and stderr, the
magics' output. No run of 10 characters of a secret may appear, and no raw control character.
"""

from __future__ import annotations

import base64
import json
import os

from tests.audit._blind import (
    check_no_secret,
    cli,
    control_chars,
    leaked,
    no_traceback,
    report_views,
    token,
    user_file,
)
from tests.audit._cases import AuditMisleading, AuditSecret, blind_case, tmp

KIND = "secret"

CUDART = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
NO_IMAGE = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
UNDEF = ("ImportError: /opt/conda/lib/python3.10/site-packages/kaolin/_C.cpython-310-x86_64-linux-gnu.so: "
         "undefined symbol: _ZN3c1017RegisterOperatorsD1Ev")
NO_WHEEL = ("ERROR: Could not find a version that satisfies the requirement kaolin==0.15.0 (from versions: 0.1)\n"
            "ERROR: No matching distribution found for kaolin==0.15.0")
CUDA_HOME = "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."
MISMATCH = ("RuntimeError:\nThe detected CUDA version (12.1) mismatches the version that was used to compile\n"
            "PyTorch (11.8). Please make sure to use the same CUDA versions.")


def _t(label: str, n: int = 32) -> str:
    return token("secret:" + label, n)


def _explain_case(name: str, build, *, live: bool = False) -> None:
    """Register a case: ``build()`` gives (text, secrets); the text must still be diagnosed."""

    @blind_case(name, "explain", kind=KIND)
    def _():
        import smrnb

        text, secrets = build()
        report = smrnb.explain(text, live=live)
        if not report.codes:
            raise AuditMisleading(f"explain found nothing in a text holding a known error: {text[-300:]!r}")
        check_no_secret(report_views(report), secrets, f"explain({name})")


# ---------------------------------------------------------------------- secrets in many syntaxes

def _shell_export():
    s = "hf_" + _t("hf", 34)
    return (f"$ export HF_TOKEN={s}\n$ export CUDA_HOME=/usr/local/cuda-11.8\n$ python -c 'import kaolin'\n"
            f"Traceback (most recent call last):\n{CUDART}\n", [s])


def _python_assignment():
    s = "sk-proj-" + _t("openai", 48)
    return (f'  File "train.py", line 4, in <module>\n    OPENAI_API_KEY = "{s}"; import kaolin\n{UNDEF}\n', [s])


def _os_environ():
    s = _t("aws", 40)
    return (f'  File "/home/ana/job.py", line 2, in <module>\n'
            f'    os.environ["AWS_SECRET_ACCESS_KEY"] = "{s}"; import torch, kaolin\n{CUDART}\n', [s])


def _json_config():
    s = _t("json", 24)
    return (json.dumps({"wandb": {"api_key": s, "project": "recon"}, "password": s + "x"}, indent=2)
            + f"\n{NO_IMAGE}\n", [s])


def _yaml_config():
    s = _t("yaml", 28)
    return (f"# config.yaml\nlogging:\n  api_key: {s}\n  secret_token: '{s}'\ntrain:\n  lr: 0.001\n{CUDA_HOME}\n", [s])


def _ini_spaces():
    s = _t("ini", 30)
    return (f"[credentials]\naws_access_key_id = AKIA{_t('akid', 16).upper()}\naws_secret_access_key = {s}\n"
            f"token   =   {s}\n{NO_IMAGE}\n", [s])


def _basic_auth():
    blob = base64.b64encode(f"ana:{_t('basicpw', 20)}".encode()).decode()
    return (f"> GET /simple/kaolin/ HTTP/1.1\n> Authorization: Basic {blob}\n{NO_WHEEL}\n", [blob])


def _bearer():
    s = "eyJhbGciOiJIUzI1NiJ9." + _t("jwt1", 40) + "." + _t("jwt2", 43)
    return (f"curl -H 'Authorization: Bearer {s}' https://api.example.com/v1/jobs\n{NO_IMAGE}\n", [s])


def _token_header():
    s = _t("tokenhdr", 40)
    return (f"headers = {{'Authorization': 'Token {s}'}}\n{CUDART}\n", [s])


def _cookie():
    s = _t("cookie", 32)
    return (f"Cookie: _xsrf=2|abc; jupyterhub-session-id={s}; sessionid={s}\n{NO_IMAGE}\n", [s])


def _private_key():
    body = [_t(f"key{i}", 64) for i in range(4)]
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(body) + "\n-----END OPENSSH PRIVATE KEY-----"
    return (f"{key}\n{UNDEF}\n", body)


def _url_userinfo_password():
    pw = _t("urlpw", 22)
    return (f"$ pip install kaolin==0.15.0 -f https://ana:{pw}@wheels.example.org/torch-2.1.0_cu118.html\n"
            f"Looking in links: https://ana:{pw}@wheels.example.org/torch-2.1.0_cu118.html\n{NO_WHEEL}\n", [pw])


def _url_userinfo_token_only():
    s = "ghp_" + _t("ghp", 36)
    return (f"$ pip install git+https://{s}@github.com/NVIDIAGameWorks/kaolin.git\n"
            f"  Running command git clone --filter=blob:none --quiet https://{s}@github.com/NVIDIAGameWorks/kaolin.git"
            f" /tmp/pip-req-build-x1\n{CUDA_HOME}\n", [s])


def _cloud_tokens():
    ids = {
        "aws_id": "AKIA" + _t("akia", 16, ).upper(),
        "gcp": "AIza" + _t("gcp", 35),
        "gitlab": "glpat-" + _t("glpat", 20),
        "slack": "xoxb-" + "-".join(_t(f"slack{i}", 12) for i in range(3)),
        "github_pat": "github_pat_" + _t("ghpat", 60),
        "hf": "hf_" + _t("hf2", 34),
    }
    lines = "\n".join(f"{k.upper()}={v}" for k, v in ids.items())
    return (f"printenv:\n{lines}\n{MISMATCH}\n", list(ids.values()))


def _bare_tokens_on_the_error_line():
    s = "hf_" + _t("hfbare", 34)
    return (f"OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory "
            f"(while loading model with token {s})\n", [s])


def _gcp_service_account_json():
    key = "\\n".join(_t(f"gcpkey{i}", 64) for i in range(3))
    doc = ('{"type": "service_account", "project_id": "lab", "private_key_id": "' + _t("gcpkid", 40) + '", '
           '"private_key": "-----BEGIN PRIVATE KEY-----\\n' + key + '\\n-----END PRIVATE KEY-----\\n"}')
    return (f"{doc}\n{NO_IMAGE}\n", [_t("gcpkid", 40)] + [_t(f"gcpkey{i}", 64) for i in range(3)])


def _azure_connection_string():
    s = _t("azure", 86) + "=="
    return (f"AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=lab;AccountKey={s};"
            f"EndpointSuffix=core.windows.net\n{CUDART}\n", [s])


def _password_flags():
    s = _t("pwflag", 20)
    return (f"$ python train.py --password={s} --db-password {s}x --api-token {s}y\n{UNDEF}\n", [s])


def _db_url():
    s = _t("dbpw", 24)
    return (f"sqlalchemy.url = postgresql://ana:{s}@db.internal:5432/runs\nmongodb+srv://root:{s}@c0.mongo.net/\n"
            f"{NO_IMAGE}\n", [s])


def _netrc():
    s = _t("netrc", 26)
    return (f"$ cat ~/.netrc\nmachine pypi.example.org login ana password {s}\n{NO_WHEEL}\n", [s])


def _pip_index_token():
    s = "pypi-" + _t("pypi", 60)
    return (f"Looking in indexes: https://__token__:{s}@gitlab.example.com/api/v4/projects/7/packages/pypi/simple\n"
            f"{NO_WHEEL}\n", [s])


for _name, _build in [
    ("secret_explain_shell_export", _shell_export),
    ("secret_explain_python_assignment", _python_assignment),
    ("secret_explain_os_environ", _os_environ),
    ("secret_explain_json", _json_config),
    ("secret_explain_yaml", _yaml_config),
    ("secret_explain_ini_spaces", _ini_spaces),
    ("secret_explain_basic_auth", _basic_auth),
    ("secret_explain_bearer_jwt", _bearer),
    ("secret_explain_token_header", _token_header),
    ("secret_explain_cookie", _cookie),
    ("secret_explain_private_key", _private_key),
    ("secret_explain_url_user_password", _url_userinfo_password),
    ("secret_explain_url_token_only", _url_userinfo_token_only),
    ("secret_explain_cloud_tokens", _cloud_tokens),
    ("secret_explain_bare_token_on_error_line", _bare_tokens_on_the_error_line),
    ("secret_explain_gcp_service_account", _gcp_service_account_json),
    ("secret_explain_azure_connection_string", _azure_connection_string),
    ("secret_explain_password_flags", _password_flags),
    ("secret_explain_db_urls", _db_url),
    ("secret_explain_netrc", _netrc),
    ("secret_explain_pip_index_token", _pip_index_token),
]:
    _explain_case(_name, _build)

_explain_case("secret_explain_live_url_password", _url_userinfo_password, live=True)


# ------------------------------------------------------------------------ terminal control sequences

def _controls_case(name: str, text: str, *, secret: str | None = None) -> None:
    @blind_case(name, "explain", kind=KIND)
    def _():
        import smrnb

        report = smrnb.explain(text, live=False)
        check_no_secret(report_views(report), [secret] if secret else [], f"explain({name})")


_controls_case("secret_controls_osc_title_and_bell", "\x1b]0;you have been pwned\x07" + CUDART + "\x07")
_controls_case("secret_controls_cursor_and_clear", "\x1b[2J\x1b[H\x1b[1A\x1b[2K" + NO_IMAGE + "\x1b[10;10H")
_controls_case("secret_controls_hyperlink", "\x1b]8;;https://evil.example/pwn\x1b\\" + UNDEF + "\x1b]8;;\x1b\\")
_controls_case("secret_controls_backspace_overwrite",
               CUDART.replace("11.0", "11.0" + "\b" * 4 + "12.4") + "\nlibrary: /opt/x\b\b\b\b\b/home/u")
_controls_case("secret_controls_c1_csi_and_carriage_return",
               "Downloading kaolin (10%)\r\x9b2K(90%)\r" + NO_WHEEL + "\x1bc")


@blind_case("secret_cli_explain_stdin", "cli", kind=KIND)
def _():
    text, secrets = _pip_index_token()
    text = "\x1b]0;pwned\x07\x1b[31m" + text + "\x1b[0m"
    for fmt in ([], ["--json"], ["--markdown"]):
        ran = cli("smr-doctor", "explain", "--offline", *fmt, input=text, timeout=60)
        no_traceback(ran, "smr-doctor explain")
        check_no_secret({f"stdout {fmt}": ran.out, f"stderr {fmt}": ran.err}, secrets, "smr-doctor explain")


@blind_case("secret_cli_explain_argument", "cli", kind=KIND)
def _():
    text, secrets = _url_userinfo_password()
    ran = cli("smr-doctor", "explain", "--offline", text, timeout=60)
    no_traceback(ran, "smr-doctor explain TEXT")
    check_no_secret({"stdout": ran.out, "stderr": ran.err}, secrets, "smr-doctor explain TEXT")


# ---------------------------------------------------------------------- secrets in the environment

def _env_secrets() -> dict[str, str]:
    return {
        "AWS_SECRET_ACCESS_KEY": _t("envaws", 40),
        "HF_TOKEN": "hf_" + _t("envhf", 34),
        "JUPYTERHUB_API_TOKEN": _t("envhub", 32),
        "JPY_API_TOKEN": _t("envhub", 32),
        "JUPYTER_TOKEN": _t("envjt", 48),
        "GITHUB_TOKEN": "ghp_" + _t("envgh", 36),
        "PIP_INDEX_URL": f"https://__token__:pypi-{_t('envpip', 50)}@pypi.example.org/simple",
        "PIP_EXTRA_INDEX_URL": f"https://ana:{_t('envpip2', 20)}@wheels.example.org/simple",
        "HTTPS_PROXY": f"http://ana:{_t('envproxy', 18)}@proxy.example.org:3128",
        "WANDB_API_KEY": _t("envwandb", 40),
        "DATABASE_URL": f"postgresql://ana:{_t('envdb', 22)}@db:5432/x",
    }


def _env_values() -> list[str]:
    out = []
    for v in _env_secrets().values():
        if "://" in v:  # the password or token part of a URL
            out.append(v.split("://", 1)[1].split("@", 1)[0].split(":", 1)[1])
        else:
            out.append(v)
    return out


@blind_case("secret_diagnose_env", "diagnose", kind=KIND, timeout=90)
def _():
    import smrnb

    os.environ.update(_env_secrets())
    os.environ["CUDA_HOME"] = "/usr/local/cuda"
    report = smrnb.diagnose(timeout=5)
    check_no_secret(report_views(report), _env_values(), "diagnose() with secrets in the environment")


@blind_case("secret_explain_live_env", "explain", kind=KIND, timeout=90)
def _():
    import smrnb

    os.environ.update(_env_secrets())
    report = smrnb.explain(NO_WHEEL, live=True)
    check_no_secret(report_views(report), _env_values(), "explain(live=True) with secrets in the environment")


@blind_case("secret_cli_doctor_env", "cli", kind=KIND, timeout=90)
def _():
    for fmt in ([], ["--json"], ["--markdown"]):
        ran = cli("smr-doctor", *fmt, env=_env_secrets(), timeout=80)
        no_traceback(ran, "smr-doctor")
        check_no_secret({f"stdout {fmt}": ran.out, f"stderr {fmt}": ran.err}, _env_values(),
                        "smr-doctor with secrets in the environment")


@blind_case("secret_kernelspec_dry_run_env", "cli", kind=KIND)
def _():
    root = tmp() / "ks"
    env = _env_secrets() | {"JUPYTER_DATA_DIR": str(root / "jdata"), "HOME": str(root / "home"),
                            "LD_LIBRARY_PATH": "/usr/local/cuda/lib64", "CUDA_HOME": "/usr/local/cuda"}
    ran = cli("smr-doctor", "fix", "kernelspec", "--dry-run", env=env, timeout=60)
    no_traceback(ran, "smr-doctor fix kernelspec --dry-run")
    check_no_secret({"stdout": ran.out, "stderr": ran.err}, _env_values(), "smr-doctor fix kernelspec --dry-run")


@blind_case("secret_kernelspec_written_env", "cli", kind=KIND)
def _():
    root = tmp() / "ks2"
    (root / "home").mkdir(parents=True)
    env = _env_secrets() | {"JUPYTER_DATA_DIR": str(root / "jdata"), "HOME": str(root / "home"),
                            "LD_LIBRARY_PATH": "/usr/local/cuda/lib64", "CUDA_HOME": "/usr/local/cuda"}
    ran = cli("smr-doctor", "fix", "kernelspec", "--name", "audit-ks", env=env, timeout=60)
    no_traceback(ran, "smr-doctor fix kernelspec")
    files = {str(p.relative_to(root)): p.read_text(errors="replace") for p in root.rglob("*") if p.is_file()}
    check_no_secret({"stdout": ran.out, "stderr": ran.err} | files, _env_values(),
                    "smr-doctor fix kernelspec (the written kernelspec)")


# -------------------------------------------------------------------------------------- magics

def _shell():
    from IPython.core.interactiveshell import InteractiveShell

    os.environ["IPYTHONDIR"] = str(tmp() / "ipython")  # its profile and history stay in the case's folder
    return InteractiveShell.instance()


def _captured(fn):
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        res = fn()
    return res, out.getvalue(), err.getvalue()


def _magic_views(res, out: str, err: str, what: str) -> dict[str, str]:
    if not getattr(res, "codes", None):
        raise AuditMisleading(f"{what} gave no finding for a known error: {res!r} {out[-300:]} {err[-300:]}")
    return {"stdout": out, "stderr": err} | report_views(res)


@blind_case("secret_magic_explain", "load_ipython_extension", kind=KIND, timeout=90)
def _():
    ip = _shell()
    _captured(lambda: ip.run_line_magic("load_ext", "smrnb"))
    s = "hf_" + _t("magic", 34)
    line = f'--explain "HF_TOKEN={s} python x.py: {CUDART}"'
    res, out, err = _captured(lambda: ip.run_line_magic("smr_doctor", line))
    check_no_secret(_magic_views(res, out, err, "%smr_doctor --explain"), [s], "%smr_doctor --explain")


@blind_case("secret_magic_cell_explain", "load_ipython_extension", kind=KIND, timeout=90)
def _():
    ip = _shell()
    _captured(lambda: ip.run_line_magic("load_ext", "smrnb"))
    text, secrets = _os_environ()
    res, out, err = _captured(lambda: ip.run_cell_magic("smr_explain", "", "\x1b[31m" + text + "\x1b]0;t\x07"))
    check_no_secret(_magic_views(res, out, err, "%%smr_explain"), secrets, "%%smr_explain")


def _hook_case(name: str, cell_of) -> None:
    """The exception hook appends a diagnosis to a traceback: it may not repeat a secret of the error."""

    @blind_case(name, "load_ipython_extension", kind=KIND, timeout=90)
    def _():
        ip = _shell()
        s = "hf_" + _t("hook", 34)
        cell = cell_of(s)
        _captured(lambda: ip.run_line_magic("load_ext", "smrnb"))
        _, out_hook, err_hook = _captured(lambda: ip.run_cell(cell))
        _captured(lambda: ip.run_line_magic("smr_doctor", "--no-hook"))
        _, out_plain, err_plain = _captured(lambda: ip.run_cell(cell))
        hooked, plain = out_hook + err_hook, out_plain + err_plain
        if "smrnb" not in hooked:
            raise AuditMisleading(f"the exception hook said nothing about a known error:\n{hooked[-600:]}")
        for part in {s[i:i + 10] for i in range(len(s) - 9)}:
            if hooked.count(part) > plain.count(part):
                raise AuditSecret(f"the exception hook's diagnosis repeats the secret ({part!r}...):\n"
                                  f"{hooked[-800:]}")
        extra = control_chars(hooked.replace(plain, ""))
        if extra and "\x1b" not in plain:
            raise AuditSecret(f"the exception hook adds control characters {extra}")


_hook_case("secret_exception_hook_secret_after_error",
           lambda s: 'raise ImportError("libcudart.so.11.0: cannot open shared object file: No such file or '
                     f'directory [url https://ana:{s}@models.example.org/x]")')
_hook_case("secret_exception_hook_secret_before_error",
           lambda s: f'raise RuntimeError("loading https://ana:{s}@models.example.org/m.pt failed: CUDA error: '
                     'no kernel image is available for execution on the device")')


# ----------------------------------------------------------------------------- reports in files

@blind_case("secret_report_saved_by_user", "Report", kind=KIND)
def _():
    import smrnb

    text, secrets = _netrc()
    report = smrnb.explain(text, live=False)
    d = tmp() / "reports"
    for fmt in ("html", "json", "markdown", "text"):
        shown = report.as_format(fmt)
        bundle = {}
        for attr in ("_repr_html_", "_repr_json_", "_repr_markdown_", "_repr_pretty_"):
            fn = getattr(shown, attr, None)
            if fn is None or attr == "_repr_pretty_":
                continue
            val = fn()
            bundle[attr] = json.dumps(val) if not isinstance(val, str) else val
        user_file(d / f"report.{fmt}", "\n".join(bundle.values()))
        check_no_secret(bundle, secrets, f"Report.as_format({fmt!r})", controls=False)
    if leaked(secrets[0], "".join(p.read_text() for p in d.iterdir())):
        raise AuditSecret("a secret reached a saved report")
