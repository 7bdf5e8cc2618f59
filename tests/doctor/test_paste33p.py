# Copyright 2026 smrnb developers. Licensed under the Apache License, Version 2.0.
"""Round 33p: escaped and flattened pastes. A text copied from a page's HTML source or an export (HTML character
references), from a markdown source (backslash escapes) or through a one-line field (newlines lost) reads as the
plain text does; texts that only look like such a form stay as they are."""

from __future__ import annotations

import html
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smrnb.doctor._explain import explain_result
from smrnb.doctor._paste import normalise, restore_lines, unescape_html, unescape_markdown

SCATTER = """Traceback (most recent call last):
  File "/home/me/proj/train.py", line 4, in <module>
    import torch_scatter
  File "/opt/conda/lib/python3.10/site-packages/torch_scatter/__init__.py", line 16, in <module>
    torch.ops.load_library(spec.origin)
  File "/opt/conda/lib/python3.10/site-packages/torch/_ops.py", line 643, in load_library
    ctypes.CDLL(path)
OSError: /opt/conda/lib/python3.10/site-packages/torch_scatter/_version_cuda.so: undefined symbol: \
_ZN3c106detail19maybe_wrap_dim_slowEllb"""

OOM = """Traceback (most recent call last):
  File "run.py", line 10, in <module>
    y = model(x)
  File "/usr/lib/python3/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl
    return forward_call(*args, **kwargs)
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.69 GiB total capacity; \
20.1 GiB already allocated)"""

WINDOWS_OOM = OOM.replace('"run.py"', r'"C:\Users\me\_work\run.py"').replace(
    "/usr/lib/python3/site-packages/torch/nn/modules/module.py",
    r"C:\Users\me\miniconda3\lib\site-packages\torch\nn\modules\module.py")


def md(text: str) -> str:
    """A markdown source's escapes, as /work/an33/paste.py's md form writes them."""
    return re.sub(r"([_*\[\]<>#`])", r"\\\1", text)


def oneline(text: str) -> str:
    return re.sub(r"\s*\n\s*", " ", text)


def codes(text: str) -> list[str]:
    return [f.code for f in explain_result(text, similar=False).findings[:2]]


# --- HTML character references ---------------------------------------------------------------------------------


@pytest.mark.parametrize("plain", [SCATTER, OOM, WINDOWS_OOM, "cd build && make -j8 && ./run 'x' \"y\" <in.txt"])
def test_html_escaped_text_is_read_exactly(plain):
    assert unescape_html(html.escape(plain, quote=True)) == plain
    assert unescape_html(html.escape(plain, quote=False)) == plain
    assert normalise(html.escape(plain)) == normalise(plain)


def test_numeric_and_named_references():
    assert unescape_html("can&#39;t open &#x27;a.h&#x27;: &quot;x&quot; &lt;module&gt;") == \
        "can't open 'a.h': \"x\" <module>"
    assert normalise("No&nbsp;module named &#8216;torch&#8217;") == "No module named 'torch'"


@pytest.mark.parametrize("text", [
    "AT&amp;T driver && echo ok",             # a bare "&" beside it: nobody escaped this text, the &amp; is meant
    "url: http://x/?a=1&amp;b=2 < 3",         # a raw "<": an escaper writes &lt;
    "&notify=1 &copy 2024 &amp;",              # HTML5's legacy references without ";" are words; a bare "&"
    "entity &foo; is undefined &amp; ignored",  # a name outside HTML5's table: no reference
    "RuntimeError: CUDA error: out of memory",
])
def test_texts_nobody_escaped_stay(text):
    assert unescape_html(text) == text
    assert normalise(text) == text


def test_escaped_twice_or_meant_reference_stays():
    # "&amp;lt;" read once is "&lt;", which reads as escaped again: escaped twice or an "&lt;" meant, escaped once
    assert unescape_html("&amp;lt;module&amp;gt;") == "&amp;lt;module&amp;gt;"
    # a meant reference beside a text's own "<" once read: read once, the "<" shows the rest is plain
    assert unescape_html("&lt;module&gt; &amp;lt;") == "<module> &lt;"


@pytest.mark.parametrize("plain", [SCATTER, OOM])
def test_explain_reads_the_html_form_as_the_plain_text(plain):
    want = codes(plain)[0]
    assert want in codes(html.escape(plain))


# --- markdown's backslash escapes ------------------------------------------------------------------------------


@pytest.mark.parametrize("plain", [SCATTER, OOM, WINDOWS_OOM, "pip install torch_scatter", "[notice] a <b> #c `d`"])
def test_markdown_escaped_text_is_undone_exactly(plain):
    assert unescape_markdown(md(plain)) == plain  # (round 36) "**kwargs" is no bold: it stays
    assert normalise(md(plain)) == normalise(plain)


def test_markdown_examples():
    assert unescape_markdown("No module named torch\\_scatter") == "No module named torch_scatter"
    assert unescape_markdown('File "\\_\\_init\\_\\_.py", line 3, in \\<module\\>') == \
        'File "__init__.py", line 3, in <module>'
    # a Windows separator before a name, escaped: "D:\a\_work" written "D:\a\\_work"
    assert unescape_markdown("D:\\a\\\\_work\\1\\s set CUDA\\_HOME") == "D:\\a\\_work\\1\\s set CUDA_HOME"


@pytest.mark.parametrize("text", [
    "C:\\Users\\me\\_work\\x.py",                                     # a separator before "_work"
    'File "C:\\Users\\me\\_work\\x.py", line 3, in main',
    "D:\\anaconda\\lib\\site-packages\\_distutils_hack\\__init__.py",  # bare "_" beside it
    "site-packages\\_distutils_hack",
    "C:\\x\\__pycache__\\a.pyc",
    "C:\\Users\\[user]\\anaconda3\\envs\\[env]\\python.exe",         # brackets after a separator
    "'C:\\\\Users\\\\me\\\\_work' is not a file (no escaper: C:\\\\)",
    "make: *** [runtest] Error 1 in \\_x",                           # bare "*"
])
def test_windows_paths_and_plain_backslashes_stay(text):
    assert unescape_markdown(text) == text


@pytest.mark.parametrize("plain", [SCATTER, OOM, WINDOWS_OOM])
def test_explain_reads_the_markdown_form_as_the_plain_text(plain):
    assert codes(plain)[0] in codes(md(plain))


# --- a traceback run onto one line -----------------------------------------------------------------------------


def test_flattened_traceback_gets_its_lines_back():
    flat = oneline(OOM)
    assert "\n" not in flat
    assert restore_lines(flat) == OOM  # Python's own layout: a frame's 2 spaces, its code line's 4
    chained = oneline(SCATTER + "\n\nDuring handling of the above exception, another exception occurred:\n\n" + OOM)
    lines = restore_lines(chained).split("\n")
    assert "During handling of the above exception, another exception occurred:" in lines
    assert lines.count("Traceback (most recent call last):") == 2
    assert lines[-1].startswith("torch.cuda.OutOfMemoryError: CUDA out of memory.")
    assert any(ln.startswith("OSError: /opt/conda/") for ln in lines)
    # one frame and the exception after its code: two records
    one = 'x.py fails: File "a.py", line 7, in <module> from t.u import s ImportError: cannot import name \'s\''
    assert restore_lines(one) == ('x.py fails:\n  File "a.py", line 7, in <module>\n    from t.u import s\n'
                                  "ImportError: cannot import name 's'")
    # Python's own message form ends the exception's line; the reporter's words after it get a line of their own
    told = ('File "a.py", line 7, in <module> from t.u import s ImportError: cannot import name \'s\' from \'t.u\' '
            "(/x/t/u.py) These are my environments: OS: ubuntu 18.04")
    assert restore_lines(told).split("\n")[-2:] == [
        "ImportError: cannot import name 's' from 't.u' (/x/t/u.py)", "These are my environments: OS: ubuntu 18.04"]
    # Python 3.8's circular-import form is one message (its "from" is no reporter's word)
    circular = ('File "a.py", line 55, in <module> from . import data ImportError: cannot import name \'data\' from '
                "partially initialized module 't' (most likely due to a circular import) (/x/t/__init__.py)")
    assert restore_lines(circular).split("\n")[-1] == (
        "ImportError: cannot import name 'data' from partially initialized module 't' (most likely due to a circular "
        "import) (/x/t/__init__.py)")
    # a message of another form runs on (where it ends, only its words could tell)
    assert restore_lines(told.replace("cannot import name", "can't find")).split("\n")[-1].endswith("18.04")
    # a code line that begins with ">" stays on its frame's line (no quote prefix is made)
    assert restore_lines('Traceback (most recent call last): File "<stdin>", line 1, in <module> >>> f() '
                         'NameError: name \'f\' is not defined').split("\n")[1] == \
        '  File "<stdin>", line 1, in <module> >>> f()'


@pytest.mark.parametrize("text", [
    "RuntimeError: CUDA error: an illegal memory access was encountered",
    'SyntaxError raised at File "setup.py", line 3 when I run pip install -e . on python 3.12 (it worked before)',
    'Traceback (most recent call last): (the rest was cut off)',    # a head and no frame
    'File "a.py", line 1, in f\n  x()\nFile "b.py", line 2, in g',  # it has its newlines
])
def test_one_line_messages_stay(text):
    assert restore_lines(text) == text


def test_pip_and_ipython_records_get_their_lines_back():
    pip = ("installing spconv fails: ERROR: Could not find a version that satisfies the requirement cumm<0.5.0,>=0.4.5 "
           "(from versions: 0.1.0, 0.5.0) ERROR: No matching distribution found for cumm<0.5.0,>=0.4.5")
    assert restore_lines(pip).split("\n") == [
        "installing spconv fails:",
        "ERROR: Could not find a version that satisfies the requirement cumm<0.5.0,>=0.4.5 (from versions: 0.1.0, 0.5.0)",
        "ERROR: No matching distribution found for cumm<0.5.0,>=0.4.5"]
    # another tool's prefix before "ERROR:" is no pip line; one pip line alone is a one-line message
    assert restore_lines("INTEL MKL ERROR: The specified module could not be found. Intel MKL FATAL ERROR: x") == \
        "INTEL MKL ERROR: The specified module could not be found. Intel MKL FATAL ERROR: x"
    assert restore_lines("ERROR: No matching distribution found for torch==1.4.0") == \
        "ERROR: No matching distribution found for torch==1.4.0"
    ipy = ("AttributeError                          Traceback (most recent call last) <ipython-input-7-e7953> in "
           "<module> ----> 1 client = Client(cluster) ~/envs/x/site-packages/distributed/client.py in __init__(self) "
           "--> 601 self.start() AttributeError: 'SLURMCluster' object has no attribute 'security'")
    assert restore_lines(ipy).split("\n") == [
        "AttributeError                          Traceback (most recent call last)",
        "<ipython-input-7-e7953> in <module>", "----> 1 client = Client(cluster)",
        "~/envs/x/site-packages/distributed/client.py in __init__(self)", "--> 601 self.start()",
        "AttributeError: 'SLURMCluster' object has no attribute 'security'"]
    # a date's "May  3" is no row of pip's list; "torch                    2.4.1+rocm6.0" is
    flat = ('Traceback (most recent call last): File "a.py", line 1, in <module> import torch ImportError: x '
            "Python 3.8.10 (May  3 2021) flash_attn               2.7.4.post1 torch                    2.4.1+rocm6.0")
    lines = restore_lines(flat).split("\n")
    assert "ImportError: x Python 3.8.10 (May  3 2021)" in lines and "torch                    2.4.1+rocm6.0" in lines


def test_real_one_line_error_is_untouched():
    for text in ("RuntimeError: CUDA error: an illegal memory access was encountered",
                 'SyntaxError raised at File "setup.py", line 3 when I run pip install -e . on python 3.12'):
        assert normalise(text) == text


@pytest.mark.parametrize("plain", [SCATTER, OOM, WINDOWS_OOM])
def test_explain_reads_the_one_line_form_as_the_plain_text(plain):
    assert codes(plain)[0] in codes(oneline(plain))


def test_forms_combined():
    # an export of a one-line field: references and no newlines
    assert codes(OOM)[0] in codes(html.escape(oneline(OOM)))


# --- properties ------------------------------------------------------------------------------------------------

_MARKS = st.sampled_from(["&", ";", "amp", "lt", "gt", "#39", "#x27", "quot", "\\", "_", "*", "**", "[", "]", "<",
                          ">", "#", "`", "C:\\", "\\U", ' File "a.py", line 3, in f ', "Traceback (most recent call "
                          "last): ", " ValueError: x ", "\n", " ", "a", "\t", "> ", "\u00a0", "\u200b", "\x1b[0m", "ERROR: ", "note: ",
                          " ----> 1 ", "x.py in f(a) ", "```", "^^^", "torch  2.1 ", "Cell In[3], line 2"])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.lists(_MARKS, max_size=30).map("".join)))
def test_normalise_is_idempotent_and_never_raises(text):
    once = normalise(text)
    assert normalise(once) == once
    for fn in (unescape_html, unescape_markdown, restore_lines):
        assert fn(fn(text)) == fn(text)


@pytest.mark.parametrize("unit", ["&amp;", "&lt;x&gt;&#39;", "\\_", "a\\_b\\_\\_c ", 'File "a.py", line 1, in f x ',
                                  "&", "&#", "\\", 'File "', "Traceback (most recent call last): ",
                                  'File "a", line 1 ValueError: '])
def test_ten_mb_in_well_under_a_second(unit):
    text = unit * (10_000_000 // len(unit))
    t0 = time.thread_time()
    normalise(text)
    assert time.thread_time() - t0 < 1.0
