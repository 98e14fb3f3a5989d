"""Rewritten code compiles with the language's real toolchain and does what the original did with the gate's value:
Go (imports the removed code alone used go with it: Go refuses an unused import), TypeScript (`tsc --strict
--noUnusedLocals`: its unused imports are errors there) and Java (a `try` whose body no
longer throws the checked exceptions it catches is unwrapped: javac refuses the catch). Each program is run before
and after against a stub SDK that answers the gate's value; the outputs are equal. `make test` installs Go from the
system's packages where it can; a toolchain missing is reported by name as skipped."""

from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from gatehouse.pipelines.cleanup.rewrite import rewrite_checks

GO_PROGRAM = textwrap.dedent('''\
    package main

    import (
    \t"fmt"
    \t"log"
    \t"os"
    \t"strings"

    \tstatsig "github.com/statsig-io/go-sdk"
    )

    type Cart struct {
    \tName  string
    \tTotal int
    }

    func Price(user statsig.User, cart Cart) int {
    \tif statsig.CheckGate(user, "new_checkout") {
    \t\treturn cart.Total
    \t}
    \tlog.SetOutput(os.Stdout)
    \tlog.SetFlags(0)
    \tlog.Printf("legacy %s", strings.ToUpper(cart.Name))
    \treturn cart.Total + 1
    }

    func Banner(user statsig.User) string {
    \tif !statsig.CheckGate(user, "new_checkout") {
    \t\treturn fmt.Sprintf("old banner for %s", user.UserID)
    \t}
    \treturn "new banner"
    }

    func main() {
    \tuser := statsig.User{UserID: "u1"}
    \tfmt.Println(Price(user, Cart{Name: "cart", Total: 10}), Banner(user))
    }
''')

GO_STUB = textwrap.dedent('''\
    package statsig

    import "os"

    type User struct{ UserID string }

    // CheckGate answers the gate's value from GATE_VALUE, as the console would for every user
    func CheckGate(user User, gate string) bool { return os.Getenv("GATE_VALUE") == "true" }
''')

JAVA_PROGRAM = textwrap.dedent('''\
    import java.util.concurrent.CompletableFuture;
    import java.util.concurrent.ExecutionException;

    public class Checkout {
        static class StatsigUser {
            final String id;
            StatsigUser(String id) { this.id = id; }
        }

        static class Statsig {
            static CompletableFuture<Boolean> checkGateAsync(StatsigUser user, String gate) {
                return CompletableFuture.completedFuture("true".equals(System.getenv("GATE_VALUE")));
            }
        }

        static boolean enabled(StatsigUser user) {
            try {
                return Statsig.checkGateAsync(user, "new_checkout").get();
            } catch (InterruptedException | ExecutionException e) {
                return false;
            }
        }

        static String price(StatsigUser user, int total) {
            boolean fast;
            try {
                fast = Statsig.checkGateAsync(user, "new_checkout").get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fast = false;
            } catch (ExecutionException e) {
                fast = false;
            }
            return fast ? "fast " + total : "slow " + (total + 1);
        }

        public static void main(String[] args) {
            StatsigUser user = new StatsigUser("u1");
            System.out.println(enabled(user) + " " + price(user, 10));
        }
    }
''')


REPO = Path(__file__).resolve().parents[2]
# where `make test` installs TypeScript from npm
NODE_BIN = REPO / ".venv" / "node" / "node_modules" / ".bin"


def toolchain(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(NODE_BIN))
    if found is None:
        pytest.skip(f"{name} is not installed (make test installs it where the system's packages can): not compiled")
    return found


def run(command: list[str], cwd: Path, value: bool) -> str:
    env = {**os.environ, "GATE_VALUE": str(value).lower(), "GOFLAGS": "-mod=mod", "GOPROXY": "off",
           "GOCACHE": str(cwd / ".gocache"), "GOPATH": str(cwd / ".gopath"), "GO111MODULE": "on"}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def go_module(folder: Path, program: str) -> Path:
    (folder / "statsig").mkdir(parents=True)
    (folder / "statsig" / "go.mod").write_text("module github.com/statsig-io/go-sdk\n\ngo 1.19\n")
    (folder / "statsig" / "statsig.go").write_text(GO_STUB)
    (folder / "go.mod").write_text("module example.com/app\n\ngo 1.19\n\nrequire github.com/statsig-io/go-sdk v0.0.0\n\n"
                                   "replace github.com/statsig-io/go-sdk => ./statsig\n")
    (folder / "main.go").write_text(program)
    return folder


@pytest.mark.parametrize("value", [True, False])
def test_go_compiles_and_behaves_as_before(tmp_path, value):
    go = toolchain("go")
    rewritten = rewrite_checks(GO_PROGRAM, "go", "new_checkout", value)
    assert rewritten.replaced == 2
    imports = rewritten.text.split(")", 1)[0]
    # what the removed branch alone used goes; what the kept code uses stays
    assert ('"strings"' in imports) is (not value) and ('"log"' in imports) is (not value)
    assert '"fmt"' in imports
    before = run([go, "run", "."], go_module(tmp_path / "before", GO_PROGRAM), value)
    after_folder = go_module(tmp_path / "after", rewritten.text)
    assert run([go, "vet", "."], after_folder, value) == ""
    assert run([go, "run", "."], after_folder, value) == before


@pytest.mark.parametrize("value", [True, False])
def test_java_compiles_and_behaves_as_before(tmp_path, value):
    javac, java = toolchain("javac"), toolchain("java")
    rewritten = rewrite_checks(JAVA_PROGRAM, "java", "new_checkout", value)
    assert rewritten.replaced == 2
    assert "ExecutionException" not in rewritten.text  # the catch and the import it alone used, gone
    outputs = []
    for name, text in (("before", JAVA_PROGRAM), ("after", rewritten.text)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "Checkout.java").write_text(text)
        run([javac, "-Xlint:all", "-Werror", "Checkout.java"] if name == "after" else [javac, "Checkout.java"], folder, value)
        outputs.append(run([java, "-cp", ".", "Checkout"], folder, value))
    assert outputs[0] == outputs[1]


TS_PROGRAM = textwrap.dedent('''\
    import Statsig from "./statsig";
    import { format } from "./format";

    export function price(user: { id: string }, total: number): string {
      if (Statsig.checkGate(user, "new_checkout")) {
        return `fast ${total}`;
      }
      return format(total + 1);
    }

    export function banner(user: { id: string }): string {
      const fresh = Statsig.checkGate(user, "new_checkout");
      return fresh ? "new banner" : "old banner";
    }

    console.log(price({ id: "u1" }, 10), banner({ id: "u1" }));
''')

TS_STUBS = {
    "statsig.ts": 'export default { checkGate: (_user: { id: string }, _gate: string): boolean =>'
                  ' process.env.GATE_VALUE === "true" };\n',
    "format.ts": 'export function format(total: number): string { return `slow ${total}`; }\n',
    "node.d.ts": "declare const process: { env: Record<string, string | undefined> };\n",
}


@pytest.mark.parametrize("value", [True, False])
def test_typescript_compiles_strictly_and_behaves_as_before(tmp_path, value):
    tsc, node = toolchain("tsc"), toolchain("node")
    rewritten = rewrite_checks(TS_PROGRAM, "typescript", "new_checkout", value)
    assert rewritten.replaced == 2
    assert 'from "./statsig"' not in rewritten.text  # the SDK, no longer used
    assert ('from "./format"' in rewritten.text) is (not value)  # what the removed branch alone used
    outputs = []
    for name, text in (("before", TS_PROGRAM), ("after", rewritten.text)):
        folder = tmp_path / name
        folder.mkdir()
        for stub, source in TS_STUBS.items():
            (folder / stub).write_text(source)
        (folder / "main.ts").write_text(text)
        # unused locals (imports among them) refused; a parameter the rewrite left unused stays: it is the function's API
        run([tsc, "--strict", "--noUnusedLocals", "--module", "commonjs", "--target", "es2019",
             "--outDir", "out", "main.ts", "node.d.ts"], folder, value)
        outputs.append(run([node, "out/main.js"], folder, value))
    assert outputs[0] == outputs[1]
