package checkout;

import com.statsig.sdk.Statsig;
import com.statsig.sdk.StatsigUser;

public class CheckoutController {
    public String page(StatsigUser user) throws Exception {
        boolean useNew = Statsig.checkGateSync(user, "new_checkout");
        if (useNew) {
            return "checkout/new";
        }
        return "checkout/old";
    }

    public String banner(StatsigUser user) throws Exception {
        if (Statsig.checkGateAsync(user, "old_banner").get()) {
            return "banner/old";
        } else if (user.getEmail() != null) {
            return "banner/email";
        }
        return "banner/none";
    }

    public int columns(StatsigUser user) {
        return Statsig.checkGate(user, "new_checkout") && !Statsig.checkGate(user, "old_banner") ? 2 : 1;
    }
}
