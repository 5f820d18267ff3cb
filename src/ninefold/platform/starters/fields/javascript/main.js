// A starter bot for Ultimate Tic-Tac-Toe (AI Games and Riddles.io protocols).
//
// It reads the position ("update game field", "update game macroboard") and, on
// "action move", answers "place_move X Y" with the first legal square. Squares are
// numbered 9 * y + x; a small board may be played where the macroboard says -1.
// Put your strategy in choose. Node's own modules only (no npm packages).
"use strict";
const readline = require("readline");

// The square (0-80) to play: here the first legal one.
function choose(field, macroboard) {
  const empty = field.includes(".") ? "." : "0";  // Riddles.io's empty square, or AI Games'
  for (let i = 0; i < 81; i++) {
    const board = 3 * Math.floor(i / 27) + Math.floor((i % 9) / 3);
    if (field[i] === empty && macroboard[board] === "-1") return i;
  }
  throw new Error("no legal move");
}

let field = [], macroboard = [];
readline.createInterface({ input: process.stdin }).on("line", line => {
  const parts = line.trim().split(/\s+/);
  if (parts.length === 4 && parts[0] === "update" && parts[2] === "field") {
    field = parts[3].split(",");
  } else if (parts.length === 4 && parts[0] === "update" && parts[2] === "macroboard") {
    macroboard = parts[3].split(",");
  } else if (parts.length >= 2 && parts[0] === "action" && parts[1] === "move") {
    const i = choose(field, macroboard);
    process.stdout.write(`place_move ${i % 9} ${Math.floor(i / 9)}\n`);
  }
});
