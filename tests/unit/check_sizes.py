#!/usr/bin/env python3
"""check_sizes.py [--limit N] DIR... - no long source file without its reason.

CONVENTIONS.md: a file that grows past ~1,200 lines is split by concern
unless its top says why not. For each .c, .h and .cu file under the DIRs
(recursively) longer than N lines (default 1200), the file's opening
comment (the first /* ... */ block) must hold a paragraph that starts
"Why one file". Prints each file that has none ("FAIL: path: N lines, no
'Why one file' at its top") and "N files, N over N lines, N without a
reason"; exits 1 on any.
"""
import os
import sys

EXTS = (".c", ".h", ".cu")


def opening_comment(text):
    start = text.find("/*")
    if start < 0 or text[:start].strip():
        return ""
    end = text.find("*/", start)
    return text[start:end] if end >= 0 else ""


def main(argv):
    limit = 1200
    if len(argv) >= 2 and argv[0] == "--limit":
        limit = int(argv[1])
        argv = argv[2:]
    if not argv:
        print("usage: check_sizes.py [--limit N] DIR...", file=sys.stderr)
        return 2
    files = over = bad = 0
    for top in argv:
        for root, dirs, names in os.walk(top):
            dirs.sort()
            for name in sorted(names):
                if not name.endswith(EXTS):
                    continue
                path = os.path.join(root, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                files += 1
                lines = text.count("\n")
                if lines <= limit:
                    continue
                over += 1
                if "Why one file" not in opening_comment(text):
                    bad += 1
                    print(f"FAIL: {os.path.relpath(path, top)}: {lines} lines, "
                          f"no 'Why one file' at its top")
    print(f"{files} files, {over} over {limit} lines, {bad} without a reason")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
