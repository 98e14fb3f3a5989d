import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

public class Checkout {
    static class StatsigUser {
        final String id;
        StatsigUser(String id) { this.id = id; }
    }

    static class Statsig {
        static CompletableFuture<Boolean> checkGateAsync(StatsigUser user, String gate) {
            return CompletableFuture.completedFuture(checkGate(user, gate));
        }

        static boolean checkGate(StatsigUser user, String gate) {
            return "true".equals(System.getenv("GATE_VALUE"));
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

    // the body calls more than the check: the catch may need the future's get(), which stays, completed
    static String logged(StatsigUser user) {
        boolean on;
        try {
            on = Statsig.checkGateAsync(user, "new_checkout").get();
            System.out.println("asked");
        } catch (InterruptedException | ExecutionException e) {
            on = false;
        }
        return on ? "logged-on" : "logged-off";
    }

    // a `continue` or a `break` inlined: what follows it in its block is never reached (javac refuses it)
    static String skipped(StatsigUser user, int[] xs) {
        int total = 0;
        for (int x : xs) {
            if (Statsig.checkGate(user, "new_checkout")) {
                continue;
            }
            total += x;
        }
        String kind;
        switch (total) {
            case 0:
                if (!Statsig.checkGate(user, "new_checkout")) {
                    kind = "none-old";
                    break;
                }
                kind = "none-new";
                break;
            default:
                kind = "some";
        }
        return total + " " + kind;
    }

    // a loop on the gate: never run (javac refuses `while (false)`), or run until it returns or breaks
    static int waited(StatsigUser user, int n) {
        int tries = 0;
        while (!Statsig.checkGate(user, "new_checkout")) {
            tries++;
            if (tries > 2) {
                break;
            }
        }
        while (Statsig.checkGate(user, "new_checkout")) {
            return n + tries;
        }
        return -n - tries;
    }

    // a for whose start has an effect, a labelled loop left by a labelled break, a check passed to a call in a try
    static int counted(StatsigUser user, int n) {
        int i;
        for (i = n; !Statsig.checkGate(user, "new_checkout"); i++) {
            if (i > n + 2) {
                break;
            }
        }
        outer:
        while (Statsig.checkGate(user, "new_checkout")) {
            for (int j = 0; j < 3; j++) {
                if (j > 1) {
                    break outer;
                }
            }
        }
        return i + shown(user);
    }

    static int shown(StatsigUser user) {
        try {
            return String.valueOf(Statsig.checkGateAsync(user, "new_checkout").get()).length();
        } catch (InterruptedException | ExecutionException e) {
            return -1;
        }
    }

    public static void main(String[] args) {
        StatsigUser user = new StatsigUser("u1");
        System.out.println(enabled(user) + " " + price(user, 10));
        System.out.println(logged(user) + " " + skipped(user, new int[] {1, 2}) + " " + skipped(user, new int[0]));
        System.out.println(waited(user, 5) + " " + counted(user, 4));
    }
}
