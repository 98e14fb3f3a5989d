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

// locals only the removed branch read: kotlinc warns of each ("variable 'id' is never used"); a destructured or a
// lambda's name becomes `_`, a val goes, or its call stays where it may have an effect
fun audit(n: Int): Int {
    println("audit $n")
    return n
}

fun receipt(items: Map<String, Int>): String {
    val lines = mutableListOf<String>()
    for ((name, count) in items) {
        if (Statsig.checkGate("new_checkout")) {
            lines.add(name)
        }
        lines.add(count.toString())
    }
    items.forEach { entry ->
        if (!Statsig.checkGate("new_checkout")) {
            lines.add(entry.key)
        }
    }
    val stamp = audit(items.size)
    val tax = 2
    val (first, second) = Pair("a", "b")
    if (Statsig.checkGate("new_checkout")) {
        lines.add("$stamp $tax $first")
    }
    lines.add(second)
    return lines.joinToString(",")
}

// a lambda's last expression is its value, and a string template reads a name: neither goes
fun kept(xs: List<Int>): String {
    val shown = xs.filter { Statsig.checkGate("new_checkout") || it > 2 }
    val decided = run {
        println("deciding")
        Statsig.checkGate("new_checkout")
    }
    val on = Statsig.checkGate("new_checkout")
    return "$shown $decided flag=$on"
}

fun main() {
    val checkout = Checkout(StatsigUser("u1"))
    println(listOf(checkout.screen(), checkout.price(10), checkout.banner(false), checkout.banner(true)).joinToString(" | "))
    println(receipt(mapOf("a" to 1, "b" to 2)))
    println(kept(listOf(1, 3)))
}
