# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Redaction: the one place that decides what of a secret may reach any output of the doctor.

Applied to the facts when they are collected, and again by every renderer of
:class:`smrnb.doctor.Report` (text, JSON, markdown, HTML), by the kernelspec fix's description
and by the exception hook's echoed line. First, terminal control sequences are removed
(:func:`strip_controls`: colours, cursor moves, titles, hyperlinks, CR and backspace overwrites), so a
pasted text can neither drive the terminal nor hide what it shows. Secrets are recognised

* **by name, in any syntax**: values given to a name holding a marker (``TOKEN``, ``SECRET``, ``KEY``,
  ``PASSWORD``, ``AUTH``, ``COOKIE``, ``SESSION``, ``PRIVATE``, ``*_PWD``... :data:`TEXT_MARKERS`) as
  shell / .env / INI ``NAME=value`` and ``name = value``, Python ``os.environ["NAME"] = "value"`` and
  ``putenv("NAME", "value")``, JSON and dict ``"name": "value"``, YAML and HTTP header lines
  (``api_key: value``, ``Authorization: Basic ...``, ``Cookie: ...``), ``--name value`` / ``--name=value``
  flags, ``.netrc`` lines, and dict keys (:func:`sanitize`);
* **by shape**: PEM private-key blocks, URL userinfo (``user:pass@``, or a token without a colon),
  ``Authorization`` / ``Bearer`` credentials anywhere on a line, and the token formats of well-known
  services (GitHub, Hugging Face, AWS, Slack, OpenAI, GCP, GitLab, PyPI, npm, Google OAuth, Stripe, JWTs);
* **by value**: every value a secret-named variable has in this process's environment (now and at
  start), wherever it appears; and, for explain, every secret a pasted text shows by name or by shape
  (:func:`text_secrets`), wherever it appears again without its name;
* **kernelspec env values**: names are shown, values only for path-like variables
  (:func:`display_env`);
* **identity**, for markdown pasted into a public bug report: the home directory, the user name and the
  host names (:func:`redact_identity`).

Every pass here is linear in the text and runs in C (``str.replace``, and ``re.sub`` / ``re.split``
with expressions that start at a literal or a quote and never backtrack over more than a bounded
prefix), so 10 MB built to make a backtracking pattern take quadratic time (``"KEY":`` or ``sk-``
repeated) costs well under a second (``tests/doctor/test_redaction.py``).
"""

from __future__ import annotations

import getpass
import os
import re
import socket
import string
from collections.abc import Mapping
from typing import Any

from smrnb.doctor._model import SECRET_MARKERS, is_secret_name, read_proc_environ

REDACTED = "<redacted>"
# values that are never secrets even in a variable named like one (would wreck every text)
_NOT_SECRET_VALUES = frozenset({"", "0", "1", "true", "false", "yes", "no", "on", "off", "none", "null"})
_MIN_SECRET_LEN = 3
#: variable names that end like a database password (``MYSQL_PWD``, ``DB_PASS``)
_SECRET_SUFFIXES = ("_PWD", "_PASS")

#: token shapes of well-known services: literal prefix -> the whole token
_TOKEN_RX = {
    "ghp_": r"ghp_[A-Za-z0-9]{20,}", "gho_": r"gho_[A-Za-z0-9]{20,}", "ghu_": r"ghu_[A-Za-z0-9]{20,}",
    "ghs_": r"ghs_[A-Za-z0-9]{20,}", "ghr_": r"ghr_[A-Za-z0-9]{20,}", "github_pat_": r"github_pat_[A-Za-z0-9_]{20,}",
    # (blind audit 36 L1) a Hugging Face token is hf_ + 34 letters and digits; a shortened or older one (16 to 19)
    # is one where it holds a capital or a digit (an identifier such as hf_hub_download stops at its underscore)
    "hf_": r"hf_(?:[A-Za-z0-9]{20,}|(?=[a-z]{0,15}[A-Z0-9])[A-Za-z0-9]{16,19})", "AKIA": r"AKIA[0-9A-Z]{16}(?![0-9A-Z])", "ASIA": r"ASIA[0-9A-Z]{16}(?![0-9A-Z])",
    "xox": r"xox[abposre]-[A-Za-z0-9-]{8,}", "xapp-": r"xapp-[0-9]-[A-Za-z0-9-]{8,}", "sk-": r"sk-[A-Za-z0-9_-]{16,}",
    "AIza": r"AIza[0-9A-Za-z_-]{35,}",
    # GitLab's prefixed tokens (personal, deploy, runner, trigger, CI job, OAuth, feed, incoming mail, agent); a
    # PAT is 20 characters after ``glpat-``, newer ones end in ``.01.<base36>``
    "gl": r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent|rtr|wt|ffct)-[0-9A-Za-z_./-]{12,}",
    # PyPI's API tokens are macaroons (``pypi-AgEIcHlwaS5vcmc...``, 150+ characters); NVIDIA's NGC / build.nvidia.com
    # keys ``nvapi-`` + 64 base64url characters; Docker Hub's personal access tokens ``dckr_pat_``
    "pypi-": r"pypi-[A-Za-z0-9_-]{24,}", "nvapi-": r"nvapi-[A-Za-z0-9_-]{20,}", "dckr_pat_": r"dckr_pat_[A-Za-z0-9_-]{16,}",
    "npm_": r"npm_[A-Za-z0-9]{36,}", "ya29.": r"ya29\.[0-9A-Za-z_-]{20,}", "sk_live_": r"sk_live_[0-9A-Za-z]{16,}",
    "rk_live_": r"rk_live_[0-9A-Za-z]{16,}",
    # round 24 (a blind audit's vendors): Stripe test keys, SendGrid, Twilio API keys, Mailgun, DigitalOcean,
    # Databricks, Bitbucket, Replicate, Groq, Pinecone, LangSmith, Django's generated secret key
    # (a Telegram bot token: _TELEGRAM)
    "sk_test_": r"sk_test_[0-9A-Za-z]{16,}", "rk_test_": r"rk_test_[0-9A-Za-z]{16,}",
    "SG.": r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}", "SK": r"SK[0-9a-f]{32}(?![0-9A-Za-z])",
    "key-": r"key-[0-9a-f]{32}(?![0-9A-Za-z])", "dop_v1_": r"dop_v1_[0-9a-f]{40,}", "doo_v1_": r"doo_v1_[0-9a-f]{40,}",
    "dor_v1_": r"dor_v1_[0-9a-f]{40,}", "dapi": r"dapi[0-9a-f]{32}(?![0-9A-Za-z])", "ATBB": r"ATBB[A-Za-z0-9_=.-]{24,}",
    "r8_": r"r8_[A-Za-z0-9]{30,}", "gsk_": r"gsk_[A-Za-z0-9]{40,}", "pcsk_": r"pcsk_[A-Za-z0-9_]{30,}",
    "lsv2_": r"lsv2_(?:pt|sk)_[0-9a-f]{32}_[0-9a-f]{6,}", "django-insecure-": r"django-insecure-[^\s'\"]{20,}",
    # a JSON Web Token: three base64url parts (header.payload.signature), the header always {"... = eyJ
    "eyJ": r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
}
#: characters a token of that shape may be preceded by inside a longer word (it is then not a token)
_TOKEN_BEFORE = {"eyJ": r"[A-Za-z0-9_.-]"}
# Every expression below runs as one left-to-right pass in C (``re.sub`` with a literal replacement, or
# ``re.split`` when the text around the secret is kept) and is linear in the text: each starts with a
# literal, a quote or a fixed-width look-behind, has no nested quantifiers, and its only unbounded
# repetition is one character class that nothing after it can make backtrack, so a failed attempt costs
# at most its bounded prefix. A word is taken whole with ``(?=(\w+))\N`` (an atomic group: it is never
# re-split on backtracking), and a name is recognised by a lazy look-ahead for a marker inside it.
#: one pattern per shape, starting with its literal (searched for in C) and then looking behind it for a
#: word character, so only the occurrences of the literal cost anything (and only one per run of the
#: characters a token is made of, so a failed attempt never re-scans a run another attempt scanned)
_SHAPE_SUBS = tuple((lit, re.compile(re.escape(lit) + f"(?<!{_TOKEN_BEFORE.get(lit, '[A-Za-z0-9_]')}{re.escape(lit)})"
                                     + rx[len(lit) + rx[:len(lit) + 1].count(chr(92)):]))
                    for lit, rx in _TOKEN_RX.items())
#: URL userinfo: with a password (``user:pass@``), long enough to be a token (20+ characters), or a token
#: without a colon of 8+ characters holding a digit (``https://a1b2c3d4e5@host``); a plain user name
#: (``ssh://git@host``) stays
_USERINFO = re.compile(r"://(?<=[A-Za-z0-9+.\-]://)(?:[^\s/?#@\"'<>:]{0,511}:[^\s/?#\"'<>]{0,511}"
                       r"|[^\s/?#@\"'<>]{20,512}|(?=[^\s/?#@\"'<>:]{0,511}[0-9])[^\s/?#@\"'<>:]{8,512})@")
#: parts of a name that mark its value secret in a text (any case): the environment's markers and those a
#: pasted text shows (a cookie's session id, a key file's private key, a database's ``*_PWD`` / ``*_PASS``)
TEXT_MARKERS = (*SECRET_MARKERS, "SESSION", "PRIVATE", "PASSPHRASE", "CREDS", "_PWD", "_PASS")


def _ci(word: str) -> str:
    """``word`` as a case-insensitive pattern of classes (cheaper than IGNORECASE on a whole pattern)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)


_MARKERS_RX = "(?:" + "|".join(_ci(m) for m in TEXT_MARKERS) + ")"
#: look-aheads: the word (``\w``) or the quoted or header name (``[\w.-]``) starting here holds a marker
_MARKED = f"(?=\\w*?{_MARKERS_RX})"
_MARKED_NAME = f"(?=[\\w.-]*?{_MARKERS_RX})"
#: an HTTP authorization scheme before the credential (kept, the credential is not)
_SCHEME = "(?:(?:" + "|".join(_ci(w) for w in ("Basic", "Bearer", "Token", "Digest", "Negotiate", "NTLM",
                                                 "AWS4-HMAC-SHA256")) + ")[ \\t]{1,20})?"
#: values no secret has: a boolean, none / null, a short number (``max_tokens=4096``, ``TOKENIZERS_PARALLELISM=false``,
#: ``api_key=None``); after ``=``, not a second ``=`` (``tokenizers==0.13.3`` is a pin)
_PLAIN_VALUE = (r"(?![=:]|(?i:true|false|none|null|nil|yes|no|on|off|[0-9]{1,5}(?:\.[0-9]{1,5}){0,3})"
                r"(?:[\s,;)\]}'\"]|$))")
# For the patterns below (used with _split_redact): two capturing groups, the text kept before the secret
# and the secret; the rest of a match, if any, is in look-aheads. A name is ``\w+`` after a marker
# look-ahead: it can only be followed by a fixed character, so a failed attempt gives back at most one
# word, and attempts start only at a quote, a dash, a word start or a line start.
_BEARER = re.compile(r"(?a)\b([Bb][Ee][Aa][Rr][Ee][Rr][ \t]{1,20})([A-Za-z0-9._~+/=-]{12,})")
#: ``NAME=value``, ``NAME = value`` (shell, Python, INI, .env, ``--name=value``); value quoted, or up to a
#: blank / ; , & / quote
_ASSIGN = re.compile(r"(?a)(\b(?=\w*[ \t]{0,20}=)" + _MARKED + r"\w+[ \t]{0,20}=[ \t]{0,20})" + _PLAIN_VALUE
                     + r"(\"[^\"\n]{0,1024}\"|'[^'\n]{0,1024}'|(?:[^\s;,'\"&]|&(?![\w.-]{1,64}=)){1,1024})")
#: ``"NAME": "value"`` (JSON, Python dicts), ``["NAME"] = "value"`` (``os.environ``), ``("NAME", "value")``
#: (``os.putenv``, ``setdefault``); the quotes of the value are kept
_PAIR = re.compile(r"(?a)(\\{0,3}[\"']" + _MARKED_NAME + r"[\w.-]+\\{0,3}[\"']\]?[ \t]{0,20}[:=,][ \t]{0,20}"
                   r"\\{0,3}[\"'])([^\"'\n]{0,1024}?)(?=\\{0,3}[\"'])")
#: ``name: value`` at the start of a line (YAML, HTTP headers such as ``Authorization: Basic ...``,
#: ``Cookie: ...``, ``X-Api-Key: ...``): the rest of the line. An exception's name (``KeyError: ...``) is
#: no field, and a plain number or version (``max_tokens: 512``, ``tokenizers: 0.15``) no secret.
_FIELD = re.compile(r"(?am)(^[ \t]{0,40}(?:-[ \t]{1,4})?" + _MARKED_NAME
                    + r"[\w.-]+(?<!Error)(?<!Exception)(?<!Warning)(?<!Interrupt)(?<!Exit)[ \t]{0,20}:[ \t]{1,20}" + _SCHEME + r")(?![0-9][0-9.]{0,40}[ \t]*$)" + _PLAIN_VALUE
                    + r"([^\s#][^\n]{0,1023})")
#: an ``Authorization`` header anywhere in a line (``curl -H 'Authorization: Basic ...'``)
_AUTH_HEADER = re.compile(r"(?a)(\b" + _ci("Authori") + "[SsZz]" + _ci("ation") + r"[\"']?[ \t]{0,5}[:=][ \t]{0,5}"
                          r"[\"']?" + _SCHEME + r")([^\s\"',;]{1,1024})")
#: ``--name value`` / ``-name value`` / ``--telegram-token value``: the dashes at a word's start
#: (``secretstorage-keyring-token release`` is a package's name and a word)
_FLAG = re.compile(r"(?a)(-(?<![\w.-]-)-?(?=[\w-]*?" + _MARKERS_RX + r")\w[\w-]{0,64}+(?<!file)(?<!path)(?<!dir)(?<!type)(?<!mode)[ \t]{1,20}+)" + _PLAIN_VALUE
                   + r"([^\s\"'-][^\s\"']{0,1023})")
#: ``.netrc`` lines: ``machine HOST login USER password SECRET``
_NETRC = re.compile(r"(?am)(^[ \t]{0,40}(?:machine|default)\b[^\n]{0,2048}?\b(?:password|passwd|account)[ \t]{1,20})"
                    r"(\S{1,1024})")
# Round 23: forms a blind audit found echoed on a quoted line (``(line: ...)``, a fact's "from the text" line).
# Each starts at a literal or a word start and has only bounded or disjoint repetitions, as the ones above.
#: ``key: value`` anywhere in a line (YAML flow, a header pasted mid-line, ``CUDA_HOME: /x  password: v``) for
#: names that are a secret's whole name or end in one (``db_password``, ``x-api-key``); a number or version
#: (``token: 512``), and for ``pwd`` a path (``pwd: /home/x`` is the shell's), stay
def _inline_field(words: tuple[str, ...], plain_word_stays: bool) -> re.Pattern[str]:
    return re.compile(
        r"(?a)((?<![\w.-])(?:[\w]{1,40}[_.-])?(?:" + "|".join(_ci(w) for w in words)
        + r")[\"']?[ \t]{0,5}:[ \t]{1,20}" + _SCHEME + r")(?![0-9][0-9.]{0,40}(?:[\s,;)\]}]|$))" + _PLAIN_VALUE
        + (r"(?![a-z]{1,40}(?:[\s,;:.)\]}]|$))" if plain_word_stays else "")
        + r"(?<![Pp][Ww][Dd]: )(?<![Pp][Ww][Dd]:)(?![\w-]{1,20}[ \t]{1,20}<redacted>|[\"']?<redacted>)"
        r"(\"[^\"\n]{1,1024}\"|'[^'\n]{1,1024}'|[^\s\"',;)\]}<][^\s\"',;)\]}]{0,1023})")


_INLINE_FIELD = _inline_field(("password", "passwd", "passphrase", "secret", "api_key", "api-key", "apikey",
                               "access_key", "access-key", "private_key", "private-key", "secret_key", "client_secret",
                               "pwd"), plain_word_stays=False)
#: names that also occur in an error's prose (``Unexpected token: export``, ``auth: expired``): a plain
#: lower-case word after them stays
_INLINE_FIELD_PROSE = _inline_field(("token", "auth", "credentials", "credential"), plain_word_stays=True)
#: ``NAME=value`` for names that are a secret without the words: a personal access token (``GH_PAT``,
#: ``GITHUB_PAT``, ``*_PAT``) and a password's short names (``pw``, ``pass``, ``*_PW``, ``*_PASS``)
_SHORT_ASSIGN = re.compile(r"(?a)(\b(?:\w{0,64}_)?(?:PAT|[Pp][Ww]|[Pp]ass|PASS)[ \t]{0,20}=[ \t]{0,20})"
                           r"(\"[^\"\n]{1,1024}\"|'[^'\n]{1,1024}'|[^\s;,'\"&$][^\s;,'\"&]{0,1023})")
#: the password options of common tools: ``docker login -p V`` (podman, nerdctl, buildah, skopeo, helm registry),
#: ``curl -u user:V`` / ``--user`` / ``-U`` / ``--proxy-user``, ``sshpass -p V`` / ``-pV``, ``mysql -pV``
#: (attached: ``-p V`` with a blank names a database), in the same command (before ``&&``, ``;``, ``|``)
_TOOL_PW = re.compile(
    r"(?a)((?:\b(?:docker|podman|nerdctl|buildah|skopeo|helm[ \t]+registry|oras)[ \t]+login\b[^\n;&|]{0,512}?[ \t]-p[ \t]*"
    r"|\bsshpass\b[^\n;&|]{0,128}?[ \t]-p[ \t]*"
    r"|\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n;&|]{0,512}?[ \t]-p"
    r"|\bcurl\b[^\n;&|]{0,1024}?[ \t](?:-u[ \t]*|-U[ \t]*|--user[ \t=]{1,5}|--proxy-user[ \t=]{1,5})[\"']?[^\s:\"']{0,128}:)"
    r")([^\s\"'-][^\s\"']{0,1023}|\"[^\"\n]{1,1024}\"|'[^'\n]{1,1024}')")
#: ``.netrc`` entries inline (``machine h login u password V``), not only at a line's start
_NETRC_INLINE = re.compile(r"(?a)(\b(?:machine|login)[ \t]{1,20}\S{1,256}[ \t]{1,20}(?:login[ \t]{1,20}\S{1,256}[ \t]{1,20})?"
                           r"(?:password|passwd)[ \t]{1,20})(\S{1,1024})")
#: a conda token channel: ``https://conda.anaconda.org/t/<token>/channel``
_CONDA_TOKEN = re.compile(r"(?a)(://[^\s/\"'<>]{1,256}/t/)([^\s/\"'<>)]{6,512})")
#: signed-URL parameters: S3 (``X-Amz-Signature``, ``X-Amz-Credential``), GCS (``X-Goog-Signature``,
#: ``X-Goog-Credential``), Azure SAS (``sig``), CloudFront / S3 v2 (``Signature``)
_URL_SIG = re.compile(r"(?a)((?<![\w-])(?:" + "|".join(_ci(w) for w in (
    "X-Amz-Signature", "X-Amz-Credential", "X-Goog-Signature", "X-Goog-Credential", "sig", "Signature")) + r")=)"
    + _PLAIN_VALUE + r"([^\s&#\"'<>]{1,2048})")
#: URL-encoded ``password%3Dvalue`` / ``%22token%22%3A%22value`` (up to the next encoded ``&`` or quote)
_URLENC = re.compile(r"(?a)(\b" + _MARKED + r"\w+(?:%22)?%3[AaDd](?:%20)?(?:%22)?)((?:[^\s&\"'%]|%(?!26|22)[0-9A-Fa-f]{2}){1,1024})")
#: a W&B API key (40 hex) after the word ``wandb`` in the same line (``wandb login <key>``, ``wandb key <key>``)
_WANDB = re.compile(r"(?ai)(\bwandb\b[^\n]{0,64}?)(?<![0-9a-f])([0-9a-f]{40})(?![0-9a-z])")
#: ``name:secret@host`` without a scheme: scp / rsync (``user:pw@host:/path``), a UNC path (``\\user:pw@host``), a
#: registry reference (``registry/u:pw@image``). Not an image's ``name:tag@sha256:...`` digest, not an email.
_BARE_USERINFO = re.compile(r"(?a)((?<![\w.:$-])[A-Za-z_][\w.$-]{0,63}:)([^\s@/\\:\"'<>()\[\]]{1,256})"
                            r"(?=@(?!sha\d{3}:|[0-9a-f]{32})[A-Za-z0-9])")
# Round 24: forms a fourth blind audit found on quoted lines (/tmp/audit24: 885 inputs).
#: a password's short names (``pwd='...'``, ``db_pwd: ...``, ``PGPASS=``: after a separator or a short capitalised
#: prefix, so ``bypass``, ``compass`` are none), ``=`` or ``:``; a path after ``pwd`` / ``PWD`` (the shell's working
#: directory), a plain lower-case word after ``pass:``, a short number or version, and ``==`` (a pin) stay
_PW_NAME = re.compile(
    r"(?a)((?:PASS(?<=[A-Z_.-]PASS)|PWD(?<=[A-Z_.-]PWD)|PW(?<=[A-Z_.-]PW)"
    r"|[Pp][Ww][Dd](?<![A-Za-z0-9][Pp][Ww][Dd])|[Pp][Ww](?<![A-Za-z0-9][Pp][Ww])|[Pp]ass(?<![A-Za-z0-9][Pp]ass))"
    r"[ \t]{0,20}[=:][ \t]{0,20})"
    r"(?![=:]|PASS\b|[a-z]{1,40}(?:[\s,;.)]|$)|[/~.$]|[0-9][0-9.]{0,4}(?:[\s,;)\]}]|$))"
    r"(\"[^\"\n]{1,1024}\"|'[^'\n]{1,1024}'|[^\s;,'\"&][^\s;,'\"&]{0,1023})")
#: a password named in other languages (German, French, Spanish, Portuguese, Dutch, Polish, Italian, Finnish,
#: Swedish, Norwegian, Czech, Hungarian, Russian, Ukrainian, Chinese, Japanese, Korean), ``:`` / ``：`` / ``=`` or
#: a blank before it
_PW_WORDS = ("passwort", "kennwort", "mot de passe", "contraseña", "contrasena", "senha", "wachtwoord", "hasło",
             "haslo", "parola", "salasana", "lösenord", "losenord", "passord", "heslo", "jelszó", "jelszo", "пароль",
             "密码", "密碼", "パスワード", "비밀번호")
_PW_OTHER = re.compile(r"(?i)((?=[" + "".join(sorted({c for w in _PW_WORDS for c in (w[0], w[0].upper())})) + r"])"
                       r"(?<![A-Za-zÀ-ÿ])(?:" + "|".join(re.escape(w) for w in _PW_WORDS) + r")(?:(?:[ \t]{1,3}[a-zà-ÿ]{1,12}){0,4}[ \t]{0,3}[:：=][ \t]{0,3}"
                       r"|[ \t]{1,3}))(\"[^\"\n]{1,1024}\"|'[^'\n]{1,1024}'|[^\s\"'][^\s\"']{0,1023})")
#: more tools' password options: ``sqlcmd`` / ``bcp -P V``, ``redis-cli -a V`` / ``--pass V``, ``ldapsearch -w V``,
#: ``mongosh -p V``, ``smbclient -U user%V``, and ``setx NAME V`` for a secret-named variable (Windows)
_TOOL_PW2 = re.compile(
    r"(?a)((?:\b(?:sqlcmd|bcp)\b[^\n;&|]{0,512}?[ \t]-P[ \t]*"
    r"|\bredis-cli\b[^\n;&|]{0,512}?[ \t](?:-a|--pass|--askpass)[ \t]+"
    r"|\bldap(?:search|add|modify|delete|whoami)\b[^\n;&|]{0,512}?[ \t]-w[ \t]*"
    r"|\bmongo(?:sh|dump|restore|import|export)?\b[^\n;&|]{0,512}?[ \t](?:-p|--password)[ \t]+"
    r"|\bsmbclient\b[^\n;&|]{0,512}?[ \t](?:-U|--user)[ \t=]*[^\s%]{1,128}%"
    r"|\bsetx[ \t]+" + _MARKED + r"\w+[ \t]+)"
    r")(\"[^\"\n]{1,1024}\"|'[^'\n]{1,1024}'|[^\s\"'-][^\s\"']{0,1023})")
#: a secret-named word and a token-like value after a blank (``apikey eKoi...``, ``token 3f9a...``): read with
#: the long runs (:func:`_long_run_secret`), the value 16+ characters of a key's alphabet holding a letter and a digit
_SPACED_NAME = re.compile(r"(?i)(?:token|secret|key|passw(?:or)?d|passphrase|auth|credentials?|private)\w{0,40}"
                          r"[ \t]{1,5}$")
#: webhook URLs whose path is the credential: Slack's ``hooks.slack.com/services/T.../B.../...``, Discord's
#: ``/api/webhooks/<id>/<token>``, Microsoft Teams' ``webhook.office.com/webhookb2/...``
_WEBHOOK = re.compile(r"(?a)((?:hooks\.slack\.com/(?:services|workflows|triggers)/|/api/webhooks/[0-9]{1,30}/|"
                      r"webhook\.office\.com/webhookb2/))([^\s\"'<>)]{8,1024})")
#: object-store URLs with a key pair (``s3://KEYID:SECRET@bucket``): the secret may hold ``/`` and ``+``
_S3_CRED = re.compile(r"(?a)(\b(?:s3[an]?|gs|oss|cos)://[^\s:@/]{1,128}:)([^\s@]{1,256})(?=@)")
#: a Telegram bot token, ``<bot id>:AA<35 characters>`` (in ``api.telegram.org/bot<token>/``)
_TELEGRAM = re.compile(r"(?a)((?<![0-9]))([0-9]{6,12}:AA[A-Za-z0-9_-]{30,})")
#: a PuTTY key file's MAC line
_PUTTY_MAC = re.compile(r"(Private-MAC:[ \t]{0,5})([0-9A-Fa-f]{16,})")
#: a run of 16+ characters of a key's alphabets (base64, base64url, hex) standing alone: a secret when it is 32+
#: long and reads as random (:func:`_random_token`: an AWS secret access key, an NGC or ed25519 key, a PEM body line
#: quoted alone, a bot token with no prefix to know it by), or follows a secret-named word (:func:`_long_run_secret`);
#: a run holds a digit and starts with neither ``/`` nor ``.`` (a path is no candidate: a log's every line has one)
_LONG_RUN = re.compile(r"(?<![A-Za-z0-9+/=_.-])(?![/.])(?=[A-Za-z+/=_.-]{0,1023}[0-9])[A-Za-z0-9+/=_.-]{16,1024}"
                       r"(?![A-Za-z0-9+/=_.-])")
_UUID = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")


#: ``str.translate`` tables that delete the ASCII upper-case letters, lower-case letters, digits (a count in C)
_UPPER = str.maketrans("", "", string.ascii_uppercase)
_LOWER = str.maketrans("", "", string.ascii_lowercase)
_DIGITS = str.maketrans("", "", string.digits)


def _kind(c: str) -> int:
    return 0 if c.isupper() else 1 if c.islower() else 2


def _random_token(t: str) -> bool:
    """Whether a long run reads as a random key, not a name: two or more each of upper-case letters, lower-case
    letters and digits; few separators (a model's or a GPU's name has many: ``TheBloke/OpenHermes-2.5-Mistral-7B``);
    no ``=`` but base64's padding (``LD_LIBRARY_PATH=/usr/...`` is an assignment); not a C++ mangled name (``_ZN3c10
    ...``: evidence the doctor needs), a path or a UUID; and its letters' and digits' kinds change at 40 % or more of
    the steps (a random base64 key: ~60 %; camel-case names less). Over the corpus' 3,523 texts it holds for two
    runs, both keys; for 96 % of random base64 / base64url keys of 32-84 characters."""
    if t.startswith(("/", ".", "_Z", "ZN", "ZTI", "ZTV", "ZTS")) or "//" in t or "=" in t.rstrip("="):
        return False  # the cheap tests first (a path, a mangled name, an assignment), in C
    if sum(t.count(c) for c in "-./_") > len(t) // 10 + 1 or t.count("_") > 2:
        return False
    if (len(t) - len(t.translate(_UPPER)) < 2 or len(t) - len(t.translate(_LOWER)) < 2
            or len(t) - len(t.translate(_DIGITS)) < 2 or _UUID.search(t)):
        return False
    a = [c for c in t if c.isalnum()]
    return sum(_kind(x) != _kind(y) for x, y in zip(a, a[1:])) >= 0.4 * (len(a) - 1)


def _long_run_secret(s: str, m: re.Match[str]) -> bool:
    """Whether the long run ``m`` of ``s`` is a secret: random-looking (32+ characters), or a value with a letter
    and a digit right after a secret-named word and a blank (``apikey eKoi...``). The name is looked for in the 48
    characters before the run (one short search a run; runs are rare outside keys)."""
    t = m.group()
    if len(t) >= 32 and _random_token(t):
        return True
    a = m.start()
    return (a > 0 and s[a - 1] in " \t" and _SPACED_NAME.search(s, max(0, a - 48), a) is not None
            and len(t.translate(_DIGITS)) < len(t) and not t.isdigit())


#: each pattern with the literals (lower case) one of which its match holds, or an expression its match holds that
#: starts at a literal (a cheap scan in C): the pattern runs only on the lines that hold one (every round-23
#: pattern matches within a line). On 10 MB of random printable text these words are rare, so the patterns' work
#: is on a few hundred lines, not on every word start: run on the whole capped text the ten passes took 0.19 s,
#: three times an explain (round 23's revert); the lines are found with ``str.find`` on a lower-cased copy (a
#: case-insensitive alternation took 10-25 ms a pattern)
_R23 = ((_SHORT_ASSIGN, ("pat", "pw", "pass")),
        (_INLINE_FIELD, ("pass", "secret", "api", "access", "private", "pwd")),
        (_INLINE_FIELD_PROSE, ("token", "auth", "credential")),
        (_TOOL_PW, ("login", "sshpass", "mysql", "mariadb", "curl")), (_NETRC_INLINE, ("password", "passwd")),
        (_CONDA_TOKEN, ("/t/",)), (_URL_SIG, ("sig",)), (_URLENC, ("%3",)), (_WANDB, ("wandb",)),
        (_BARE_USERINFO, re.compile(r":[^\s@/\\:\"'<>()\[\]]{1,256}@[A-Za-z0-9]")),
        (_PW_NAME, ("pw", "pass")), (_PW_OTHER, tuple(w.lower() for w in _PW_WORDS)),
        (_TOOL_PW2, ("sqlcmd", "bcp", "redis-cli", "ldap", "mongo", "smbclient", "setx")),
        (_WEBHOOK, ("hooks.slack.com", "/api/webhooks/", "webhook.office.com")), (_S3_CRED, ("://",)),
        (_PUTTY_MAC, ("private-mac",)), (_TELEGRAM, (":aa",)))
#: each literal of :data:`_R23` -> the shorter ones it holds
_HOLDS = {lit: tuple(k for k in _ALL_LITS if k != lit and k in lit)
          for _ALL_LITS in [{x for _, xs in _R23 if isinstance(xs, tuple) for x in xs}] for lit in _ALL_LITS}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _lower_same_length(s: str) -> str:
    """``s`` in lower case, each character where it was (``str.lower`` makes one character two for U+0130)."""
    low = s.lower()
    if len(low) == len(s):
        return low
    low = s.replace("\u0130", "I").lower()
    return low if len(low) == len(s) else s.translate(_ASCII_LOWER)


#: a text longer than this is first read for the set of its characters: a literal holding a character it lacks is
#: absent without a scan (10 MB of one repeated unit holds a few characters, and some 90 literals were 90 scans)
_BIG = 1_000_000
#: hits of a pattern's literals beyond which it runs on the whole text (a line a hit: gathering lines costs a few
#: Python steps each, the whole text one pass in C)
_LINES_AT_MOST = 4096


def _hit_lines(s: str, low: str, lits: tuple[str, ...] | re.Pattern[str],
               counts: dict[str, int]) -> list[tuple[int, int]] | None:
    """The spans of the lines of ``s`` holding one of ``lits`` (found in ``low``) or a match of the expression
    ``lits``, in order; ``None`` when there are more than :data:`_LINES_AT_MOST` hits (the whole text then). Each
    search starts at the end of the line of the last hit: one scan of the text, and per line one look back.
    ``counts`` keeps each literal's count in ``low`` (patterns share literals: "pass")."""
    spans: set[tuple[int, int]] = set()
    if isinstance(lits, re.Pattern):
        m = lits.search(s)
        while m is not None:
            if len(spans) >= _LINES_AT_MOST:
                return None
            a, b = s.rfind("\n", 0, m.start()) + 1, s.find("\n", m.end())
            b = len(s) if b == -1 else b
            spans.add((a, b))
            m = lits.search(s, b)
        return sorted(spans)
    n = 0
    for lit in lits:
        if lit not in counts:
            # a literal holding one found absent is absent ("passwd" without "pass"); a non-ASCII word is absent
            # from an ASCII text (``str.isascii`` is O(1))
            counts[lit] = 0 if ((not lit.isascii() and low.isascii())
                                or any(counts.get(k) == 0 for k in _HOLDS.get(lit, ()))) else low.count(lit)
        n += counts[lit]
        if n > _LINES_AT_MOST:
            return None
    for lit in lits if n else ():
        i = low.find(lit)
        while i != -1:
            a, b = s.rfind("\n", 0, i) + 1, s.find("\n", i)
            b = len(s) if b == -1 else b
            spans.add((a, b))
            i = low.find(lit, b)
    return sorted(spans)


def _r23_split(s: str) -> tuple[str, list[str]]:
    """``s`` with the round-23 patterns' secrets redacted, and the secrets they found (stripped as
    :func:`_split_redact` strips them). Each pattern runs once, in C,
    on the lines holding one of its literals joined by newlines (a line's neighbours are lines, as in ``s``), or on
    the whole text when they are many; the lines it changed are put back in place. Linear in the text."""
    found: list[str] = []
    low = ""
    counts: dict[str, int] = {}
    for rx, lits in _R23:
        if not low:
            low, counts = _lower_same_length(s), {}
            if len(s) > _BIG:  # a literal with a character the text lacks is absent (one set, not a scan each)
                have = frozenset(low)
                counts = {lit: 0 for _, xs in _R23 if isinstance(xs, tuple) for lit in xs if not have.issuperset(lit)}
        spans = _hit_lines(s, low, lits, counts)
        if spans == []:
            continue
        text = s if spans is None else "\n".join(s[a:b] for a, b in spans)
        done = _split_redact(rx, text, found)
        if done is text:
            continue
        if spans is not None:
            out, last = [], 0
            for (a, b), line in zip(spans, done.split("\n")):
                out += (s[last:a], line)
                last = b
            done = "".join(out) + s[last:]
        s, low = done, ""
    return s, found


#: a PEM private-key block (also inside a JSON string, with ``\n`` escapes): its body is redacted
_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----")
_KEY_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----")


def _redact_key_blocks(s: str) -> str:
    """Every private-key block's body replaced (an unterminated block: to the end of the text); linear, as
    each search starts where the previous one ended."""
    out: list[str] = []
    pos = 0
    while True:
        b = _KEY_BEGIN.search(s, pos)
        if b is None:
            break
        e = _KEY_END.search(s, b.end())
        out.append(s[pos:b.end()])
        out.append(REDACTED)
        if e is None:
            pos = len(s)
            break
        pos = e.start()
    out.append(s[pos:])
    return "".join(out)


def _split_redact(rx: re.Pattern[str], s: str, found: list[str] | None = None) -> str:
    """``s`` with the secret group of every match of ``rx`` replaced; all in C (split, slice, join). The secrets
    replaced are added to ``found`` (stripped of blanks and quotes) when it is given."""
    parts = rx.split(s)
    if len(parts) == 1:
        return s
    if found is not None:
        found += [v.strip().strip("\"'").strip() for v in parts[2::3]]
    parts[2::3] = [REDACTED] * (len(parts) // 3)
    return "".join(parts)


# ---------------------------------------------------------------------- quotes cut at a token's edge
#: what ends a token (a word, a path, a key, a URL's part): a blank, a quote, a bracket, a separator
_TOKEN_ENDS = frozenset(" \t\n\r\"'`=:,;()[]{}<>@|")


def _is_tok(c: str) -> bool:
    return c not in _TOKEN_ENDS and not c.isspace()


def window(s: str, a: int, b: int) -> str:
    """``s[a:b]`` without a token either cut splits: a token the window starts or ends inside (a character of it
    just outside the window) is left out whole, ``…`` in its place. So a secret the redaction recognises whole
    (``sk-ant-...``, a JWT, a URL's password) is never quoted in part, its shape or name cut away (a blind audit,
    round 24: a 120-character quote began or ended inside a token and printed the rest). A path is a token too: cut,
    it is left out. At most ``b - a`` steps."""
    a, b = max(0, a), min(len(s), b)
    if a >= b:
        return ""
    head, tail = "", ""
    if a > 0 and _is_tok(s[a - 1]) and _is_tok(s[a]):
        i = a
        while i < b and _is_tok(s[i]):
            i += 1
        a, head = i, "…"
    if b < len(s) and _is_tok(s[b]) and _is_tok(s[b - 1]):
        j = b
        while j > a and _is_tok(s[j - 1]):
            j -= 1
        b, tail = j, "…"
    return head + s[a:b] + tail if a < b else head or tail


def quote(s: str, n: int) -> str:
    """``s`` (a line the doctor quotes as evidence) cut to its first ``n`` characters at a token's edge
    (:func:`window`)."""
    return s if len(s) <= n else window(s, 0, n)


#: variables whose values are directories or lists of them: shown in kernelspec env displays
PATH_LIKE_NAMES = frozenset({
    "PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "PYTHONPATH",
    "PYTHONHOME", "CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDNN_PATH", "CONDA_PREFIX", "VIRTUAL_ENV",
    "JUPYTER_PATH", "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_DIR", "JUPYTER_RUNTIME_DIR", "LD_PRELOAD", "MANPATH",
    "PKG_CONFIG_PATH", "HOME", "TMPDIR", "NVCC_CCBIN", "CC", "CXX", "CUDAHOSTCXX",
})
_PATH_SUFFIXES = ("_PATH", "_HOME", "_DIR", "_DIRS", "_ROOT", "_PREFIX")


def secret_values(*environs: Mapping[str, str] | None) -> list[str]:
    """Values of secret-named variables in the given environments, longest first."""
    vals: set[str] = set()
    for env in environs:
        if not env:
            continue
        for k, v in env.items():
            if (is_secret_name(str(k)) or str(k).upper().endswith(_SECRET_SUFFIXES)) and isinstance(v, str):
                v = v.strip()
                if len(v) >= _MIN_SECRET_LEN and v.lower() not in _NOT_SECRET_VALUES:
                    vals.add(v)
    return sorted(vals, key=len, reverse=True)


def holds_url_credentials(value: object) -> bool:
    """(blind audit 36, C-L10) Whether ``value`` holds a URL with credentials in its userinfo (``user:pass@``, a
    token): PIP_INDEX_URL, HTTPS_PROXY and the like, whose names say nothing of a secret."""
    return isinstance(value, str) and _USERINFO.search(value) is not None


def process_secrets() -> list[str]:
    """:func:`secret_values` of this process's environment, now and at start (``/proc/self/environ``)."""
    return secret_values(os.environ, read_proc_environ())


# ---------------------------------------------------------------------- terminal control sequences
#: escape sequences a pasted terminal text carries (colours, cursor moves, screen clears, window titles,
#: hyperlinks): CSI (7- and 8-bit), OSC / DCS / SOS / PM / APC strings up to their terminator (or the end of
#: the line), and two-character escapes. Classes only, each followed by a disjoint class: linear in the text.
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?|[ -/]*[0-~]?)")
_ESCAPES_8BIT = re.compile(r"\x9b[0-?]*[ -/]*[@-~]?|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?")

#: what stays invisible or rewrites what is shown: C0 controls but tab and newline, DEL, C1 controls, and
#: the bidirectional overrides and isolates that reorder a line on screen
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]+")


def _backspaces(line: str) -> str:
    """What a terminal shows of a line with backspaces: each one takes back the character before it."""
    out: list[str] = []
    for ch in line:
        if ch == "\x08":
            if out:
                out.pop()
        else:
            out.append(ch)
    return "".join(out)


def strip_controls(s: str) -> str:
    """``s`` as plain text a terminal or a page can show without being driven by it: escape sequences
    removed, CR LF and lone CR made newlines, backspaces applied to the characters they erase, every
    other control character (and bidi override) removed. Linear; a pass runs only when its character occurs."""
    if not isinstance(s, str) or not s:
        return s
    if "\x1b" in s:
        s = _ESCAPES.sub("", s)
    if any(c in s for c in "\x9b\x90\x98\x9d\x9e\x9f"):
        s = _ESCAPES_8BIT.sub("", s)
    if "\r" in s:
        s = s.replace("\r\n", "\n").replace("\r", "\n")
    if "\x08" in s:
        s = "\n".join(_backspaces(ln) if "\x08" in ln else ln for ln in s.split("\n"))
    if s.replace("\n", "").replace("\t", "").isprintable():  # the usual case, 2-3x cheaper than the scan
        return s
    return _CONTROLS.sub("", s)


def redact_text(s: str, secrets: list[str] | tuple[str, ...] = ()) -> str:
    """``s`` with every secret replaced by ``<redacted>`` (by value, by shape and by name).

    Linear time: the secret values are replaced with ``str.replace``; the shapes, URL userinfo and
    values of secret-like names with one ``re.sub`` each, in C, by expressions that never backtrack
    over more than a fixed length (see the comment above ``_SHAPE_SUBS``). A pass is skipped when its
    literal cannot occur."""
    return _redact(s, secrets, None)


def _redact(s: str, secrets: list[str] | tuple[str, ...], found: list[str] | None) -> str:
    """:func:`redact_text`; each secret it recognises (by name, by shape, as URL userinfo, a private key's lines) is
    added to ``found`` when it is given: one pass finds and redacts."""
    if not isinstance(s, str) or not s:
        return s
    s = strip_controls(s)
    for v in secrets:
        if v in s:
            s = s.replace(v, REDACTED)
    if "PRIVATE KEY-----" in s:
        if found is not None:
            for b in _KEY_BEGIN.finditer(s):
                e = _KEY_END.search(s, b.end())
                found += [ln.strip() for ln in s[b.end():e.start() if e else len(s)].replace("\\n", "\n").split("\n")]
        s = _redact_key_blocks(s)
    if "://" in s:
        if found is not None:
            for m in _USERINFO.finditer(s):
                info = m.group(0)[3:-1]
                found += [info, *info.split(":", 1)[1:]]
        s = _USERINFO.sub("://" + REDACTED + "@", s)
    have = frozenset(s) if len(s) > _BIG else None  # (the characters of a long text: a literal needs all of its)
    for lit, rx in _SHAPE_SUBS:
        if (have is None or have.issuperset(lit)) and lit in s:
            if found is not None:
                found += rx.findall(s)
            s = rx.sub(REDACTED, s)
    up = s.upper()
    if "BEARER" in up:
        s = _split_redact(_BEARER, s, found)
    if "AUTHORI" in up:
        s = _split_redact(_AUTH_HEADER, s, found)
    if any((have is None or have.issuperset(m) or have.issuperset(m.lower())) and m in up for m in TEXT_MARKERS):
        for rx, lit in ((_ASSIGN, "="), (_PAIR, "\"'"), (_FIELD, ":"), (_FLAG, "-")):
            if any(c in s for c in lit):
                s = _split_redact(rx, s, found)
    if "PASSWORD" in up or "PASSWD" in up or "ACCOUNT" in up:
        s = _split_redact(_NETRC, s, found)
    s, more = _r23_split(s)
    if found is not None:  # shown again elsewhere only when it looks like one (no plain word, no path)
        found += [v for v in more if len(v) >= 6 and not v.isalpha() and not v.startswith(("/", "~", "$"))]
    if have is not None and not have.intersection(string.digits):
        return s  # a long run is a candidate only with a digit in it: none in the text (one set, not a pass)
    if found is not None:
        found += [m.group() for m in _LONG_RUN.finditer(s) if _long_run_secret(s, m)]
    return _LONG_RUN.sub(lambda m: REDACTED if _long_run_secret(s, m) else m.group(), s)


def text_secrets(s: str, min_len: int = _MIN_SECRET_LEN) -> list[str]:
    """The secrets :func:`redact_text` recognises in ``s`` by name, by shape, as URL userinfo or as a private key's
    lines, each once: so that the same value is redacted where it appears again without its name (a pasted
    ``AWS_SECRET_ACCESS_KEY=v`` and, further on, ``v`` alone), and so that what explain copies from a text into a
    command (a package, a folder, a script) is never one of them. Linear, as redact_text: the same pass."""
    return redacted_and_secrets(s, min_len)[1]


def redacted_and_secrets(s: str, min_len: int = _MIN_SECRET_LEN) -> tuple[str, list[str]]:
    """``(redact_text(s), text_secrets(s))`` from one pass; the last text read is remembered (explain reads one text
    twice: to redact its outputs, and to fill its commands)."""
    if not isinstance(s, str) or not s:
        return s, []
    global _last_secrets
    last = _last_secrets
    if s is last[0] or (len(s) == len(last[0]) and s == last[0]):  # (a comparison of equal strings: one memcmp)
        red, found = last[1], last[2]
    else:
        found = []
        red = _redact(s, (), found)
        found = list(dict.fromkeys(found))
        _last_secrets = (s, red, found)
    return red, [v for v in found if len(v) >= min_len and v.lower() not in _NOT_SECRET_VALUES and v != REDACTED]


#: the last text :func:`redacted_and_secrets` read, its redacted form and the secrets found
_last_secrets: tuple[str, str, list[str]] = ("", "", [])


def forget_secrets() -> None:
    """Drop :func:`redacted_and_secrets`' memo (its last text, redacted, and what it found): when an explain ends."""
    global _last_secrets
    _last_secrets = ("", "", [])


def sanitize(obj: Any, secrets: list[str] | tuple[str, ...] | None = None) -> Any:
    """A copy of ``obj`` (JSON-like) with secrets replaced by ``"<redacted>"``.

    Every string goes through :func:`redact_text`; the value of any dict key named like a secret
    is replaced whole. ``secrets`` defaults to :func:`process_secrets`.
    """
    return _sanitize(obj, process_secrets() if secrets is None else list(secrets))


def _sanitize(obj: Any, secrets: list[str]) -> Any:
    if isinstance(obj, str):
        return redact_text(obj, secrets)
    if isinstance(obj, Mapping):
        out = {}
        for k, v in obj.items():
            key = redact_text(k, secrets) if isinstance(k, str) else k
            if isinstance(k, str) and is_secret_name(k) and isinstance(v, (str, int, float)) and not isinstance(v, bool):
                out[key] = REDACTED
            else:
                out[key] = _sanitize(v, secrets)
        return out
    if isinstance(obj, (list, tuple)):
        seq = [_sanitize(v, secrets) for v in obj]
        return seq if isinstance(obj, list) else tuple(seq)
    return obj


def is_path_like_name(name: str) -> bool:
    """True for variables that hold directories / path lists (``PATH``, ``CUDA_HOME``, ``*_DIR``...)."""
    up = str(name).upper()
    if is_secret_name(up):
        return False
    return up in PATH_LIKE_NAMES or up.endswith(_PATH_SUFFIXES)


def is_path_like_value(value: Any) -> bool:
    """True when every ``:``-separated entry is empty or a path (``/``, ``~``, ``$``, ``.`` first)."""
    if not isinstance(value, str) or "://" in value or "@" in value:
        return False
    return all(not p or p[0] in "/~$." for p in value.split(":"))


def display_env(env: Mapping[str, Any], secrets: list[str] | tuple[str, ...] = ()) -> dict[str, str]:
    """A kernelspec ``env`` for display: every name, values only of path-like variables."""
    out: dict[str, str] = {}
    for k, v in env.items():
        k = str(k)
        out[k] = redact_text(str(v), secrets) if is_path_like_name(k) and is_path_like_value(v) else REDACTED
    return out


# ---------------------------------------------------------------------- identity (bug reports)
def identity_strings() -> dict[str, str]:
    """``{string: replacement}`` for the home directory, user name and host names of this machine."""
    out: dict[str, str] = {}
    home = os.path.expanduser("~")
    if home and home not in ("/", "~") and len(home) > 1:
        out[home.rstrip("/")] = "~"
    names = set()
    try:
        names.add(getpass.getuser())
    except Exception:  # no user name in some containers
        pass
    for var in ("USER", "LOGNAME"):
        if os.environ.get(var):
            names.add(os.environ[var])
    for n in names:
        if n and len(n) >= 3:
            out[n] = "<user>"
    hosts = set()
    try:
        hosts.add(socket.gethostname())
        hosts.add(socket.getfqdn())
    except OSError:
        pass
    for h in hosts:
        if h and len(h) >= 3 and h not in ("localhost", "localhost.localdomain"):
            out[h] = "<host>"
            out[h.split(".")[0]] = "<host>" if len(h.split(".")[0]) >= 3 else h.split(".")[0]
    return out


#: a home directory in a path of any machine (a log pasted from another one): ``/home/NAME``, macOS's
#: ``/Users/NAME``, Windows' ``C:\\Users\\NAME`` (either slash, doubled backslashes of a JSON or repr string)
_HOME_PATH_RE = re.compile(r"((?:/home|/Users|/export/home|\b[A-Za-z]:(?:\\{1,2}|/)Users)(?:\\{1,2}|/))"
                           r"([^\s\\/:*?\"'<>|`;,]{1,64})", re.IGNORECASE)  # (audit 36 A-L2) no ';' ',' in a user name
#: a Windows user folder whose name has spaces ("C:\\Users\\Jane Roe\\..."): up to four words, up to the next separator
_WIN_HOME_SPACED_RE = re.compile(r"(\b[A-Za-z]:(?:\\{1,2}|/)Users(?:\\{1,2}|/))"
                                 r"([^\s\\/:*?\"'<>|`]{1,64}(?: [^\s\\/:*?\"'<>|`]{1,64}){1,3})(?=\\|/)", re.IGNORECASE)
#: folders under a Users directory that are no one's name
_NOT_A_USER = {"public", "default", "default user", "all users", "shared", "<user>"}
_NAME_CHARS = "A-Za-z0-9_.-"


#: a shell prompt a pasted log shows (any machine's): ``(env) NAME@HOST:~/dir$``, ``NAME@HOST ~ %``,
#: ``[NAME@HOST dir]$`` (bash's default PS1 forms, zsh's, RHEL's); NAME and HOST become ``<user>``/``<host>``
_PROMPT_RE = re.compile(r"(?m)(?:^|(?<=[\s(\[]))([A-Za-z_][A-Za-z0-9_.-]{0,31})@"
                        r"([A-Za-z0-9][A-Za-z0-9.-]{0,62})(?=:[~/]|:\S{0,200}[$#%>][ \t]|[ \t]+\S{0,200}\]?[$#%>][ \t]|"
                        r"[ \t]*[$#%>][ \t]|[ \t]+~)")


#: a user's own folder outside /home that shared machines give: ``/scratch/NAME``, ``/data-sdb/NAME``,
#: ``/mnt/NAME`` (or one level deeper, ``/mnt/disk1/NAME``, ``/data/users/NAME``)
_USER_ROOT_RE = re.compile(r"(?<![\w.~/<>-])(/(?:scratch|data[\w-]{0,12}|mnt|nfs|gpfs|lustre|storage|work|share|"
                           r"export)(?:/(?:users?|people|home|[a-z]{0,8}\d{1,3}|ssd|hdd|sd[a-z]|nvme\w{0,6}|"
                           r"disk\w{0,3}))?/)([A-Za-z][A-Za-z0-9_.-]{1,40})(?=/)")
#: folder names under such a root that are no one's name (a disk, a share, a project folder)
_NOT_A_PERSON = {
    "data", "datasets", "dataset", "disk", "disks", "nas", "nfs", "share", "shared", "storage", "ssd", "hdd", "home",
    "users", "user", "tmp", "temp", "local", "projects", "project", "models", "model", "work", "scratch", "cache",
    "lustre", "gpfs", "public", "common", "group", "groups", "apps", "app", "software", "opt", "lib", "libs", "src",
    "code", "repos", "repo", "workspace", "workspaces", "output", "outputs", "input", "results", "checkpoints", "logs",
    "conda", "miniconda3", "anaconda3", "envs", "env", "venv", "docker", "containers", "images", "wsl", "wslg", "efs",
    "fsx", "volume", "volumes", "backup", "media", "usb", "cdrom", "raid", "pool", "bulk", "fast", "slow", "archive",
    "train", "test", "val", "hf", "huggingface", "torch", "cuda", "nvidia", "python", "pip", "build", "dist", "git",
}


def _person_folder(m: re.Match[str], names: frozenset[str] = frozenset()) -> str:
    """``/scratch/NAME/`` (a cluster's per-user folder) and, under a data disk or a mount, a folder that is a
    person's: a user name the text shows elsewhere, a ``first.last`` name, or one under ``users``/``home``/``people``;
    a project's folder there (``/data/maskgct/``) stays."""
    root, name = m.group(1), m.group(2)
    low = name.lower()
    if len(name) <= 1 or low in _NOT_A_PERSON or re.search(r"\d{3}|\.(?:py|so|txt|json|ya?ml|d)$", low):
        return m.group(0)
    person = (name in names or root.startswith("/scratch/") or re.search(r"/(?:users?|people|home)/$", root)
              or re.fullmatch(r"[a-z]{2,20}\.[a-z]{2,20}", name))
    return root + "<user>" if person else m.group(0)


def _names_shown(text: str) -> set[str]:
    """The user names the text's home paths and shell prompts show (``/home/NAME``, ``NAME@host:~$``)."""
    names = {m.group(2) for m in _HOME_PATH_RE.finditer(text) if m.group(2).lower() not in _NOT_A_USER}
    names |= {m.group(1) for m in _PROMPT_RE.finditer(text)}
    names = {n for n in names if "<" not in n}
    names |= {m.group(2) for m in _USER_ROOT_RE.finditer(text) if _person_folder(m, frozenset(names)) != m.group(0)}
    return {n for n in names if len(n) >= 3 and n.lower() not in _NOT_A_PERSON and n != "<user>"}


def _env_of_name(text: str, names: set[str]) -> str:
    """A conda or venv environment named from a user name (``envs/fjs_mm`` of user fjs): that part redacted."""
    for n in sorted(names, key=len, reverse=True):
        e = re.escape(n)
        text = re.sub(rf"((?:[\\/]envs[\\/]|[\\/]\.?venvs?[\\/]|^\(|\s\()(?:[\w.-]*?[_.-])?){e}(?=[_.-]|[\\/)\s]|$)",
                      r"\g<1><user>", text, flags=re.MULTILINE)
    return text


def _home_name(m: re.Match[str]) -> str:
    return m.group(0) if m.group(2).lower() in _NOT_A_USER else m.group(1) + "<user>"


def redact_identity(text: str, replacements: Mapping[str, str] | None = None) -> str:
    """Replace this machine's home directory by ``~``, the user names of every home directory a path shows
    (``/home/NAME``, ``/Users/NAME``, ``C:\\Users\\NAME``, of this machine or of the one a pasted log came from) by
    ``<user>``, this machine's user name where it is one (a whole path component, ``NAME@host``, ``USER=NAME``;
    never the same letters as an English word: "the toolkit root"), its host names (whole words), and the user
    and host of every shell prompt the text shows (``bob@lab-gpu-3:~$``)."""
    reps = identity_strings() if replacements is None else dict(replacements)
    names = _names_shown(text)
    known = frozenset(names)
    for s in sorted(reps, key=len, reverse=True):
        r = reps[s]
        if r == s:
            continue
        e = re.escape(s)
        if s.startswith("/"):
            text = re.sub(rf"(?<![{_NAME_CHARS}/~]){e}(?=/|\b|$)", r, text)  # not inside another path
        elif r == "<user>":
            text = re.sub(rf"(?<=[/\\]){e}(?![{_NAME_CHARS}])", r, text)  # a path component
            text = re.sub(rf"(?<![{_NAME_CHARS}]){e}(?=@)", r, text)  # user@host
            text = re.sub(rf"(\b(?:USER|LOGNAME|USERNAME)=[\"']?){e}(?![{_NAME_CHARS}])", rf"\g<1>{r}", text)
        else:
            text = re.sub(rf"(?<![{_NAME_CHARS}]){e}(?![A-Za-z0-9_-])", r, text)
    text = _PROMPT_RE.sub("<user>@<host>", text)
    if "sers" in text:
        text = _WIN_HOME_SPACED_RE.sub(_home_name, text)
    text = _HOME_PATH_RE.sub(_home_name, text)
    text = _USER_ROOT_RE.sub(lambda m: _person_folder(m, known), text)
    return _env_of_name(text, names) if names else text
