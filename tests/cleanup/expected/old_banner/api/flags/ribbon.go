package flags

import (
	"fmt"
)

func Ribbon(user User) string {
	if user.Admin {
		return fmt.Sprintf("ribbon for %s", user.ID)
	}
	return ""
}
