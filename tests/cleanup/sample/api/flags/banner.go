package flags

import (
	"fmt"

	statsig "github.com/statsig-io/go-sdk"
)

func Banner(user statsig.User) {
	if statsig.CheckGate(user, "old_banner") {
		fmt.Println("old banner")
	} else {
		fmt.Println("plain banner")
	}
	enabled := statsig.CheckGate(user, "new_checkout")
	if !enabled {
		return
	}
	fmt.Println("new checkout")
}

func Half(user statsig.User) bool {
	return statsig.CheckGate(user, "half_rollout")
}
