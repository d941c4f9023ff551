#!/usr/bin/env python3
"""Write the man page of a fabtrace command from its own --help (make man).

    tools/mkman.py FABTRACE [COMMAND] > fabtrace-COMMAND.1

The page is made from the binary's --help at build time, so the two cannot
drift: Usage becomes SYNOPSIS, the text before the first list DESCRIPTION,
"  -x, --long ARG   text" lines become tagged paragraphs, "Examples:" and
"Exit status" their sections, any other indented block stays as it is.
Without COMMAND it writes fabtrace(1), the command list.
"""
import re
import subprocess
import sys

OPT = re.compile(r"^  (-[^ ].*?|    --[^ ].*?)(?:  +(\S.*))?$")


def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in (".", "'") else s


def run(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def paragraphs(lines):
    """Blank-line separated blocks of lines."""
    block = []
    for ln in lines:
        if ln.strip():
            block.append(ln)
        elif block:
            yield block
            block = []
    if block:
        yield block


def section_of(head):
    h = head.rstrip(":").strip().lower()
    if h.startswith("options"):
        return "OPTIONS"
    if h.startswith("example"):
        return "EXAMPLES"
    if h.startswith("exit status"):
        return "EXIT STATUS"
    return None


def render(ft, cmd, version, summary, commands):
    text = run(ft, cmd, "--help") if cmd else run(ft, "--help")
    lines = text.rstrip("\n").split("\n")
    name = f"fabtrace-{cmd}" if cmd else "fabtrace"
    out = [f'.TH {name.upper()} 1 "" "fabtrace {version}" "fabtrace manual"', ".SH NAME",
           f"{esc(name)} \\- {esc(summary)}", ".SH SYNOPSIS", ".nf"]
    first = lines.pop(0)
    out.append(esc(first[len("Usage: "):] if first.startswith("Usage: ") else first))
    while lines and lines[0].strip() and lines[0].startswith(" "):
        out.append(esc(lines.pop(0).strip()))
    out += [".fi", ".SH DESCRIPTION"]
    for block in paragraphs(lines):
        head = block[0]
        sec = section_of(head) if head.endswith(":") and not head.startswith(" ") else None
        if sec:
            out.append(f".SH {sec}")
            block = block[1:]
        elif head.lower().startswith("exit status:"):
            # "Exit status: 0, 1 when ..." on one paragraph: the section, then its text
            out += [".SH EXIT STATUS", ".PP", esc(" ".join(x.strip() for x in block)[len("exit status:"):].strip())]
            continue
        elif not head.startswith(" ") and block[-1].endswith(":") and len(block) <= 3:
            # a heading of a group of options: "Counters (RDMA ports ...):"
            out.append(".SS " + esc(" ".join(x.strip() for x in block).rstrip(":")))
            continue
        if not block:
            continue
        if all(not x.startswith(" ") for x in block):
            out += [".PP", esc(" ".join(x.strip() for x in block))]
            continue
        # options as tagged paragraphs, anything else verbatim
        i = 0
        while i < len(block):
            m = OPT.match(block[i])
            if m:
                desc = [m.group(2)] if m.group(2) else []
                i += 1
                while i < len(block) and block[i].startswith("      ") and not OPT.match(block[i]):
                    desc.append(block[i].strip())
                    i += 1
                out += [".TP", ".B " + esc(m.group(1).strip()), esc(" ".join(desc))]
                continue
            start = i
            while i < len(block) and not OPT.match(block[i]):
                i += 1
            if all(not x.startswith(" ") for x in block[start:i]):
                out += [".PP", esc(" ".join(x.strip() for x in block[start:i]))]
            else:
                out += [".PP", ".nf", *(esc(x) for x in block[start:i]), ".fi"]
    see = ["fabtrace(1)"] if cmd else [f"fabtrace-{c}(1)" for c in commands]
    out += [".SH SEE ALSO", ", ".join(esc(s) for s in see + ["the documents in docs/ of the fabtrace sources"])]
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    ft = sys.argv[1]
    cmd = sys.argv[2] if len(sys.argv) == 3 else None
    version = run(ft, "--version").split()[-1]
    table = {}
    top = run(ft, "--help").split("\n")
    # the command table: the lines after "Commands:" up to the next blank one
    for ln in top[top.index("Commands:") + 1:] if "Commands:" in top else []:
        m = re.match(r"^  ([a-z]+)  +(\S.*)$", ln)
        if not m:
            break
        table[m.group(1)] = m.group(2)
    if cmd and cmd not in table:
        sys.exit(f"mkman: '{cmd}' is not a fabtrace command ({', '.join(table)})")
    summary = table[cmd] if cmd else "congestion tracer for the fabric under GPU training clusters"
    sys.stdout.write(render(ft, cmd, version, summary, list(table)))


if __name__ == "__main__":
    main()
