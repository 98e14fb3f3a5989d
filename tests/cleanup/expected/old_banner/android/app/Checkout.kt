package com.example.app

import com.statsig.androidsdk.Statsig

class Checkout {
    fun screen(): String {
        val useNew = Statsig.checkGate("new_checkout")
        if (useNew) {
            return "new"
        }
        return "old"
    }

    fun banner(): String? {
        val text = null
        log("no old banner")
        return text
    }
}
