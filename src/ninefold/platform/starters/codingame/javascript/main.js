// A starter bot for Ultimate Tic-Tac-Toe (CodinGame protocol).
//
// Every turn it reads the opponent's last move ("row col", "-1 -1" on the first
// turn), the number of valid actions and that many "row col" lines, and answers
// "row col": here the first valid action. Put your strategy in choose.
// Node's own modules only (no npm packages).
"use strict";
const readline = require("readline");

// The action [row, col] to play: here the first valid one.
function choose(last, actions) {
  return actions[0];
}

const pair = line => line.trim().split(/\s+/).map(Number);
let last = null, count = null, actions = [];
readline.createInterface({ input: process.stdin }).on("line", line => {
  if (last === null) {
    last = pair(line);
  } else if (count === null) {
    count = Number(line);
  } else {
    actions.push(pair(line));
  }
  if (count !== null && actions.length === count) {
    const [row, col] = choose(last, actions);
    process.stdout.write(`${row} ${col}\n`);
    last = count = null;
    actions = [];
  }
});
