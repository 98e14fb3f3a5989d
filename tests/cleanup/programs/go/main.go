package main

import (
	"fmt"
	"log"
	"os"
	"strconv"
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

// Locals only the removed branch read: Go refuses a local declared and not used. A loop's variables become `_` or
// go; a declaration goes when its right side has no effect, else its value goes to `_`.
func Receipt(user statsig.User, items []string) string {
	out := ""
	for i, item := range items {
		if statsig.CheckGate(user, "new_checkout") {
			out += item
		}
		out += fmt.Sprint(i)
	}
	for i, item := range items {
		if !statsig.CheckGate(user, "new_checkout") {
			out += fmt.Sprint(i)
		}
		out += item
	}
	for i, item := range items {
		if statsig.CheckGate(user, "new_checkout") {
			out += fmt.Sprint(i, item)
		}
	}
	stamp := audit(len(items))
	tax := 2
	count, err := strconv.Atoi("3")
	var note = audit(1)
	if statsig.CheckGate(user, "new_checkout") {
		out += fmt.Sprint(stamp, tax, count, note)
	}
	return fmt.Sprint(out, err)
}

// audit has an effect (it prints), so a call of it stays when what it gives is no longer read
func audit(n int) string {
	fmt.Println("audit", n)
	return fmt.Sprint(n)
}

func main() {
	user := statsig.User{UserID: "u1"}
	fmt.Println(Price(user, Cart{Name: "cart", Total: 10}), Banner(user))
	fmt.Println(Receipt(user, []string{"a", "b"}))
}
