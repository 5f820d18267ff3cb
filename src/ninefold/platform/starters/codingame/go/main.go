// A starter bot for Ultimate Tic-Tac-Toe (CodinGame protocol).
//
// Every turn it reads the opponent's last move ("row col", "-1 -1" on the first
// turn), the number of valid actions and that many "row col" lines, and answers
// "row col": here the first valid action. Put your strategy in choose.
// Only the standard library is available.
package main

import (
	"bufio"
	"fmt"
	"os"
)

type action struct{ row, col int }

// choose returns the action to play: here the first valid one.
func choose(last action, actions []action) action {
	return actions[0]
}

func main() {
	in := bufio.NewReader(os.Stdin)
	for {
		var last action
		var n int
		if _, err := fmt.Fscan(in, &last.row, &last.col, &n); err != nil {
			return
		}
		actions := make([]action, n)
		for i := range actions {
			fmt.Fscan(in, &actions[i].row, &actions[i].col)
		}
		move := choose(last, actions)
		fmt.Printf("%d %d\n", move.row, move.col)
	}
}
