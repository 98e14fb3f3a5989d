"""The rewrite where the code around a check makes a simplification unsafe: each case is exactly the expected text
(which parses), and the program does what it did with the gate at its value. Code a platform engineer has, beyond the
sample repository: an `else if`, a loop's body without braces, a variable read as a dictionary's value or an object's
shorthand, a module's constant, a hoisted function after a return, Go's `if` with a statement, JSX, f-strings, Kotlin's
`if` as a value, an arrow function returning an object, Python's `await`."""

from __future__ import annotations

import textwrap

import pytest

from gatehouse.pipelines.cleanup.rewrite import TODO, Unsafe, parse_errors, rewrite_checks

NOTE = {"python": f"  # {TODO}: the gate's value, used where gatehouse cannot simplify it"}
SLASHES = f"  // {TODO}: the gate's value, used where gatehouse cannot simplify it"

CASES = {
    # Swift's `else` takes a block or another if, never a bare statement
    "a Swift else-if off": (
        "swift",
        False,
        """
        func banner(user: User) -> String {
            if user.isAdmin {
                return "admin"
            } else if Statsig.checkGate("g") {
                return "new"
            } else {
                return "old"
            }
        }
        """,
        """
        func banner(user: User) -> String {
            if user.isAdmin {
                return "admin"
            } else {
                return "old"
            }
        }
        """,
    ),
    "a Swift else-if on, no else": (
        "swift",
        True,
        """
        func banner(user: User) {
            if user.isAdmin {
                show("admin")
            } else if Statsig.checkGate("g") {
                show("new")
                log("new")
            }
        }
        """,
        """
        func banner(user: User) {
            if user.isAdmin {
                show("admin")
            } else {
                show("new")
                log("new")
            }
        }
        """,
    ),
    "a Swift else-if off in a chain": (
        "swift",
        False,
        """
        func banner(user: User) -> String {
            if user.isAdmin {
                return "admin"
            } else if Statsig.checkGate("g") {
                return "new"
            } else if user.isBeta {
                return "beta"
            } else {
                return "old"
            }
        }
        """,
        """
        func banner(user: User) -> String {
            if user.isAdmin {
                return "admin"
            } else if user.isBeta {
                return "beta"
            } else {
                return "old"
            }
        }
        """,
    ),
    # several statements where one stands: the block kept, braces and all
    "an else-if taken": (
        "typescript",
        True,
        """
        async function pay(user, order) {
          if (order.free) {
            skip();
          } else if (await Statsig.checkGate(user, "g")) {
            await chargeNew(order);
            await sendReceipt(order);
          } else {
            await chargeLegacy(order);
          }
          done();
        }
        """,
        """
        async function pay(user, order) {
          if (order.free) {
            skip();
          } else {
            await chargeNew(order);
            await sendReceipt(order);
          }
          done();
        }
        """,
    ),
    "an else-if never taken, without an else": (
        "typescript",
        False,
        """
        function pay(user, order) {
          if (order.free) {
            skip();
          } else if (Statsig.checkGate(user, "g")) {
            chargeNew(order);
          }
          done();
        }
        """,
        """
        function pay(user, order) {
          if (order.free) {
            skip();
          } else {}
          done();
        }
        """,
    ),
    "a loop's body without braces": (
        "java",
        True,
        """
        class A { void f(User u, List<User> us) {
            for (User x : us) if (statsig.checkGate(u, "g")) { a(x); b(x); }
            done();
        } }
        """,
        """
        class A { void f(User u, List<User> us) {
            for (User x : us) { a(x); b(x); }
            done();
        } }
        """,
    ),
    "a block whose variable is named after the if too": (
        "typescript",
        True,
        """
        function f(user) {
          if (Statsig.checkGate(user, "g")) {
            const total = 1;
            use(total);
          }
          const total = 2;
          return total;
        }
        """,
        """
        function f(user) {
          {
            const total = 1;
            use(total);
          }
          const total = 2;
          return total;
        }
        """,
    ),
    # a variable read where its name is not a plain use
    "a dictionary's value": (
        "python",
        True,
        """
        def view(req):
            show = statsig.check_gate(req.user, "g")
            return render(req, "home.html", {"new_checkout": show})
        """,
        """
        def view(req):
            return render(req, "home.html", {"new_checkout": True})"""
        + NOTE["python"]
        + "\n",
    ),
    "a keyword argument's value": (
        "python",
        True,
        """
        def view(req):
            enabled = statsig.check_gate(req.user, "g")
            return render(req, new_checkout=enabled)
        """,
        """
        def view(req):
            return render(req, new_checkout=True)"""
        + NOTE["python"]
        + "\n",
    ),
    "an object's shorthand": (
        "typescript",
        True,
        """
        function f(user, region) {
          const newCheckout = Statsig.checkGate(user, "g");
          return { newCheckout, region };
        }
        """,
        """
        function f(user, region) {
          const newCheckout = true;"""
        + SLASHES
        + """
          return { newCheckout, region };
        }
        """,
    ),
    "a module's constant, imported elsewhere": (
        "python",
        True,
        """
        NEW_CHECKOUT = statsig.check_gate(SYSTEM_USER, "g")
        """,
        """
        NEW_CHECKOUT = True"""
        + NOTE["python"]
        + "\n",
    ),
    "a class's property, read as a member": (
        "kotlin",
        True,
        """
        class VM {
            val newCheckout = Statsig.checkGate("g")
            fun f(vm: VM) = vm.newCheckout
        }
        """,
        """
        class VM {
            val newCheckout = true"""
        + SLASHES
        + """
            fun f(vm: VM) = vm.newCheckout
        }
        """,
    ),
    # what follows a return: a hoisted function stays (`full`, which only the removed branch called, goes with it)
    "hoisted functions after a return": (
        "typescript",
        True,
        """
        function price(user, cart) {
          return Statsig.checkGate(user, "g") ? discounted(cart) : full(cart);
          function discounted(c) { return c.total * 0.9; }
          function full(c) { return c.total; }
        }
        """,
        """
        function price(user, cart) {
          return discounted(cart);
          function discounted(c) { return c.total * 0.9; }
        }
        """,
    ),
    "a generator elsewhere in the file": (
        "python",
        True,
        """
        def f(user):
            if statsig.check_gate(user, "g"):
                a()

        def empty_events():
            return
            yield
        """,
        """
        def f(user):
            a()

        def empty_events():
            return
            yield
        """,
    ),
    "statements after an inlined return": (
        "java",
        True,
        """
        class A { int f(User u) {
            if (statsig.checkGate(u, "g")) { return 1; }
            int y = 2;
            return y;
        } }
        """,
        """
        class A { int f(User u) {
            return 1;
        } }
        """,
    ),
    "a hoisted function after an inlined return": (
        "typescript",
        True,
        """
        function f(user) {
          if (Statsig.checkGate(user, "g")) {
            return helper();
          }
          return 0;
          function helper() { return 1; }
        }
        """,
        """
        function f(user) {
          return helper();
          return 0;
          function helper() { return 1; }
        }
        """,
    ),
    # conditions with more than the check
    "Go's if with a statement": (
        "go",
        False,
        """
        package main

        func f(r *Request, u User) {
        	if n := recordVisit(r); statsig.CheckGate(u, "g") {
        		use(n)
        	}
        }
        """,
        """
        package main

        func f(r *Request, u User) {
        	if n := recordVisit(r); false {"""
        + SLASHES
        + """
        		use(n)
        	}
        }
        """,
    ),
    "Python's await": (
        "python",
        True,
        """
        async def f(user):
            if await flags.check_gate(user, "g"):
                a()
        """,
        """
        async def f(user):
            a()
        """,
    ),
    # values
    "JSX's && decided": (
        "tsx",
        True,
        """
        function B() {
          return (
            <div>
              {!useGateValue("g") && <LegacyBanner />}
              <Footer />
            </div>
          );
        }
        """,
        """
        function B() {
          return (
            <div>
              <Footer />
            </div>
          );
        }
        """,
    ),
    "Kotlin's if as a value, its branch a block": (
        "kotlin",
        True,
        """
        fun label(cart: Cart): String {
            val text = if (Statsig.checkGate("g")) { analytics.track("x"); "Pay" } else "Checkout"
            return text
        }
        """,
        """
        fun label(cart: Cart): String {
            val text = if (true) { analytics.track("x"); "Pay" } else "Checkout\""""
        + SLASHES
        + """
            return text
        }
        """,
    ),
    "Kotlin's if as a value, its branch one expression": (
        "kotlin",
        False,
        """
        fun label(cart: Cart): String {
            val text = if (Statsig.checkGate("g")) { "Pay" } else "Checkout"
            return text
        }
        """,
        """
        fun label(cart: Cart): String {
            val text = "Checkout"
            return text
        }
        """,
    ),
    "an arrow function returning an object": (
        "typescript",
        True,
        """
        const style = (u) => Statsig.checkGate(u, "g") ? { color: "red" } : { color: "blue" };
        """,
        """
        const style = (u) => ({ color: "red" });
        """,
    ),
    # what the rewrite must keep as it was
    "a variable Go assigns again with :=": (
        "go",
        True,
        """
        package main

        func f(u User) error {
        	enabled := statsig.CheckGate(u, "g")
        	enabled, err := other()
        	if enabled {
        		a()
        	}
        	return err
        }
        """,
        """
        package main

        func f(u User) error {
        	enabled := true"""
        + SLASHES
        + """
        	enabled, err := other()
        	if enabled {
        		a()
        	}
        	return err
        }
        """,
    ),
    "a triple-quoted string in the kept block": (
        "python",
        True,
        '''
        def f(user):
            if statsig.check_gate(user, "g"):
                q = """
        select 1
          from t
        """
                run(q)
        ''',
        '''
        def f(user):
            q = """
        select 1
          from t
        """
            run(q)
        ''',
    ),
    "a kept block that starts with a loop": (
        "python",
        True,
        """
        def f(user, xs):
            if statsig.check_gate(user, "g"):
                for x in xs:
                    a(x)
                b()
        """,
        """
        def f(user, xs):
            for x in xs:
                a(x)
            b()
        """,
    ),
    "a comment among the check's arguments": (
        "python",
        True,
        """
        def f(user):
            if statsig.check_gate(
                user,  # who
                "g",
            ):
                a()
        """,
        """
        def f(user):
            a()
        """,
    ),
    "an import that names something else unused": (
        "python",
        True,
        """
        from .client import check_gate, FLAGS_VERSION

        def f(user):
            if check_gate(user, "g"):
                a()
        """,
        """
        from .client import FLAGS_VERSION

        def f(user):
            a()
        """,
    ),
    # a check nothing reads as an if's body without braces: `true;` is no Java statement, an empty block is
    "a Java check nothing reads, as a body without braces": (
        "java",
        True,
        """
        class A {
            void f(User u, boolean x) {
                if (x) Statsig.checkGate(u, "g");
                a();
            }
        }
        """,
        """
        class A {
            void f(User u, boolean x) {
                if (x) {}
                a();
            }
        }
        """,
    ),
    # tsc types a const by the literals it can hold: a comparison with one the rewrite took away is refused (TS2367)
    "a TypeScript const the rewrite narrowed": (
        "tsx",
        True,
        """
        function score(algorithm: string) {
          return algorithm === "classic" ? 1 : 2;
        }

        export default function Page() {
          const v3 = useGateValue("v3");
          const v2 = useGateValue("g");
          const algorithm = v3 ? "v3" : v2 ? "v2" : "classic";
          let mode = v3 ? "a" : "classic";
          const items = list.map((x) => rank(x, algorithm === "classic" && ready ? "backend" : algorithm));
          if (algorithm !== "classic") {
            log(mode === "classic");
          }
          for (const algorithm of others) {
            log(algorithm === "classic");
          }
          try {
            run();
          } catch (algorithm) {
            log(algorithm === "classic");
          }
          return <p>{items}</p>;
        }
        """,
        """
        function score(algorithm: string) {
          return algorithm === "classic" ? 1 : 2;
        }

        export default function Page() {
          const v3 = useGateValue("v3");
          const algorithm = v3 ? "v3" : "v2";
          let mode = v3 ? "a" : "classic";
          const items = list.map((x) => rank(x, algorithm));
          log(mode === "classic");
          for (const algorithm of others) {
            log(algorithm === "classic");
          }
          try {
            run();
          } catch (algorithm) {
            log(algorithm === "classic");
          }
          return <p>{items}</p>;
        }
        """,
    ),
    # tsc types a constant discriminant by its literal and refuses a case it can no longer equal (TS2678): the switch
    # becomes what runs, from the matching case (else the default) through fall-through to a break of its own
    "a TypeScript switch on the value, falling through to the default": (
        "typescript",
        True,
        """
        function f(u: User) {
          const on = Statsig.checkGate(u, "g");
          for (const x of xs) {
            switch (on) {
              case false:
                a();
                break;
              case true:
                for (const y of x) {
                  if (y) {
                    break;
                  }
                }
                b(x);
              default:
                c();
                break;
                d();
            }
          }
        }
        """,
        """
        function f(u: User) {
          for (const x of xs) {
            for (const y of x) {
              if (y) {
                break;
              }
            }
            b(x);
            c();
          }
        }
        """,
    ),
    # a case not a literal, a labelled switch: not simplified with certainty; the value widened, which tsc accepts
    "a TypeScript switch it cannot simplify": (
        "typescript",
        False,
        """
        function f(u: User, x: number) {
          switch (true) {
            case x > 3:
              return 1;
            case Statsig.checkGate(u, "g"):
              return 2;
          }
          outer: switch (Statsig.checkGate(u, "g")) {
            case false:
              break outer;
          }
          return 3;
        }
        """,
        """
        function f(u: User, x: number) {
          switch (true) {
            case x > 3:
              return 1;
            case false as boolean:"""
        + SLASHES
        + """
              return 2;
          }
          outer: switch (false as boolean) {"""
        + SLASHES
        + """
            case false:
              break outer;
          }
          return 3;
        }
        """,
    ),
    # one statement stays one, and the case's declarations keep the scope the switch gave them
    "a TypeScript switch as a loop's body": (
        "typescript",
        True,
        """
        function f(u: User) {
          while (more())
            switch (Statsig.checkGate(u, "g")) {
              case true:
                const x = next();
                use(x);
            }
        }
        """,
        """
        function f(u: User) {
          while (more())
            {
              const x = next();
              use(x);
            }
        }
        """,
    ),
    # a case's block, the scope of its declarations: its statements, in a block where a name meets one around it
    "a TypeScript switch whose cases are blocks": (
        "typescript",
        True,
        """
        function f(u: User) {
          const x = 1;
          switch (Statsig.checkGate(u, "g")) {
            case true: {
              const x = 2;
              log(x);
              break;
            }
            case false: {
              log(3);
              break;
            }
          }
          log(x);
        }
        """,
        """
        function f(u: User) {
          const x = 1;
          {
            const x = 2;
            log(x);
          }
          log(x);
        }
        """,
    ),
    # tsc refuses a comparison of two boolean literals that differ (TS2367): decided, or a module's const widened
    "a TypeScript comparison of the value with a boolean literal": (
        "typescript",
        True,
        """
        const on = Statsig.checkGate(boot, "g");
        if (on === false) {
          a();
        }
        export function f(u: User) {
          return Statsig.checkGate(u, "g") !== true ? 1 : 2;
        }
        """,
        """
        const on = true as boolean;"""
        + SLASHES
        + """
        if (on === false) {
          a();
        }
        export function f(u: User) {
          return 2;
        }
        """,
    ),
    # JavaScript has no types to widen, and runs the switch on the literal as it is
    "a JavaScript switch with a break inside an if": (
        "javascript",
        True,
        """
        function f(u) {
          switch (Statsig.checkGate(u, "g")) {
            case true:
              if (x) break;
              a();
          }
        }
        """,
        """
        function f(u) {
          switch (true) {"""
        + SLASHES
        + """
            case true:
              if (x) break;
              a();
          }
        }
        """,
    ),
    # a switch on a const tsc accepted before the rewrite is not the rewrite's to change
    "a TypeScript switch on another const": (
        "typescript",
        True,
        """
        function f(u: User) {
          const kind = "a";
          const on = Statsig.checkGate(u, "g");
          log(on);
          switch (kind) {
            case "a":
              a();
          }
        }
        """,
        """
        function f(u: User) {
          const kind = "a";
          log(true);"""
        + SLASHES
        + """
          switch (kind) {
            case "a":
              a();
          }
        }
        """,
    ),
    # `(x && true) && y` is `x && y`: x when it is falsy (React renders it as it did), else y
    "a JSX && chain with the value in the middle": (
        "tsx",
        True,
        """
        function Page(props: Props) {
          return <div>{props.vip && useGate("g").value && <span>vip</span>}</div>;
        }
        """,
        """
        function Page(props: Props) {
          return <div>{props.vip && <span>vip</span>}</div>;
        }
        """,
    ),
    # Python's `while … else`: the else runs when the loop ends without a break, so that loop stays
    "Python's loops never run": (
        "python",
        False,
        """
        def f(user):
            while statsig.check_gate(user, "g"):
                poll()
            while statsig.check_gate(user, "g"):
                poll()
            else:
                done()
        """,
        """
        def f(user):
            while False:"""
        + NOTE["python"]
        + """
                poll()
            else:
                done()
        """,
    ),
    # a for whose start has an effect keeps it
    "TypeScript's loops never run": (
        "typescript",
        False,
        """
        function f(u: User) {
          for (let i = 0; Statsig.checkGate(u, "g"); i++) {
            a(i);
          }
          for (let i = next(); Statsig.checkGate(u, "g"); i++) {
            a(i);
          }
          if (ready) while (Statsig.checkGate(u, "g")) poll();
          b();
        }
        """,
        """
        function f(u: User) {
          for (let i = next(); false; i++) {"""
        + SLASHES
        + """
            a(i);
          }
          if (ready) {}
          b();
        }
        """,
    ),
    "Go's loop never runs": (
        "go",
        False,
        """
        package m

        func f(u User) {
        	for statsig.CheckGate(u, "g") {
        		poll()
        	}
        	b()
        }
        """,
        """
        package m

        func f(u User) {
        	b()
        }
        """,
    ),
    # a name in a string template is read there: it keeps its declaration, where no value can be written
    "Kotlin's string template": (
        "kotlin",
        True,
        """
        fun f(k: Int): String {
            val on = Statsig.checkGate("g")
            println("flag=$on")
            return if (k > 5) "big" else "small"
        }
        """,
        """
        fun f(k: Int): String {
            val on = true"""
        + SLASHES
        + """
            println("flag=$on")
            return if (k > 5) "big" else "small"
        }
        """,
    ),
    # Swift's function of one expression returns it: the check stays, as the literal
    "Swift's implicit return": (
        "swift",
        True,
        """
        func enabled() -> Bool {
            Statsig.checkGate("g")
        }

        func logged() {
            Statsig.checkGate("g")
        }
        """,
        """
        func enabled() -> Bool {
            true"""
        + SLASHES
        + """
        }

        func logged() {
        }
        """,
    ),
    "Kotlin's named argument": (
        "kotlin",
        True,
        """
        fun f() {
            val enabled = Statsig.checkGate("g")
            render(enabled = enabled)
        }
        """,
        """
        fun f() {
            render(enabled = true)"""
        + SLASHES
        + """
        }
        """,
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_each_case_becomes_exactly_the_expected_text(case):
    language, value, before, after = CASES[case]
    before, after = textwrap.dedent(before).lstrip("\n"), textwrap.dedent(after).lstrip("\n")
    rewrite = rewrite_checks(before, language, "g", value)
    assert rewrite.text == after
    assert parse_errors(rewrite.text, language) == []
    assert rewrite.todos == rewrite.text.count(TODO)


@pytest.mark.parametrize(
    "language, text",
    [
        # a member read: an SDK's internal store answers a gate object from a call of the same name,
        # `true.getEvalDetails()` is nothing
        ("kotlin", 'fun f() {\n    check(client.getStore().checkGate("g").getEvalDetails())\n}\n'),
        ("java", 'class A {\n    void f() {\n        check(store.checkGate(u, "g").getEvalDetails());\n    }\n}\n'),
        ("typescript", 'function f() {\n  check(store.checkGate(u, "g").details);\n}\n'),
        ("go", 'package m\n\nfunc f() {\n\tcheck(s.CheckGate(u, "g").Details)\n}\n'),
        ("python", 'def f():\n    check(store.check_gate(u, "g").details)\n'),
        # destructured: a boolean has no fields to take apart, `const { value } = true` is no gate's value (tsc refuses it)
        ("tsx", 'function C() {\n  const { value, isLoading } = useGate("g").value;\n  return <p>{value}</p>;\n}\n'),
        ("typescript", 'function f() {\n  const [on, why] = Statsig.checkGate(u, "g");\n  return on;\n}\n'),
        ("python", 'def f():\n    on, why = statsig.check_gate(u, "g")\n    return on\n'),
        # optional chaining: nothing (undefined, null, nil) where the client is not there, not the gate's value
        ("typescript", 'function f(client?: Client) {\n  if (client?.checkGate(u, "g")) {\n    a();\n  }\n}\n'),
        ("typescript", 'function f() {\n  return getClient()?.checkGate(u, "g") ? 1 : 2;\n}\n'),
        ("typescript", 'function f() {\n  return Statsig.checkGate?.(u, "g") ? 1 : 2;\n}\n'),
        ("kotlin", 'fun f(client: Client?) {\n    if (client?.checkGate("g") == true) {\n        a()\n    }\n}\n'),
        ("swift", 'func f(client: Client?) {\n    if client?.checkGate("g") == true {\n        a()\n    }\n}\n'),
    ],
)
def test_a_check_whose_result_is_read_as_an_object_is_another_api_left_as_it_is(language, text):
    rewrite = rewrite_checks(text, language, "g", True)
    assert (rewrite.text, rewrite.replaced) == (text, 0)


@pytest.mark.parametrize(
    "language, text",
    [
        ("python", 'def f(user):\n    msg = f"""new: {statsig.check_gate(user, "g")}\n    done"""\n    return msg\n'),
        ("typescript", 'function f(user) {\n  return `new: ${Statsig.checkGate(user, "g")}\n  done`;\n}\n'),
    ],
)
def test_a_value_left_inside_a_string_leaves_the_file(language, text):
    # a TODO comment at the line's end would be part of the string
    with pytest.raises(Unsafe, match="inside a string or JSX text"):
        rewrite_checks(text, language, "g", True)


@pytest.mark.parametrize("gate_id", ["x..y", "a.lock", "-lead", "feat/x", "..", "a...b", "ok.name"])
def test_every_gate_id_makes_a_branch_name_git_takes(gate_id):
    import subprocess

    from gatehouse.pipelines.cleanup.branches import branch_for

    branch = branch_for(gate_id)
    checked = subprocess.run(["git", "check-ref-format", "--branch", branch], capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stdout.strip() == branch, checked.stderr


def test_windows_line_endings_stay_as_they_were():
    before = 'function f(u) {\r\n  if (Statsig.checkGate(u, "g")) {\r\n    a();\r\n    b();\r\n  }\r\n}\r\n'
    assert rewrite_checks(before, "typescript", "g", True).text == "function f(u) {\r\n  a();\r\n  b();\r\n}\r\n"


def test_a_byte_order_mark_is_kept_and_the_file_rewritten(tmp_path):
    from gatehouse.pipelines.cleanup.branches import Worktree
    from gatehouse.pipelines.cleanup.decisions import Choice
    from gatehouse.pipelines.cleanup.patch import GatePatch, _rewrite_file, checkout_settings

    (tmp_path / "flags.py").write_bytes(b'\xef\xbb\xbfdef f(user):\n    if statsig.check_gate(user, "g"):\n        a()\n')
    patch = GatePatch(Choice("g", (), True, "launched"), "gatehouse/cleanup/g")
    worktree = Worktree(tmp_path, tmp_path, "base")
    _rewrite_file(worktree, patch, "flags.py", True, checkout_settings(worktree))
    assert patch.left == {}
    assert (tmp_path / "flags.py").read_bytes() == b"\xef\xbb\xbfdef f(user):\n    a()\n"


# What the removed code alone read goes (Go refuses a local declared and not used, tsc's noUnusedLocals too), but
# never what another file, a `...rest` or the kept code may still read, nor a value's effect.
LOCALS = {
    # `_, err :=` would declare nothing new (err is declared already): the local stays, read by `_ = n`
    "a Go local beside a name declared before": (
        "go",
        False,
        'package m\n\nfunc f(u User) error {\n\tvar err error\n\tn, err := parse()\n\tif statsig.CheckGate(u, "g") {\n'
        "\t\tuse(n)\n\t}\n\treturn err\n}\n",
        "package m\n\nfunc f(u User) error {\n\tvar err error\n\tn, err := parse()\n\t_ = n\n\treturn err\n}\n",
    ),
    # a script's top-level const is a global (another script may read it); an exported one another module may import
    "a TypeScript global or export": (
        "typescript",
        False,
        'const legacy = makeLegacy();\nif (Statsig.checkGate(u, "g")) {\n  run(legacy);\n}\n',
        "const legacy = makeLegacy();\n",
    ),
    "a TypeScript module's export": (
        "typescript",
        False,
        'export const legacy = makeLegacy();\nexport function f(u: User) {\n  if (Statsig.checkGate(u, "g")) {\n'
        "    run(legacy);\n  }\n}\n",
        "export const legacy = makeLegacy();\nexport function f(u: User) {\n}\n",
    ),
    # out of the pattern, `id` would go into `rest`: it gets `_` instead; a local unread before the rewrite stays
    "a TypeScript name beside a rest, and one never read": (
        "typescript",
        False,
        "export function f(u: User, order: Order) {\n  const spare = 1;\n  const { id, ...rest } = order;\n"
        '  const parts = [head(), tail()];\n  if (Statsig.checkGate(u, "g")) {\n    use(id, parts);\n  }\n  use(rest);\n}\n',
        "export function f(u: User, order: Order) {\n  const spare = 1;\n  const { id: _id, ...rest } = order;\n"
        "  void [head(), tail()];\n  use(rest);\n}\n",
    ),
    # a callback's parameters are its caller's contract: `_` (noUnusedParameters refuses them unread); a named
    # function's are its own interface: they stay
    "TypeScript callbacks' parameters": (
        "typescript",
        False,
        'export function f(user: User, xs: string[]) {\n  xs.forEach((x, at) => {\n    if (Statsig.checkGate(user, "g")) {\n'
        '      log(x);\n    }\n    log(at);\n  });\n  return xs.map(x => Statsig.checkGate(user, "g") ? x : "");\n}\n',
        "export function f(user: User, xs: string[]) {\n  xs.forEach((_x, at) => {\n    log(at);\n  });\n"
        '  return xs.map(_x => "");\n}\n',
    ),
    # `void` takes no `yield`; a `using` declaration is disposed of at the block's end; an overload's signature
    # needs its implementation
    "TypeScript yield, using and overloads": (
        "typescript",
        False,
        "function helper(a: string): string;\nfunction helper(a: any) {\n  return a;\n}\nexport function* f(u: User) {\n"
        '  const got = yield fetch();\n  using res = open();\n  if (Statsig.checkGate(u, "g")) {\n'
        '    use(got, res, helper("a"));\n  }\n}\n',
        "function helper(a: string): string;\nfunction helper(a: any) {\n  return a;\n}\nexport function* f(u: User) {\n"
        "  yield fetch();\n  using res = open();\n}\n",
    ),
    # a string's interpolation may call: its value goes to `_`, not away
    "a Swift string that calls": (
        "swift",
        False,
        'func f() {\n    let note = "n \\(audit())"\n    let plain = "n"\n    if Statsig.checkGate("g") {\n'
        "        use(note, plain)\n    }\n}\n",
        'func f() {\n    _ = "n \\(audit())"\n}\n',
    ),
    # an if's own statement declares for the if alone: `ok`, read by the condition only, becomes `_` (go vet passes)
    "a Go if's own statement": (
        "go",
        False,
        'package m\n\nfunc f(u User, k string) {\n\tif v, ok := m[k]; ok && statsig.CheckGate(u, "g") {\n\t\tuse(v)\n\t}\n}\n',
        "package m\n\nfunc f(u User, k string) {\n\tif v, _ := m[k]; false {" + SLASHES + "\n\t\tuse(v)\n\t}\n}\n",
    ),
    # the SDK's user, built for the check alone, goes with it; a receive from a channel is an effect: it stays
    "a Go value built without effect, and a receive": (
        "go",
        False,
        "package m\n\nfunc f(id string, ch chan int) {\n\tu := statsig.User{UserID: id}\n\tw := <-ch\n"
        '\tif statsig.CheckGate(u, "g") {\n\t\tuse(w)\n\t}\n}\n',
        "package m\n\nfunc f(id string, ch chan int) {\n\t_ = <-ch\n}\n",
    ),
    # the comment that ends a deleted declaration's line spoke of it: it goes too (seen in the Go SDK's tests)
    "a Go local with its own comment": (
        "go",
        True,
        'package m\n\nfunc f() {\n\tu := User{ID: "1"} // Seattle, WA\n\tif statsig.CheckGate(u, "g") {\n\t\tok()\n\t}\n}\n',
        "package m\n\nfunc f() {\n\tok()\n}\n",
    ),
    # `|| 1` has no effect to keep once the value is dropped (seen in a Next.js shop's pagination)
    "a TypeScript value with a default": (
        "typescript",
        False,
        "export function f(u: User, page: string) {\n  const current = Number(page) || 1;\n"
        '  if (Statsig.checkGate(u, "g")) {\n    show(current);\n  }\n}\n',
        "export function f(u: User, page: string) {\n  Number(page);\n}\n",
    ),
    # a switch's cases share one block: a const of one case is read from another
    "a TypeScript const read by another case": (
        "typescript",
        False,
        "export function f(u: User, k: number) {\n  switch (k) {\n    case 1:\n      const x = 2;\n"
        '      if (Statsig.checkGate(u, "g")) {\n        use(x);\n      }\n      break;\n    case 2:\n      use(x);\n  }\n}\n',
        "export function f(u: User, k: number) {\n  switch (k) {\n    case 1:\n      const x = 2;\n      break;\n"
        "    case 2:\n      use(x);\n  }\n}\n",
    ),
}


@pytest.mark.parametrize("case", LOCALS)
def test_what_the_removed_code_alone_read_goes_and_nothing_else(case):
    language, value, before, after = LOCALS[case]
    rewrite = rewrite_checks(before, language, "g", value)
    assert rewrite.text == after
    assert parse_errors(rewrite.text, language) == []


# A function's parameter only the removed code read, in a project compiled with tsc's noUnusedParameters (its
# tsconfig.json, tests/cleanup/test_tsconfig.py): `_` before it, which tsc accepts unread. Without the setting the
# parameters are the function's interface and stay as they were. Each case: before, without it, with it.
PARAMETERS = {
    "a named function's, its JSDoc naming the new name": (
        "/**\n * Prices.\n * @param {{ id: string }} user who pays\n * @param [total=0] the amount\n * @param {number} tip\n"
        " */\nexport function price(user: User, total = 0, tip?: number) {\n"
        '  if (Statsig.checkGate(user, "g")) {\n    return total + (tip ?? 0);\n  }\n  return total;\n}\n',
        "/**\n * Prices.\n * @param {{ id: string }} user who pays\n * @param [total=0] the amount\n * @param {number} tip\n"
        " */\nexport function price(user: User, total = 0, tip?: number) {\n  return total;\n}\n",
        "/**\n * Prices.\n * @param {{ id: string }} _user who pays\n * @param [total=0] the amount\n * @param {number} _tip\n"
        " */\nexport function price(_user: User, total = 0, _tip?: number) {\n  return total;\n}\n",
    ),
    # a parameter property is a field too (`this.user`): renamed, the class would change; `this` is no parameter tsc
    # checks; an overload's signature keeps its names (legal), the implementation's get `_`
    "a method's, a constructor's, an overload's and a parameter property": (
        "export class Cart {\n  constructor(private user: User, seed: number) {\n"
        '    if (Statsig.checkGate(user, "g")) {\n      start(seed);\n    }\n  }\n'
        "  total(this: Cart, u: User): number;\n  total(this: Cart, u: User, n?: number): number {\n"
        '    return Statsig.checkGate(u, "g") ? n ?? 1 : 0;\n  }\n}\n',
        "export class Cart {\n  constructor(private user: User, seed: number) {\n  }\n"
        "  total(this: Cart, u: User): number;\n  total(this: Cart, u: User, n?: number): number {\n    return 0;\n  }\n}\n",
        "export class Cart {\n  constructor(private user: User, _seed: number) {\n  }\n"
        "  total(this: Cart, u: User): number;\n  total(this: Cart, _u: User, _n?: number): number {\n    return 0;\n  }\n}\n",
    ),
    # a function expression's and an arrow function's held by a const or a class's field, a rest parameter; a
    # callback's got `_` already
    "a function expression's, an arrow's and a rest": (
        "/** @param user who */\nexport const pick = function (user: User, ...names: string[]) {\n"
        '  return Statsig.checkGate(user, "g") ? names : [];\n};\n'
        'export const label = (user: User) => (Statsig.checkGate(user, "g") ? "new" : "old");\n'
        'export const each = (xs: User[]) => xs.map((x) => Statsig.checkGate(x, "g"));\n'
        'class Menu {\n  /** @param user who */\n  show = (user: User) => Statsig.checkGate(user, "g") && 1;\n}\n',
        "/** @param user who */\nexport const pick = function (user: User, ...names: string[]) {\n  return [];\n};\n"
        'export const label = (user: User) => ("old");\n'
        "export const each = (xs: User[]) => xs.map((_x) => false);" + SLASHES + "\n"
        "class Menu {\n  /** @param user who */\n  show = (user: User) => false;" + SLASHES + "\n}\n",
        "/** @param _user who */\nexport const pick = function (_user: User, ..._names: string[]) {\n  return [];\n};\n"
        'export const label = (_user: User) => ("old");\n'
        "export const each = (xs: User[]) => xs.map((_x) => false);" + SLASHES + "\n"
        "class Menu {\n  /** @param _user who */\n  show = (_user: User) => false;" + SLASHES + "\n}\n",
    ),
    # the names of a destructured parameter as a destructured local's: out of the pattern, or `_` beside a rest
    "destructured parameters": (
        "export function ship({ user, id }: Order, [first, second]: Item[], { zone, ...rest }: Place) {\n"
        '  if (Statsig.checkGate(user, "g")) {\n    send(first, zone);\n  }\n  return [id, second, rest];\n}\n',
        "export function ship({ user, id }: Order, [first, second]: Item[], { zone, ...rest }: Place) {\n"
        "  return [id, second, rest];\n}\n",
        "export function ship({ id }: Order, [_first, second]: Item[], { zone: _zone, ...rest }: Place) {\n"
        "  return [id, second, rest];\n}\n",
    ),
    # a parameter the kept code still reads, or one never read before (the rewrite took no read of it), stays
    "a parameter still read, and one never read": (
        'export function f(user: User, spare: number) {\n  if (Statsig.checkGate(user, "g")) {\n    return 1;\n  }\n'
        "  return user.id;\n}\n",
        "export function f(user: User, spare: number) {\n  return user.id;\n}\n",
        "export function f(user: User, spare: number) {\n  return user.id;\n}\n",
    ),
}


# A class's private member only the removed code read, in a project compiled with tsc's noUnusedLocals (TS6133 on a
# field or a method, TS6138 on a parameter property): it goes, or a parameter property stays a parameter. Without the
# setting the class is left as it was. Each case: before, without it, with it.
MEMBERS = {
    "a field, an ES private field, a method with its JSDoc and the field it alone read": (
        "class Cart {\n  // percent\n  private rate = 10;\n  #bonus = 1;\n  private kept = 2;\n\n"
        "  /** discounted */\n  private cut(n: number) {\n    return n * this.rate;\n  }\n\n"
        '  total(user: User, n: number) {\n    if (Statsig.checkGate(user, "g")) {\n      return this.cut(n) + this.#bonus;\n'
        "    }\n    return n + this.kept;\n  }\n}\n",
        "class Cart {\n  // percent\n  private rate = 10;\n  #bonus = 1;\n  private kept = 2;\n\n"
        "  /** discounted */\n  private cut(n: number) {\n    return n * this.rate;\n  }\n\n"
        "  total(user: User, n: number) {\n    return n + this.kept;\n  }\n}\n",
        "class Cart {\n  private kept = 2;\n\n  total(user: User, n: number) {\n    return n + this.kept;\n  }\n}\n",
    ),
    "a parameter property, private and readonly": (
        "class Cart {\n  constructor(private readonly user: User, public id: string) {}\n  total() {\n"
        '    return Statsig.checkGate(this.user, "g") ? 1 : 0;\n  }\n}\n',
        "class Cart {\n  constructor(private readonly user: User, public id: string) {}\n  total() {\n    return 0;\n  }\n}\n",
        "class Cart {\n  constructor(user: User, public id: string) {}\n  total() {\n    return 0;\n  }\n}\n",
    ),
    # what stays whatever the setting: a public or protected member (the class's interface), one named elsewhere in the
    # class (another object's, a string's), a decorated one (the decorator may read it), a getter (its setter's pair),
    # a static one
    "members that stay": (
        "class Cart {\n  rate = 1;\n  protected tax = 2;\n  private fee = 3;\n  private code = 4;\n"
        "  @Input() private flag = 5;\n  private get size() {\n    return 1;\n  }\n"
        "  private static zone = 7;\n"
        '  total(user: User, other: Cart) {\n    if (Statsig.checkGate(user, "g")) {\n'
        "      return this.rate + this.tax + this.fee + this.code + this.flag + this.size + Cart.zone;\n"
        '    }\n    return other.fee + this["code"];\n  }\n}\n',
        "class Cart {\n  rate = 1;\n  protected tax = 2;\n  private fee = 3;\n  private code = 4;\n"
        "  @Input() private flag = 5;\n  private get size() {\n    return 1;\n  }\n"
        "  private static zone = 7;\n"
        '  total(user: User, other: Cart) {\n    return other.fee + this["code"];\n  }\n}\n',
        None,
    ),
    # a private field whose value has an effect stays for it: a TypeScript one no longer private (tsc asks no public
    # field to be read), an ES one below tsc's directive that its unread error is expected (a new name would make it a
    # property JSON sees)
    "a private field whose value has an effect": (
        "class Cart {\n  private readonly started = start();\n  #opened = open();\n"
        '  total(user: User) {\n    if (Statsig.checkGate(user, "g")) {\n      return this.started + this.#opened;\n'
        "    }\n    return 0;\n  }\n}\n",
        "class Cart {\n  private readonly started = start();\n  #opened = open();\n"
        "  total(user: User) {\n    return 0;\n  }\n}\n",
        "class Cart {\n  readonly started = start();  // TODO(gatehouse): only the removed code read it; no longer private,"
        " so that tsc keeps its value's effect\n"
        "  // @ts-expect-error TODO(gatehouse): only the removed code read it; kept for its value's effect\n"
        "  #opened = open();\n  total(user: User) {\n    return 0;\n  }\n}\n",
    ),
}


@pytest.mark.parametrize("setting", [False, True], ids=["without noUnusedLocals", "with noUnusedLocals"])
@pytest.mark.parametrize("case", MEMBERS)
def test_a_private_member_only_the_removed_code_read_goes_under_no_unused_locals(case, setting):
    before, without, with_it = MEMBERS[case]
    rewrite = rewrite_checks(before, "typescript", "g", False, no_unused_locals=setting)
    assert rewrite.text == (with_it or without if setting else without)
    assert parse_errors(rewrite.text, "typescript") == []


def test_an_es_private_fields_errors_are_ignored_where_only_some_projects_refuse_it_unread():
    """A solution-style tsconfig.json whose projects differ: tsc refuses `@ts-expect-error` where no error follows,
    never `@ts-ignore`; the TypeScript `private` one, whose edit tsc accepts either way, is kept public as ever."""
    before, without, with_it = MEMBERS["a private field whose value has an effect"]
    rewrite = rewrite_checks(before, "typescript", "g", False, no_unused_locals=True, no_unused_locals_in_doubt=True)
    assert rewrite.text == with_it.replace(
        "// @ts-expect-error TODO(gatehouse): only the removed code read it; kept for its value's effect\n",
        "// @ts-ignore TODO(gatehouse): only the removed code read it; kept for its value's effect"
        " (unread, some projects refuse it)\n",
    )
    assert rewrite.fields_kept == 2


@pytest.mark.parametrize(
    "above",
    ["// @ts-expect-error its type", "//@ts-ignore", "/* @ts-expect-error */", "// @ts-ignore\n  // the count"],
)
def test_an_es_private_field_below_a_directive_of_tscs_gets_no_second(above):
    # tsc applies the directive to the first line below it that is not a comment: a second would leave it unused
    before = (
        f"class Cart {{\n  {above}\n  #opened = open();\n"
        '  total(user: User) {\n    if (Statsig.checkGate(user, "g")) {\n      return this.#opened;\n'
        "    }\n    return 0;\n  }\n}\n"
    )
    rewrite = rewrite_checks(before, "typescript", "g", False, no_unused_locals=True)
    assert rewrite.text == f"class Cart {{\n  {above}\n  #opened = open();\n  total(user: User) {{\n    return 0;\n  }}\n}}\n"
    assert rewrite.fields_kept == 0


@pytest.mark.parametrize("setting", [False, True], ids=["without noUnusedParameters", "with noUnusedParameters"])
@pytest.mark.parametrize("case", PARAMETERS)
def test_a_parameter_only_the_removed_code_read_gets_an_underscore_under_no_unused_parameters(case, setting):
    before, without, with_it = PARAMETERS[case]
    rewrite = rewrite_checks(before, "typescript", "g", False, no_unused_parameters=setting)
    assert rewrite.text == (with_it if setting else without)
    assert parse_errors(rewrite.text, "typescript") == []
