package com.statsig.androidsdk

class StatsigUser(val userID: String)

// answers the gate's value from GATE_VALUE, as the console would for every user
object Statsig {
    fun checkGate(gate: String): Boolean = System.getenv("GATE_VALUE") == "true"

    fun checkGateSync(user: StatsigUser, gate: String): Boolean = checkGate(gate)
}
