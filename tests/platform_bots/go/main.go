// A Riddles.io Ultimate Tic-Tac-Toe bot: plays legal moves by its STRATEGY.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

const STRATEGY = "random" // random | first | center | win-if-possible
const SEED uint64 = 0

var LINES = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6},
	{1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

// The fixtures' LCG, the same in every language.
var state = SEED*2654435761 + 12345

func below(n int) int {
	state = state*6364136223846793005 + 1442695040888963407
	return int((state >> 33) % uint64(n))
}

func cell(board, k int) int {
	return 9*(3*(board/3)+k/3) + 3*(board%3) + k%3
}

func wins(field []string, i int, me string) bool {
	board := 3*(i/27) + (i%9)/3
	for _, line := range LINES {
		all := true
		for _, k := range line {
			c := cell(board, k)
			all = all && (c == i || field[c] == me)
		}
		if all {
			return true
		}
	}
	return false
}

func filter(from []int, keep func(int) bool) []int {
	var out []int
	for _, i := range from {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}

func choose(field, macro []string, me string) int {
	var legal []int
	for i := 0; i < 81; i++ {
		if field[i] == "." && macro[3*(i/27)+(i%9)/3] == "-1" {
			legal = append(legal, i)
		}
	}
	if STRATEGY == "first" {
		return legal[0]
	}
	var best []int
	if STRATEGY == "center" {
		best = filter(legal, func(i int) bool { return i%3 == 1 && (i/9)%3 == 1 })
		if len(best) == 0 {
			best = filter(legal, func(i int) bool { return i%3 != 1 && (i/9)%3 != 1 })
		}
	}
	if STRATEGY == "win-if-possible" {
		best = filter(legal, func(i int) bool { return wins(field, i, me) })
	}
	if len(best) == 0 {
		best = legal
	}
	return best[below(len(best))]
}

func main() {
	me, field, macro := "0", []string{}, []string{}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 4096), 1<<20)
	for in.Scan() {
		parts := strings.Fields(in.Text())
		switch {
		case len(parts) == 3 && parts[0] == "settings" && parts[1] == "your_botid":
			me = parts[2]
		case len(parts) == 4 && parts[0] == "update" && parts[2] == "field":
			field = strings.Split(parts[3], ",")
		case len(parts) == 4 && parts[0] == "update" && parts[2] == "macroboard":
			macro = strings.Split(parts[3], ",")
		case len(parts) >= 2 && parts[0] == "action" && parts[1] == "move":
			i := choose(field, macro, me)
			fmt.Printf("place_disc %d %d\n", i%9, i/9)
		}
	}
}
