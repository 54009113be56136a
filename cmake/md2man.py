#!/usr/bin/env python3
"""The man pages, from the docs: dataprof(1) and dataprof-COMMAND(1).

Each command's page is its section of docs/*.md (PAGES below), turned into
roff in the style of perf-record(1): NAME (the summary from the command table
of cli/main.c), SYNOPSIS (the section's first code block), DESCRIPTION (the
rest, its option table as OPTIONS, its subsections as sections of the page),
SEE ALSO. The docs stay the one source: a change there is a change here.

  md2man.py --source SRC_DIR --out DIR [--version V]
"""
import argparse
import datetime
import os
import re
import sys

# page: [(doc, heading or None for the whole page), ...]: the sections
# that make the page, in order
PAGES = {
    "record": [("record.md", "dataprof record")],
    "report": [("report.md", None)],
    "diff": [("diff.md", "dataprof diff")],
    "history": [("history.md", None)],
    "layout": [("layout.md", None)],
    "dump": [("record.md", "dataprof dump")],
    "list": [("record.md", "dataprof list")],
    "doctor": [("record.md", "dataprof doctor")],
    "accuracy": [("record.md", "dataprof accuracy")],
    "annotate": [("annotate-cmd.md", None)],
    "stat": [("record.md", "dataprof stat"), ("counters.md", "dataprof stat")],
    "markers": [("record.md", "dataprof markers"), ("markers.md", "dataprof markers")],
    "view": [("view.md", None)],
    "export": [("export.md", None)],
}

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
FENCE = re.compile(r"^\s*```")


def fail(msg):
    sys.stderr.write("md2man: %s\n" % msg)
    sys.exit(1)


def commands(main_c):
    """(name, summary) of each command, from cli/main.c's table."""
    with open(main_c, encoding="utf-8") as f:
        text = f.read()
    found = re.findall(r'\{"([a-z]+)", cmd_\w+, "((?:[^"\\]|\\.)*)"\}', text)
    if not found:
        fail("%s: no command table found" % main_c)
    return found


def section(path, heading):
    """The lines of the section of path under heading (to the next heading of
    its level or above), or of the whole page less its title; headings in
    code blocks are text."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, level, fenced = None, 0, False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        m = None if fenced or FENCE.match(line) else HEADING.match(line)
        if out is None:
            if heading is None:
                if m and len(m.group(1)) == 1:
                    out, level = [], 1
                continue
            if m and m.group(2) == heading:
                out, level = [], len(m.group(1))
            continue
        if m and len(m.group(1)) <= level:
            break
        out.append(line)
    if out is None:
        fail("%s: no section '%s'" % (path, heading or "# title"))
    return out, level


def esc(text):
    """roff-escaped text: backslashes, and - as a minus (options copy-paste)."""
    return text.replace("\\", "\\e").replace("-", "\\-")


def inline(text):
    """Markdown inline markup to roff fonts; links keep their text."""
    # code spans stand aside (as \x00N\x00) while emphasis, which may
    # enclose them, is made
    codes = []

    def aside(m):
        codes.append("\\fB" + esc(m.group(1)) + "\\fR")
        return "\x00%d\x00" % (len(codes) - 1)

    text = prose(re.sub(r"`([^`]+)`", aside, text))
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], text)


def prose(text):
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = text.replace("\\", "\\e")
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\\fI\1\\fR", text)
    return text


def line_out(text):
    """A text line that roff does not take for a request."""
    text = text.strip()
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def cells(row):
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    # a \| inside a cell is a literal bar
    parts = re.split(r"(?<!\\)\|", row)
    return [p.strip().replace("\\|", "|") for p in parts]


def body(lines, level, taken, roff):
    """The section's lines as roff; level is the section's own heading level.
    Returns the synopsis (a leading code block) if one is taken here; taken:
    the synopsis already taken (from an earlier section), not repeated."""
    synopsis = None
    i, n = 0, len(lines)
    para = []
    under_heading = False
    synopsis_taken = taken is not None

    def flush():
        # a paragraph at once: markup may span its lines
        if para:
            roff.append(".PP")
            roff.append(line_out(inline(" ".join(p.strip() for p in para))))
            para.clear()

    while i < n:
        line = lines[i]
        if FENCE.match(line):
            flush()
            block = []
            i += 1
            while i < n and not FENCE.match(lines[i]):
                block.append(lines[i])
                i += 1
            i += 1
            leading = not under_heading and not roff_text(roff)
            if leading and synopsis is None and not synopsis_taken:
                synopsis = block
                continue
            if leading and taken is not None and block == taken:
                continue
            roff.extend([".PP", ".RS 4", ".nf"])
            roff.extend("\\&" + esc(b) for b in block)
            roff.extend([".fi", ".RE"])
            continue
        if not para and (line.startswith("    ") or line.startswith("\t")) and line.strip():
            # an indented code block (after a blank line, as Markdown has it)
            flush()
            block = []
            while i < n and (lines[i].startswith(("    ", "\t")) or not lines[i].strip()):
                block.append(lines[i][4:] if lines[i].startswith("    ") else lines[i][1:])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            roff.extend([".PP", ".RS 4", ".nf"])
            roff.extend("\\&" + esc(b) for b in block)
            roff.extend([".fi", ".RE"])
            continue
        m = HEADING.match(line)
        if m:
            flush()
            title = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", m.group(2))
            title = title.replace("`", "")
            if len(m.group(1)) == level + 1:
                roff.append('.SH "%s"' % esc(title.upper()))
            else:
                roff.append('.SS "%s"' % esc(title))
            under_heading = True
            i += 1
            continue
        if line.lstrip().startswith("|"):
            flush()
            rows = []
            while i < n and lines[i].lstrip().startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            head, rest = rows[0], [r for r in rows[1:] if not re.match(r"^:?-+:?$", r[0] or "-")]
            if head and head[0].lower() == "option":
                if not under_heading:
                    roff.append(".SH OPTIONS")
                    under_heading = True
            else:
                roff.append(".PP")
                roff.append(line_out("\\fI" + " \\(em ".join(prose(c) for c in head) + "\\fR"))
            for r in rest:
                roff.append(".TP")
                roff.append(line_out(inline(r[0])))
                roff.append(line_out(" \\(em ".join(inline(c) for c in r[1:] if c)))
            continue
        lm = re.match(r"^(\s*)([-*]|\d+\.)\s+(.*)$", line)
        if lm:
            flush()
            bullet = "\\(bu" if lm.group(2) in "-*" else lm.group(2)
            item = [lm.group(3)]
            i += 1
            while i < n and lines[i].startswith("  ") and lines[i].strip() and not re.match(
                r"^\s*([-*]|\d+\.)\s+", lines[i]
            ):
                item.append(lines[i].strip())
                i += 1
            roff.append(".IP %s 4" % bullet)
            roff.append(line_out(inline(" ".join(item))))
            continue
        if not line.strip():
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    return synopsis


def roff_text(roff):
    """The lines of roff that are text (not requests)."""
    return [x for x in roff if not x.startswith(".")]


def header(name, version, summary, date):
    return [
        ".\\\" generated by cmake/md2man.py from docs/; edit the docs, not this page",
        '.TH "%s" "1" "%s" "dataprof %s" "dataprof manual"' % (name.upper(), date, version),
        ".SH NAME",
        "%s \\- %s" % (esc(name), prose(summary)),
    ]


def command_page(src, cmd, summary, version, date):
    roff, desc, synopsis = [], [], None
    docs = []
    for doc, heading in PAGES[cmd]:
        lines, level = section(os.path.join(src, "docs", doc), heading)
        part = []
        s = body(lines, level, synopsis, part)
        if s is not None:
            synopsis = s
        desc.extend(part)
        docs.append(doc)
    roff = header("dataprof-" + cmd, version, summary, date)
    roff.append(".SH SYNOPSIS")
    if synopsis:
        roff.append(".nf")
        roff.extend("\\&" + esc(s) for s in synopsis if s.strip())
        roff.append(".fi")
    else:
        roff.append("\\fBdataprof %s\\fR [\\fIOPTIONS\\fR]" % esc(cmd))
    # the description is what comes before the first section of the page
    roff.append(".SH DESCRIPTION")
    roff.extend(desc)
    roff.append(".SH SEE ALSO")
    roff.append(
        "\\fBdataprof\\fR(1); %s in dataprof's documentation (share/doc/dataprof/docs/), "
        "from which this page is made." % ", ".join(sorted(set(docs)))
    )
    return roff


def main_page(src, cmds, version, date):
    roff = header("dataprof", version, "which data does a program stall on", date)
    roff += [
        ".SH SYNOPSIS",
        "\\fBdataprof\\fR [\\fB\\-\\-version\\fR] [\\fB\\-\\-help\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]",
        ".SH DESCRIPTION",
        "dataprof samples a program with perf events, recovers the data address of each "
        "sample, and reports the data objects, struct members, heap allocation sites and "
        "source lines the program waits on: record, then report.",
        ".PP",
        "\\fBdataprof COMMAND \\-\\-help\\fR lists a command's options; "
        "\\fBdataprof \\-\\-version\\fR prints the version and the git revision it was built from.",
        ".SH COMMANDS",
    ]
    for name, summary in cmds:
        roff += [".TP", "\\fBdataprof\\-%s\\fR(1)" % esc(name), prose(summary)]
    roff += [
        ".SH EXAMPLE",
        ".nf",
        "\\&dataprof record \\-\\-heap \\-e cpu\\-clock \\-\\- ./program",
        "\\&dataprof report",
        ".fi",
        ".SH FILES",
        ".TP",
        "\\fIlib/dataprof/\\fR (or \\fIlib/<triplet>/dataprof/\\fR)",
        "the heap tracker and the marker collector that dataprof puts into the programs it "
        "records, found from the dataprof binary's own place",
        ".SH SEE ALSO",
        ", ".join("\\fBdataprof\\-%s\\fR(1)" % esc(c) for c, _ in cmds)
        + "; README.md and docs/ in share/doc/dataprof/.",
    ]
    return roff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--version", default="0")
    a = ap.parse_args()
    # SOURCE_DATE_EPOCH: reproducible pages (Debian's builds set it)
    when = os.environ.get("SOURCE_DATE_EPOCH")
    stamp = datetime.datetime.fromtimestamp(
        int(when) if when else os.path.getmtime(os.path.join(a.source, "cli", "main.c")),
        datetime.timezone.utc,
    )
    date = stamp.strftime("%Y-%m-%d")
    cmds = commands(os.path.join(a.source, "cli", "main.c"))
    missing = [c for c, _ in cmds if c not in PAGES]
    if missing:
        fail("no docs section for command(s) %s: add them to PAGES in %s" % (", ".join(missing), __file__))
    os.makedirs(a.out, exist_ok=True)
    pages = {"dataprof": main_page(a.source, cmds, a.version, date)}
    for c, summary in cmds:
        pages["dataprof-" + c] = command_page(a.source, c, summary, a.version, date)
    for name, roff in pages.items():
        with open(os.path.join(a.out, name + ".1"), "w", encoding="utf-8") as f:
            f.write("\n".join(roff) + "\n")


if __name__ == "__main__":
    main()
