package flags

import (
	"fmt"

	statsig "github.com/statsig-io/go-sdk"
)

func Ribbon(user User) string {
	if statsig.CheckGateWithExposureLoggingDisabled(statsig.User{UserID: user.ID}, "old_banner") || user.Admin {
		return fmt.Sprintf("ribbon for %s", user.ID)
	}
	return ""
}
