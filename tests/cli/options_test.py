#!/usr/bin/env python3
"""tests/cli/options_test.py - README's option tables say what the usage texts say.

Every subcommand's usage text lists its options from the table it parses
with (cli/args.h cli_usage_options), so `retrace CMD --help` is the truth.
This test checks README.md against it:
  - each option in the first column of a README table under a subcommand's
    section (`-o FILE`, `--compression zstd\\|none`) is an option of that
    subcommand, written with the same value (or none for a flag);
  - each option the usage text lists is mentioned in that subcommand's
    sections of README (a heading or text naming `retrace CMD`), by its
    long name or as `-X` where it has a short one.
  - README's list of exit codes (## Commands) is `retrace help`'s, which
    cli/errors.c prints from the one table of what each code means, and every
    code a subcommand's usage text gives is one of those.
Usage: options_test.py RETRACE README.md   (TAP on stdout)
"""
import re
import subprocess
import sys

RETRACE, README = sys.argv[1], sys.argv[2]
OPTION_LINE = re.compile(r"^  (?:-(\w), )?--([a-z0-9-]+)(?: ('[^']*'|\S+))?(?:\s{2,}|$)")
results = []


def check(ok, what):
    results.append((ok, what))


def commands():
    out = subprocess.run([RETRACE, "help"], capture_output=True, text=True, check=False).stdout
    return [m.group(1) for m in re.finditer(r"^\s+([a-z]+)\s{2,}", out, re.M)]


def usage_options(cmd):
    """{long name: (short name or None, value or None)} from `retrace CMD --help`."""
    out = subprocess.run([RETRACE, cmd, "--help"], capture_output=True, text=True, check=False).stdout
    opts = {}
    for line in out.splitlines():
        m = OPTION_LINE.match(line)
        if m:
            opts[m.group(2)] = (m.group(1), m.group(3))
    return opts


def sections(text):
    """(heading, body) of every ### / #### section."""
    parts = re.split(r"^(#{3,4} .*)$", text, flags=re.M)
    return [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def table_options(body):
    """(option, value or None) of each first-column code span of the section's tables."""
    found = []
    for line in body.splitlines():
        cells = line.split(" | ")
        if not line.startswith("| `-") or len(cells) < 2:
            continue
        for span in re.findall(r"`([^`]+)`", cells[0][2:]):
            span = span.replace("\\|", "|")
            for m in re.finditer(r"(--?[a-zA-Z][\w-]*)(?: ((?:'[^']*')|\[[A-Z][^\s\]]*\]|[^\s\[\]-][^\s\[\]]*))?", span):
                found.append((m.group(1), m.group(2)))
    return found


def exit_codes(text):
    """[(code, meaning)] of an "exit: 0 ok, 2 usage, ..." paragraph."""
    m = re.search(r"^exit: (.*?)(?:\n\n|\n(?=\S+:)|\Z)", text, re.M | re.S)
    if not m:
        return []
    flat = " ".join(m.group(1).split())
    return [(int(c), w) for c, w in re.findall(r"(\d+) (.*?)(?:, (?=\d+ )|$)", flat)]


def check_exit_codes(readme, cmds):
    out = subprocess.run([RETRACE, "help"], capture_output=True, text=True, check=False).stdout
    codes = exit_codes(out)
    check(len(codes) >= 6, f"retrace help lists the exit codes: {codes}")
    m = re.search(r"Exit codes are\s+the same for all: (.*?)\.\n\n", readme, re.S)
    listed = []
    for item in " ".join((m.group(1) if m else "").split()).split(" · "):
        item = item.replace("`", "")
        c, _, w = item.partition(" ")
        listed.append((int(c) if c.isdigit() else -1, w))
    check(listed == codes, f"README's exit codes are retrace help's: {listed} vs {codes}")
    known = {c for c, _ in codes}
    for cmd in cmds:
        usage = subprocess.run([RETRACE, cmd, "--help"], capture_output=True, text=True, check=False).stdout
        mine = exit_codes(usage)
        check(mine and {c for c, _ in mine} <= known, f"{cmd}: its usage gives exit codes of the table: {mine}")


def main():
    with open(README, encoding="utf-8") as f:
        readme = f.read()
    cmds = commands()
    check(len(cmds) >= 10, f"retrace help lists the subcommands ({', '.join(cmds)})")
    for cmd in cmds:
        opts = usage_options(cmd)
        by_short = {s: name for name, (s, _) in opts.items() if s}
        mine = [(h, b) for h, b in sections(readme) if f"retrace {cmd}" in h or f"retrace {cmd} " in b]
        text = "".join(h + b for h, b in mine)
        for heading, body in mine:
            if f"retrace {cmd}" not in heading:
                continue
            for option, value in table_options(body):
                name = by_short.get(option[1:]) if not option.startswith("--") else option[2:]
                check(name in opts, f"{cmd}: README's table names {option}, an option of retrace {cmd}")
                if name in opts:
                    check(value == opts[name][1], f"{cmd}: README writes {option} {value or '(a flag)'}, "
                          f"the usage text {option} {opts[name][1] or '(a flag)'}")
        for name, (short, _) in opts.items():
            spelt = r"--" + re.escape(name) + (r"|(?<![\w-])-" + short if short else "")
            check(re.search(r"(" + spelt + r")(?![\w-])", text) is not None,
                  f"{cmd}: --{name} is documented in README's sections on retrace {cmd}")
    check_exit_codes(readme, cmds)
    print(f"1..{len(results)}")
    for i, (ok, what) in enumerate(results, 1):
        print(f"{'ok' if ok else 'not ok'} {i} - {what}")
    return 0 if all(ok for ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
