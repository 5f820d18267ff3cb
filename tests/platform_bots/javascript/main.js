// A Riddles.io Ultimate Tic-Tac-Toe bot: plays legal moves by its STRATEGY.
"use strict";
const readline = require("readline");

const STRATEGY = "random"; // random | first | center | win-if-possible
const SEED = 0;
const LINES = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6],
               [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
const MASK = (1n << 64n) - 1n;

// The fixtures' LCG, the same in every language.
let state = (BigInt(SEED) * 2654435761n + 12345n) & MASK;

function below(n) {
  state = (state * 6364136223846793005n + 1442695040888963407n) & MASK;
  return Number((state >> 33n) % BigInt(n));
}

function cell(board, k) {
  return 9 * (3 * Math.floor(board / 3) + Math.floor(k / 3)) + 3 * (board % 3) + k % 3;
}

function wins(field, i, me) {
  const board = 3 * Math.floor(i / 27) + Math.floor((i % 9) / 3);
  return LINES.some(line => line.every(k => cell(board, k) === i
                                        || field[cell(board, k)] === me));
}

function choose(field, macro, me) {
  const legal = [];
  for (let i = 0; i < 81; i++) {
    if (field[i] === "." && macro[3 * Math.floor(i / 27) + Math.floor((i % 9) / 3)] === "-1") {
      legal.push(i);
    }
  }
  if (STRATEGY === "first") return legal[0];
  let best = [];
  if (STRATEGY === "center") {
    best = legal.filter(i => i % 3 === 1 && Math.floor(i / 9) % 3 === 1);
    if (!best.length) best = legal.filter(i => i % 3 !== 1 && Math.floor(i / 9) % 3 !== 1);
  }
  if (STRATEGY === "win-if-possible") best = legal.filter(i => wins(field, i, me));
  if (!best.length) best = legal;
  return best[below(best.length)];
}

let me = "0", field = [], macro = [];
readline.createInterface({ input: process.stdin }).on("line", line => {
  const parts = line.trim().split(/\s+/);
  if (parts.length === 3 && parts[0] === "settings" && parts[1] === "your_botid") {
    me = parts[2];
  } else if (parts.length === 4 && parts[0] === "update" && parts[2] === "field") {
    field = parts[3].split(",");
  } else if (parts.length === 4 && parts[0] === "update" && parts[2] === "macroboard") {
    macro = parts[3].split(",");
  } else if (parts.length >= 2 && parts[0] === "action" && parts[1] === "move") {
    const i = choose(field, macro, me);
    process.stdout.write(`place_disc ${i % 9} ${Math.floor(i / 9)}\n`);
  }
});
