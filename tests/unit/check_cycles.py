#!/usr/bin/env python3
"""check_cycles.py DIR... - no two source files depend on each other in a loop.

Two graphs over the C sources under each DIR (recursively; .c, .h, .cu):
  - includes: file -> each header it names in a quoted #include that is found
    beside it or anywhere under the DIRs (a header named in two places is
    resolved beside the includer first, then by its unique path tail);
  - calls: foo.c -> bar.c when foo.c names a function or variable that bar.c
    defines with external linkage (not static) and foo.c does not define
    itself. Names defined in more than one file (main, an interposer's
    cudaLaunchKernel) are left out: which one a reference means depends on the
    link, not the source.
A loop in either graph is a circle: a change to any file of it can need a
change to all the others, and neither can be understood or tested first. The
fix is to move what both sides share to one lower file (CONVENTIONS.md).
The scan reads sources, not objects, so it also covers the collector where no
CUDA Toolkit builds it (CI). It strips comments, strings and character
literals first; a definition is found at file scope: a name followed by its
parameter list and a body, or a variable with an initialiser or a plain
declaration, in a statement that does not start with static, extern or typedef.

Prints each circle (its files in loop order and the names that make each
step) and "N files, N include edges, N call edges, N circles"; exits 1 on any.
"""
import os
import re
import sys

EXTS = (".c", ".h", ".cu")
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S")
KEYWORDS = {
    "if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "goto", "break",
    "continue", "default", "struct", "union", "enum", "const", "volatile", "unsigned", "signed",
    "int", "char", "long", "short", "float", "double", "void", "static", "extern", "typedef",
    "inline", "register", "restrict", "_Bool", "__attribute__", "__thread", "_Thread_local",
    "__typeof__", "typeof", "__extension__", "auto", "__restrict", "__inline",
}


def strip_code(text, keep_strings=False):
    """Comments, string and character literals out (newlines kept); with
    keep_strings, only the comments."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j) or " ")
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c in "\"'" and not keep_strings:
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(' "" ' if c == '"' else " 0 ")
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_preproc(text):
    """(code without preprocessor lines, [include names], preprocessor text)."""
    code, pre, incs = [], [], []
    lines = text.split("\n")
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.lstrip().startswith("#"):
            full = line
            while full.endswith("\\") and k + 1 < len(lines):
                k += 1
                full = full[:-1] + " " + lines[k]
            m = re.match(r'\s*#\s*include\s*"([^"]+)"', full)
            if m:
                incs.append(m.group(1))
            else:
                pre.append(full)
            code.append("")
        else:
            code.append(line)
        k += 1
    return "\n".join(code), incs, "\n".join(pre)


def definitions(tokens):
    """Names a file defines with external linkage (file-scope tokens only)."""
    defs = set()
    depth = 0
    stmt = []  # tokens of the current file-scope statement
    for t in tokens:
        if depth > 0:
            if t == "{":
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0 and stmt and stmt[-1] == "$body":
                    stmt = []  # a function body ends the statement
            continue
        if t == "{":
            depth = 1
            first = stmt[0] if stmt else ""
            plain = first not in ("static", "extern", "typedef") and "static" not in stmt
            if stmt and stmt[-1] == ")" and plain:
                name = function_name(stmt)
                if name:
                    defs.add(name)
            elif stmt and stmt[-1] == "=" and plain:
                name = variable_name(stmt[:-1])
                if name:
                    defs.add(name)
            if stmt and stmt[-1] == ")":
                stmt.append("$body")
            else:
                stmt.append("$braces")
            continue
        if t == ";":
            first = stmt[0] if stmt else ""
            if stmt and first not in ("static", "extern", "typedef") and "static" not in stmt:
                head = stmt[: stmt.index("=")] if "=" in stmt else stmt
                if "(" not in head and "$braces" not in head:
                    name = variable_name(head)
                    if name:
                        defs.add(name)
            stmt = []
            continue
        stmt.append(t)
    return defs


def function_name(stmt):
    """The name before the parameter list that closes stmt: `int f(...)`."""
    depth = 0
    for k in range(len(stmt) - 1, -1, -1):
        if stmt[k] == ")":
            depth += 1
        elif stmt[k] == "(":
            depth -= 1
            if depth == 0:
                if k > 0 and re.match(r"[A-Za-z_]\w*$", stmt[k - 1]) and stmt[k - 1] not in KEYWORDS:
                    return stmt[k - 1]
                return None
    return None


def variable_name(head):
    """The declared name in `type name[...]` (the last identifier outside [])."""
    depth = 0
    for t in reversed(head):
        if t == "]":
            depth += 1
        elif t == "[":
            depth -= 1
        elif depth == 0 and re.match(r"[A-Za-z_]\w*$", t):
            return None if t in KEYWORDS or len(head) < 2 else t
    return None


def find_cycles(nodes, edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def loop_in(comp, edges):
    """One loop through comp's first file, by breadth-first search back to it."""
    start, members = comp[0], set(comp)
    prev, queue = {start: None}, [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(edges.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + [start]


def main(dirs):
    dirs = [os.path.abspath(d) for d in dirs]
    root = os.path.commonpath(dirs)
    if len(dirs) == 1:
        root = os.path.dirname(root)
    files = []
    for d in dirs:
        for base, subdirs, names in os.walk(d):
            subdirs.sort()
            files += [os.path.join(base, f) for f in sorted(names) if f.endswith(EXTS)]
    rel = {f: os.path.relpath(f, root) for f in files}
    by_tail = {}
    for f in files:
        parts = rel[f].split(os.sep)
        for k in range(len(parts)):
            by_tail.setdefault("/".join(parts[k:]), []).append(f)
    incl, calls, uses, defs = {}, {}, {}, {}
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            raw = fh.read()
        # the include names before the strings go (comments first: an
        # include in a comment is no include)
        incs = re.findall(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', strip_code(raw, keep_strings=True),
                          re.M)
        code, _, pre = split_preproc(strip_code(raw))
        targets = set()
        for inc in incs:
            beside = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if beside in rel:
                targets.add(beside)
            elif len(by_tail.get(inc, [])) == 1:
                targets.add(by_tail[inc][0])
        incl[f] = targets - {f}
        tokens = TOKEN.findall(code)
        uses[f] = set(t for t in tokens + TOKEN.findall(pre) if re.match(r"[A-Za-z_]", t))
        if not f.endswith(".h"):
            defs[f] = definitions(tokens)
    owner = {}
    for f, names in defs.items():
        for s in names:
            owner.setdefault(s, []).append(f)
    why = {}
    for f in defs:
        for s in uses[f] - defs[f]:
            if len(owner.get(s, [])) == 1:
                g = owner[s][0]
                calls.setdefault(f, set()).add(g)
                why.setdefault((f, g), []).append(s)
    n_circles = 0
    for kind, edges, say in (("include", incl, lambda a, b: "includes"),
                             ("call", calls, lambda a, b: "uses " + ", ".join(sorted(why[(a, b)])[:4]))):
        for comp in find_cycles(files, edges):
            n_circles += 1
            loop = loop_in(comp, edges)
            print("FAIL: %s circle of %d files (%s), for one: %s" % (
                kind, len(comp), ", ".join(rel[f] for f in comp), " -> ".join(rel[f] for f in loop)))
            for a, b in zip(loop, loop[1:]):
                print("    %s %s (%s)" % (rel[a], say(a, b), rel[b]))
    print("%d files, %d include edges, %d call edges, %d circles" % (
        len(files), sum(len(v) for v in incl.values()), sum(len(v) for v in calls.values()),
        n_circles))
    return 1 if n_circles else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: check_cycles.py DIR...", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
