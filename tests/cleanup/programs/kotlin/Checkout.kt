package app

import com.statsig.androidsdk.Statsig
import com.statsig.androidsdk.StatsigUser
import java.util.Locale

class Checkout(private val user: StatsigUser) {
    fun screen(): String {
        val useNew = Statsig.checkGate("new_checkout")
        if (useNew) {
            return "new"
        }
        return "old " + "screen".toUpperCase(Locale.ROOT)
    }

    fun price(total: Int): Int {
        return if (Statsig.checkGateSync(user, "new_checkout")) total else total + 1
    }

    fun banner(tablet: Boolean): String {
        val lines = mutableListOf<String>()
        if (!Statsig.checkGate("new_checkout") || tablet) {
            lines.add("legacy banner")
        } else {
            lines.add("fresh banner")
        }
        return lines.joinToString()
    }
}

fun main() {
    val checkout = Checkout(StatsigUser("u1"))
    println(listOf(checkout.screen(), checkout.price(10), checkout.banner(false), checkout.banner(true)).joinToString(" | "))
}
