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
