# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""A pasted error text as the doctor reads it: what copying adds is taken away first.

Browsers, chat tools, terminals and mail clients change a text on its way to the doctor without
changing what it says: non-breaking and other Unicode spaces, zero-width characters, "smart" quotes,
fullwidth punctuation, ANSI colour and OSC (hyperlink, title) sequences of a terminal, CRLF line ends,
``> `` quote prefixes of a mail or a forum quote (not a Python REPL's ``>>> `` prompt), and markdown's ``**bold**`` markers;
(round 33p) a page's source or an export's HTML character references (:func:`unescape_html`), a markdown source's
backslash escapes (:func:`unescape_markdown`) and a traceback or pip's output run onto one line
(:func:`restore_lines`), each only where the whole text shows the form's own marks. :func:`normalise` undoes all of them (NFKC first,
which maps compatibility forms such as U+00A0, U+3000 or fullwidth ``：`` to their plain forms), so
explain reads the same facts from every copy of one error. Every step is one linear pass.
"""

from __future__ import annotations

import codecs
import html
import html.entities
import re
import unicodedata

#: CSI sequences (colours, cursor moves) and two-character escapes; OSC sequences (hyperlinks, titles)
#: end with BEL or ST (ESC \\)
_ANSI_RE = re.compile(r"\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)?|\x1b\[[0-?]{0,32}[ -/]{0,8}[@-~]|\x1b[@-Z\\-_]")
#: colour codes whose ESC was lost in a copy ("[31mERROR[0m")
#: (the test of the character before the "[" made after it: an expression that starts with a literal is searched for
#: it first, at C speed)
_BARE_SGR_RE = re.compile(r"\[(?<![\w\]\[]\[)(?:[0-9]{1,3};){0,4}[0-9]{1,3}m")
#: ``> `` quote prefixes (mail, forums, chat; nested ``> > ``)
#: (round 33p) spaces between levels too, and any number of levels: "\>  >" read as ">  >" lost one level a pass
#: (the levels after the first as one run up to its last ">": 10 MB of "> " in one line in 0.1 s)
_QUOTE_RE = re.compile(r"^[ \t]{0,8}>(?:[ \t>]*>)?[ \t]?", re.MULTILINE)
#: (round 32f) a Python REPL's session: a ``>>> `` prompt's line followed by the interpreter's answer (a line that is no
#: quote) or by a ``... `` continuation prompt; a mail's third quote level is followed by more quoted lines
_REPL_RE = re.compile(r"^[ \t]{0,8}>>>(?: [^\n]*)?\n(?:\.\.\.(?: |$)|[ \t]{0,8}[^\s>])", re.MULTILINE)
#: the quote prefixes of a text that holds a REPL session: every quote level but the prompt ``>>> `` itself
#: ("> >>> import torch" is a quoted prompt line: the quote goes, the prompt stays)
_QUOTE_NOT_PROMPT_RE = re.compile(r"^(?:[ \t]{0,8}(?!>>>(?:[ \t]|$))>[ \t]?)+", re.MULTILINE)
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u00ad\u180e"))
_OTHER = {ord("\u2018"): "'", ord("\u2019"): "'", ord("\u201a"): "'", ord("\u201b"): "'", ord("\u2032"): "'",
          ord("\u201c"): '"', ord("\u201d"): '"', ord("\u201e"): '"', ord("\u201f"): '"', ord("\u2033"): '"',
          ord("\u2013"): "-", ord("\u2014"): "--", ord("\u2212"): "-", ord("\u2028"): "\n", ord("\u2029"): "\n"}
_TABLE = {**_ZERO_WIDTH, **_OTHER}
#: (round 28p) the characters of _TABLE, each replaced by one search of them: str.translate reads a text beyond Latin-1
#: (a log of random bytes) a character at a time in Python's mapping, 20 times as long; the same replacements
_TABLE_RE = re.compile("[" + "".join(map(chr, _TABLE)) + "]")
_TABLE_STR = {chr(k): v or "" for k, v in _TABLE.items()}
_ZERO_WIDTH_RE = re.compile("[" + "".join(map(chr, _ZERO_WIDTH)) + "]")
#: control characters other than tab and newline (a copy's stray NULs, bells, backspaces)
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACES_RE = re.compile(r"[^\S\n\t]")  # every Unicode space but newline and tab (after NFKC: few remain)
#: tabs between words (a copy through a spreadsheet, a terminal or an editor that turned runs of spaces into tabs);
#: a line's leading tabs stay (ldd's and a traceback's indentation)
_INNER_TABS_RE = re.compile(r"(?<=[^\s])[ \t]*\t[ \t]*")


#: byte-order marks and the encoding each one starts (UTF-32's before UTF-16's: its LE mark begins with UTF-16's)
_BOMS = ((b"\xef\xbb\xbf", "utf-8-sig"), (b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
         (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))


def decode(data: bytes) -> tuple[str, str]:
    """``(text, encoding)`` of a pasted error's bytes: by its byte-order mark (a file PowerShell's ``>`` wrote is
    UTF-16), else UTF-16 when every other byte is NUL, else UTF-8, else Windows-1252 (what a Windows editor or console
    saves; its five undefined bytes read as Latin-1's), so no byte is lost and nothing raises."""
    data = bytes(data)
    for bom, enc in _BOMS:
        if data.startswith(bom) and (enc.startswith("utf-8") or 0 in data[len(bom):len(bom) + 4096]):
            # a UTF-16/32 text has NUL bytes (every ASCII character, space and newline brings one): a mark followed
            # by none is stray bytes before 8-bit text, read as such below
            return data.decode(enc, errors="replace"), enc
    head = data[:4096]  # NUL bytes in every other place: UTF-16 without a mark (valid UTF-8 too, but no log has NULs)
    if len(head) >= 4 and head[1::2].count(0) > len(head) // 4 and head[0::2].count(0) < len(head) // 8:
        return data.decode("utf-16-le", errors="replace"), "utf-16-le"
    if len(head) >= 4 and head[0::2].count(0) > len(head) // 4 and head[1::2].count(0) < len(head) // 8:
        return data.decode("utf-16-be", errors="replace"), "utf-16-be"
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    return data.decode("cp1252", errors=_CP1252_FALLBACK), "cp1252"


def _latin1_for_undefined(exc: UnicodeError) -> tuple[str, int]:
    """cp1252 leaves 0x81, 0x8D, 0x8F, 0x90 and 0x9D undefined: they read as the Latin-1 code points of the same value."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return exc.object[exc.start:exc.end].decode("latin-1"), exc.end


_CP1252_FALLBACK = "smrnb-cp1252-latin1"
codecs.register_error(_CP1252_FALLBACK, _latin1_for_undefined)


def normalise(text: str, *, _references: bool = True) -> str:
    """``text`` as it was before it was copied: plain spaces and quotes, no zero-width characters, no
    terminal escape sequences, ``\\n`` line ends, no ``> `` quote prefixes (a REPL session's ``>>> `` prompts kept),
    no terminal's or mail's wrap (:func:`unwrap`), no HTML references or markdown escapes of a page's or a markdown
    source (:func:`unescape_html`, :func:`unescape_markdown`), a traceback run onto one line given its lines back
    (:func:`restore_lines`). Linear time; never raises. (Round 33w) the steps are repeated until they change nothing
    (at most NORMALISE_PASSES times: one step's output can be another's input, ``**>`` a quote once the bold marks
    go), so that a normalised text is normalised already."""
    if not isinstance(text, str) or not text:
        return text if isinstance(text, str) else ""
    unicode = True  # the first pass maps Unicode forms; a later one where another step changed the text since
    for _ in range(NORMALISE_PASSES):
        once, other = _normalise_once(text, unicode, _references)
        if once == text:
            break
        text, unicode = once, other
    return text


#: the passes of :func:`normalise`'s steps (a text needs one; a text that one step's output feeds into another, two)
NORMALISE_PASSES = 4


def _normalise_once(text: str, unicode: bool = True, references: bool = True) -> tuple[str, bool]:
    """One pass of :func:`normalise`'s steps (the Unicode mapping only where ``unicode``: it is idempotent, so a pass
    after one in which it alone changed the text skips it), and whether a step other than that mapping changed the
    text."""
    start = text
    if "\x1b" in text:
        text = _ANSI_RE.sub("", text)
    if "[" in text and "m" in text:
        text = _BARE_SGR_RE.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unwrap(text)  # (round 33w) a terminal's column counts the characters as they came (before NFKC)
    other = text != start  # a step before the mapping changed the text
    if unicode and not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        # (a zero-width character taken away can leave a new NFKC pair, "e", ZWJ, accent: the next pass maps it; the
        # table's other replacements are ASCII starters, which compose with nothing)
        other = other or _ZERO_WIDTH_RE.search(text) is not None
        text = _TABLE_RE.sub(lambda m: _TABLE_STR[m.group()], text)
        text = _SPACES_RE.sub(" ", text)
    before = text
    text = _CONTROL_RE.sub("", text)
    if "\t" in text:
        text = _INNER_TABS_RE.sub(" ", text)
    if "**" in text:  # markdown bold pasted around words of a message ("no **CUDA-capable device**")
        text = drop_bold(text)
    if "&" in text and references:  # (round 33p) a page's source or an export: "&lt;module&gt;", "&quot;x&quot;"
        read = unescape_html(text)
        if read != text:
            # what the references wrote goes through the steps above (&nbsp; is U+00A0, &#13; a CR); a text that
            # shows references again then (U+FF06 "＆" read as "&") was escaped twice or meant one: it stays unread
            read = normalise(read, _references=False)
            if not _html_escaped(read):
                return read, True
    if "\\" in text:  # (round 33p) a markdown source's escapes: "torch\\_scatter", "\\_\\_init\\_\\_.py"
        text = unescape_markdown(text)
    if ">" in text:
        # (round 32f) a REPL's ">>> " prompt is no quote: its lines keep it, so the readers see what was typed
        text = (_QUOTE_NOT_PROMPT_RE if ">>>" in text and _REPL_RE.search(text) else _QUOTE_RE).sub("", text)
    if "\n" not in text and ('File "' in text or ": " in text):  # (round 33p) a traceback run onto one line
        text = restore_lines(text)
    return text, other or text != before


# (round 33p) escaped and flattened pastes: each undone only where the text shows the form's own marks, whole

#: an HTML character reference with its semicolon: a name of HTML5's table, a decimal or a hexadecimal code point
#: (HTML5's legacy names without one, "&notify", "&copy", are words of a text, never read as references)
_ENTITY_RE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _html_escaped(text: str) -> bool:
    """Whether ``text`` shows the escaping of a page's source or an export: it holds an HTML character reference,
    every ``&`` of it begins a known one (an escaper turns a shell's ``&&`` into ``&amp;&amp;``: a bare ``&``,
    ``a && b`` or ``&notify``, shows a text nobody escaped) and it has no ``<`` (an escaper writes each as ``&lt;``)."""
    return _escaped_refs(text) is not None


def _escaped_refs(text: str) -> set[str] | None:
    """The distinct character references of a text :func:`_html_escaped` reads as escaped, else None (one scan of
    the text for them, which :func:`unescape_html` reuses: 10 MB of references cost one regex scan, not two)."""
    if "&" not in text or ";" not in text or "<" in text:
        return None
    refs = set(_ENTITY_RE.findall(text))
    ok = (bool(refs) and sum(text.count(r) for r in refs) == text.count("&")
          and all(r[1] == "#" or r[1:] in html.entities.html5 for r in refs))
    return refs if ok else None


def unescape_html(text: str) -> str:
    """``text`` with its HTML character references (``&lt;``, ``&quot;``, ``&#39;``, ``&#x27;``, ``&amp;``) read, one
    level, where the whole text shows an escaper's marks (:func:`_html_escaped`); else ``text`` as it is. A text that
    would still show them once read (``&amp;lt;``: escaped twice, or a reference meant literally, escaped once) is left
    as it is too: which one it is, nothing in the text tells, and reading it again would read the meant one. One pass."""
    refs = _escaped_refs(text)
    if refs is None:
        return text
    out, amps = text, []
    # one replace a reference (re.sub's call a match is slow); those of "&" last and in one pass, so no "&" they
    # write begins a reference read again ("&amp;lt;" is "&lt;")
    for ref in refs:
        value = html.unescape(ref)
        if "&" in value:
            amps.append(re.escape(ref))
        else:
            out = out.replace(ref, value)
    if amps:
        out = re.sub("|".join(amps), "&", out)
    return text if _html_escaped(out) else out


#: markdown's backslash escapes of the punctuation an editor escapes in pasted text (CommonMark's own syntax)
_MD_ESCAPE_RE = re.compile(r"\\([_*\[\]<>#`])")
#: a ``_`` or ``*`` no backslash escapes: a markdown escaper leaves none (after the bold markers are gone)
_MD_BARE_RE = re.compile(r"(?<!\\)[_*]")
#: a Windows path's separators: a drive (``C:\``) or a backslash before a letter or digit (``\Users``); such a text's
#: ``\_`` may be a separator before a name (``me\_work``, ``site-packages\_distutils_hack``)
_MD_WINDOWS_RE = re.compile(r"[A-Za-z]:\\|\\[A-Za-z0-9]")
#: escapes no Windows path writes: a dunder escaped (``\_\_init\_\_``); ``\*``, ``\[``, ``\<``, ... that follow no
#: name character (a separator follows one: ``Users\[user]``); a snake-case name outside any path (``CUDA\_HOME=``,
#: ``gpt\_sovits``: no separator before or after it)
_MD_SURE_RE = re.compile(r"\\_\\_|(?<![\w.\-])\\[*\[\]<>#`]"
                         r"|(?<![\\A-Za-z0-9.:\-])[A-Za-z0-9][A-Za-z0-9.\-]*(?:\\_[A-Za-z0-9.\-]+)+(?![\\:A-Za-z0-9.\-])")

_MD_SEP_ESC_RE = re.compile(r"\\\\[_*]")
_MD_DOUBLED_RE = re.compile(r"\\\\[A-Za-z0-9]")


def _md_escaped(text: str) -> bool:
    """Whether ``text`` shows a markdown escaper's marks: an escape, no ``_`` or ``*`` left bare (an escaper escapes
    every one) and, in a text with Windows paths (``C:\\``, ``\\Users``), an escape no path writes (an escaped
    dunder, or ``\\*``, ``\\[``, ``\\<`` after no name character: ``me\\_work`` may be a separator before a name)."""
    if "\\" not in text or not _MD_ESCAPE_RE.search(text) or _MD_BARE_RE.search(text):
        return False
    if not _MD_WINDOWS_RE.search(text) or _MD_SURE_RE.search(text):
        return True
    # a separator before an escape ("D:\\a\\\\_work"), in a text whose separators are single (a repr's are doubled:
    # "'C:\\\\Users\\\\me\\\\_work'" is no escape)
    return "\\\\" in text and bool(_MD_SEP_ESC_RE.search(text)) and not _MD_DOUBLED_RE.search(text)


#: (round 36) a double star alone (not in a run of three or more: make's "***", a redaction "/home/***/"): markdown's
#: bold mark ("no **CUDA-capable device**", "**Error:** ...", a traceback bolded whole across its lines) unless it
#: reads as Python's (:data:`_PYTHON_DOUBLE_STAR_RE`)
_DOUBLE_STAR_RE = re.compile(r"(?<!\*)\*\*(?!\*)")
#: ... Python's: an unpacking (``**kwargs`` after "(", "[", "{" or "," or before ")", ",", "}", "]" or a line's end, and
#: the names Python's documentation gives it, ``kwargs`` / ``kw`` / ``kwds``, in prose too) where no letter or digit
#: comes before it, or a power (``x**2``, ``(a+b)**0.5``, ``x**-1``, ``n ** 3``). The ``**`` is matched first, what is
#: around it read by lookarounds (a scan for the literal: linear, no call per match)
_PYTHON_DOUBLE_STAR_RE = re.compile(
    r"\*\*(?<!\*\*\*)(?!\*)(?:"
    r"(?<![^\W_]\*\*)(?=[A-Za-z_][A-Za-z0-9_.]{0,80}(?:\s{0,4}[),}\]]|[ \t]{0,4}(?:\n|$))|kw(?:args|ds)?\b)"
    r"|(?<=[({\[,]\*\*)(?=[A-Za-z_])|(?:(?<=, \*\*)|(?<=\( \*\*))(?=[A-Za-z_])"
    r"|(?:(?<=[^\W_]\*\*)|(?<=[)\]]\*\*))(?=[^\W_]|[(-])"
    r"|(?:(?<=[^\W_] \*\*)|(?<=[)\]] \*\*))(?= (?:[^\W_]|\())"
    r")")
#: what stands for Python's ``**`` while the bold marks go (control characters: normalise has taken them away before)
_KEPT_STARS = "\x00\x02"


def drop_bold(text: str) -> str:
    """``text`` without markdown's bold marks (:data:`_DOUBLE_STAR_RE`); Python's ``**`` kept
    (:data:`_PYTHON_DOUBLE_STAR_RE`). Linear time."""
    if "**" not in text:
        return text
    if _KEPT_STARS[0] in text:  # (a text that still holds a NUL: each mark asked on its own, slower, same answer)
        return _DOUBLE_STAR_RE.sub(lambda m: m.group() if _PYTHON_DOUBLE_STAR_RE.match(text, m.start()) else "", text)
    return _DOUBLE_STAR_RE.sub("", _PYTHON_DOUBLE_STAR_RE.sub(_KEPT_STARS, text)).replace(_KEPT_STARS, "**")


def unescape_markdown(text: str) -> str:
    """``text`` with markdown's backslash escapes (``torch\\_scatter``, ``\\_\\_init\\_\\_.py``, ``\\[notice\\]``,
    ``\\<module\\>``) undone where the text shows an escaper's marks (:func:`_md_escaped`); else ``text`` as it is. A
    backslash before any other character stays: ``\\\\_`` is a path's separator before an escaped ``_``. A text that
    would still show the marks once undone (only ``\\\\_``) is left as it is. ``**`` undone is taken away as
    :func:`normalise` takes a plain one (markdown's bold, before this step). One linear pass."""
    if not _md_escaped(text):
        return text
    out = text
    for c in "_*[]<>#`":  # one replace a character (each leaves no new escape of another): re.sub's template is slow
        if "\\" + c in out:
            out = out.replace("\\" + c, c)
    out = drop_bold(out)  # an escaped "**" pair is bold as normalise reads it
    # (an escape before a reference's "#", "&\\#38;", is no markdown a page's export shows)
    return text if _md_escaped(out) or ("&" in out and _html_escaped(out)) else out


#: a traceback frame's header run into its neighbours ('... File "x.py", line 3, in main code ...'), a traceback's
#: head and the sentences between chained exceptions
_FLAT_FRAME_RE = re.compile(r'(?:^|(?<= ))File "[^"\n]{0,1000}", line [0-9]{1,7}(?:, in [^\s"]{1,200})?(?= |$)')
_FLAT_HEAD_RE = re.compile(r"(?:^|(?<= ))(?:Traceback \(most recent call last\):|During handling of the above "
                           r"exception, another exception occurred:|The above exception was the direct cause of the "
                           r"following exception:)(?= |$)")
#: the exception a frame's code line is followed by: a (dotted) class name ending as Python's exceptions do, then ": "
#: or the end ("torch.cuda.OutOfMemoryError: CUDA out of memory", "AssertionError")
_FLAT_EXC_RE = re.compile(r"(?<= )(?:[A-Za-z_][A-Za-z0-9_]{0,60}\.){0,8}[A-Z][A-Za-z0-9_]{0,60}"
                          r"(?:Error|Exception|Warning|Exit|Interrupt|Iteration)(?=: |:?$)")

#: pip's records (its message prefixes, and the lines of its error blocks since pip 22: "error:
#: subprocess-exited-with-error", "× ...", "╰─> [6 lines of output]", "note: ...", "hint: ...")
_FLAT_PIP_RE = re.compile(r"(?<= )(?:(?<![A-Z] )(?:ERROR|WARNING): |error: [a-z]+(?:-[a-z]+)+(?= |$)|note: |hint: |\u00d7 |\u2570\u2500> )")
#: IPython's records: its head (the exception's name padded to "Traceback (most recent call last)"), a frame's head
#: ("Cell In[3], line 2", "<ipython-input-7-e7> in <module>", "~/x.py in f(a)" up to its name, "File /x.py:233, in f")
#: and the "---->" arrow of the line that raised (a line of its own from the arrow on)
_FLAT_IPYTHON_RE = re.compile(r"(?<= )(?:[A-Za-z_][A-Za-z0-9_.]{0,100}(?:Error|Exception|Warning|Exit|Interrupt) {2,}"
                              r"Traceback \(most recent call last\)|Cell In ?\[[0-9]{1,6}\], line [0-9]{1,7}"
                              r"|<ipython-input-[A-Za-z0-9_-]{1,80}> in [^\s(]{1,200}|[~/A-Za-z][^\s\"']{0,1000}\.py in "
                              r"[A-Za-z_<][A-Za-z0-9_<>]{0,200}|File [^\s\"]{1,1000}:[0-9]{1,7}, in [^\s(]{1,200}"
                              r"|-{2,}> ?[0-9]{1,7}(?= ))")
#: an exception's message in the form CPython writes it (import.c's "cannot import name %R from %R (%S)" and its
#: "... from partially initialized module %R (most likely due to a circular import) (%S)", Python 3.6's
#: "cannot import name %R", "No module named %R", "module %R has no attribute %R", "%R object has no attribute %R"):
#: it ends at its last quote (or parenthesis), so what follows on a flattened line is the reporter's, not the message
#: (a "from" or a "(" after it continues it)
_FLAT_CLOSED_RE = re.compile(r"(?:cannot import name '[^'\s]{1,200}'(?: from (?:partially initialized module )?"
                             r"'[^'\s]{1,200}' (?:\(most likely due to a circular import\) )?\([^()]{0,1000}\))?"
                             r"|No module named '[^'\s]{1,200}'|(?:module )?'[^'\s]{1,200}' (?:object )?has no "
                             r"attribute '[^'\s]{1,200}')(?=$| (?!from |\())")
#: lines of their own a flattened text shows: a markdown fence, Python 3.11's carets (a code line's next line: 4 spaces
#: too), "Exception ignored in: <...>" (the head of an exception raised where none can propagate, up to its ">") and
#: a row of pip's list (a name padded to its column, then a version: "torch                    2.4.1+rocm6.0")
_FLAT_LINE_RE = re.compile(r"(?<= )(?:```[A-Za-z0-9_+-]{0,20}(?= |$)|[\^~]{2,}(?= |$)|Exception ignored in: <[^<>]{1,300}>"
                           r"|[A-Za-z][A-Za-z0-9_.\-]{0,80}  +[0-9]{1,6}\.[0-9A-Za-z.+_\-]{0,60}(?= |$))")
#: the longest one-line text read for records: a form field, a chat message or an issue title holds far less (and
#: explain cuts a line to LINE_CHARS before it normalises); a longer line is a log's, left as it is
_FLAT_MAX_CHARS = 256 * 1024


def restore_lines(text: str) -> str:
    """A traceback or pip's output whose newlines were lost (a one-line form field, a chat tool, an issue's title)
    with its records on lines of their own again, as the line readers read them: ``Traceback (most recent call
    last):``, each ``File "...", line N, in f`` (2 spaces) and its code line (4), the exception after a frame's code,
    the sentences between chained tracebacks, and pip's ``ERROR:`` / ``WARNING:`` lines and its error blocks
    (``error: subprocess-exited-with-error``, ``×``, ``╰─>``, ``note:``, ``hint:``). Only on a text that shows it
    was flattened: no newline, and two of these records (a frame and the exception after its code count two); a
    one-line message (``RuntimeError: CUDA error: ...``, a message that names one ``File "x.py", line 3``) stays as it
    is. One linear pass."""
    if "\n" in text or len(text) > _FLAT_MAX_CHARS:
        return text
    # where the newlines were, each with the indentation of the line it begins: a frame's 2 spaces, its code line's 4
    breaks = [(m.start(), "") for m in _FLAT_PIP_RE.finditer(text)] if ": " in text or "\u2570" in text else []
    records = len(breaks)
    # records: (start, end, the indentation of the line it begins, of the line after it, whether an exception may
    # follow): Python's frames, IPython's (its head, "Cell In [3], line 2", "<ipython-input-7-e7> in <module>",
    # "~/x.py in f(a)", "File /x.py:233, in f(a)", its "----> 10" arrow line), a traceback's heads
    spans = [(m.start(), m.end(), "  ", "    ", True) for m in _FLAT_FRAME_RE.finditer(text)] if 'File "' in text else []
    if "Traceback (" in text or "exception" in text:
        spans += [(m.start(), m.end(), "", "", False) for m in _FLAT_HEAD_RE.finditer(text)]
    if " in " in text or "-> " in text:
        # (a line of its own from the record on: a frame's arguments and the numbered lines around follow it)
        spans += [(m.start(), m.end() if m.group().endswith(")") else m.start(), "", "", True)
                  for m in _FLAT_IPYTHON_RE.finditer(text)]
    if spans:
        spans.sort()
        search, n = _FLAT_EXC_RE.search, len(spans)
        for i, (start, end, indent, after, frame) in enumerate(spans):
            breaks += ((start, indent), (end, after)) if end > start else ((start, indent),)
            # a frame's code line, then the exception it raised (searched up to the next record only)
            exc = search(text, end, spans[i + 1][0] if i + 1 < n else len(text)) if frame else None
            if exc:
                breaks.append((exc.start(), ""))
                records += 1
                closed = _FLAT_CLOSED_RE.match(text, exc.end() + 2)
                if closed:  # the message ends where Python's own form of it ends; the reporter's words follow
                    breaks.append((closed.end(), ""))
        records += n
        breaks.sort()
    if records < 2:  # one record: no sign the text was flattened
        return text
    if "``" in text or "^^" in text or "~~" in text or "Exception ignored" in text or "  " in text:
        # lines of their own that count no record: a markdown fence, Python 3.11's carets under a code line, the
        # head of an exception a __del__ raised, pip's list
        for m in _FLAT_LINE_RE.finditer(text):
            breaks += ((m.start(), "    " if m.group()[0] in "^~" else ""), (m.end(), ""))
        breaks.sort()
    breaks = [(0, ""), *breaks, (len(text), "")]
    lines: list[str] = []
    for (a, indent), (b, _) in zip(breaks, breaks[1:]):
        line = text[a:b].strip(" ")
        if line[:1] == ">" and lines:  # a code line's ">>> " stays on its frame's line: no quote prefix is made
            lines[-1] += " " + line
        elif line:
            lines.append(indent + line)
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------------------------------
# (round 33w) wrapped pastes: a terminal's hard wrap at its column, a mail's or chat tool's word wrap

#: the narrowest wrap width read as a wrap: a text whose longest line is shorter is never unwrapped
MIN_WRAP_WIDTH = 40
#: the columns terminals open with (VT100's 80 and 132, conhost's 120, and 100): one line cut at
#: one of them is read as a wrap; at another width, two different lines cut at it are needed
TERMINAL_WIDTHS = frozenset((80, 100, 120, 132))
#: the start of a line that begins a record of its own (never the continuation of a wrapped line): a blank line, a
#: traceback's lines, an exception's name, a compiler's or a logger's prefix, a prompt, a table's or a frame's border
_RECORD_RE = re.compile(
    r"""[ \t]*(?:$
    |Traceback\b|File\ "|During\ handling\b|The\ above\ exception\b
    |(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Warning|Interrupt|Exit|Failure)\b
    |(?i:error|warning|note|fatal\ error|info|debug|critical|fatal|warn)\b[ \t]*[:\]]
    |\(\w[\w.-]*\)\ |[\[|+=#*>$%`]|--|\.\.\.|\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d
    |[A-Za-z]:\\|PS\ |[\w.-]+@[\w.-]+:|[IWEF]\d{4}[ ]
    |[^\s:]+:\d+(?::\d+)?:\ )""",
    re.X,
)
#: a program's message (``cat: x: No such file or directory``) and a traceback's frame line
_PROGRAM_RE = re.compile(r"([\w.+-]+): ")
_FRAME_RE = re.compile(r'[ \t]*File "')
#: the start of a line that a word wrap never makes: a label (``make: *``, ``Client:``, ``/usr/bin/ld:``), a list's
#: bullet (not a path's piece that a wrap put first: ``packages/x.so: undefined``)
_LABEL_RE = re.compile(r"(?:/[\w.+/-]*|[A-Za-z][\w.+-]{0,29}):(?:\s|$)|[-*] ")
#: the narrowest word wrap read as one (mail wraps at 72 to 78 columns, chat tools and pip's panels wider)
MIN_WORD_WRAP_WIDTH = 60
#: how far short of the wrap width a line that a word wrap broke may plainly end (a word's length)
WORD_WRAP_SLACK = 12
#: characters that never start a line of their own but continue a token cut before them
_CONTINUING = frozenset(",.;:)]}\\_")


def _continues(line: str, nxt: str) -> bool:
    """Whether ``nxt`` may continue ``line`` (the line before it) as a wrap cut it: no record of its own, no repeat
    of the line's own start (a log's records of one length), no message of a command the line ran (``cat: ...`` after
    ``$ cat x``), no code line after a traceback's frame line (its ``in`` is followed by a space and a name)."""
    if _RECORD_RE.match(nxt):
        return False
    head = line.lstrip()[:6]
    if len(head) == 6 and nxt.lstrip().startswith(head):
        return False
    m = _PROGRAM_RE.match(nxt)
    if m and f" {m.group(1)} " in f" {line}":  # the command's word, not a piece of another ("rror" of "error")
        return False
    return not (line.endswith(", in") and _FRAME_RE.match(line) and not nxt.startswith(" "))


def _cut_inside(line: str, nxt: str) -> bool:
    """Whether the break between ``line`` and ``nxt`` falls where no line ends: inside a word (an ASCII letter or digit
    before, a lower-case letter or a digit after, or two capitals), inside a name (after ``_``, or after a dot, a slash
    or a dash that follows a letter: ``torch.|cuda``), inside a path (``/flash_attn|/layers``), after an opening or
    before a closing quote, before a character that continues a token (``,`` ``.`` ``)`` ``\\``...), before one space
    and a word (a cut before a space), or after a space before a word that is not capitalised (a cut after one)."""
    if not nxt:
        return False
    a, b = line[-1], nxt[0]
    if b in _CONTINUING or b == " " and nxt[1:2].strip() != "":
        return True
    if a == " ":
        return not b.isupper() and b != " "
    after = nxt[1:2]
    word = b.isascii() and b.isalnum()
    if a.isascii() and a.isalnum():
        if b.islower() or b.isdigit() or b.isupper() and a.isupper() and not after.islower():
            return True
        if b in "/-\\" and after.isalnum():  # inside a path: the line's last word holds a slash already
            tail = line[line.rfind(" ") + 1:]
            return "/" in tail or "\\" in tail
        return b in "'\"" and after in ("", " ", ",", ".", ":", ";", ")")
    if a == "_":
        return word
    if a in "'\"":
        return word and line[-2:-1] in ("", " ", "(", "=", "[")
    return a in "./-\\" and line[-2:-1].isalnum() and (b.islower() or b.isdigit())


def _hard_joins(lines: list[str], width: int) -> tuple[list[int], int, int]:
    """The lines of exactly ``width`` characters that a terminal's hard wrap (every longer line cut into pieces of its
    column) would have cut before the next, which continues them; how many different ones are cut inside a word or
    a token, as a terminal cuts whatever the characters at its column; and how many keep the space at the cut (a
    terminal keeps every character; a word wrap drops the space it breaks at)."""
    nexts: dict[str, str] = {}
    joins = []
    read: dict[tuple[str, str], tuple[bool, bool]] = {}  # (a log's repeated lines: one reading each)
    for i in range(len(lines) - 1):
        line = lines[i]
        if len(line) != width:
            continue
        nxt = lines[i + 1]
        key = (line, nxt)
        if key not in read:
            read[key] = (_cut_inside(line, nxt), _continues(line, nxt) and not nxt.startswith(("  ", "\t")))
        inside, continues = read[key]
        if not inside:
            # one line followed by two different ones, not cut inside a token: a record of that length, not a piece
            nexts[line] = "" if nexts.setdefault(line, nxt) != nxt else nxt
        if continues:
            joins.append((i, inside))
    joins = [(i, inside) for i, inside in joins if nexts.get(lines[i]) != ""]
    kept = sum(inside and (lines[i][-1] == " " or lines[i + 1][0] == " ") for i, inside in joins)
    return [i for i, _ in joins], len({lines[i] for i, inside in joins if inside}), kept


def _word_joins(lines: list[str], width: int) -> tuple[list[int], int, int]:
    """The lines that a word wrap at ``width`` columns or more would have broken before the next; how many different
    ones show it plainly (a word's hyphen break counting for two: no line of its own ends so); and how many of those
    are shorter than ``width``. A break: the next line starts with no space and continues the line (no record of its
    own), its first word (or a hyphenated word's rest) would not have fit after the line (a wrap breaks a line
    only there), and no sentence ends there before a capital. Plainly: no ``label:`` or bullet starts the next line
    (``undefined|symbol: _ZN...`` is joined in a wrapped text, ``collect2: ...|make: *`` shows no wrap), no capital
    follows a colon, the line reaches within ``WORD_WRAP_SLACK`` of the width, ends inside a sentence (a letter, a digit, ``,`` ``;`` ``)`` or a quote)
    and the next goes on in lower case, with a digit or an ``_`` (a symbol's name); or the line ends in a word's
    hyphen (``site-|packages``) and the next goes on in lower case or with a digit."""
    joins = []
    plain: set[str] = set()
    short = hyphen = 0
    continues: dict[tuple[str, str], bool] = {}  # (a log's repeated lines: one reading each)
    for i in range(len(lines) - 1):
        nxt = lines[i + 1]
        if not nxt or nxt[0] in " \t" or not nxt[0].isascii() or len(lines[i]) + 1 + len(nxt) <= width:
            continue
        line = lines[i].rstrip(" ")
        if not line:
            continue
        sp = nxt.find(" ")
        first = nxt if sp == -1 else nxt[:sp]
        broken = line[-1] == "-" and line[-2:-1].isalnum() and (nxt[0].islower() or nxt[0].isdigit())
        if len(line) + (not broken) + len(first) <= width:
            continue  # its first word (after a hyphen: the rest of the word) fits on the line: no wrap broke it there
        if line[-1] in ".!?" and nxt[0].isupper() or "   " in nxt or "   " in line.lstrip(" "):
            continue  # a sentence's end, or columns of a table or a listing (a word wrap keeps a line's spaces)
        key = (line, nxt)
        if key not in continues:
            continues[key] = _continues(line, nxt)
        if not continues[key]:
            continue
        joins.append(i)
        if line in plain or line[-1] == ":" and nxt[0].isupper() or _LABEL_RE.match(nxt):
            continue  # a label's line (``make: *``) or a capital after a colon: joined in a wrapped text, no sign of one
        if broken or len(line) >= width - WORD_WRAP_SLACK and (nxt[0].islower() or nxt[0].isdigit() or nxt[0] == "_") and (
                line[-1].isalnum() or line[-1] in ",;:)'\""):
            plain.add(line)
            hyphen += broken
            short += len(lines[i]) < width
    return joins, len(plain) + hyphen, short


def _word_separator(line: str, nxt: str, width: int) -> str:
    """What a word wrap took away between ``line`` and ``nxt``: nothing where it cut a word longer than the width
    (the line's last word and the next's first make more than ``width``, and the line's does not end at a comma or a
    colon) or broke after a word's hyphen
    (``dist-|packages``); else one space."""
    last = line[line.rfind(" ") + 1:]
    sp = nxt.find(" ")
    if len(last) + (len(nxt) if sp == -1 else sp) > width and last[-1] not in ",;:":
        return ""  # (a word ends at a comma or a colon: the wrap broke after it)
    return "" if len(last) > 1 and last[-1] == "-" and last[-2].isalnum() and nxt[0].isalnum() else " "


def unwrap(text: str) -> str:
    """``text`` as it was before a terminal hard-wrapped it at its column (lines of exactly the longest line's
    length, each followed by a line that continues it: joined without a separator) or a mail or chat tool word-wrapped
    it (lines broken where the next word would not fit: joined with a space). A word wrap shows in two different
    lines broken plainly short of the width, more than the lines cut inside a word at the width (a word wrap makes
    a line of exactly its width now and then; a terminal's wrap, only those); a hard wrap in two different lines cut
    inside a word at the width, or one at a terminal's usual column. Linear time; a text that shows neither is
    returned as it is."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    width = max(map(len, lines))
    if width < MIN_WRAP_WIDTH:
        return text
    hard, cut, kept = _hard_joins(lines, width)
    hard_shown = cut >= 2 or cut and width in TERMINAL_WIDTHS
    # a cut that kept its space is a terminal's: no word wrap to look for
    word, plain, short = _word_joins(lines, width) if width >= MIN_WORD_WRAP_WIDTH and not (
        hard_shown and kept) else ([], 0, 0)
    if plain >= 2 and (not hard_shown or short and not kept):
        seps = {i: _word_separator(lines[i].rstrip(" "), lines[i + 1], width) for i in word}
    elif hard_shown:
        seps = dict.fromkeys(hard, "")
    else:
        return text
    out: list[str] = []
    for i, ln in enumerate(lines):
        sep = seps.get(i - 1)
        if sep is None:
            out.append(ln)
        else:
            out[-1] = (out[-1] + ln) if not sep else out[-1].rstrip(" ") + sep + ln
    return "\n".join(out)
