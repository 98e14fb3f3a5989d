package statsig

import "os"

type User struct{ UserID string }

// CheckGate answers the gate's value from GATE_VALUE, as the console would for every user
func CheckGate(user User, gate string) bool { return os.Getenv("GATE_VALUE") == "true" }
