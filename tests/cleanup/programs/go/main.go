package main

import (
	"fmt"
	"log"
	"os"
	"strings"

	statsig "github.com/statsig-io/go-sdk"
)

type Cart struct {
	Name  string
	Total int
}

func Price(user statsig.User, cart Cart) int {
	if statsig.CheckGate(user, "new_checkout") {
		return cart.Total
	}
	log.SetOutput(os.Stdout)
	log.SetFlags(0)
	log.Printf("legacy %s", strings.ToUpper(cart.Name))
	return cart.Total + 1
}

func Banner(user statsig.User) string {
	if !statsig.CheckGate(user, "new_checkout") {
		return fmt.Sprintf("old banner for %s", user.UserID)
	}
	return "new banner"
}

func main() {
	user := statsig.User{UserID: "u1"}
	fmt.Println(Price(user, Cart{Name: "cart", Total: 10}), Banner(user))
}
