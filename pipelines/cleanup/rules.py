"""The rewrite's rules as data: which calls are a check of a gate (`CALL_FORMS`), and what the value of one makes
constant and how that is simplified (`RULES`), each a record with its languages, the pattern it matches, what it
becomes, and a before/after example that tests/cleanup/test_rules.py runs (the example with the gate `g`).

The engine that applies them is `rewrite.py`: it finds the call forms, and applies each rule's step (`Rule.step`,
one of its own) in the order of `RULES`, for the rule's languages only. A pattern is written as ast-grep writes one
(`$X` any expression, `$$$` any statements); the engine matches the syntax tree, not the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ALL = ("python", "typescript", "tsx", "javascript", "java", "kotlin", "go", "swift")
WEB = ("typescript", "tsx", "javascript")
BRACED = ("typescript", "tsx", "javascript", "java", "go")  # an if's branches are blocks of statements, not values


@dataclass(frozen=True)
class Example:
    language: str
    value: bool  # the gate's value
    before: str
    after: str


@dataclass(frozen=True)
class CallForm:
    """A documented SDK call that checks a gate, with the gate's id first, or second after the user."""

    name: str
    languages: tuple[str, ...]
    # what gives the gate's value: the call itself, its `.value` (a gate object), or its future's `.get()`
    reads: Literal["call", "value", "future"]
    pattern: str
    example: Example


@dataclass(frozen=True)
class Rule:
    name: str
    languages: tuple[str, ...]
    pattern: str  # where $CHECK is a check replaced by its value
    rewrite: str
    step: str  # the engine's step that applies it (several rules may share one)
    example: Example


def _boolean(name: str, languages: tuple[str, ...], pattern: str, example: Example) -> CallForm:
    return CallForm(name, languages, "call", pattern, example)


CALL_FORMS: tuple[CallForm, ...] = (
    _boolean(
        "check_gate",
        ("python",),
        '$SDK.check_gate($USER, "$GATE")',
        Example(
            "python",
            True,
            'enabled = statsig.check_gate(user, "g")\n',
            "enabled = True  # TODO(gatehouse): the gate's value, used where gatehouse cannot simplify it\n",
        ),
    ),
    _boolean(
        "check_gate_with_exposure_logging_disabled",
        ("python",),
        '$SDK.check_gate_with_exposure_logging_disabled($USER, "$GATE")',
        Example(
            "python",
            False,
            'def f(user):\n    if statsig.check_gate_with_exposure_logging_disabled(user, "g"):\n'
            "        return 1\n    return 2\n",
            "def f(user):\n    return 2\n",
        ),
    ),
    CallForm(
        "get_feature_gate",
        ("python",),
        "value",
        '$SDK.get_feature_gate($USER, "$GATE").value',
        Example(
            "python",
            True,
            'def f(user):\n    return "new" if statsig.get_feature_gate(user, "g").value else "old"\n',
            'def f(user):\n    return "new"\n',
        ),
    ),
    _boolean(
        "checkGate",
        (*WEB, "java", "kotlin", "swift"),
        '$SDK.checkGate($USER, "$GATE") / $SDK.checkGate("$GATE")',
        Example(
            "typescript",
            True,
            'function f(user) {\n  if (Statsig.checkGate(user, "g")) {\n    return 1;\n  }\n  return 2;\n}\n',
            "function f(user) {\n  return 1;\n}\n",
        ),
    ),
    _boolean(
        "checkGateSync",
        (*WEB, "java", "kotlin"),
        '$SDK.checkGateSync($USER, "$GATE")',
        Example(
            "java",
            False,
            'class A {\n    int f(User user) {\n        return Statsig.checkGateSync(user, "g") ? 1 : 2;\n    }\n}\n',
            "class A {\n    int f(User user) {\n        return 2;\n    }\n}\n",
        ),
    ),
    _boolean(
        "checkGateWithExposureLoggingDisabled",
        (*WEB, "java", "kotlin", "swift"),
        '$SDK.checkGateWithExposureLoggingDisabled($USER, "$GATE")',
        Example(
            "kotlin",
            True,
            'fun f(): Int {\n    if (Statsig.checkGateWithExposureLoggingDisabled("g")) {\n'
            "        return 1\n    }\n    return 2\n}\n",
            "fun f(): Int {\n    return 1\n}\n",
        ),
    ),
    _boolean(
        "useGateValue",
        ("tsx", "javascript", "typescript"),
        'useGateValue("$GATE")',
        Example(
            "tsx",
            False,
            'function Banner() {\n  const on = useGateValue("g");\n  return on ? <New /> : <Old />;\n}\n',
            "function Banner() {\n  return <Old />;\n}\n",
        ),
    ),
    CallForm(
        "useFeatureGate",
        ("tsx", "javascript", "typescript"),
        "value",
        'useFeatureGate("$GATE").value',
        Example(
            "tsx",
            True,
            'function Banner() {\n  return <div>{useFeatureGate("g").value && <New />}</div>;\n}\n',
            "function Banner() {\n  return <div><New /></div>;\n}\n",
        ),
    ),
    CallForm(
        "useGate",
        ("tsx", "javascript", "typescript"),
        "value",
        'useGate("$GATE").value',
        Example(
            "tsx",
            False,
            'function Banner() {\n  if (!useGate("g").value) {\n    return null;\n  }\n  return <New />;\n}\n',
            "function Banner() {\n  return null;\n}\n",
        ),
    ),
    CallForm(
        "getFeatureGate",
        (*WEB, "java", "kotlin", "swift"),
        "value",
        '$SDK.getFeatureGate($USER, "$GATE").value',
        Example(
            "javascript",
            True,
            'function f(user) {\n  return statsig.getFeatureGate(user, "g").value ? 1 : 2;\n}\n',
            "function f(user) {\n  return 1;\n}\n",
        ),
    ),
    CallForm(
        "checkGateAsync",
        ("java",),
        "future",
        '$SDK.checkGateAsync($USER, "$GATE").get()',
        Example(
            "java",
            True,
            "class A {\n    int f(User user) throws Exception {\n"
            '        if (Statsig.checkGateAsync(user, "g").get()) {\n            return 1;\n        }\n        return 2;\n'
            "    }\n}\n",
            "class A {\n    int f(User user) throws Exception {\n        return 1;\n    }\n}\n",
        ),
    ),
    _boolean(
        "CheckGate",
        ("go",),
        'statsig.CheckGate($USER, "$GATE")',
        Example(
            "go",
            False,
            'package m\n\nfunc f(user User) int {\n\tif statsig.CheckGate(user, "g") {\n\t\treturn 1\n\t}\n\treturn 2\n}\n',
            "package m\n\nfunc f(user User) int {\n\treturn 2\n}\n",
        ),
    ),
    _boolean(
        "CheckGateWithExposureLoggingDisabled",
        ("go",),
        'statsig.CheckGateWithExposureLoggingDisabled($USER, "$GATE")',
        Example(
            "go",
            True,
            "package m\n\nfunc f(user User) int {\n"
            '\tif !statsig.CheckGateWithExposureLoggingDisabled(user, "g") {\n\t\treturn 1\n\t}\n\treturn 2\n}\n',
            "package m\n\nfunc f(user User) int {\n\treturn 2\n}\n",
        ),
    ),
)

RULES: tuple[Rule, ...] = (
    Rule(
        "negation",
        ALL,
        "!$CHECK / not $CHECK",
        "the opposite value",
        "negation",
        Example(
            "python",
            True,
            'def f(user):\n    if not statsig.check_gate(user, "g"):\n        a()\n    b()\n',
            "def f(user):\n    b()\n",
        ),
    ),
    Rule(
        "parentheses",
        ALL,
        "($CHECK)",
        "$CHECK",
        "parentheses",
        Example(
            "typescript",
            True,
            'function f(u) {\n  return (Statsig.checkGate(u, "g")) ? 1 : 2;\n}\n',
            "function f(u) {\n  return 1;\n}\n",
        ),
    ),
    Rule(
        "and/or with the value first",
        ALL,
        "$CHECK && $X / $CHECK || $X / $CHECK and $X / $CHECK or $X",
        "$X when it decides (true &&, false ||), else the value: $X is never evaluated",
        "boolean",
        Example(
            "java",
            True,
            'class A {\n    boolean f(User u) {\n        return Statsig.checkGate(u, "g") && ready();\n    }\n}\n',
            "class A {\n    boolean f(User u) {\n        return ready();\n    }\n}\n",
        ),
    ),
    Rule(
        "and/or with the value last",
        ALL,
        "$X && $CHECK / $X || $CHECK",
        "$X where only a boolean or a condition's truth is read; the value when $X is pure (no call)",
        "boolean",
        Example(
            "python",
            False,
            'def f(user, small):\n    if small or statsig.check_gate(user, "g"):\n        a()\n',
            "def f(user, small):\n    if small:\n        a()\n",
        ),
    ),
    Rule(
        "ternary",
        ("python", *WEB, "java", "swift"),
        "$CHECK ? $A : $B / $A if $CHECK else $B",
        "the live operand, in parentheses where alone it would read as something else",
        "ternary",
        Example(
            "javascript",
            False,
            'const f = (u) => Statsig.checkGate(u, "g") ? { a: 1 } : { b: 2 };\n',
            "const f = (u) => ({ b: 2 });\n",
        ),
    ),
    Rule(
        "if",
        ALL,
        "if $CHECK { $$$A } else { $$$B }",
        "$$$A or $$$B in the if's place, one indent less; in an `else if`, a loop's body or where a branch declares a"
        " name the code around uses, the block with its braces",
        "if",
        Example(
            "go",
            True,
            'package m\n\nfunc f(u User) {\n\tif statsig.CheckGate(u, "g") {\n\t\ta()\n\t} else {\n\t\tb()\n\t}\n}\n',
            "package m\n\nfunc f(u User) {\n\ta()\n}\n",
        ),
    ),
    Rule(
        "else if",
        BRACED,
        "if $X { $$$A } else if $CHECK { $$$B } else { $$$C }",
        "if $X { $$$A } else { $$$B or $$$C }: one statement stays one",
        "if",
        Example(
            "typescript",
            False,
            'function f(u, x) {\n  if (x) {\n    a();\n  } else if (Statsig.checkGate(u, "g")) {\n'
            "    b();\n  } else {\n    c();\n  }\n}\n",
            "function f(u, x) {\n  if (x) {\n    a();\n  } else {\n    c();\n  }\n}\n",
        ),
    ),
    Rule(
        "Swift's else if",
        ("swift",),
        "if $X { $$$A } else if $CHECK { $$$B } else { $$$C }",
        "if $X { $$$A } else { $$$B or $$$C }: Swift's else takes a block or an if",
        "if",
        Example(
            "swift",
            True,
            'func f(x: Bool) -> Int {\n    if x {\n        return 0\n    } else if Statsig.checkGate("g") {\n'
            "        return 1\n    } else {\n        return 2\n    }\n}\n",
            "func f(x: Bool) -> Int {\n    if x {\n        return 0\n    } else {\n        return 1\n    }\n}\n",
        ),
    ),
    Rule(
        "elif",
        ("python",),
        "if $X: ... elif $CHECK: $$$A else: $$$B",
        "the elif gone (never taken), or the else (always taken), the clauses after it unreachable",
        "if",
        Example(
            "python",
            True,
            'def f(user, x):\n    if x:\n        a()\n    elif statsig.check_gate(user, "g"):\n'
            "        b()\n    else:\n        c()\n",
            "def f(user, x):\n    if x:\n        a()\n    else:\n        b()\n",
        ),
    ),
    Rule(
        "Kotlin's if as a value",
        ("kotlin",),
        "val x = if ($CHECK) $A else $B",
        "$A or $B where the branch is one expression; else the literal with a TODO",
        "if",
        Example(
            "kotlin",
            False,
            'fun f(): String? {\n    val text = if (Statsig.checkGate("g")) "new" else null\n    return text\n}\n',
            "fun f(): String? {\n    val text = null\n    return text\n}\n",
        ),
    ),
    Rule(
        "unreachable",
        ALL,
        "if $CHECK { $$$A; return } $$$REST",
        "$$$A; return, $$$REST deleted (not a hoisted function or var, a label, a yield)",
        "if",
        Example(
            "java",
            True,
            'class A {\n    int f(User u) {\n        if (Statsig.checkGate(u, "g")) {\n            a();\n'
            "            return 1;\n        }\n        b();\n        return 2;\n    }\n}\n",
            "class A {\n    int f(User u) {\n        a();\n        return 1;\n    }\n}\n",
        ),
    ),
    Rule(
        "a loop the value decides",
        ALL,
        "while ($CHECK) { $$$A } / for ($INIT; $CHECK; $NEXT) { $$$A }",
        "never true: the loop gone (not Python's while with an else, not a for whose start has an effect); always"
        " true, in Java: `while (true)`, and where no break leaves it the statements after it gone (javac refuses a"
        " loop that never runs and statements after one that never ends)",
        "loop",
        Example(
            "java",
            True,
            'class A {\n    int f(User u, int n) {\n        while (!Statsig.checkGate(u, "g")) {\n            n++;\n'
            "        }\n        return n;\n    }\n}\n",
            "class A {\n    int f(User u, int n) {\n        return n;\n    }\n}\n",
        ),
    ),
    Rule(
        "guard",
        ("swift",),
        "guard $CHECK else { $$$A }",
        "gone when the value is true; $$$A when false",
        "guard",
        Example(
            "swift",
            False,
            'func f() -> Int {\n    guard Statsig.checkGate("g") else {\n        return 1\n    }\n    return 2\n}\n',
            "func f() -> Int {\n    return 1\n}\n",
        ),
    ),
    Rule(
        "JSX",
        ("tsx", "javascript"),
        "{$CHECK && <A />} / {$CHECK ? <A /> : <B />}",
        "<A /> or nothing",
        "jsx",
        Example(
            "tsx",
            False,
            'function Page() {\n  return <main>{useGateValue("g") && <Banner />}<Body /></main>;\n}\n',
            "function Page() {\n  return <main><Body /></main>;\n}\n",
        ),
    ),
    Rule(
        "local variable",
        ALL,
        "const $NAME = $CHECK; ... $NAME",
        "$CHECK where $NAME was; the declaration gone (a function's own variable assigned once, never a module's or a class's)",
        "variable",
        Example(
            "kotlin",
            True,
            'fun f(): String {\n    val useNew = Statsig.checkGate("g")\n    return if (useNew) "new" else "old"\n}\n',
            'fun f(): String {\n    return "new"\n}\n',
        ),
    ),
    Rule(
        "a check nothing reads",
        ALL,
        "$CHECK; (a statement of its own, called for its exposure log)",
        "the statement gone (`true;` is no Java statement; Go refuses an unused value)",
        "discarded",
        Example(
            "java",
            True,
            'class A {\n    void f(User u) {\n        Statsig.checkGate(u, "g");\n        a();\n    }\n}\n',
            "class A {\n    void f(User u) {\n        a();\n    }\n}\n",
        ),
    ),
    Rule(
        "a comparison the value made constant",
        ("typescript", "tsx"),
        'const $NAME = $CHECK ? "a" : "b"; ... $NAME === "b"',
        "the comparison's constant, simplified further (tsc types the const by its literals and refuses a comparison"
        " with one it can no longer hold)",
        "narrowed",
        Example(
            "typescript",
            True,
            'function f(u: User) {\n  const mode = Statsig.checkGate(u, "g") ? "new" : "old";\n  log(mode);\n'
            '  if (mode === "old") {\n    a();\n  }\n}\n',
            'function f(u: User) {\n  const mode = "new";\n  log(mode);\n}\n',
        ),
    ),
    Rule(
        "a comparison with a boolean literal",
        ("typescript", "tsx"),
        "$CHECK === false / $CHECK !== true / const $NAME = $CHECK; ... $NAME === false (a module's)",
        "the comparison's value, simplified further (tsc refuses `true === false`); a module's const compared with the"
        " other value: widened, `true as boolean`, with a TODO",
        "narrowed",
        Example(
            "typescript",
            True,
            'function f(u: User) {\n  if (Statsig.checkGate(u, "g") === false) {\n    a();\n  }\n  b();\n}\n',
            "function f(u: User) {\n  b();\n}\n",
        ),
    ),
    Rule(
        "a switch the value decides",
        WEB,
        "switch ($CHECK) { case true: $$$A; break; case false: $$$B } / switch (true) { case $CHECK: $$$A }",
        "the statements that run: from the matching case (else the default) through fall-through to a `break`; where"
        " that is not certain (a case not a literal, a `break` inside an if), TypeScript's value widened"
        " (`true as boolean`: tsc refuses a case a constant can no longer equal)",
        "switch",
        Example(
            "typescript",
            False,
            'function f(u: User) {\n  const on = Statsig.checkGate(u, "g");\n  switch (on) {\n    case true:\n'
            "      a();\n      break;\n    case false:\n      b();\n    default:\n      c();\n  }\n  d();\n}\n",
            "function f(u: User) {\n  b();\n  c();\n  d();\n}\n",
        ),
    ),
    Rule(
        "a switch on a module's const",
        ("typescript", "tsx"),
        "const $NAME = $CHECK; switch ($NAME) { case true: $$$A case false: $$$B }",
        "the const's value widened, `true as boolean`, with a TODO: tsc accepts the case it can no longer equal, and"
        " the const keeps its name (another module may import it)",
        "switch",
        Example(
            "typescript",
            True,
            'const on = Statsig.checkGate(user, "g");\nswitch (on) {\n  case false:\n    a();\n}\n',
            "const on = true as boolean;  // TODO(gatehouse): the gate's value, used where gatehouse cannot simplify it\n"
            "switch (on) {\n  case false:\n    a();\n}\n",
        ),
    ),
    Rule(
        "what is left",
        ALL,
        "$CHECK used anywhere else (an argument, a returned value, a field)",
        "the literal, with a TODO(gatehouse) comment once on its line",
        "literal",
        Example(
            "go",
            True,
            'package m\n\nfunc f(u User) {\n\trecord(statsig.CheckGate(u, "g"))\n}\n',
            "package m\n\nfunc f(u User) {\n\trecord(true)  // TODO(gatehouse): the gate's value, used where gatehouse cannot"
            " simplify it\n}\n",
        ),
    ),
    Rule(
        "Java's try that throws nothing",
        ("java",),
        "try { $$$A } catch ($CHECKED e) { $$$B }, $$$A no longer calling or throwing anything",
        "$$$A, one indent less (javac refuses a catch of a checked exception never thrown)",
        "java try",
        Example(
            "java",
            True,
            'class A {\n    boolean f(User u) {\n        try {\n            return Statsig.checkGateAsync(u, "g").get();\n'
            "        } catch (InterruptedException e) {\n            return false;\n        }\n    }\n}\n",
            "class A {\n    boolean f(User u) {\n        return true;  // TODO(gatehouse): the gate's value, used where"
            " gatehouse cannot simplify it\n    }\n}\n",
        ),
    ),
    Rule(
        "Go: a range's variable only the removed code read",
        ("go",),
        "for $K, $V := range $XS { if $CHECK { use($V) } }",
        "`_` for the key, the value dropped, or both (`for range $XS`): Go refuses a local declared and not used",
        "locals",
        Example(
            "go",
            False,
            'package m\n\nfunc f(u User, xs []string) {\n\tfor i, x := range xs {\n\t\tif statsig.CheckGate(u, "g") {\n'
            "\t\t\tuse(x)\n\t\t}\n\t\tuse(i)\n\t}\n}\n",
            "package m\n\nfunc f(u User, xs []string) {\n\tfor i := range xs {\n\t\tuse(i)\n\t}\n}\n",
        ),
    ),
    Rule(
        "Go: a local only the removed code read",
        ("go",),
        "$V := $X; if $CHECK { use($V) } / var $V = $X",
        "gone when $X has no effect (no call); else `_ = $X`; `_` for one of several names, or `_ = $V` after it"
        " where no other name is certainly new",
        "locals",
        Example(
            "go",
            False,
            'package m\n\nfunc f(u User) {\n\tv := audit()\n\tn := 2\n\tif statsig.CheckGate(u, "g") {\n\t\tuse(v, n)\n\t}\n}\n',
            "package m\n\nfunc f(u User) {\n\t_ = audit()\n}\n",
        ),
    ),
    Rule(
        "TypeScript: a loop's, destructured or callback's variable only the removed code read",
        ("typescript", "tsx"),
        "for (const $X of $XS) { if ($CHECK) { use($X) } } / const { $A, $B } = $O / const [$A, $B] = $XS"
        " / $XS.forEach(($X) => …)",
        "`_$X`, which tsc accepts unread (noUnusedLocals, and noUnusedParameters for a callback's; a named function's"
        " or a method's too where the file's tsconfig.json sets noUnusedParameters, else they are its interface and"
        " stay); a name of an object pattern without `...rest` leaves the pattern",
        "locals",
        Example(
            "typescript",
            True,
            "export function f(u: User, xs: string[], o: Order) {\n  const { id, total } = o;\n  for (const x of xs) {\n"
            '    if (!Statsig.checkGate(u, "g")) {\n      use(x, id);\n    }\n  }\n  use(total);\n}\n',
            "export function f(u: User, xs: string[], o: Order) {\n  const { total } = o;\n  for (const _x of xs) {\n"
            "  }\n  use(total);\n}\n",
        ),
    ),
    Rule(
        "TypeScript: a local only the removed code read",
        ("typescript", "tsx"),
        "const $V = $X; if ($CHECK) { use($V) } / function $F() {} (a module's or a function's, not exported)",
        "gone when $X has no effect (no call); else `$X;`, its effect kept (tsc's noUnusedLocals refuses the local);"
        " where the file's tsconfig.json sets noUnusedLocals, a class's private member too (a field without effect"
        " or a method gone, a parameter property left a parameter, a field with an effect kept, no longer private or,"
        " an ES one, below tsc's directive)",
        "locals",
        Example(
            "typescript",
            False,
            'import { audit } from "./audit";\n\nfunction shout(s: string) {\n  return s.toUpperCase();\n}\n\n'
            "export function f(u: User) {\n  const stamp = audit();\n  const tax = 2;\n"
            '  if (Statsig.checkGate(u, "g")) {\n    use(shout(stamp), tax);\n  }\n}\n',
            'import { audit } from "./audit";\n\nexport function f(u: User) {\n  audit();\n}\n',
        ),
    ),
    Rule(
        "Kotlin: a local only the removed code read",
        ("kotlin",),
        "for (($A, $B) in $XS) / val ($A, $B) = $X / { $A -> … } / val $V = $X, and if ($CHECK) { use($A, $V) }",
        "`_` for a destructured name or a lambda's parameter; the val gone when $X has no effect, else its call kept"
        " (kotlinc warns of each; a plain loop's variable draws no warning and stays)",
        "locals",
        Example(
            "kotlin",
            False,
            "fun f(items: Map<String, Int>) {\n    val stamp = audit()\n    for ((name, count) in items) {\n"
            '        if (Statsig.checkGate("g")) {\n            use(name, stamp)\n        }\n        use(count)\n    }\n}\n',
            "fun f(items: Map<String, Int>) {\n    audit()\n    for ((_, count) in items) {\n        use(count)\n    }\n}\n",
        ),
    ),
    Rule(
        "Swift: a local only the removed code read",
        ("swift",),
        "for ($A, $B) in $XS / let ($A, $B) = $X / let $V = $X, and if $CHECK { use($A, $V) }",
        "`_` for a loop's or a tuple's name; the let gone when $X has no effect, else `_ = $X` (Swift warns of each)",
        "locals",
        Example(
            "swift",
            False,
            "func f(items: [String]) {\n    let stamp = audit()\n    for (at, item) in items.enumerated() {\n"
            '        if Statsig.checkGate("g") {\n            use(item, stamp)\n        }\n        use(at)\n    }\n}\n',
            "func f(items: [String]) {\n    _ = audit()\n    for (at, _) in items.enumerated() {\n        use(at)\n    }\n}\n",
        ),
    ),
    Rule(
        "unused imports",
        ("python", *WEB, "java", "kotlin", "go"),
        "import $NAME, $NAME no longer used",
        "the import gone, or the name out of its list (Swift's import names a module: kept)",
        "imports",
        Example(
            "go",
            False,
            'package m\n\nimport (\n\t"fmt"\n\t"strings"\n\n\tstatsig "github.com/statsig-io/go-sdk"\n)\n\n'
            'func f(u User, s string) string {\n\tif statsig.CheckGate(u, "g") {\n\t\treturn strings.ToUpper(s)\n'
            "\t}\n\treturn fmt.Sprint(s)\n}\n",
            'package m\n\nimport (\n\t"fmt"\n)\n\nfunc f(u User, s string) string {\n\treturn fmt.Sprint(s)\n}\n',
        ),
    ),
)
# The engine's steps that apply a rule to a node, in the order they are tried; the others run once, after them.
NODE_STEPS = (
    "negation",
    "parentheses",
    "boolean",
    "ternary",
    "if",
    "loop",
    "guard",
    "jsx",
    "variable",
    "discarded",
    "narrowed",
    "switch",
)
