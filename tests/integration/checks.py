"""check() and done() for the integration tests' Python checks.

The shell's check (lib.sh) runs a command; these take a condition already
computed in Python, in the same words: "ok   what" or "FAIL what".

    from checks import check, done   # lib.sh puts tests/integration on PYTHONPATH
    check(n == want, f"all {want} calls recorded ({n})")
    done()                           # exit 1 if any check failed, else 0
"""
import json
import sys

failures = 0


def json_docs(text):
    """The JSON documents TEXT holds one after another (info of several
    files, a summary after a workload's own JSON), in order."""
    dec, i, docs = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return docs
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)


def check(cond, what):
    """Print ok/FAIL and WHAT; count a failure.  Returns whether COND held."""
    global failures
    print(("ok   " if cond else "FAIL ") + what)
    failures += not cond
    return bool(cond)


def done():
    sys.exit(1 if failures else 0)
