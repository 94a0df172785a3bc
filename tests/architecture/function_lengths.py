#!/usr/bin/env python3
"""The longest functions of fovea's C++ code: no function body in framework/, experiments/
or python/ runs past 120 lines (issue 39; docs/architecture.md, "How a header reads").

A function is read as a brace group whose statement ends in a parameter list: `f(...) {`,
`f(...) const noexcept -> T {`, a constructor's `X(...) : a_(b), c_{d} {`. Comments, string
and character literals are blanked first, so a brace in them does not count; `if`, `for`,
`while`, `switch`, `catch` and lambdas assigned at namespace scope are not functions. A
function's lines run from the line its statement starts on to the line of its closing brace;
lambdas and local classes inside a function count as part of it. Written without a compiler
so the test suite runs it in a second; what it does not read: functions a macro writes. A
source file must be a regular file of at most 1 MiB: any other is named and fails --check
(docs/formats.md, "Development tools").

    python3 tests/architecture/function_lengths.py              # the longest ten
    python3 tests/architecture/function_lengths.py --check      # exit 1 past the limit (ctest)
"""
import argparse
import os
import re
import stat
import sys
import tempfile

MAX_LINES = 120
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FOLDERS = ("framework", "experiments", "python")
ENDINGS = (".cpp", ".hpp", ".inl", ".h", ".cc")
MIN_FUNCTIONS = 1000  # 1872 on 2026-11-28: fewer read means the walk missed the tree
MAX_BYTES = 1 << 20  # a source file larger than 1 MiB is refused, not read (docs/formats.md)
NAMESPACE = re.compile(r"^\s*(inline\s+)?(namespace|extern)\b")
CONTROL = re.compile(r"^(if|for|while|switch|catch|return|else\s+if|do|else)\b")
# After the parameter list: qualifiers, a trailing return type, or a constructor's member
# initializers (nested brace groups already folded into "{}").
AFTER_PARAMETERS = re.compile(
    r"\)\s*(?:(?:const|noexcept(?:\s*\([^()]*\))?|override|final|mutable|volatile|&&|&)\s*)*"
    r"(?:->\s*[\w:<>,\s*&\[\]]+)?\s*(?::\s*[\w:<>]+\s*(?:\([^;]*\)|\{\})(?:\s*,\s*[\w:<>]+\s*(?:\([^;]*\)|\{\}))*)?\s*$",
    re.S)


def blank_literals_and_comments(text):
    """`text` with comments, string and character literals (raw strings too) replaced by
    spaces, newlines kept, so lines and braces outside them stay where they were."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delimiter = text[i + 2:open_paren]
            end = text.find(")" + delimiter + '"', open_paren)
            end = n if end < 0 else end + len(delimiter) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(" " * (min(j + 1, n) - i))
            i = j + 1
        elif c == "#" and (i == 0 or text[i - 1] == "\n"):
            end = i
            while True:  # a preprocessor line, with its continuations
                end = text.find("\n", end)
                if end < 0 or text[end - 1] != "\\":
                    break
                end += 1
            end = n if end < 0 else end
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def read_source(path):
    """The text of `path`, or (None, why) when it is not a regular file of at most MAX_BYTES:
    opened without blocking (a FIFO in the tree answers at once) and checked on the open
    descriptor, so a file swapped after a check is not read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as problem:
        return None, problem.strerror
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, "not a regular file"
        if info.st_size > MAX_BYTES:
            return None, "%d bytes, more than the %d a source file may be" % (info.st_size, MAX_BYTES)
        data = os.read(fd, MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            return None, "grew past %d bytes while read" % MAX_BYTES
        return data.decode("utf-8", errors="replace"), None
    finally:
        os.close(fd)


def is_function_header(statement):
    statement = " ".join(statement.split())
    if "(" not in statement or CONTROL.match(statement):
        return False
    before_parameters = statement[:statement.find("(")]
    if "=" in before_parameters and "operator" not in before_parameters:
        return False  # a variable initialised from a lambda or a call
    if before_parameters.rstrip().endswith("]"):
        return False  # a lambda
    return AFTER_PARAMETERS.search(statement) is not None


def functions_of(text):
    """(first line, last line) of every function definition in `text` (C++ source)."""
    code = blank_literals_and_comments(text)
    found = []
    # One statement per open brace group: its text since the last ';', '{' or '}' there.
    statements, starts = [""], [None]
    line = 1
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c == "\n":
            line += 1
        if c == "{":
            statement = statements[-1]
            if is_function_header(statement):
                first = starts[-1] if starts[-1] is not None else line
                depth, j = 1, i + 1
                while j < n and depth:
                    depth += {"{": 1, "}": -1}.get(code[j], 0)
                    j += 1
                last = line + code.count("\n", i, j)
                found.append((first, last))
                line = last
                i = j
                statements[-1], starts[-1] = "", None
                continue
            statements.append("")
            starts.append(None)
        elif c == "}":
            if len(statements) > 1:
                statements.pop()
                starts.pop()
            if NAMESPACE.match(statements[-1]):
                statements[-1], starts[-1] = "", None  # a namespace ends with its brace
            else:
                statements[-1] += "{}"  # a brace group inside a statement (an initializer)
        elif c == ";":
            statements[-1], starts[-1] = "", None
        else:
            if starts[-1] is None and not c.isspace():
                starts[-1] = line
            statements[-1] += c
        i += 1
    return found


def self_test():
    """The reader on small cases it must get right, each (source, the (first, last) lines it
    must find): a check that could read nothing would pass every tree."""
    body = "\n".join("  x += %d;" % i for i in range(130))
    cases = [
        ("int f(int a) {\n" + body + "\n}\n", [(1, 132)]),
        ("struct S {\n  S(int a) : a_(a), b_{a} {\n    g();\n  }\n  int a_, b_;\n};\n", [(2, 4)]),
        ("namespace n {\nvoid f() const noexcept {\n}\n}  // namespace n\nint g()\n{\n  return 1;\n}\n",
         [(2, 3), (5, 8)]),
        ('void f() {\n  const char* s = "}}}{";\n  char c = \'{\';\n  // }\n  /* { */\n  return;\n}\n', [(1, 7)]),
        ("void f() {\n  auto l = [](int a) {\n    return a;\n  };\n  if (l(1)) {\n  }\n}\n", [(1, 7)]),
        ("const auto l = [](int a) {\n  return a;\n};\nint v[] = {1, 2};\nenum class E { a, b };\n", []),
        ("auto f(int a) -> int {\n  return a;\n}\nbool operator==(const S& a, const S& b) {\n  return true;\n}\n",
         [(1, 3), (4, 6)]),
        ('#define M(x) { x }\nvoid f() {\n  std::string r = R"({"a": 1)";\n}\n', [(2, 4)]),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as folder:
        at_limit, past_limit, fifo = (os.path.join(folder, n) for n in ("at.cpp", "past.cpp", "fifo.cpp"))
        with open(at_limit, "w") as f:
            f.write("x" * MAX_BYTES)
        with open(past_limit, "w") as f:
            f.write("x" * (MAX_BYTES + 1))
        os.mkfifo(fifo)
        for path, readable in ((at_limit, True), (past_limit, False), (fifo, False)):
            text, why = read_source(path)
            if (text is not None) != readable:
                failed += 1
                print("self-test FAILED: %s read %s (%s)" % (os.path.basename(path), text is not None, why))
    for source, expected in cases:
        got = functions_of(source)
        if got != expected:
            failed += 1
            print("self-test FAILED: expected %s, read %s in:\n%s" % (expected, got, source))
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=ROOT, help="the source tree (default: this one)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a function is longer than %d lines" % MAX_LINES)
    parser.add_argument("--list", type=int, default=10, help="the longest functions to list (default 10)")
    options = parser.parse_args()
    if self_test():
        return 1

    lengths, refused = [], []
    for folder in FOLDERS:
        for base, _, files in os.walk(os.path.join(options.root, folder)):
            for name in sorted(files):
                if not name.endswith(ENDINGS):
                    continue
                path = os.path.join(base, name)
                text, why = read_source(path)
                if text is None:
                    refused.append("%s: %s" % (os.path.relpath(path, options.root), why))
                    continue
                lines = text.split("\n")
                for first, last in functions_of(text):
                    lengths.append((last - first + 1, os.path.relpath(path, options.root), first,
                                    lines[first - 1].strip()[:80]))
    lengths.sort(key=lambda x: (-x[0], x[1], x[2]))
    print("%d functions read; the longest (at most %d lines):" % (len(lengths), MAX_LINES))
    for length, path, first, text in lengths[:options.list]:
        print("  %4d  %s:%d  %s" % (length, path, first, text))
    for line in refused:
        print("  not read: " + line)
    missing = [f for f in FOLDERS if not os.path.isdir(os.path.join(options.root, f))]
    if options.check and (missing or len(lengths) < MIN_FUNCTIONS):
        print("FAILED: %d functions read (at least %d expected)%s: the tree was not read" %
              (len(lengths), MIN_FUNCTIONS, ", no folder " + ", ".join(missing) if missing else ""))
        return 1
    over = [x for x in lengths if x[0] > MAX_LINES]
    if options.check and refused:
        print("FAILED: %d files not read; their functions are unchecked" % len(refused))
        return 1
    if options.check and over:
        print("FAILED: %d functions over %d lines" % (len(over), MAX_LINES))
        for length, path, first, _ in over:
            print("  %4d  %s:%d" % (length, path, first))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
