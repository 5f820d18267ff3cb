// Puzzles (/puzzles, /puzzles/{id}). The page keeps the try: the attacker's moves so far;
// the server answers each from the puzzle's solution tree with the defender's reply.

import { buildBoard, drawBoard, square } from "./board.js";
import { stepper } from "./steps.js";

const $ = (id) => document.getElementById(id);
const SOLVER_KEY = "ninefold-puzzle-solver";
const REPLY_MS = 400;  // the defender's reply shows this long after your move

// This browser's solver id: random, kept in local storage (the server keeps its rating).
function solverId() {
  let id = localStorage.getItem(SOLVER_KEY);
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    id = crypto.randomUUID().replaceAll("-", "");
    localStorage.setItem(SOLVER_KEY, id);
  }
  return id;
}
const solver = solverId();

let puzzle = null;   // the PuzzleView
let board = null;    // the PositionView shown
let moves = [];      // the attacker's moves of this try
let last = [];       // the squares to mark as last played
let ended = false;   // solved or failed: the board waits for retry or next
let hintStep = 0;    // 0: none, 1: the board shown, 2: the square shown
let hinted = null;   // the HintView

async function call(url, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const res = await fetch(url, init);
  const data = await res.json().catch(() => ({ detail: res.statusText }));
  if (!res.ok) throw new Error(data.detail || res.statusText);
  return data;
}

// Run `work` unless another request is under way; a refusal shows its one line.
const steps = stepper($("error"), () => draw());
const step = (work) => steps.run(work);

function show(view) {
  puzzle = view;
  board = view.board;
  moves = [];
  last = [];
  ended = false;
  hintStep = 0;
  hinted = null;
  history.replaceState(null, "", `/puzzles/${view.id}`);
  $("status").textContent = `${view.attacker.toUpperCase()} to play: find the only move that wins soonest.`;
  showSolution(null);
}

async function load(id) {
  const params = new URLSearchParams({ solver });
  const theme = $("theme").value;
  if (id) return show(await call(`/api/puzzles/${encodeURIComponent(id)}?${params}`));
  if (theme) params.set("theme", theme);
  if ($("rules").value) params.set("rules", $("rules").value);
  if (puzzle) params.set("after", puzzle.id);
  show(await call(`/api/puzzles?${params}`));
}

async function play(sq) {
  const tried = moves.concat([sq]);
  const answer = await call(`/api/puzzles/${puzzle.id}/try`, { solver, moves: tried });
  moves = tried;
  hintStep = 0;
  hinted = null;
  puzzle.solver = answer.solver;
  puzzle.rating = answer.rating;
  if (answer.state === "failed") {
    ended = true;
    $("status").textContent = `Failed: ${answer.message}.`;
    showSolution(answer.line);
    return;
  }
  // your move first, then the defender's reply
  board = { ...board, boards: markAt(board, sq), legal: [] };
  last = [sq];
  draw();
  if (answer.state === "solved") {
    board = answer.board;
    ended = true;
    $("status").textContent = `${answer.message}!`;
    showSolution(answer.line);
    return;
  }
  await new Promise((resolve) => setTimeout(resolve, REPLY_MS));
  board = answer.board;
  last = [sq, answer.reply];
  $("status").textContent = `The defence: ${answer.reply}. Your move.`;
}

// The small boards of `view` with the attacker's mark on `sq` (shown before the reply).
function markAt(view, sq) {
  return view.boards.map((info, b) => ({
    ...info, allowed: false,
    cells: info.cells.map((mark, c) => (square(b, c) === sq ? puzzle.attacker : mark)),
  }));
}

function showSolution(line) {
  $("solution-title").hidden = line === null;
  $("solution").hidden = line === null;
  const list = $("solution");
  list.replaceChildren();
  if (line === null) return;
  for (let i = 0; i < line.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = line.slice(i, i + 2).join(" ");
    list.appendChild(li);
  }
}

async function hint() {
  if (ended) return;
  if (hintStep === 0) {
    hinted = await call(`/api/puzzles/${puzzle.id}/hint`, { solver, moves });
    puzzle.solver = hinted.solver;
    puzzle.rating = hinted.rating;
  }
  hintStep = Math.min(2, hintStep + 1);
  $("status").textContent = hintStep === 1 ? `Hint: play in board ${hinted.board}.`
    : `Hint: play ${hinted.square}.`;
}

const CONTROLS = {
  "puzzle-hint": () => step(hint),
  "puzzle-retry": () => step(async () => { if (puzzle) await load(puzzle.id); }),
  "puzzle-next": () => step(() => load(null)),
};
for (const [name, act] of Object.entries(CONTROLS)) {
  document.querySelector(`[data-control=${name}]`).addEventListener("click", act);
}
// A filter changed: the next puzzle under it (once a request under way has ended).
const filtered = () => (steps.busy ? setTimeout(filtered, 100) : step(() => load(null)));
$("theme").addEventListener("change", filtered);
$("rules").addEventListener("change", filtered);

// --- drawing ------------------------------------------------------------------------

function draw() {
  if (!board) return;
  const legal = new Set(ended || steps.busy ? [] : board.legal);
  drawBoard($("board"), board, {
    last, legal,
    onSmall: (small, b) => small.classList.toggle(
      "hint-board", hintStep >= 1 && hinted !== null && hinted.board === b + 1),
    onCell: (cell, sq) => cell.classList.toggle(
      "hint-cell", hintStep === 2 && hinted !== null && hinted.square === sq),
  });
  if (puzzle) {
    const side = puzzle.attacker.toUpperCase();
    $("task").textContent = `${side} to play and win within ${puzzle.plies} ${puzzle.plies === 1 ? "ply" : "plies"}`;
    $("ratings").textContent = `Your rating ${puzzle.solver.rating} ± ${puzzle.solver.rd}` +
      ` (${puzzle.solver.tries} rated) · this puzzle ${puzzle.rating.rating} ± ${puzzle.rating.rd}`;
    $("about").textContent = `Rules: ${puzzle.rules}. Themes: ${puzzle.themes.join(", ")}.` +
      ` From ${puzzle.source}.`;
  }
  document.querySelector("[data-control=puzzle-hint]").disabled = ended || !puzzle;
}

buildBoard($("board"), "puzzle-cell", (b, c) => {
  const sq = square(b, c);
  if (board && !ended && board.legal.includes(sq)) step(() => play(sq));
});
const wanted = decodeURIComponent(location.pathname.split("/")[2] || "");
step(() => load(wanted || null));
