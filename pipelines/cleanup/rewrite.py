"""A gate's checks in one file replaced by the gate's decided value, and what that makes constant simplified.

Pure: text in, text out; no git, no database. This is the engine; the rules it applies, each with its languages,
pattern, rewrite and an example, are data in `rules.py`. ast-grep (tree-sitter with every grammar built in,
`ast-grep-py`) finds the nodes, and the rules' steps rewrite them until none applies:

1. each check of the gate (the SDKs' documented call forms, `rules.CALL_FORMS`) becomes a placeholder of its value, an
   identifier no code holds (`__gatehouse_true_0__`, numbered by check), so that the rules below touch only what the
   rewrite made, and a check inlined into two uses is still counted as one;
2. `not`/`!` of a placeholder, a placeholder in parentheses, `and`/`or`/`&&`/`||` with one, a ternary or
   conditional expression on one, an `if`/`elif`/`else if` on one (the live branch kept in place, re-indented; the
   dead one deleted; a Python block left empty gets `pass`), a `while` or `for` on one (gone where it never runs; Java's
   that never ends, `while (true)`), a local variable that holds one and is never
   assigned again (inlined, its declaration deleted), and a JavaScript or TypeScript `switch` on one (the statements
   that run; where that is not certain, TypeScript's value widened, `true as boolean`, which tsc accepts);
3. statements after a `return`, `raise`, `throw`, `break` or `continue` that a rule brought into a block are
   unreachable: deleted;
4. a placeholder left is a use the rules cannot simplify (an argument, a returned value, a field): it becomes the
   literal with a `TODO(gatehouse)` comment at the end of its line (once: not where the line holds one already);
5. a local only the removed code read (a loop's variable, a declaration, a TypeScript function) becomes `_` or goes,
   its value's effect kept (`_ = audit()`, `audit();`): Go and TypeScript, whose compilers refuse it unread; in
   TypeScript compiled with noUnusedParameters (the caller reads tsconfig.json), a function's parameter too;
6. an import the rewrite left unused (the SDK's client or hook) is removed: Python, TypeScript/JavaScript, Java,
   Kotlin, Go. Swift's `import Statsig` names a module, not what was used, and is left.

Why not Piranha, which cleans up Java and Go (and only replaces the call in Python and TypeScript): one set of rules
for six languages gives one behaviour to review, one count of what was replaced and what was left with a TODO, and
the same parse check, and it needs no second engine with a Rust panic that escapes `Exception` for the language
names it does not know. The rules are kept to what is certain: an expression the value does not decide
(`enabled and other()` → `other()` is certain; `other() and False` is left as it is, `other()` may have effects).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Union

from gatehouse.pipelines.cleanup.rules import ALL, CALL_FORMS, NODE_STEPS, RULES, Rule

if TYPE_CHECKING:  # the parsers load where a file is parsed (`_parse`), not where this is imported
    from ast_grep_py import Edit, SgNode

# a check's placeholder: its value and its number among the file's checks (`__gatehouse_true_0__`)
PLACEHOLDER = re.compile(r"__gatehouse_(true|false)_(\d+)__")
# Java's future of a check whose `.get()` a `catch` needs (`_future_a_catch_needs`): a completed future of its value
FUTURE = re.compile(r"__gatehouse_future_(true|false)_(\d+)__")
NAME = re.compile(r"[A-Za-z_$][\w$]*")
TODO = "TODO(gatehouse)"
# the comment on a TypeScript private field kept, no longer private, for its value's effect (`_kept_for_its_effect`)
KEPT_FOR_ITS_EFFECT = f"{TODO}: only the removed code read it; no longer private, so that tsc keeps its value's effect"
# the line above an ES private field kept for its value's effect: tsc's directive that the next line's error (unread,
# TS6133) is expected, which typescript-eslint's recommended rules accept with a description
KEPT_UNREAD = f"// @ts-expect-error {TODO}: only the removed code read it; kept for its value's effect"
# the same where only some of the projects compiling the file refuse it unread: tsc refuses an `@ts-expect-error` that
# no error follows, never an `@ts-ignore` (which typescript-eslint's recommended rules flag, a lint error, not a build's)
KEPT_UNREAD_IN_DOUBT = (
    f"// @ts-ignore {TODO}: only the removed code read it; kept for its value's effect (unread, some projects refuse it)"
)
# a comment line holding one of tsc's directives, which applies to the first line after it that is not a comment
TS_DIRECTIVE = re.compile(r"^\s*(?://+|/\*+|\*+)\s*@ts-(?:expect-error|ignore)\b")

LANGUAGE_BY_SUFFIX: Mapping[str, str] = {
    ".py": "python",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".jsx": "tsx",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".go": "go",
    ".swift": "swift",
}
# The service's SDK checks by language (rules.CALL_FORMS): the called name, and what reads the gate's value from it.
CHECKS: Mapping[str, Mapping[str, str]] = {
    language: {form.name: form.reads for form in CALL_FORMS if language in form.languages} for language in ALL
}

LITERALS = {"python": ("True", "False")}
# what can be read without effect (`_pure`): names and literals, and these made of them
PURE_LEAVES = frozenset(
    {
        "identifier",
        "simple_identifier",
        "property_identifier",
        "field_identifier",
        "string",
        "string_literal",
        "line_string_literal",
        "interpreted_string_literal",
        "integer",
        "float",
        "number",
        "integer_literal",
        "int_literal",
        "decimal_integer_literal",
        "true",
        "false",
        "none",
        "null",
        "null_literal",
        "nil",
        "boolean_literal",
        "this",
        "self",
    }
)
PURE_COMPOUNDS = frozenset(
    {
        "attribute",
        "member_expression",
        "field_access",
        "navigation_expression",
        "navigation_suffix",
        "selector_expression",
        "comparison_operator",
        "equality_expression",
        "comparison_expression",
    }
)
# where `and`/`&&` take and give booleans only
TYPED_BOOLEANS = frozenset({"java", "kotlin", "go", "swift"})
COMMENT = {"python": "#"}
CALL = {"python": "call", "java": "method_invocation"}  # call_expression elsewhere
IF = {"kotlin": "if_expression"}  # if_statement elsewhere
BLOCK_KINDS = frozenset({"block", "statement_block", "statements", "statement_list", "control_structure_body", "function_body"})
UNARY = frozenset({"not_operator", "unary_expression", "prefix_expression"})
BINARY = frozenset({"boolean_operator", "binary_expression", "conjunction_expression", "disjunction_expression"})
TERNARY = frozenset({"conditional_expression", "ternary_expression"})
PARENS = frozenset({"parenthesized_expression", "tuple_expression"})
# what ends a block's run: the statements after one in its block are never reached
EXITS = frozenset(
    {
        "return_statement",
        "raise_statement",
        "throw_statement",
        "break_statement",
        "continue_statement",
        "yield_statement",  # Java's, in a switch expression's arm (a generator's `yield` is an expression)
        "control_transfer_statement",
        "jump_expression",
    }
)
FUNCTIONS = frozenset(
    {
        "function_definition",
        "function_declaration",
        "method_declaration",
        "arrow_function",
        "function_expression",
        "method_definition",
        "constructor_declaration",
        "func_literal",
        "lambda_literal",
        "anonymous_function",
        "generator_function_declaration",
        "function_body",
    }
)
# Where an identifier names something else than the variable: after the object in these (`obj.name`)...
MEMBER_PARENTS = frozenset({"attribute", "member_expression", "field_access", "selector_expression"})
# ...anywhere in these (`.name` in Kotlin and Swift, an argument's label)...
NAME_PARENTS = frozenset({"navigation_suffix", "value_argument_label", "property_identifier"})
# ...and first of several in these (`name=` of a keyword argument, Kotlin's `name = value`; the value is a use)
KEYWORD_PARENTS = frozenset({"keyword_argument", "value_argument"})
# The containers of a list of statements: an if there can be replaced by several statements. Anywhere else (an
# `else if`, a loop's body without braces, an if used as a value) one statement or expression must stay one.
STATEMENT_LISTS = frozenset(
    {
        "module",
        "block",
        "program",
        "statement_block",
        "statements",
        "statement_list",
        "switch_case",
        "switch_default",
        "switch_block_statement_group",
        "expression_case",
        "default_case",
        "type_case",
    }
)
# Statements that declare a name in their block: unwrapped into the enclosing one, the name could clash there
DECLARATIONS = frozenset(
    {
        "lexical_declaration",
        "variable_declaration",
        "local_variable_declaration",
        "short_var_declaration",
        "var_declaration",
        "const_declaration",
        "property_declaration",
        "function_declaration",
        "class_declaration",
        "generator_function_declaration",
        "local_class_declaration",
        "type_declaration",
    }
)
# What must not be deleted even when unreachable: a JavaScript function or `var` is hoisted (used before it, from
# above), a Go label can be jumped to; a `yield` makes its Python or JavaScript function a generator
HOISTED = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "variable_declaration",
        "labeled_statement",
        "yield",
        "yield_expression",
    }
)


class Unsafe(Exception):
    """A file the rewrite cannot change with certainty; `str()` says why, for the list of places left."""


@dataclass(frozen=True)
class Rewrite:
    text: str  # the whole file after the rewrite (the same text when nothing matched)
    replaced: int  # checks of the gate replaced by its value
    todos: int  # of those, the checks whose value is used where the rules cannot simplify it: the literal and a
    # TODO(gatehouse) comment on each line it is left on (a check inlined into two such uses is one)
    # TypeScript private fields only the removed code read, kept for their values' effect with a TODO(gatehouse)
    # comment each: not checks, so not among `todos`
    fields_kept: int = 0


def language_of(path: str) -> str | None:
    dot = path.rfind(".")
    return LANGUAGE_BY_SUFFIX.get(path[dot:].lower()) if dot >= 0 else None


def _parse(text: str, language: str) -> SgNode:
    # imported here, the one place: every other command starts without loading the parsers
    from ast_grep_py import SgRoot

    return SgRoot(text, language).root()


def parse_errors(text: str, language: str) -> list[str]:
    """The places `text` does not parse as `language` (none: []): Python's own compiler; tree-sitter's ERROR nodes
    and the zero-width nodes it inserts where a token is missing, for the others."""
    if language == "python":
        try:
            compile(text, "<rewritten>", "exec", dont_inherit=True)
        except SyntaxError as err:
            return [f"line {err.lineno}: {err.msg}"]
        return []
    errors = []
    for node in _walk(_parse(text, language)):
        span = node.range()
        if node.kind() == "ERROR" or (
            span.start.index == span.end.index and not node.children() and node.kind() != "source_file"
        ):
            errors.append(
                f"line {span.start.line + 1}: {'unexpected text' if node.kind() == 'ERROR' else 'missing ' + node.kind()}"
            )
    return errors


def _walk(node: SgNode) -> Iterator[SgNode]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children()))


def rewrite_checks(
    text: str,
    language: str,
    gate_id: str,
    value: bool,
    rules: Sequence[Rule] = RULES,
    *,
    no_unused_parameters: bool = False,
    no_unused_locals: bool = False,
    no_unused_locals_in_doubt: bool = False,
) -> Rewrite:
    """`text` with every check of `gate_id` replaced by `value` and what that makes constant simplified by `rules`
    (each applied in `language` when it is one of the rule's). `no_unused_parameters`: the file is TypeScript compiled
    with tsc's noUnusedParameters (its tsconfig.json, `tsconfig.py`), so a function's parameter only the removed code
    read gets `_` before its name too, not a callback's alone. `no_unused_locals`: compiled with noUnusedLocals, so a
    class's private member only the removed code read goes too (`_private_member_unread`); `no_unused_locals_in_doubt`:
    only some of the projects that may compile it set it (a solution-style tsconfig.json), so nothing is written that
    tsc refuses where it is not set (an ES private field kept for its value's effect is left as it is)."""
    steps = {rule.step for rule in rules if language in rule.languages}
    root = _parse(text, language)
    edits: list[_Edit] = []
    receivers = set()
    for node, receiver in _checks(root, language, gate_id):
        start = node.range().start.index
        # Swift's grammar reads `!Statsig.checkGate(…)` as `(!Statsig).checkGate(…)`: the `!` stays outside
        bang = len(node.text()) - len(node.text().lstrip("!"))
        if language == "java" and (future := _future_a_catch_needs(node)) is not None:
            edits.append(
                _Edit(
                    future.range().start.index,
                    future.range().end.index,
                    f"__gatehouse_future_{str(value).lower()}_{len(edits)}__",
                )
            )
        else:
            edits.append(_Edit(start + bang, node.range().end.index, _placeholder(value, str(len(edits)))))
        receivers.add(receiver)
    if not edits:
        return Rewrite(text, 0, 0)
    text = _commit(root, edits, text)
    # a check inside another's arguments went with it (`_commit` keeps the outer edit): what is replaced is counted
    replaced = len({found.group(2) for found in PLACEHOLDER.finditer(text)} | {found.group(2) for found in FUTURE.finditer(text)})
    for _ in range(200):  # each round applies at least one rule; a file has far fewer
        changed = _simplify_once(text, language, steps)
        if changed is None:
            break
        text = changed
    # every placeholder left becomes the literal whatever the rules: the rule `literal` is the engine's last word
    text, todos = _literals(text, language)
    text, futures = _completed_futures(text)
    todos += futures
    if "java try" in steps:
        text = _tries_that_throw_nothing(text)
    fields_kept = 0
    if "locals" in steps:
        # before the imports: a local that goes may have been the last user of one
        before = Counter(leaf.text() for leaf in _walk(root) if _is_named_leaf(leaf))
        kept = sum(text.count(note) for note in (KEPT_FOR_ITS_EFFECT, KEPT_UNREAD, KEPT_UNREAD_IN_DOUBT))
        text = _unused_locals(text, language, before, no_unused_parameters, no_unused_locals, no_unused_locals_in_doubt)
        fields_kept = sum(text.count(note) for note in (KEPT_FOR_ITS_EFFECT, KEPT_UNREAD, KEPT_UNREAD_IN_DOUBT)) - kept
    if "imports" in steps:
        # whatever the removed code alone imported goes with it (Go refuses an unused import; Java's, Kotlin's and
        # TypeScript's linters do): an import goes only when the code used it before the rewrite and does not after
        text = _unused_imports(text, language, receivers | _used_packages(root, language))
    return Rewrite(text, replaced, todos, fields_kept)


def _used_packages(root: SgNode, language: str) -> set[str]:
    """The packages a file's code (its imports aside) uses by name: those an import may bind."""
    imports = [node for node in _walk(root) if _bound_names(node, language)]
    return {leaf.text() for leaf in _walk(root) if _is_named_leaf(leaf) and not any(_inside(leaf, node) for node in imports)}


# Java's exceptions a `catch` may name whatever its `try` throws: the unchecked ones and their roots.
UNCHECKED = {
    "RuntimeException",
    "Error",
    "Exception",
    "Throwable",
    "IllegalStateException",
    "IllegalArgumentException",
    "NullPointerException",
    "ArithmeticException",
    "ClassCastException",
    "IndexOutOfBoundsException",
    "UnsupportedOperationException",
    "CancellationException",
    "CompletionException",
}


def _tries_that_throw_nothing(text: str) -> str:
    """A `try` (no resources, no `finally`) whose body no longer calls, constructs or throws anything, and that
    catches checked exceptions: javac rejects the catch of an exception its body cannot throw, so the body stands
    alone, one indent less (`return Statsig.checkGateAsync(user, "g").get();` became `return true;`)."""
    root = _parse(text, "java")
    edits = []
    for node in root.find_all(kind="try_statement"):
        body = node.field("body")
        clauses = [child for child in node.named_children() if child.kind() == "catch_clause"]
        if body is None or not clauses or any(child.kind() == "finally_clause" for child in node.named_children()):
            continue
        if any(inner.kind() in JAVA_THROWERS for inner in _walk(body)) or not _catches_checked(node):
            continue
        edits.append(_Edit(node.range().start.index, node.range().end.index, _unwrapped(body.text(), text, node)))
    return _commit(root, edits, text) if edits else text


def _future_a_catch_needs(check: SgNode) -> SgNode | None:
    """The future of Java's `check` (`Statsig.checkGateAsync(u, "g")` of `….get()`) when a `catch` around it names a
    checked exception and the `try` may not be unwrapped once the check is gone (its body calls something else, it has
    resources or a `finally`): its `get()` may be what makes the catch legal, and javac refuses a catch of a checked
    exception nothing throws. It becomes a completed future of the value, whose `get()` throws what the catch names."""
    future = check.field("object") if check.kind() == "method_invocation" and _text(check.field("name")) == "get" else None
    if future is None or future.kind() != "method_invocation":
        return None  # not a future's check (`Statsig.checkGate(u, "g")`: its object is the client)
    for statement in check.ancestors():
        if statement.kind() in BREAK_WALLS:
            return None
        if statement.kind() not in ("try_statement", "try_with_resources_statement"):
            continue
        body = statement.field("body")
        if body is None or not _inside(check, body) or not _catches_checked(statement):
            continue
        # a call around the check (`log(check)`) stays after it: it counts as any other
        others = [inner for inner in _walk(body) if inner.kind() in JAVA_THROWERS and not _inside(inner, check)]
        finally_ = any(child.kind() == "finally_clause" for child in statement.named_children())
        return future if others or finally_ or statement.kind() == "try_with_resources_statement" else None
    return None


# what may throw a checked exception in Java
JAVA_THROWERS = frozenset(
    {"method_invocation", "object_creation_expression", "throw_statement", "explicit_constructor_invocation"}
)


def _catches_checked(statement: SgNode) -> bool:
    """Whether a `try` catches an exception javac checks (neither unchecked nor a root of the unchecked)."""
    caught = {
        leaf.text()
        for clause in statement.named_children()
        if clause.kind() == "catch_clause"
        for leaf in _walk(clause)
        if leaf.kind() == "type_identifier"
        and (parent := leaf.parent()) is not None
        and parent.kind() in ("catch_type", "union_type")
    }
    return bool(caught - UNCHECKED)


def _completed_futures(text: str) -> tuple[str, int]:
    """Each future a catch needs (`_future_a_catch_needs`) written as a completed future of the value, with a TODO
    once on its line; the count is of those lines."""
    note = f"// {TODO}: the gate's value, in a completed future whose get() throws what the catch names"
    lines = text.split("\n")
    marked = 0
    for number, line in enumerate(lines):
        if FUTURE.search(line):
            lines[number] = FUTURE.sub(
                lambda found: f"java.util.concurrent.CompletableFuture.completedFuture({found.group(1)})", line
            )
            if TODO not in line:
                lines[number] += "  " + note
                marked += 1
    return "\n".join(lines), marked


def _unwrapped(block: str, text: str, statement: SgNode) -> str:
    """A block's statements, written where the statement that held it was, one indent less."""
    inner = block.strip()[1:-1].strip("\n")
    lines = inner.splitlines()
    own = text[_line_start(text, statement.range().start.index) : statement.range().start.index]
    depth = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    body = [line[depth:] if line.strip() else "" for line in lines]
    return ("\n" + own).join(line for line in body).strip() if body else ""


def _unused_imports(text: str, language: str, names: set[str]) -> str:
    """Import statements that bind only names the rewrite left unused (the SDK's client, its hooks), removed;
    blank lines their removal leaves behind go too."""
    root = _parse(text, language)
    imports = [(node, bound) for node in _walk(root) if (bound := _bound_names(node, language))]
    inside_imports = [node for node, _ in imports]
    used = {
        leaf.text() for leaf in _walk(root) if _is_named_leaf(leaf) and not any(_inside(leaf, node) for node in inside_imports)
    }
    edits = []
    for node, bound in imports:
        unused = set(bound) & names - used
        if unused and set(bound) == unused:
            edits.append(_delete_statement(node, text, language))
        elif unused:  # `import { useFeatureGate, useGateValue }` with one of them left unused: that one goes; a
            # name that was unused already (a re-export, `from .client import check_gate, VERSION`) stays
            edits += [_without_name(name, text) for name in _named_imports(node, language) if name.text() in unused]
    if not edits:
        return text
    removed = _commit(root, edits, text)
    return removed.lstrip("\n") if not text.startswith("\n") else removed


def _named_imports(node: SgNode, language: str) -> list[SgNode]:
    """The nodes naming each import of a statement that lists several (`{ a, b }`, `from m import a, b`)."""
    if language == "python" and node.kind() == "import_from_statement":
        return [name for name in node.named_children()[1:] if name.kind() == "dotted_name"]
    return [
        specifier.named_children()[0]
        for specifier in _walk(node)
        if specifier.kind() == "import_specifier" and len(specifier.named_children()) == 1
    ]


def _without_name(name: SgNode, text: str) -> _Edit:
    """`name` out of an import's list, with the comma and blanks that separate it from the next (or the one before)."""
    start, end = name.range().start.index, name.range().end.index
    after = re.match(r"\s*,\s*", text[end:])
    if after:
        return _Edit(start, end + after.end(), "")
    before = re.search(r",\s*$", text[:start])
    return _Edit(before.start() if before else start, end, "")


# -- the locals the removed code alone read ----------------------------------------------------------------------

# what reads a local by its name (Go's fields and packages are other kinds: `x.name` is not a read of `name`)
READS = frozenset({"identifier", "shorthand_property_identifier", "simple_identifier", "interpolated_identifier"})
# a value that, made and dropped, has no effect beyond `_pure`'s: a function made, not called
INERT = frozenset({"arrow_function", "function_expression", "func_literal"})
# what builds a value without effect beyond its parts': composite and object literals, the parts of a string, types
BUILT = frozenset(
    {
        "composite_literal",
        "literal_value",
        "keyed_element",
        "literal_element",
        "object",
        "pair",
        "array",
        "expression_list",
        "type_identifier",
        "package_identifier",
        "string_fragment",
        "string_content",
        "escape_sequence",
        "interpreted_string_literal_content",
        "raw_string_literal",
        "raw_string_literal_content",
        "line_str_text",
    }
)


def _effectless(value: SgNode) -> bool:
    """Evaluating `value` has no effect: a function made, not called, or a value built of names, literals and
    operators (`_pure`'s), composite and object literals and types, with no call inside (a string's interpolation may
    hold one) and no receive from a Go channel."""
    return value.kind() in INERT or all(_inert(node) for node in _walk(value) if node.is_named())


def _inert(node: SgNode) -> bool:
    kind = node.kind()
    if kind in UNARY:
        return not node.text().startswith("<-")
    return kind in PURE_LEAVES | PURE_COMPOUNDS | PARENS | BINARY | BUILT or kind.endswith("_type") or "comment" in kind


def _unused_locals(
    text: str, language: str, before: Counter[str], parameters: bool, members: bool = False, in_doubt: bool = False
) -> str:
    """The locals only the removed code read, gone or made `_` (Go refuses a local declared and not used, tsc's
    noUnusedLocals too): a local is one of these when the rewrite took a use of its name away (`before` counts the
    names of the original) and no read of it is left; with `parameters` (noUnusedParameters), a TypeScript function's
    parameter too; with `members` (noUnusedLocals; `in_doubt`: for some of its projects), a TypeScript class's private
    member. Each round's removal may
    leave another unread (`v := rate * 2` gone, `rate`), so the rounds go on until none is found."""
    typescript = partial(_typescript_unused, parameters=parameters, members=members, in_doubt=in_doubt)
    local = {"go": _go_unused, "kotlin": _kotlin_unused, "swift": _swift_unused}.get(language, typescript)
    for _ in range(20):
        root = _parse(text, language)
        after = Counter(leaf.text() for leaf in _walk(root) if _is_named_leaf(leaf))
        gone = {name for name, count in before.items() if after[name] < count}
        if not gone:  # the rewrite took no read of any name away (a check alone in its if): nothing to look for
            break
        edits = [edit for node in _walk(root) if (edit := local(node, text, gone)) is not None]
        if not edits:
            break
        text = _commit(root, edits, text)
    return text


def _unread(names: Sequence[SgNode], gone: set[str], scope: SgNode | None) -> list[SgNode]:
    """Of the declared `names`, those whose name the rewrite took a use of away (`gone`) and that nothing in `scope`,
    where they can be read, reads any more (a read in a closure or of a shadowing name counts: kept, never removed in
    doubt)."""
    candidates = [name for name in names if name.text() in gone and name.text() != "_"]
    if scope is None or not candidates:
        return []
    declared = {name.range().start.index for name in names}
    read = {
        leaf.text()
        for leaf in _walk(scope)
        if leaf.kind() in READS and leaf.range().start.index not in declared and not _is_member(leaf)
    }
    return [name for name in candidates if name.text() not in read]


def _block_scope(statement: SgNode) -> SgNode | None:
    """Where a local a statement declares can be read: the block that holds it, inside a function; at the top of a
    TypeScript module (a file that imports or exports), the module. None for anything else (Go's package and a
    script's globals are read from other files too)."""
    parent = statement.parent()
    if parent is None or not _in_statement_list(statement):
        return None
    if parent.kind() == "program":
        modular = any(child.kind() in ("import_statement", "export_statement") for child in parent.named_children())
        return parent if modular else None
    if parent.kind() in ("switch_case", "switch_default"):  # JavaScript's cases share one block: the switch's body
        parent = parent.parent() or parent
    return parent if any(ancestor.kind() in FUNCTIONS for ancestor in statement.ancestors()) else None


def _go_unused(node: SgNode, text: str, gone: set[str]) -> Change | None:
    """Go: a range's variable unread becomes `_` or goes (`for i := range`, `for _, x := range`, `for range xs`); a
    declaration of locals all unread goes when its values have no effect, else they go to `_` (`_ = audit(n)`); one
    unread among others that are read becomes `_`, or, where no other name is certainly new (`:=` would declare
    nothing), is read by `_ = name` after it."""
    kind = node.kind()
    if kind == "range_clause" and any(child.kind() == ":=" for child in node.children()):
        left = node.field("left")
        names = left.named_children() if left is not None else []
        unused = _unread(names, gone, node.parent())
        if left is None or not unused:
            return None
        if all(name in unused or name.text() == "_" for name in names):
            word = next(child for child in node.children() if child.kind() == "range")
            return _Edit(left.range().start.index, word.range().start.index, "")
        if names[0] in unused:
            return names[0].replace("_")
        return _Edit(names[0].range().end.index, left.range().end.index, "")
    if kind == "short_var_declaration":
        left, right = node.field("left"), node.field("right")
        names = left.named_children() if left is not None else []
        values = right.named_children() if right is not None else []
        return _declaration_unread(node, names, values, ":=", text, gone)
    parent = node.parent()
    if kind == "var_spec" and parent is not None and parent.kind() == "var_declaration":
        names = [child for child in node.named_children() if child.kind() == "identifier"]
        value = node.field("value")
        return _declaration_unread(parent, names, value.named_children() if value else [], "var", text, gone)
    return None


def _declaration_unread(
    statement: SgNode, names: list[SgNode], values: list[SgNode], form: str, text: str, gone: set[str]
) -> Change | None:
    """A Go declaration (`form` `:=` or `var`) of `names` with `values`, its unread names made `_` or gone."""
    parent = statement.parent()
    # an if's, a switch's or a for's own statement (`if v, ok := m[k]; ok {`) declares for that statement alone
    headed = parent is not None and parent.kind() in ("if_statement", "expression_switch_statement", "for_clause")
    unused = _unread(names, gone, parent if headed else _block_scope(statement))
    if not unused:
        return None
    kept = [name for name in names if name not in unused and name.text() != "_"]
    if not kept and all(_effectless(value) for value in values) and _in_statement_list(statement):
        return _declaration_deleted(statement, text, "go")
    if not kept and form == ":=":  # nothing left to declare: the values go to `_`
        first = names[0].range().start.index
        operator = next(child for child in statement.children() if child.kind() == ":=")
        return _Edit(first, operator.range().end.index, ", ".join("_" for _ in names) + " =")
    scope = _function_of(statement)
    if form == ":=" and scope is not None and not any(_new_in(name, statement, scope) for name in kept):
        end = statement.range().end.index
        indent = _indentation(text, statement.range().start.index)
        return _Edit(end, end, "".join(f"\n{indent}_ = {name.text()}" for name in unused))
    return _Many([name.replace("_") for name in unused])


def _function_of(node: SgNode) -> SgNode | None:
    return next((ancestor for ancestor in node.ancestors() if ancestor.kind() in FUNCTIONS), None)


def _new_in(name: SgNode, statement: SgNode, scope: SgNode) -> bool:
    """Whether `statement` certainly declares `name` anew: nothing in its function names it before."""
    start = statement.range().start.index
    return not any(
        leaf.kind() == "identifier" and leaf.text() == name.text() and leaf.range().start.index < start for leaf in _walk(scope)
    )


def _kotlin_unused(node: SgNode, text: str, gone: set[str]) -> Change | None:
    """Kotlin, which warns of each: a destructured name (`for ((name, count) in items)`, `val (a, b) = p`) or a
    lambda's parameter unread becomes `_`; a function's `val` of one name unread goes when its value has no effect,
    else its call stays a statement (another value stays declared: a warning, not an error). A plain loop's variable
    draws no warning and stays."""
    kind, parent = node.kind(), node.parent()
    if (
        kind == "variable_declaration"
        and parent is not None
        and parent.kind() in ("multi_variable_declaration", "lambda_parameters")
    ):
        holder = parent.parent() if parent.kind() == "multi_variable_declaration" else parent
        if holder is None:
            return None
        # where the name can be read: the loop, the lambda, or the block of the val
        scope = _block_scope(holder) if holder.kind() == "property_declaration" else holder
        scope = holder.parent() if holder.kind() == "lambda_parameters" else scope
        name = next((child for child in node.named_children() if child.kind() == "simple_identifier"), None)
        unread = name is not None and _unread([name], gone, scope)
        return name.replace("_") if unread and name is not None else None
    declared = [child for child in node.named_children() if child.kind() == "variable_declaration"]
    if (
        kind != "property_declaration"
        or len(declared) != 1
        or any(child.kind() == "property_delegate" for child in node.children())
    ):
        return None
    name = next((child for child in declared[0].named_children() if child.kind() == "simple_identifier"), None)
    if name is None or not _unread([name], gone, _block_scope(node)):
        return None
    value = node.named_children()[-1] if any(child.kind() == "=" for child in node.children()) else None
    if value is None or _effectless(value):
        return _declaration_deleted(node, text, "kotlin")
    return node.replace(value.text()) if value.kind() == "call_expression" else None


def _swift_unused(node: SgNode, text: str, gone: set[str]) -> Change | None:
    """Swift, which warns of each ("immutable value 'x' was never used; consider replacing with '_'"): a loop's or a
    tuple's name unread becomes `_`; a function's `let`/`var` of one name unread goes when its value has no effect,
    else the value goes to `_` (`_ = audit(n)`)."""
    kind, parent = node.kind(), node.parent()
    if kind != "for_statement" and (kind != "property_declaration" or parent is None or parent.kind() != "statements"):
        return None
    pattern = next((child for child in node.named_children() if child.kind() == "pattern"), None)
    scope = node if kind == "for_statement" else _block_scope(node)
    names = [leaf for leaf in _walk(pattern) if leaf.kind() == "simple_identifier"] if pattern is not None else []
    unused = _unread(names, gone, scope)
    if pattern is None or not unused:
        return None
    if kind == "property_declaration" and names == unused == [_only_child(pattern)]:
        value = node.named_children()[-1] if any(child.kind() == "=" for child in node.children()) else None
        if value is not None and not _effectless(value):
            return node.replace(f"_ = {value.text()}")
        if value is not None or len(node.named_children()) <= 3:  # no getter or observers to keep
            return _declaration_deleted(node, text, "swift")
        return None
    return _Many([name.replace("_") for name in unused])


def _typescript_unused(
    node: SgNode, text: str, gone: set[str], parameters: bool = False, members: bool = False, in_doubt: bool = False
) -> Change | None:
    """TypeScript: a loop's variable, a callback's parameter or a destructured name unread gets `_` before its name,
    which tsc accepts unread (noUnusedLocals, noUnusedParameters; an object's shorthand name leaves the pattern
    instead, where no `...rest` would take it); a `const`/`let` of one name unread goes when its value has no effect,
    else its value stays a statement; a function unread goes, with its comment. With `parameters` (the file is
    compiled with noUnusedParameters), every function's parameter unread gets `_` too (`_parameters_unread`); with
    `members` (noUnusedLocals; `in_doubt`: for some of its projects), a class's private member unread goes
    (`_private_member_unread`)."""
    kind = node.kind()
    parent = node.parent()
    if members and (kind in PRIVATE_MEMBERS or kind == "required_parameter"):
        change = _private_member_unread(node, gone, text, in_doubt)
        if change is not None:
            return change
    if kind == "for_in_statement" and any(child.kind() in ("const", "let", "var") for child in node.children()):
        # a `var` is its function's: where it is read is not the loop alone
        scope = node if not any(child.kind() == "var" for child in node.children()) else _function_of(node)
        return _names_unread(node.field("left"), gone, scope, text)
    if kind in ("required_parameter", "optional_parameter") and parent is not None:
        function = parent.parent()
        if function is None or not _is_callback(function) or any(child.kind() in MODIFIERS for child in node.children()):
            return None
        return _names_unread(node.field("pattern"), gone, function, text)
    if kind == "arrow_function" and node.field("parameter") is not None and _is_callback(node):  # `item => …`
        return _names_unread(node.field("parameter"), gone, node, text)
    if kind == "function_declaration" and _in_statement_list(node) and parent is not None:
        name = node.field("name")
        # an overload's signatures would be left without their implementation: the function stays
        overloaded = any(sibling.kind() == "function_signature" for sibling in parent.named_children())
        if name is not None and not overloaded and _unread([name], gone, _block_scope(node)):
            return _with_its_comments(node, _declaration_deleted(node, text, "typescript"), text)
    if parameters and kind in BODIED_FUNCTIONS and not _is_callback(node):
        return _parameters_unread(node, gone, text)
    declarators = [child for child in node.named_children() if child.kind() == "variable_declarator"]
    # not a `using` declaration: its value is disposed of at the block's end
    if kind != "lexical_declaration" or len(declarators) != 1 or node.children()[0].kind() not in ("const", "let"):
        return None
    if not _in_statement_list(node):
        return None
    pattern, value = declarators[0].field("name"), declarators[0].field("value")
    names = _pattern_names(pattern)
    if len(_unread(names, gone, _block_scope(node))) < len(names) or not names:
        return _names_unread(pattern, gone, _block_scope(node), text)
    if value is None or _effectless(value):
        return _declaration_deleted(node, text, "typescript")
    value = _effect_of(value)
    plain = value.kind() in STATEMENT_STARTS and NAME.match(value.text())
    return node.replace(f"{value.text()};" if plain else f"void {value.text()};")


# the members of a class that may be private: a field, a method; and a constructor's parameter property
PRIVATE_MEMBERS = frozenset({"public_field_definition", "method_definition"})


def _private_member_unread(node: SgNode, gone: set[str], text: str, in_doubt: bool = False) -> Change | None:
    """A class's private member that only the removed code read (tsc's noUnusedLocals refuses it: TS6133, TS6138).
    A field (`private rate = 2;`, `#rate = 2;`) goes with its comments when its value has no effect, and a method
    (not a getter or setter, which come in pairs) with its comments; a constructor's parameter property
    (`private user: User`) stays a parameter, its `private` and `readonly` gone, which noUnusedParameters then checks
    as any other. Any other mention of the name in the class (`this.rate`, `other.rate`, `this["rate"]`) keeps it, and
    so does a decorator, which may read it (Angular's `@Input() private rate`)."""
    body = next((ancestor for ancestor in node.ancestors() if ancestor.kind() == "class_body"), None)
    if body is None or any(child.kind() == "decorator" for child in node.children()):
        return None
    modifiers = [child for child in node.children() if child.kind() in MODIFIERS]
    private = any(child.kind() == "accessibility_modifier" and child.text() == "private" for child in modifiers)
    if node.kind() == "required_parameter":
        name, listed = node.field("pattern"), node.parent()
        function = listed.parent() if listed is not None else None
        constructor = function is not None and (function.field("name") or function).text() == "constructor"
        if not private or not constructor or name is None or name.kind() != "identifier":
            return None
        # its reads: `this.user` anywhere in the class, and `user` itself in the constructor
        if not _member_unread(name, gone, body):
            return None
        first, last = modifiers[0].range().start.index, name.range().start.index
        return _Edit(first, last, "")
    name = node.field("name")
    if name is None or not (private or name.kind() == "private_property_identifier"):
        return None
    if any(child.kind() in ("get", "set", "static", "abstract", "declare") for child in node.children()):
        return None
    if not _member_unread(name, gone, body):
        return None
    value = node.field("value")
    if node.kind() == "public_field_definition" and value is not None and not _effectless(value):
        return _kept_for_its_effect(node, modifiers, text, in_doubt)
    end = node.range().end.index
    following = node.next()
    if following is not None and following.kind() == ";":
        end = following.range().end.index
    if (
        text[_line_start(text, node.range().start.index) : node.range().start.index].strip()
        or text[end : _line_end(text, end)].strip()
    ):
        return None  # not alone on its lines: left as it is
    return _with_its_comments(node, _Edit(_line_start(text, node.range().start.index), _line_end(text, end), ""), text)


def _kept_for_its_effect(field: SgNode, modifiers: list[SgNode], text: str, in_doubt: bool = False) -> Change | None:
    """A private field only the removed code read whose value has an effect: tsc refuses it unread, and deleting it
    would drop the effect, so it stays, for the reviewer with a TODO(gatehouse) comment. A TypeScript `private` field
    (`private started = start();`) stops being private, as tsc asks no public field to be read: the comment goes at the
    end of its line. An ES private field (`#started = start();`) cannot stop being private without a new name, which
    would also make it a property JSON and `Object.keys` see: the line above it says tsc's unread error is expected
    (`KEPT_UNREAD`); where only some of the projects that may compile the file refuse it unread (`in_doubt`), that its
    errors are ignored (`KEPT_UNREAD_IN_DOUBT`), as tsc refuses an expected error that does not come. A field with more
    after it on its line, an ES one with more before it or below a directive of tsc's already, is left as it is."""
    end = field.range().end.index
    following = field.next()
    if following is not None and following.kind() == ";":
        end = following.range().end.index
    if text[end : _line_end(text, end)].strip():
        return None
    private = next((child for child in modifiers if child.kind() == "accessibility_modifier"), None)
    if private is None:
        name = field.field("name")
        begins = _line_start(text, field.range().start.index)
        if name is None or name.kind() != "private_property_identifier":
            return None
        if text[begins : field.range().start.index].strip():
            return None  # the directive's line above would cover more than the field
        if _below_a_directive(text, begins):
            return None  # kept already, by an earlier round, or its errors already told to tsc (a second is refused)
        indent = text[begins : field.range().start.index]
        return _Edit(begins, begins, f"{indent}{KEPT_UNREAD_IN_DOUBT if in_doubt else KEPT_UNREAD}\n")
    if private.text() != "private":
        return None
    start = private.range().start.index
    after = start + len(private.text())
    while text[after] in " \t":
        after += 1
    return _Edit(start, end, f"{text[after:end]}  // {KEPT_FOR_ITS_EFFECT}")


def _below_a_directive(text: str, begins: int) -> bool:
    """Whether one of the comment lines right above the line at `begins` is a directive of tsc's (`TS_DIRECTIVE`),
    which then applies to that line."""
    end = begins
    while end > 0:
        start = _line_start(text, end - 1)
        line = text[start:end].strip()
        if not line.startswith(("//", "/*", "*")) and not line.endswith("*/"):
            return False
        if TS_DIRECTIVE.match(line):
            return True
        end = start
    return False


def _member_unread(name: SgNode, gone: set[str], body: SgNode) -> bool:
    """Whether the rewrite took a use of the member `name` away and nothing else in the class `body` names it: any
    leaf of the same text (a property, an identifier, a string's text) other than the declaration's own name."""
    if name.text() not in gone:
        return False
    own = name.range().start.index
    return not any(
        leaf.text() == name.text() and leaf.range().start.index != own for leaf in _walk(body) if _is_named_leaf(leaf)
    ) and not any(name.text() in leaf.text() for leaf in _walk(body) if leaf.kind() in ("string_fragment", "template_string"))


def _effect_of(value: SgNode) -> SgNode:
    """The part of `value` whose evaluation has the effects: `audit()` of `audit() || 1` (a logical operator's other
    operand, without effect, need not be evaluated when the value is dropped)."""
    operands = _operands(value, BINARY, 2)
    if operands is None or text_between(value, *operands) not in ("||", "&&", "??"):
        return value
    left, right = operands
    return _effect_of(left) if _effectless(right) else value


# the values that, written as they are, start a statement (`void` takes no `yield`; `{` would start a block)
STATEMENT_STARTS = frozenset({"call_expression", "await_expression", "new_expression", "yield_expression"})
# what makes a TypeScript parameter a field as well (`constructor(private user: User)`): its name is read as a member
MODIFIERS = frozenset({"accessibility_modifier", "readonly", "override_modifier"})


def _is_callback(function: SgNode) -> bool:
    """A function written as an argument (`items.forEach((item) => …)`): its parameters are its caller's contract, so
    one unread may take `_` (noUnusedParameters refuses it). A named function's or a method's parameters are its own
    interface, which the rewrite changes only where the project's tsconfig.json asks (`_parameters_unread`)."""
    parent = function.parent()
    return function.kind() in ("arrow_function", "function_expression") and parent is not None and parent.kind() == "arguments"


# the functions with a body, whose parameters tsc's noUnusedParameters checks (an overload's signature, a method's of
# an interface or an abstract one, has none: tsc does not, and their names stay)
BODIED_FUNCTIONS = frozenset(
    {
        "function_declaration",
        "generator_function_declaration",
        "method_definition",
        "function_expression",
        "generator_function",
        "arrow_function",
    }
)
# a JSDoc tag that names a parameter, up to its name: `@param {User} user`, `@param [count=2]`
JSDOC_PARAM = r"(@(?:param|arg|argument)\s+(?:\{(?:[^{}]|\{[^{}]*\})*\}\s*)?\[?\s*)"


def _parameters_unread(function: SgNode, gone: set[str], text: str) -> Change | None:
    """A function's, a method's or a constructor's parameters the rewrite left unread (noUnusedParameters refuses
    them): `_` before each name, a destructured one treated as a destructured local is (`_names_unread`), and the
    JSDoc's `@param` of each renamed name renamed with it. A constructor's parameter property (`private user: User`)
    is also a field, read as `this.user`: it stays, as does a `this` parameter (tsc does not check it)."""
    single = function.field("parameter")  # `item => …`
    listed = function.field("parameters")
    parameters = listed.named_children() if listed is not None else []
    patterns = [
        pattern
        for pattern in [single] + [parameter.field("pattern") for parameter in parameters if _plain_parameter(parameter)]
        if pattern is not None
    ]
    edits = _Many()
    for pattern in patterns:
        edits.extend(_names_unread(pattern, gone, function, text) or [])
    if not edits:
        return None
    # a parameter's own name, not a pattern's: the JSDoc names it as it is (`@param user`, `@param ...rest`)
    own = [name for pattern in patterns if pattern.kind() in ("identifier", "rest_pattern") for name in _pattern_names(pattern)]
    documented = _jsdoc_renamed(function, [name.text() for name in _unread(own, gone, function)])
    return _Many([*edits, documented]) if documented is not None else edits


def _plain_parameter(parameter: SgNode) -> bool:
    """Not a constructor's parameter property, which is a field as well: renaming it would rename the field."""
    kind = parameter.kind()
    return kind in ("required_parameter", "optional_parameter") and not any(
        child.kind() in MODIFIERS for child in parameter.children()
    )


def _jsdoc_renamed(function: SgNode, names: list[str]) -> Edit | None:
    """The JSDoc comment right above `function` (its declaration's, its export's), each of `names` its `@param`
    names given `_` before it; None where there is no such comment or it names none of them."""
    holder, parent = function, function.parent()
    if parent is not None and parent.kind() == "variable_declarator":  # `const f = (user) => …`: the declaration's
        holder = parent.parent() or holder
    elif parent is not None and parent.kind() == "public_field_definition":  # a class's `handle = (user) => …`
        holder = parent
    parent = holder.parent()
    holder = parent if parent is not None and parent.kind() == "export_statement" else holder
    comment = holder.prev()
    if (
        comment is None
        or comment.kind() != "comment"
        or not comment.text().startswith("/**")
        or comment.range().end.line != holder.range().start.line - 1
    ):
        return None
    said = comment.text()
    for name in names:
        said = re.sub(JSDOC_PARAM + re.escape(name) + r"(?![\w$])", rf"\g<1>_{name}", said)
    return comment.replace(said) if said != comment.text() else None


def _names_unread(pattern: SgNode | None, gone: set[str], scope: SgNode | None, text: str) -> _Many | None:
    """The names `pattern` declares that nothing in `scope` reads any more: `_` before each (tsc accepts it unread),
    or, a shorthand name of an object pattern without `...rest` and with other names, out of the pattern."""
    unused = _unread(_pattern_names(pattern), gone, scope)
    if pattern is None or not unused:
        return None
    elements = pattern.named_children() if pattern.kind() == "object_pattern" else []
    rest = any(element.kind() == "rest_pattern" for element in elements)
    removable = [name for name in unused if name.kind() == "shorthand_property_identifier_pattern" and name in elements]
    if rest or len(removable) == len(elements):
        removable = []
    return _Many([_without_name(name, text) if name in removable else _underscored(name) for name in unused])


def _declaration_deleted(node: SgNode, text: str, language: str) -> Change:
    """A declaration deleted (`_delete_statement`), with the comment that ends its line: it spoke of the declaration
    (`u := User{ID: "1"}  // Seattle`)."""
    start, end = node.range().start.index, node.range().end.index
    after = text[end : _line_end(text, end)].strip()
    if after.startswith("//") and not text[_line_start(text, start) : start].strip():
        comment = next((sibling for sibling in node.next_all() if "comment" in sibling.kind()), None)
        if comment is not None and comment.text().strip() == after:  # a comment, not `//` inside something else
            return _Edit(_line_start(text, start), _line_end(text, end), "")
    return _delete_statement(node, text, language)


def _with_its_comments(node: SgNode, deleted: Change, text: str) -> Change:
    """A declaration's deletion (`deleted`, whole lines) from the comment lines right above it: its documentation."""
    if not isinstance(deleted, _Edit) or deleted.start_pos > _line_start(text, node.range().start.index):
        return deleted
    first = node
    for sibling in node.prev_all():  # the nearest first
        own_line = not text[_line_start(text, sibling.range().start.index) : sibling.range().start.index].strip()
        if "comment" not in sibling.kind() or not own_line or sibling.range().end.line != first.range().start.line - 1:
            break
        first = sibling
    start, end = min(deleted.start_pos, _line_start(text, first.range().start.index)), deleted.end_pos
    # between blank lines, one of them goes along (as `_delete_statement` does for a statement alone)
    blank_before = start == 0 or not text[_line_start(text, start - 1) : start].strip()
    if blank_before and end < len(text) and not text[end : _line_end(text, end)].strip():
        end = _line_end(text, end)
    return _Edit(start, end, "")


def _pattern_names(pattern: SgNode | None) -> list[SgNode]:
    """The names a declaration's target declares: itself, or those of a pattern (not its defaults, keys or types)."""
    if pattern is None:
        return []
    kind = pattern.kind()
    if kind in ("identifier", "shorthand_property_identifier_pattern"):
        return [pattern]
    if kind in ("object_assignment_pattern", "assignment_pattern"):
        return _pattern_names(pattern.field("left"))
    if kind == "pair_pattern":
        return _pattern_names(pattern.field("value"))
    if kind in ("object_pattern", "array_pattern", "rest_pattern"):
        return [name for child in pattern.named_children() for name in _pattern_names(child)]
    return []


def _underscored(name: SgNode) -> Edit:
    """A declared name tsc accepts unread: `_` before it (`{ id }` becomes `{ id: _id }`)."""
    if name.kind() == "shorthand_property_identifier_pattern":
        return name.replace(f"{name.text()}: _{name.text()}")
    return name.replace(f"_{name.text()}")


# -- finding the checks ---------------------------------------------------------------------------------------


def _checks(root: SgNode, language: str, gate_id: str) -> Iterator[tuple[SgNode, str]]:
    """(the node to replace, the name the call was reached through) for each check of `gate_id`."""
    quoted = {f'"{gate_id}"', f"'{gate_id}'", f"`{gate_id}`"}
    forms = CHECKS.get(language, {})
    for call in root.find_all(kind=CALL.get(language, "call_expression")):
        name, receiver = _callee(call, language)
        if name not in forms:
            continue
        arguments = _arguments(call, language)[:2]
        if not any(argument.text() in quoted for argument in arguments):
            continue
        if language != "java" and "?" in call.text()[: arguments[0].range().start.index - call.range().start.index]:
            continue  # `client?.checkGate(…)`: nothing (undefined, nil, null) where the client is not there
        node = call
        parent = call.parent()
        if forms[name] == "value":
            if parent is None or not parent.text().endswith(".value") or parent.kind() in CALL.values():
                continue  # the gate object itself: not a check the rules know
            node = parent
        elif forms[name] == "future":
            if parent is None or parent.kind() != "method_invocation" or _text(parent.field("name")) != "get":
                continue
            node = parent
        if _is_receiver(node) or _is_destructured(node):
            continue  # `store.checkGate("g").getEvalDetails()`: a gate object of another API, not a boolean
        outer = node.parent()
        if outer is not None and outer.kind() in ("await_expression", "await"):  # Python's node is `await`
            node = outer
        yield node, receiver


def _is_receiver(node: SgNode) -> bool:
    """Whether a member is read from `node`'s value (`node.name`, `node.name()`): a boolean has none worth reading."""
    parent = node.parent()
    if parent is None:
        return False
    if parent.kind() in ("method_invocation", "field_access"):  # Java: the object, by field
        return parent.field("object") == node
    return parent.kind() in MEMBER_PARENTS | {"navigation_expression"} and parent.named_children()[0] == node


# what takes a value apart into names (`const { a, b } = x`, `a, b = x`): a boolean has no parts
PATTERNS = frozenset({"object_pattern", "array_pattern", "pattern_list", "tuple_pattern", "list_pattern"})


def _is_destructured(node: SgNode) -> bool:
    """Whether `node`'s value is taken apart into names: an object of another API, not a boolean."""
    parent = node.parent()
    target = None if parent is None else parent.field("name") or parent.field("left")
    return target is not None and target.kind() in PATTERNS and target != node


def _callee(call: SgNode, language: str) -> tuple[str, str]:
    """The called name and the name it is reached through (`statsig` of `statsig.check_gate`)."""
    if language == "java":
        name = _text(call.field("name"))
        target = call.field("object")
        return name, _leaves(target)[0] if target is not None else name
    function = call.field("function") or call.named_children()[0]
    leaves = _leaves(function)
    return leaves[-1], leaves[0]


def _text(node: SgNode | None) -> str:
    return node.text() if node is not None else ""


def _leaves(node: SgNode) -> list[str]:
    """The names in `node`, in order (Swift's grammar puts a leading `!` in the callee: not a name)."""
    return [leaf.text() for leaf in _walk(node) if _is_named_leaf(leaf) and NAME.fullmatch(leaf.text())] or [node.text()]


def _is_named_leaf(node: SgNode) -> bool:
    # ast-grep's is_named_leaf() is true of punctuation too
    return bool(node.is_named() and node.is_leaf())


def _arguments(call: SgNode, language: str) -> list[SgNode]:
    container = call.field("arguments")
    if container is None:
        suffix = next(
            (child for child in call.named_children() if child.kind() in ("call_suffix", "argument_list", "arguments")), None
        )
        container = suffix
        if suffix is not None and suffix.kind() == "call_suffix":
            container = next((child for child in suffix.named_children() if child.kind() == "value_arguments"), None)
    if container is None:
        return []
    arguments = []
    for argument in container.named_children():
        if "comment" in argument.kind():
            continue  # `user,  # who` across lines
        if argument.kind() == "value_argument":  # Kotlin, Swift: `withName: "id"`, the expression last
            argument = argument.named_children()[-1]
        arguments.append(argument)
    return arguments


# -- the rules --------------------------------------------------------------------------------------------------


def _simplify_once(text: str, language: str, steps: set[str]) -> str | None:
    """The text after one round of one step, or None when no step applies."""
    root = _parse(text, language)
    for name in NODE_STEPS:
        if name not in steps:
            continue
        step = NODE_STEP_FUNCTIONS[name]
        edits = [edit for node in _walk(root) if (edit := step(node, language, text)) is not None]
        if edits:
            return _commit(root, edits, text)
    return None


def _commit(root: SgNode, edits: Sequence[Change], text: str) -> str:
    """The edits applied to `text` (character offsets, as ast-grep gives them); of overlapping edits the first
    wins, and the others wait for the next round."""
    flat = [edit for item in edits for edit in (item if isinstance(item, _Many) else [item])]
    kept: list[Edit | _Edit] = []
    for edit in sorted(flat, key=lambda edit: (edit.start_pos, edit.end_pos)):
        if not kept or edit.start_pos >= kept[-1].end_pos:
            kept.append(edit)
    for edit in reversed(kept):
        text = text[: edit.start_pos] + edit.inserted_text + text[edit.end_pos :]
    return text


def _constant(node: SgNode | None) -> bool | None:
    found = PLACEHOLDER.fullmatch(node.text()) if node is not None else None
    return None if found is None else found.group(1) == "true"


def _placeholder(value: bool, check: str) -> str:
    """The placeholder of `value` for the check numbered `check`."""
    return f"__gatehouse_{str(value).lower()}_{check}__"


def _check_of(node: SgNode) -> str:
    """The number of the check whose placeholder `node` is."""
    found = PLACEHOLDER.fullmatch(node.text())
    assert found is not None, node.text()
    return found.group(2)


def _negation(node: SgNode, language: str, text: str) -> Change | None:
    if node.kind() in UNARY and node.text()[:1] in "!n":
        inner = node.named_children()[-1]
        operand = _constant(inner)
        if operand is not None and PLACEHOLDER.fullmatch(node.text().lstrip("!not( \t").rstrip(") \t")):
            return node.replace(_placeholder(not operand, _check_of(inner)))
    return None


def _parentheses(node: SgNode, language: str, text: str) -> Change | None:
    parent, inner = node.parent(), _only_child(node)
    # an if's or while's own parentheses (TypeScript, Java) are its syntax, not an expression's
    if (
        node.kind() in PARENS
        and inner is not None
        and _constant(inner) is not None
        and not (parent is not None and parent.kind().endswith("_statement") and parent.kind() != "expression_statement")
    ):
        return node.replace(inner.text())
    return None


def _only_child(node: SgNode) -> SgNode | None:
    children = node.named_children()
    return children[0] if len(children) == 1 else None


def _operands(node: SgNode, kinds: frozenset[str], count: int) -> list[SgNode] | None:
    """The `count` operands of `node` when it is of one of `kinds` and has exactly that many; else None."""
    if node.kind() not in kinds:
        return None
    children = node.named_children()
    return children if len(children) == count else None


def _boolean(node: SgNode, language: str, text: str) -> Change | None:
    operands = _operands(node, BINARY, 2)
    if operands is None:
        return None
    left, right = operands
    operator = text_between(node, left, right)
    conjunction = operator in ("and", "&&")
    if operator not in ("and", "or", "&&", "||"):
        return None
    first = _constant(left)
    if first is not None:  # `True and x` is x, `False and x` is False: x is never evaluated
        return node.replace(_standing_for(node, right) if first == conjunction else left.text())
    # `x and True` is x where only truth counts: in Python and JavaScript `x and True` is True, not x, when x is a
    # truthy non-boolean, so there only in a condition. `x and False` is False when x has no effects to keep.
    second = _constant(right)
    if second is not None and second == conjunction and _left_of_the_same(node, operator):
        # `(x && true) && y` is `x && y` whatever x holds: x when it is falsy, else y (and `||` with false alike)
        return node.replace(left.text())
    if second is None or not (language in TYPED_BOOLEANS or _in_condition(node)):
        return None
    if second == conjunction:
        return node.replace(_standing_for(node, left))
    if _pure(left):
        return node.replace(right.text())
    return None


def _left_of_the_same(node: SgNode, operator: str) -> bool:
    """Whether `node` is the left operand of the same boolean operator (`node && y`, `node` a conjunction)."""
    parent = node.parent()
    if parent is None:
        return False
    operands = _operands(parent, BINARY, 2)
    return operands is not None and operands[0] == node and text_between(parent, *operands) == operator


def _pure(node: SgNode) -> bool:
    """Evaluating `node` has no effect: names, attributes, literals and comparisons of them (no call, no assignment)."""
    if node.kind() in PURE_LEAVES or _constant(node) is not None:
        return True
    if node.kind() in PURE_COMPOUNDS | PARENS | UNARY | BINARY:
        return all(_pure(child) for child in node.named_children())
    return False


def _in_condition(node: SgNode) -> bool:
    """Only `node`'s truth is read: it is (inside parentheses, `not` and boolean operators) an if's, elif's, while's or
    ternary's condition."""
    child, parent = node, node.parent()
    while parent is not None and (parent.kind() in PARENS | UNARY | BINARY):
        child, parent = parent, parent.parent()
    if parent is None:
        return False
    if parent.kind() in ("if_statement", "elif_clause", "while_statement", "do_statement"):
        return parent.field("condition") == child
    if parent.kind() in TERNARY:
        return parent.field("condition") == child
    return False


def text_between(node: SgNode, left: SgNode, right: SgNode) -> str:
    start = left.range().end.index - node.range().start.index
    end = right.range().start.index - node.range().start.index
    return node.text()[start:end].strip()


def _ternary(node: SgNode, language: str, text: str) -> Change | None:
    children = _operands(node, TERNARY, 3)
    if children is None:
        return None
    # Python: `a if condition else b`; the others: `condition ? a : b`
    condition, chosen, other = (children[1], children[0], children[2]) if language == "python" else children
    value = _constant(condition)
    if value is None:
        return None
    return node.replace(_standing_for(node, chosen if value else other))


def _standing_for(node: SgNode, operand: SgNode) -> str:
    """`operand` in place of `node`, the expression it was part of: in parentheses where, alone, it would read as
    something else (an object literal as an arrow function's body, or at a statement's start, reads as a block)."""
    parent = node.parent()
    if operand.kind() == "object" and parent is not None and parent.kind() in ("arrow_function", "expression_statement"):
        return f"({operand.text()})"
    return operand.text()


def _conditional(node: SgNode, language: str, text: str) -> Change | None:
    if node.kind() == "elif_clause":
        return _elif(node, text)
    if node.kind() != IF.get(language, "if_statement"):
        return None
    condition = node.field("condition") if language not in ("kotlin", "swift") else node.named_children()[0]
    if condition is not None and condition.kind() in PARENS and language != "python":
        condition = _only_child(condition)
    value = _constant(condition)
    if value is None or node.field("initializer") is not None:
        return None  # Go's `if x := f(); check {`: the statement before the condition runs either way
    live = _branch(node, language, value)
    if not _in_statement_list(node):
        return _in_place(node, live, language)
    if live is None:
        return _delete_statement(node, text, language)
    if live.kind() == IF.get(language, "if_statement") or (language == "python" and live.kind() == "elif_clause"):
        # the first elif becomes the if, the clauses after it kept; an `else if` chain's next if stands alone
        return node.replace(("if" + live.text()[4:] + _after(node, live, text)) if live.kind() == "elif_clause" else live.text())
    return _inline(node, live, text, language)


def _in_statement_list(node: SgNode) -> bool:
    parent = node.parent()
    return parent is not None and parent.kind() in STATEMENT_LISTS


def _in_place(node: SgNode, live: SgNode | None, language: str) -> Change | None:
    """An if where one statement or expression must stay one (`else if`, a loop's body, Kotlin's or Swift's if as a
    value): the live block as it is, braces and all (an empty one when nothing runs), where a block is a statement;
    in Kotlin and Swift (where braces alone make a closure) only a branch of one statement or expression, as it is."""
    parent = node.parent()
    if language == "swift" and parent is not None and parent.kind() == "if_statement":
        # Swift's `else` takes a block or another if, never a bare statement: the live branch, braces and all
        if live is None:
            return node.replace("{}")
        return node.replace(live.text() if live.kind() == "if_statement" else _swift_braced(node, live))
    if language in ("kotlin", "swift"):
        statements = [] if live is None else _statements(live) if live.kind() in BLOCK_KINDS else [live]
        if len(statements) != 1 or statements[0].kind() in DECLARATIONS:
            return None  # left as `if (true)`, with a TODO for a person
        return node.replace(statements[0].text())
    if language == "python":
        return None
    return node.replace(live.text() if live is not None else "{}")


def _swift_braced(node: SgNode, live: SgNode) -> str:
    """A Swift branch's statements with the braces around them, as written (Swift's if holds its braces itself)."""
    children = node.children()
    at = next(
        i
        for i, child in enumerate(children)
        if child.range().start.index == live.range().start.index and child.kind() == live.kind()
    )
    opening = next(child for child in reversed(children[:at]) if child.kind() == "{")
    closing = next(child for child in children[at + 1 :] if child.kind() == "}")
    offset = node.range().start.index
    return node.text()[opening.range().start.index - offset : closing.range().end.index - offset]


def _statements(block: SgNode) -> list[SgNode]:
    """A block's statements (within Kotlin's and Swift's `statements`), comments left out."""
    statements = block.named_children()
    if len(statements) == 1 and statements[0].kind() in ("statements", "statement_list"):
        statements = statements[0].named_children()
    return [statement for statement in statements if "comment" not in statement.kind()]


def _after(node: SgNode, live: SgNode, text: str) -> str:
    """What follows `live` inside `node` (a Python elif chain's later clauses): kept."""
    return text[live.range().end.index : node.range().end.index]


def _branch(node: SgNode, language: str, value: bool) -> SgNode | None:
    """The statement or block that runs: the consequence when `value`, else the alternative (None: nothing runs)."""
    if language == "python":
        if value:
            return node.field("consequence")
        alternatives = [child for child in node.named_children() if child.kind() in ("elif_clause", "else_clause")]
        if not alternatives:
            return None
        first = alternatives[0]
        return first if first.kind() == "elif_clause" else first.field("body") or first.named_children()[-1]
    bodies = [child for child in node.named_children()[1:] if child.kind() not in ("else",)]
    if language in ("kotlin", "swift"):
        return bodies[0] if value else (bodies[1] if len(bodies) > 1 else None)
    if value:
        return node.field("consequence")
    alternative = node.field("alternative")
    if alternative is None:
        return None
    if alternative.kind() == "else_clause":
        return alternative.named_children()[-1]
    return alternative


def _elif(node: SgNode, text: str) -> Change | None:
    value = _constant(node.field("condition"))
    if value is None:
        return None
    if not value:  # never taken: the clause goes, from its line's start
        start = text.rfind("\n", 0, node.range().start.index) + 1
        return _Edit(start, _line_end(text, node.range().end.index), "")
    # always taken when reached: it is the else, and the clauses after it are never reached
    statement, block = node.parent(), node.field("consequence")
    if statement is None or block is None:
        return None
    return _Edit(
        node.range().start.index,
        statement.range().end.index,
        "else:"
        + text[node.range().start.index :][
            text[node.range().start.index :].index(":") + 1 : block.range().end.index - node.range().start.index
        ],
    )


def _inline(node: SgNode, live: SgNode, text: str, language: str) -> Change | None:
    """`node` (an if) replaced by the statements of `live`, re-indented to the if's own column. When they end in a
    `return`, `raise` or `throw`, the statements after the if in its block are unreachable: deleted too (Java refuses
    unreachable code), unless one is hoisted or makes a generator (HOISTED)."""
    indent = _indentation(text, node.range().start.index)
    is_block = live.kind() in BLOCK_KINDS or live.kind() == "block"
    statements = _statements(live) if is_block else [live]
    if language != "python" and _clashes(node, statements):
        return _in_place(node, live, language)
    kept = [statement for statement in statements if statement is not None]
    if not kept:
        return _delete_statement(node, text, language)
    return _unreachable_gone(node, node.replace(_moved(text, indent, kept)), statements, text)


def _moved(text: str, indent: str, kept: list[SgNode]) -> str:
    """The text of the statements `kept` (one run of a block), each line moved left by as much as the first
    statement's is deeper than `indent`; a line that starts inside a string (a Python triple-quoted one, a template
    literal) is the string's text: left as it is."""
    start, end = kept[0].range().start.index, kept[-1].range().end.index
    deeper = _indentation(text, start)[len(indent) :] if _indentation(text, start).startswith(indent) else ""
    strings = [
        (found.range().start.index, found.range().end.index)
        for statement in kept
        for found in _walk(statement)
        if ("string" in found.kind() or "template" in found.kind()) and "\n" in found.text()
    ]
    lines, offset = text[start:end].split("\n"), start
    fixed = lines[:1]
    for previous, line in zip(lines, lines[1:]):
        offset += len(previous) + 1  # where `line` starts in `text`
        inside = any(first < offset < last for first, last in strings)
        fixed.append(line[len(deeper) :] if not inside and line.startswith(indent + deeper) else line)
    return "\n".join(fixed)


def _unreachable_gone(node: SgNode, replaced: Edit, statements: list[SgNode], text: str) -> Change:
    """`replaced` (what becomes of `node`), and when the `statements` it keeps end in an exit, the statements after
    `node` in its block deleted: unreachable (Java refuses them), unless one is hoisted or makes a generator."""
    return _the_rest_gone(node, replaced, text) if statements and _exits(statements[-1]) else replaced


def _the_rest_gone(node: SgNode, replaced: Change, text: str) -> Change:
    """`replaced`, and the statements after `node` in its block deleted (`node` never completes: they are never
    reached), unless one is hoisted or makes a generator."""
    after = _following(node)
    if after and not any(kind in HOISTED for statement in after for kind in (leaf.kind() for leaf in _walk(statement))):
        edits = replaced if isinstance(replaced, _Many) else [replaced]
        return _Many([*edits, _Edit(_line_end(text, node.range().end.index), _line_end(text, after[-1].range().end.index), "")])
    return replaced


def _exits(statement: SgNode) -> bool:
    return statement.kind() in EXITS or (
        statement.kind() == "expression_statement"
        and bool(statement.named_children())
        and statement.named_children()[0].kind() in EXITS
    )


def _following(node: SgNode) -> list[SgNode]:
    """The statements after `node` in its block."""
    parent = node.parent()
    siblings = [child for child in parent.named_children() if "comment" not in child.kind()] if parent is not None else []
    return [sibling for sibling in siblings if sibling.range().start.index >= node.range().end.index]


def _clashes(node: SgNode, statements: list[SgNode]) -> bool:
    """Whether a name `statements` declare (unwrapped from their block into the if's) is named elsewhere in the
    if's block too: there it would be declared twice, or change what another use of the name refers to."""
    declared = set()
    for statement in statements:
        if statement is not None and statement.kind() in DECLARATIONS:
            names = _declared_names(statement)
            if not names:
                return True  # a declaration whose names this cannot tell: kept in its block
            declared |= names
    if not declared:
        return False
    parent = node.parent()
    return parent is not None and any(
        _is_named_leaf(leaf) and leaf.text() in declared and not _inside(leaf, node) for leaf in _walk(parent)
    )


def _declared_names(statement: SgNode) -> set[str]:
    name = statement.field("name")
    if name is not None:
        return {name.text()}
    if statement.kind() == "short_var_declaration":
        left = statement.field("left")
        return {leaf.text() for leaf in left.named_children()} if left is not None else set()
    names = set()
    for child in _walk(statement):
        if child.kind() in ("variable_declarator", "var_spec", "const_spec"):
            found = child.field("name")
            names |= {found.text()} if found is not None else {leaf.text() for leaf in child.named_children()[:1]}
        elif child.kind() in ("variable_declaration", "pattern") and statement.kind() == "property_declaration":
            names |= {leaf.text() for leaf in _walk(child) if leaf.kind() in ("simple_identifier", "bound_identifier")}
    return names


def _indentation(text: str, index: int) -> str:
    line_start = text.rfind("\n", 0, index) + 1
    return _leading(text[line_start:index])


def _leading(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


def _line_end(text: str, index: int) -> int:
    end = text.find("\n", index)
    return len(text) if end < 0 else end + 1


@dataclass(frozen=True)
class _Edit:
    """An edit by character offsets, where a node's own replace cannot say it (whole lines)."""

    start_pos: int
    end_pos: int
    inserted_text: str


def _delete_statement(node: SgNode, text: str, language: str) -> Change:
    """`node` deleted with its line when it is alone on it; a Python block left empty gets `pass`."""
    parent = node.parent()
    if language == "python" and parent is not None and parent.kind() == "block" and len(parent.named_children()) == 1:
        return node.replace("pass")
    start, end = node.range().start.index, node.range().end.index
    line_start = text.rfind("\n", 0, start) + 1
    if not text[line_start:start].strip() and not text[end : _line_end(text, end)].strip():
        line_end = _line_end(text, end)
        after = _line_end(text, line_end)
        before = text.rfind("\n", 0, max(line_start - 1, 0)) + 1
        blank_before = line_start == 0 or not text[before:line_start].strip()
        # an import between blank lines takes one of them along; the last of a group, the blank line before it
        if blank_before and after > line_end and not text[line_end:after].strip():
            line_end = after
        elif blank_before and line_start > 0 and text[line_end:after].strip()[:1] in (")", "}"):
            line_start = before
        return _Edit(line_start, line_end, "")
    return node.replace("")


LOOPS = frozenset({"while_statement", "for_statement", "do_statement", "do_while_statement", "repeat_while_statement"})
# what a loop's `break` may leave instead of it (Java): an inner loop or switch
BREAK_TARGETS = frozenset({*LOOPS, "enhanced_for_statement", "switch_expression", "switch_statement"})
# what a `break` never crosses
BREAK_WALLS = frozenset({"lambda_expression", "class_body", "method_declaration", "constructor_declaration"})


def _loop(node: SgNode, language: str, text: str) -> Change | None:
    """A loop whose condition the value decided. Never true: a `while` or `for` never runs its body, so it goes (not
    Python's `while … else`, whose else runs; not a `for` whose start has an effect). Always true, in Java: the literal
    `true` (javac's own idiom for a loop left by `break`, `return` or `throw`), and, where no `break` leaves it, the
    statements after it in its block deleted, never reached (javac refuses them)."""
    if node.kind() not in LOOPS:
        return None
    condition, start = _loop_condition(node, language)
    value = _constant(condition)
    if value is None or condition is None:
        return None
    # a labelled loop (`outer: while (…)`) stands in its block as its label's statement
    parent = node.parent()
    statement = parent if parent is not None and parent.kind() == "labeled_statement" else node
    runs_first = node.kind() not in ("while_statement", "for_statement")  # do … while: the body runs once
    if not value and not runs_first:
        if any(child.kind() == "else_clause" for child in node.named_children()):
            return None
        if start is not None and not _declares_only(start):
            # Java refuses the body of `for (i = next(); false; …)`: its start is kept, in a block of its own
            return node.replace("{ " + _java_for_start(node, condition) + " }") if language == "java" else None
        if _in_statement_list(statement):
            return _delete_statement(statement, text, language)
        return statement.replace("{}") if language in ("java", "typescript", "tsx", "javascript") else None
    if value and language == "java":
        literal = condition.replace("true")
        if not _in_statement_list(statement) or _broken_out_of(node):
            return literal
        return _the_rest_gone(statement, literal, text)
    return None


def _java_for_start(loop: SgNode, condition: SgNode) -> str:
    """The statements a Java `for` starts with (its declaration, or each of its expressions), as statements."""
    parts = [child for child in loop.named_children() if child.range().end.index <= condition.range().start.index]
    return " ".join(part.text() if part.text().rstrip().endswith(";") else part.text() + ";" for part in parts)


def _loop_condition(node: SgNode, language: str) -> tuple[SgNode | None, SgNode | None]:
    """A loop's condition (inside its parentheses) and the statement its `for` starts with (None: none)."""
    clause = next((child for child in node.named_children() if child.kind() == "for_clause"), None)  # Go
    holder = clause or node
    condition = holder.field("condition")
    start = holder.field("init") or holder.field("initializer")
    if condition is None and clause is None:
        # Kotlin's and Swift's loops, Go's `for condition {`: no field; the condition is a named child, the first
        # (the last after a `do` or `repeat` body). A `for … in` finds its variable there: no placeholder.
        children = [child for child in node.named_children() if "comment" not in child.kind()]
        children = [child for child in children if child.kind() not in BLOCK_KINDS]
        if children:
            condition = children[-1] if node.kind() in ("do_while_statement", "repeat_while_statement") else children[0]
    if condition is not None and condition.kind() == "expression_statement":  # JavaScript's `for (…; condition; …)`
        condition = _only_child(condition)
    if condition is not None and condition.kind() in PARENS:
        condition = _only_child(condition)
    return condition, start


def _declares_only(start: SgNode) -> bool:
    """Whether a `for`'s first statement only declares the loop's own variables, from values without effect."""
    if start.kind() not in ("local_variable_declaration", "lexical_declaration", "variable_declaration", "short_var_declaration"):
        return False
    effects = ("call", "invocation", "creation", "new_expression", "assignment_expression", "update_expression", "await")
    return not any(any(part in leaf.kind() for part in effects) for leaf in _walk(start))


def _broken_out_of(loop: SgNode) -> bool:
    """Whether a `break` in Java's `loop` may leave it: one with a label, or one whose nearest loop or switch it is."""
    inner_labels = {_text(label.named_children()[0]) for label in _walk(loop) if label.kind() == "labeled_statement"}
    for found in _walk(loop):
        if found.kind() != "break_statement":
            continue
        if found.named_children():  # `break outer;`: out of this loop unless the label is of a statement inside it
            if found.named_children()[0].text() not in inner_labels:
                return True
            continue
        target = next((ancestor for ancestor in found.ancestors() if ancestor.kind() in BREAK_TARGETS | BREAK_WALLS), None)
        if target == loop:
            return True
    return False


def _guard(node: SgNode, language: str, text: str) -> Change | None:
    """Swift's `guard condition else { exit }`: a guard that always passes goes; one that never does is its exit."""
    if node.kind() != "guard_statement":
        return None
    value = _constant(node.named_children()[0])
    if value is None:
        return None
    if value:
        return _delete_statement(node, text, language)
    body = next((child for child in node.named_children() if child.kind() == "statements"), None)
    return _inline(node, body, text, language) if body is not None else None


def _jsx(node: SgNode, language: str, text: str) -> Change | None:
    """`{<Element />}` in JSX, the ternary it held decided: the element itself; `{true}` or `{false}` (an `&&` decided),
    which React renders as nothing: deleted."""
    if node.kind() == "jsx_expression" and (inner := _only_child(node)) is not None:
        parent = node.parent()
        if parent is None or parent.kind() != "jsx_element":  # an attribute's value must stay in braces
            return None
        if inner.kind().startswith("jsx_"):
            return node.replace(inner.text())
        if _constant(inner) is not None:
            return _delete_statement(node, text, language)
    return None


def _discarded(node: SgNode, language: str, text: str) -> Change | None:
    """A check whose value nothing reads (`Statsig.checkGate(user, "g");`, called for its exposure log): the statement
    goes. Left as the literal it would not build (`true;` is no Java statement, Go refuses an unused value)."""
    parent = node.parent()
    if _constant(node) is None or parent is None:
        return None
    statement = parent if parent.kind() == "expression_statement" and len(parent.named_children()) == 1 else node
    if statement is node and parent.kind() != "statements":  # Kotlin's and Swift's statements hold expressions
        return None
    if statement is node and _is_a_blocks_value(node, parent, language):
        return None
    if _in_statement_list(statement):
        return _delete_statement(statement, text, language)
    # the body of an `if` or a loop without braces: one statement stays one, an empty block
    return statement.replace("{}") if statement is parent and language in ("java", "typescript", "tsx", "javascript") else None


def _is_a_blocks_value(expression: SgNode, statements: SgNode, language: str) -> bool:
    """Whether `expression`, last of Kotlin's or Swift's `statements`, may be its block's value: a lambda's result
    (`xs.filter { check }`, `run { log(); check }`), an `if`'s or a `when`'s branch used as a value, and in Swift a
    function's or a getter's body of that one expression (`func f() -> Bool { check }` returns it). Only a loop's body,
    a class's, or a function's of several statements certainly reads no value from it."""
    last = _statements(statements)
    if not last or last[-1] != expression:
        return False
    block = statements.parent()
    if block is not None and block.kind() == "function_body" and language == "swift" and len(last) == 1:
        declaration = block.parent()  # a function that returns a value: `-> Bool` before its body
        return (
            declaration is not None and "->" in declaration.text()[: block.range().start.index - declaration.range().start.index]
        )
    if block is None or block.kind() in ("function_body", "class_body"):
        return False
    holder = block.parent() if block.kind() == "control_structure_body" else block
    return holder is None or holder.kind() not in ("for_statement", "while_statement", "do_while_statement")


def _variable(node: SgNode, language: str, text: str) -> Change | None:
    """A local variable assigned a placeholder once and never again: its uses become the placeholder (this round),
    its declaration goes (a later round, once no use is left)."""
    found = _declaration(node, language)
    if found is None:
        return None
    name, value = found
    # a module's or a class's variable is read from elsewhere too (an import, an attribute): never inlined
    scope = next((ancestor for ancestor in node.ancestors() if ancestor.kind() in FUNCTIONS), None)
    if scope is None:
        return None
    leaves = [leaf for leaf in _walk(scope) if _is_named_leaf(leaf) and leaf.text() == name]
    if any(leaf.kind().startswith("shorthand_property_identifier") for leaf in leaves):
        return None  # `{ name }` is `{ name: name }`: the key would go with the variable
    if any(leaf.kind() == "interpolated_identifier" for leaf in leaves):
        return None  # Kotlin's `"$name"`: a string's text, where no value can be written
    uses = [
        identifier
        for identifier in leaves
        if identifier.kind() in ("identifier", "simple_identifier") and not _is_member(identifier)
    ]
    declared = [use for use in uses if _inside(use, node)]
    others = [use for use in uses if not _inside(use, node)]
    if len(declared) != 1 or any(_is_assigned(use) for use in others):
        return None
    if others:
        return _Many([use.replace(value.text()) for use in others])
    return _delete_statement(node, text, language)


class _Many(list["Edit | _Edit"]):  # several edits from one rule on one node
    pass


# what a rule makes of a node: one of ast-grep's edits, one by offsets, or several
Change = Union["Edit", _Edit, _Many]


def _declaration(node: SgNode, language: str) -> tuple[str, SgNode] | None:
    kind = node.kind()
    children = node.named_children()
    if language == "python" and kind == "expression_statement" and len(children) == 1 and children[0].kind() == "assignment":
        target, value = children[0].field("left"), children[0].field("right")
        if target is not None and target.kind() == "identifier" and value is not None and _constant(value) is not None:
            return target.text(), value
    if kind in ("lexical_declaration", "variable_declaration", "local_variable_declaration"):
        declarators = [child for child in children if child.kind() == "variable_declarator"]
        if len(declarators) == 1:
            name, value = declarators[0].field("name"), declarators[0].field("value")
            if name is not None and name.kind() == "identifier" and value is not None and _constant(value) is not None:
                return name.text(), value
    if kind == "property_declaration" and _constant(children[-1] if children else None) is not None:
        names = [leaf for child in children[:-1] for leaf in _walk(child) if leaf.kind() == "simple_identifier"]
        if len(names) == 1 and "var " not in node.text()[:8]:
            return names[0].text(), children[-1]
    if kind == "short_var_declaration":
        left, right = node.field("left"), node.field("right")
        if (
            left is not None
            and right is not None
            and len(left.named_children()) == 1
            and len(right.named_children()) == 1
            and _constant(right.named_children()[0]) is not None
        ):
            return left.named_children()[0].text(), right.named_children()[0]
    return None


def _inside(node: SgNode, container: SgNode) -> bool:
    start, end = container.range().start.index, container.range().end.index
    return start <= node.range().start.index and node.range().end.index <= end


def _is_member(identifier: SgNode) -> bool:
    parent = identifier.parent()
    if parent is None:
        return False
    first = parent.named_children()[0] == identifier
    if parent.kind() in MEMBER_PARENTS:
        return not first
    if parent.kind() in KEYWORD_PARENTS:
        return first and len(parent.named_children()) > 1
    return parent.kind() in NAME_PARENTS


def _is_assigned(identifier: SgNode) -> bool:
    parent = identifier.parent()
    if parent is None:
        return False
    if parent.kind() in (
        "assignment",
        "augmented_assignment",
        "assignment_expression",
        "augmented_assignment_expression",
        "update_expression",
        "directly_assignable_expression",
        "assignment_statement",
        "inc_statement",
        "dec_statement",
    ):
        return parent.named_children()[0] == identifier
    # Go: `a, err = f()` and `a, err := f()`, which assigns `a` again when it is declared already
    statement = parent.parent() if parent.kind() == "expression_list" else None
    return (
        statement is not None
        and statement.kind() in ("assignment_statement", "short_var_declaration")
        and (statement.field("left") == parent)
    )


# -- what is left ---------------------------------------------------------------------------------------------


def _literals(text: str, language: str) -> tuple[str, int]:
    """Each placeholder left becomes the literal, with a TODO(gatehouse) comment once on its line (none added where a
    comment of the line says so already: an earlier run's); the count is of the checks left so, each once. A line
    that ends inside a string or JSX text (where the comment would be text) raises `Unsafe`."""
    true, false = LITERALS.get(language, ("true", "false"))
    note = f"{COMMENT.get(language, '//')} {TODO}: the gate's value, used where gatehouse cannot simplify it"
    lines = text.split("\n")
    checks: set[str] = set()
    marked = 0
    said = _lines_commented(text, note, language) if note in text else set()
    for number, line in enumerate(lines):
        found = {match.group(2) for match in PLACEHOLDER.finditer(line)}
        if found:
            checks |= found
            lines[number] = PLACEHOLDER.sub(lambda match: true if match.group(1) == "true" else false, line)
            if number not in said:
                lines[number] += "  " + note
                marked += 1
    if not checks:
        return text, 0
    before = len(said)
    text = "\n".join(lines)
    if len(_lines_commented(text, note, language)) - before < marked:
        raise Unsafe("the gate's value is used inside a string or JSX text, where no comment can mark it")
    return text, len(checks)


def _lines_commented(text: str, note: str, language: str) -> set[int]:
    """The lines (by number) that end in a comment holding `note`."""
    lines = set()
    for node in _walk(_parse(text, language)):
        end = node.range().end.index
        if "comment" in node.kind() and note in node.text() and not text[end : _line_end(text, end)].strip():
            lines.add(node.range().end.line)
    return lines


def _bound_names(node: SgNode, language: str) -> list[str]:
    """The names an import statement binds ([]: not an import, or one whose names this cannot tell)."""
    kind = node.kind()
    if language == "python" and kind in ("import_statement", "import_from_statement"):
        imported = node.named_children()[1 if kind == "import_from_statement" else 0 :]
        return [_leaves(name)[-1] for name in imported]
    if language in ("typescript", "tsx", "javascript") and kind == "import_statement":
        clause = next((child for child in node.named_children() if child.kind() == "import_clause"), None)
        return [leaf.text() for leaf in _walk(clause) if leaf.kind() == "identifier"] if clause is not None else []
    if language in ("java", "kotlin") and kind in ("import_declaration", "import_header") and "*" not in node.text():
        return _leaves(node)[-1:]
    if language == "go" and kind == "import_spec":
        alias, path = node.field("name"), node.field("path")
        if alias is not None:
            return [alias.text()] if alias.text() not in ("_", ".") else []
        if path is None:
            return []
        # a package's name is not in its path; the service's Go SDK (github.com/statsig-io/go-sdk) is `statsig`
        if "statsig" in path.text():
            return ["statsig"]
        # else most often its last element (`net/http` is `http`, `example.com/x/v2` is `x`): a wrong guess is a
        # name the code never used, and an import goes only when the code used its name before the rewrite
        parts = path.text().strip('"`').rstrip("/").split("/")
        name = parts[-2] if len(parts) > 1 and re.fullmatch(r"v[0-9]+", parts[-1]) else parts[-1]
        return [name]
    return []


# what declares names for its body only: a function's parameters, a loop's variable, a caught error
BINDERS = FUNCTIONS | {"for_in_statement", "for_statement", "catch_clause"}
EQUALITY = {"===": False, "==": False, "!==": True, "!=": True}  # what a comparison with a literal never held gives


def _narrowed(node: SgNode, language: str, text: str) -> Change | None:
    """`name === "x"` where `name` is a const whose value can only be literals other than "x": the comparison's
    constant (false, or true for `!==`). tsc types such a const by its literals and refuses the comparison (TS2367),
    so a file that compiled held none: only the rewrite, which took a literal out of the const's value, makes one.
    The value compared with a boolean literal is decided the same way; a module's const holding it is widened."""
    operator = node.field("operator")
    if node.kind() != "binary_expression" or operator is None or operator.text() not in EQUALITY:
        return None
    left, right = node.field("left"), node.field("right")
    if left is None or right is None:
        return None
    sides, made = (_label(left), _label(right)), left if _constant(left) is not None else right
    if None not in sides and _constant(made) is not None:  # `true === false`: two literals, tsc refuses those that differ
        return node.replace(_placeholder((sides[0] == sides[1]) != EQUALITY[operator.text()], _check_of(made)))
    name, literal = (left, right) if left.kind() == "identifier" else (right, left)
    held = _constant(_const_value(name)) if name.kind() == "identifier" else None
    if held is not None and _label(literal) == ("boolean", str(not held).lower()):
        declared = _const_value(name)  # a module's const holding the value, compared with the other: widened
        return declared.replace(f"{declared.text()} as boolean") if declared is not None else None
    compared = _literal_values(literal)
    if name.kind() != "identifier" or compared is None:
        return None
    values = _const_values(name)
    if values is None or compared <= values:
        return None
    return node.replace(_placeholder(EQUALITY[operator.text()], str(1_000_000 + node.range().start.index)))


def _literal_values(node: SgNode | None) -> set[str] | None:
    """The string literals `node` can be (a literal, or a ternary or parentheses of them), None when it can be more."""
    if node is None:
        return None
    if node.kind() == "string" and "\\" not in node.text():
        return {node.text()[1:-1]}
    if node.kind() == "parenthesized_expression" and len(node.named_children()) == 1:
        return _literal_values(node.named_children()[0])
    if node.kind() == "ternary_expression":
        chosen, other = _literal_values(node.field("consequence")), _literal_values(node.field("alternative"))
        return None if chosen is None or other is None else chosen | other
    return None


def _const_values(name: SgNode) -> set[str] | None:
    """The literals the const that `name` reads can hold (`_const_value`, made of literals); None for anything else."""
    return _literal_values(_const_value(name))


def _const_value(name: SgNode) -> SgNode | None:
    """The value of the const that `name` reads: found in the nearest scope declaring the name, a `const` without a
    type of its own; None for anything else (a parameter, a `let`)."""
    scope = name.parent()
    while scope is not None:
        # a parameter, a loop's variable or a caught error of the name: another variable than the const
        bound = [scope.field(field) for field in ("parameters", "parameter", "left", "initializer")]
        if scope.kind() in BINDERS and any(leaf.text() == name.text() for node in bound if node for leaf in _walk(node)):
            return None
        declarators = [
            declarator
            for statement in scope.named_children()
            if statement.kind() in DECLARATIONS
            for declarator in statement.named_children()
            if declarator.kind() == "variable_declarator"
            and any(leaf.text() == name.text() for leaf in _walk(declarator.field("name") or declarator))
        ]
        if declarators:
            declarator = declarators[0]
            const = _text(declarator.parent()).startswith("const ")
            simple = _text(declarator.field("name")) == name.text() and declarator.field("type") is None
            return declarator.field("value") if len(declarators) == 1 and const and simple else None
        scope = scope.parent()
    return None


# What a `break` without a label inside a switch's case leaves: these, when nested in the case (else the switch)
BREAKABLE = frozenset({"for_statement", "for_in_statement", "while_statement", "do_statement", "switch_statement"})
Label = tuple[str, str]  # a case's literal by kind: ("boolean", "true"), ("string", "new"); ("default", "")


def _switch(node: SgNode, language: str, text: str) -> Change | None:
    """A `switch` whose discriminant or a case of it is the value, the discriminant and every case a literal: the
    statements that run (from the matching case, else the default, through fall-through to a `break`). tsc types a
    constant discriminant by its literal and refuses a case it can no longer equal (TS2678); where the switch cannot
    be simplified with certainty, TypeScript gets the value widened (`true as boolean`), which it accepts."""
    value, body = node.field("value"), node.field("body")
    discriminant = _only_child(value) if node.kind() == "switch_statement" and value is not None else None
    if discriminant is None or body is None:
        return None
    clauses = [clause for clause in body.named_children() if clause.kind() in ("switch_case", "switch_default")]
    cases = [clause.field("value") for clause in clauses if clause.kind() == "switch_case"]
    made = [case for case in [discriminant, *cases] if case is not None and _constant(case) is not None]
    if not made:
        return _switch_on_const(node, discriminant, clauses, text, language)
    key = _label(discriminant)
    runs = _switch_runs(node, clauses, key) if key is not None else None
    if runs is not None:
        return _switch_simplified(node, clauses, runs, text, language)
    if language == "javascript":
        return None
    return _Many([case.replace(f"{case.text()} as boolean") for case in made])


def _switch_on_const(node: SgNode, discriminant: SgNode, clauses: list[SgNode], text: str, language: str) -> Change | None:
    """`switch (name)` where `name` is a const the rewrite made one literal of, and a case another literal: for a
    check the rewrite could not inline (a module's const), its value widened (`true as boolean`); for a literal the
    rewrite chose (`const mode = "new"`), the switch simplified, else the discriminant widened (`mode as string`)."""
    declared = _const_value(discriminant) if language != "javascript" and discriminant.kind() == "identifier" else None
    if declared is None:
        return None
    labels = {_label(clause.field("value")) for clause in clauses if clause.kind() == "switch_case"}
    held = _constant(declared)
    if held is not None:
        return declared.replace(f"{declared.text()} as boolean") if ("boolean", str(not held).lower()) in labels else None
    values = _literal_values(declared)
    if values is None or {label[1] for label in labels if label and label[0] == "string"} <= values:
        return None  # a switch tsc accepted before the rewrite: not the rewrite's to change
    runs = _switch_runs(node, clauses, ("string", next(iter(values)))) if len(values) == 1 else None
    if runs is not None:
        # the const, read by the switch alone, is left unread: it goes with the locals the removed code alone read
        return _switch_simplified(node, clauses, runs, text, language)
    return discriminant.replace(f"{discriminant.text()} as string")


def _label(node: SgNode | None) -> Label | None:
    """A case's or a discriminant's literal, None when it is not one the rewrite can compare."""
    if node is None:
        return None
    value = _constant(node)
    if value is not None or node.kind() in ("true", "false"):
        return ("boolean", str(value).lower() if value is not None else node.kind())
    if node.kind() == "string" and "\\" not in node.text():
        return ("string", node.text()[1:-1])
    return None


def _switch_runs(node: SgNode, clauses: list[SgNode], key: Label) -> list[list[SgNode]] | None:
    """The statements that run when the discriminant is `key`, by case (the text between two runs is case labels):
    from the matching case, else the default, through fall-through to a `break` (dropped) or an exit. None where that
    is not certain: a case not a literal, a labelled switch (a `break label` may leave it), another `break`."""
    labels = [_label(clause.field("value")) if clause.kind() == "switch_case" else ("default", "") for clause in clauses]
    parent = node.parent()
    if None in labels or parent is None or parent.kind() == "labeled_statement":
        return None
    default = labels.index(("default", "")) if ("default", "") in labels else None
    start = next((at for at, label in enumerate(labels) if label == key), default)
    runs: list[list[SgNode]] = []
    for clause in clauses[start:] if start is not None else []:
        children = clause.children()
        colon = next((at for at, child in enumerate(children) if child.kind() == ":"), None)
        if colon is None:  # a case tree-sitter could not read whole
            return None
        statements = [child for child in children[colon + 1 :] if child.is_named() and "comment" not in child.kind()]
        braced = _statements(statements[0]) if statements and statements[0].kind() == "statement_block" else []
        if not runs and braced and len(statements) == 1 and _ends_case(braced[-1]):
            # `case true: { …; break; }`, the block the scope of its declarations: its statements, to its end
            runs.append(braced[:-1] if _is_break(braced[-1]) else braced)
            break
        ends = next(
            (at + (not _is_break(statement)) for at, statement in enumerate(statements) if _ends_case(statement)),
            None,
        )
        runs.append(statements[:ends])
        if ends is not None:
            break
    if any(_breaks_out(statement) for run in runs for statement in run):
        return None
    return [run for run in runs if run]


def _switch_simplified(node: SgNode, clauses: list[SgNode], runs: list[list[SgNode]], text: str, language: str) -> Change:
    """The switch replaced by the statements of `runs` (`_switch_runs`), re-indented to its column; in a block of its
    own where one statement must stay one or a declaration would meet a name around the switch."""
    kept = [statement for run in runs for statement in run]
    if not kept:
        return _delete_statement(node, text, language) if _in_statement_list(node) else node.replace("{}")
    indent = _indentation(text, node.range().start.index)
    if _in_statement_list(node) and not _clashes(node, kept):
        moved = ("\n" + indent).join(_moved(text, indent, run) for run in runs)
        return _unreachable_gone(node, node.replace(moved), kept, text)
    inner = indent + _indentation(text, clauses[0].range().start.index)[len(indent) :]
    moved = ("\n" + inner).join(_moved(text, inner, run) for run in runs)
    return node.replace("{\n" + inner + moved + "\n" + indent + "}")


def _ends_case(statement: SgNode) -> bool:
    """A case's statements end here: a `break` of the switch, or an exit (no fall-through to the next case)."""
    return _is_break(statement) or _exits(statement) or statement.kind() == "continue_statement"


def _is_break(statement: SgNode) -> bool:
    """A `break` without a label: in a case's statements, the end of the switch."""
    return statement.kind() == "break_statement" and not any(
        child.kind() == "statement_identifier" for child in statement.children()
    )


def _breaks_out(statement: SgNode) -> bool:
    """`statement` holds a `break` without a label that leaves the switch around it (not a loop or switch of its own)."""
    for found in _walk(statement):
        if _is_break(found):
            between = [ancestor for ancestor in found.ancestors() if _inside(ancestor, statement)]
            if not any(ancestor.kind() in BREAKABLE | FUNCTIONS for ancestor in [found, *between]):
                return True
    return False


# The steps that apply a rule to one node (rules.NODE_STEPS names them, in the order they are tried): each returns
# the change it makes of the node, or None where the rule does not apply.
NODE_STEP_FUNCTIONS: Mapping[str, Callable[[SgNode, str, str], Change | None]] = {
    "negation": _negation,
    "parentheses": _parentheses,
    "boolean": _boolean,
    "ternary": _ternary,
    "if": _conditional,
    "loop": _loop,
    "guard": _guard,
    "jsx": _jsx,
    "variable": _variable,
    "discarded": _discarded,
    "narrowed": _narrowed,
    "switch": _switch,
}
