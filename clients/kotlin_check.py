"""Finds the types that a generated Kotlin client names but never declares.

openapi-generator's Kotlin client names a type for each schema; for some it makes up a name that
it never declares (`AnyOfLessThanGreaterThan` for `anyOf: [{type: 'null'}]`, `OneOfLessThan...`),
and the client does not compile. No Kotlin compiler is needed to see that: every type named where
a type goes (a property's, a parameter's or a function's type, a supertype, `is`/`as`, an import
of the client's own package) must be declared in the generated sources, be imported from a
library, or be one of Kotlin's own.

    python clients/kotlin_check.py GENERATED_SOURCES PACKAGE

Prints each undefined type with where it is named, and exits 1 if there is any.
"""

from __future__ import annotations

import pathlib
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field

# What Kotlin imports by default (kotlin.*, kotlin.collections.*, ...) and generated code names
# unqualified.
BUILTINS = frozenset(
    """Any Unit Nothing String CharSequence Char Boolean Byte Short Int Long Float Double Number
    Array ByteArray CharArray ShortArray IntArray LongArray FloatArray DoubleArray BooleanArray
    List MutableList ArrayList Map MutableMap HashMap LinkedHashMap Set MutableSet HashSet
    LinkedHashSet Collection MutableCollection Iterable MutableIterable Iterator Sequence
    Pair Triple Comparable Comparator Enum Lazy Result Function
    Throwable Exception Error RuntimeException IllegalStateException IllegalArgumentException
    UnsupportedOperationException NullPointerException IndexOutOfBoundsException
    ClassCastException NumberFormatException NoSuchElementException ArithmeticException
    Annotation Deprecated Suppress""".split()
)
# Words that may follow `:`, `is` or `as` without being a type.
NOT_TYPES = frozenset({"in", "out", "where", "get", "set", "field", "it", "this", "super"})

IDENT = r"[A-Za-z_]\w*"
QUALIFIED = re.compile(rf"{IDENT}(?:\.{IDENT})*")
DECLARATION = re.compile(rf"\b(?:class|interface|object|typealias)\s+({IDENT})(?:\s*<([^>]*)>)?")
FUN_TYPE_PARAMETERS = re.compile(r"\bfun\s*<([^>]*)>")
# Functions and properties, for the imports of the client's own (`...infrastructure.toMultiValue`).
MEMBER = re.compile(
    rf"\b(?:fun\s+(?:<[^>]*>\s*)?|va[lr]\s+)(?:{IDENT}(?:<[^>]*>)?\??\.)*({IDENT})\s*[(:=<]"
)
IMPORT = re.compile(rf"^\s*import\s+({IDENT}(?:\.{IDENT})*)(\.\*)?(?:\s+as\s+({IDENT}))?", re.M)
PACKAGE = re.compile(rf"^\s*package\s+({IDENT}(?:\.{IDENT})*)", re.M)
# Where a type follows: `name: T`, `): T`, `is T`, `as T`, `as? T` (not `::`, nor `?:`).
TYPE_START = re.compile(r"(?<![:?]):(?!:)|\bis\s+(?=[A-Za-z_])|\bas\??\s+(?=[A-Za-z_])")
ARROW = re.compile(r"\s*->")
VARIANCE = re.compile(r"(?:in|out)\s+")


def strip(source: str) -> str:
    """The code without comments and string literals, its lines where they were."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        if source.startswith("//", i):
            j = source.find("\n", i)
            i = n if j < 0 else j
            continue
        for opening, closing in (("/*", "*/"), ('"""', '"""')):
            if source.startswith(opening, i):
                j = source.find(closing, i + len(opening))
                j = n if j < 0 else j + len(closing)
                out.append('""' + "\n" * source.count("\n", i, j))
                i = j
                break
        else:
            if source[i] in "\"'":
                j = i + 1
                while j < n and source[j] not in (source[i], "\n"):
                    j += 2 if source[j] == "\\" else 1
                out.append('""')
                i = j + 1
            else:
                out.append(source[i])
                i += 1
    return "".join(out)


def _skip_space(code: str, i: int) -> int:
    while i < len(code) and code[i] in " \t":
        i += 1
    return i


def _skip_annotations(code: str, i: int) -> int:
    i = _skip_space(code, i)
    while code.startswith("@", i):  # a type's annotations, e.g. @UnsafeVariance
        name = QUALIFIED.match(code, i + 1)
        i = _skip_space(code, name.end() if name else i + 1)
    return i


def _closing(code: str, i: int, opening: str, closing: str) -> int:
    """Where the bracket opened at code[i] closes."""
    depth = 0
    for j in range(i, len(code)):
        depth += (code[j] == opening) - (code[j] == closing)
        if depth == 0:
            return j
    return len(code)


def _type_list(code: str, i: int, end: int, names: list[tuple[str, int]]) -> None:
    """Reads the types between code[i] and code[end], separated by commas."""
    while i < end:
        i = _skip_space(code, i)
        if i < end and code[i] in ",\n*":
            i += 1
            continue
        variance = VARIANCE.match(code, i)
        after = parse_type(code, variance.end() if variance else i, names)
        i = after if after > i else i + 1


def parse_type(code: str, i: int, names: list[tuple[str, int]]) -> int:
    """Reads the type at code[i:], adding the names in it with their offsets; returns its end."""
    i = _skip_annotations(code, i)
    if code.startswith("(", i):  # a function type: (A, B) -> C
        end = _closing(code, i, "(", ")")
        _type_list(code, i + 1, end, names)
        arrow = ARROW.match(code, end + 1)
        return parse_type(code, arrow.end(), names) if arrow else end + 1
    name = QUALIFIED.match(code, i)
    if not name:
        return i
    names.append((name.group(0), name.start()))
    i = name.end()
    if code.startswith("<", i):
        end = _closing(code, i, "<", ">")
        _type_list(code, i + 1, end, names)
        i = end + 1
    return i + 1 if code.startswith("?", i) else i


@dataclass
class Declarations:
    """What the generated sources declare."""

    package: str
    top_level: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    anywhere: set[str] = field(default_factory=set)
    members: set[str] = field(default_factory=set)

    def add(self, code: str) -> None:
        package = PACKAGE.search(code)
        self.members |= {m.group(1) for m in MEMBER.finditer(code)}
        for m in DECLARATION.finditer(code):
            self.anywhere.add(m.group(1))
            line_start = code.rfind("\n", 0, m.start()) + 1
            if not code[line_start : m.start()].startswith((" ", "\t")):
                self.top_level[package.group(1) if package else ""].add(m.group(1))

    def own(self, name: str) -> bool:
        """Whether a fully qualified name in the client's package is declared."""
        parts = name[len(self.package) + 1 :].split(".")
        if parts[-1][:1].islower():  # a function or a property
            return parts[-1] in self.members
        return any(
            parts[k] in self.top_level.get(".".join([self.package, *parts[:k]]), set())
            and all(part in self.anywhere for part in parts[k + 1 :])
            for k in range(len(parts))
        )


@dataclass
class Scope:
    """The names that one file may use unqualified."""

    visible: set[str]
    library: set[str] = field(default_factory=set)
    library_wildcard: bool = False


def _scope(code: str, declarations: Declarations) -> Scope:
    package = PACKAGE.search(code)
    scope = Scope(set(BUILTINS) | declarations.top_level[package.group(1) if package else ""])
    for m in DECLARATION.finditer(code):
        scope.visible.add(m.group(1))
        if m.group(2):  # type parameters
            scope.visible |= set(re.findall(rf"\b({IDENT})\s*(?::|,|$)", m.group(2)))
    for m in FUN_TYPE_PARAMETERS.finditer(code):
        scope.visible |= set(re.findall(rf"(?:^|,)\s*(?:reified\s+)?({IDENT})", m.group(1)))
    return scope


def _check_imports(code: str, declarations: Declarations, scope: Scope) -> list[tuple[str, int]]:
    """Adds the imported names to the scope; returns the client's own that are undeclared."""
    undeclared = []
    own = declarations.package
    for m in IMPORT.finditer(code):
        target, star, alias = m.groups()
        name = alias or target.rsplit(".", 1)[-1]
        if not target.startswith(own + "."):
            scope.library_wildcard |= bool(star)
            if not star:
                scope.library.add(name)
        elif star:
            scope.visible |= declarations.top_level.get(target, set())
        elif declarations.own(target):
            scope.visible.add(name)
        else:
            undeclared.append((target.rsplit(".", 1)[-1], m.start()))
    return undeclared


def _declared(name: str, declarations: Declarations, scope: Scope) -> bool:
    if name.startswith(declarations.package + "."):
        return declarations.own(name)
    first, *nested = name.split(".")
    if first[:1].islower() or first in scope.library:  # kotlin.Int, java.util.UUID, Call.Factory
        return True
    if first in scope.visible:
        return all(part in declarations.anywhere for part in nested)
    # A name that a library's wildcard import may bring, unless the client declares it too.
    return scope.library_wildcard and first not in declarations.anywhere


def undeclared_types(root: pathlib.Path, package: str) -> dict[str, list[str]]:
    """Each type named in the Kotlin sources under root and not declared, with where."""
    codes = {path: strip(path.read_text(encoding="utf-8")) for path in sorted(root.rglob("*.kt"))}
    declarations = Declarations(package)
    for code in codes.values():
        declarations.add(code)
    found: dict[str, list[str]] = defaultdict(list)
    for path, code in codes.items():
        scope = _scope(code, declarations)
        named: list[tuple[str, int]] = []
        for m in TYPE_START.finditer(code):
            parse_type(code, m.end(), named)
        misses = _check_imports(code, declarations, scope)
        misses += [
            (name, offset)
            for name, offset in named
            if name not in NOT_TYPES and not _declared(name, declarations, scope)
        ]
        for name, offset in misses:
            found[name].append(f"{path.relative_to(root)}:{code.count(chr(10), 0, offset) + 1}")
    return dict(found)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1])
    files = len(list(root.rglob("*.kt")))
    if not files:
        print(f"kotlin_check: no Kotlin sources under {root}", file=sys.stderr)
        return 2
    found = undeclared_types(root, argv[2])
    if not found:
        print(f"kotlin_check: {files} files, every type they name is declared")
        return 0
    print(f"kotlin_check: {len(found)} type(s) named but not declared:")
    for name, places in sorted(found.items()):
        more = f" (and {len(places) - 3} more)" if len(places) > 3 else ""
        print(f"  {name}: {', '.join(places[:3])}{more}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
