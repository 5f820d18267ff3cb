// A starter bot for Ultimate Tic-Tac-Toe (AI Games and Riddles.io protocols).
//
// It reads the position ("update game field", "update game macroboard") and, on
// "action move", answers "place_move X Y" with the first legal square. Squares are
// numbered 9 * y + x; a small board may be played where the macroboard says -1.
// Put your strategy in choose. Only the standard library is available.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// choose returns the square (0-80) to play: here the first legal one.
func choose(field, macroboard []string) int {
	empty := "0" // AI Games' empty square, or Riddles.io's "."
	for _, square := range field {
		if square == "." {
			empty = "."
		}
	}
	for i := 0; i < 81; i++ {
		board := 3*(i/27) + (i%9)/3
		if field[i] == empty && macroboard[board] == "-1" {
			return i
		}
	}
	panic("no legal move")
}

func main() {
	var field, macroboard []string
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 4096), 1<<20)
	for in.Scan() {
		parts := strings.Fields(in.Text())
		switch {
		case len(parts) == 4 && parts[0] == "update" && parts[2] == "field":
			field = strings.Split(parts[3], ",")
		case len(parts) == 4 && parts[0] == "update" && parts[2] == "macroboard":
			macroboard = strings.Split(parts[3], ",")
		case len(parts) >= 2 && parts[0] == "action" && parts[1] == "move":
			i := choose(field, macroboard)
			fmt.Printf("place_move %d %d\n", i%9, i/9)
		}
	}
}
