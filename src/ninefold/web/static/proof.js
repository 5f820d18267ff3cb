// X's forced win with open boards, replayed (/proof). The line lives here: `frames[i]`
// is the server's ProofStep for the position after `moves[:i]`; X's moves are the
// proved strategy's, O's the viewer's choice (the longest defence, random, or clicks).

import { buildBoard, drawBoard, square } from "./board.js";
import { stepper } from "./steps.js";

const $ = (id) => document.getElementById(id);

let frames = [];
let moves = [];
let at = 0;          // the frame shown

const PREPARING = 503;  // the server is preparing the strategy: its detail says how far
const RETRY_MS = 1000;

// The server's ProofStep for `position` after `move`; a refusal throws its one line. While
// the server prepares the strategy, the status says what it is doing and the page asks again.
async function ask(position, move) {
  const params = new URLSearchParams();
  if (position) params.set("position", position);
  if (move) params.set("move", move);
  for (;;) {
    const res = await fetch(`/api/proof?${params}`);
    const data = await res.json().catch(() => ({ detail: res.statusText }));
    if (res.ok) return data;
    if (res.status !== PREPARING) throw new Error(data.detail || res.statusText);
    $("status").textContent = `${data.detail}…`;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

const oPlays = () => document.querySelector("input[name=o]:checked").value;

// The move after frame `i`: X's, or O's as chosen (null: the end, or O waits for a click).
function nextMove(i) {
  const f = frames[i];
  if (f.board.result) return null;
  if (f.x_move) return f.x_move;
  if (oPlays() === "longest") return f.longest;
  if (oPlays() === "random") return f.board.legal[Math.floor(Math.random() * f.board.legal.length)];
  return null;
}

// Play `move` after the frame shown, dropping the line that followed it.
async function playAfter(move) {
  const next = await ask(frames[at].board.position, move);
  frames = frames.slice(0, at + 1).concat([next]);
  moves = moves.slice(0, at).concat([move]);
  at += 1;
}

// One move forward: along the line kept, else its next move (false: none to make).
async function forward() {
  if (at < frames.length - 1) {
    at += 1;
    return true;
  }
  const move = nextMove(at);
  if (move === null) return false;
  await playAfter(move);
  return true;
}

// Run `work` unless a step is under way, then draw; a refusal shows its line.
const steps = stepper($("error"), () => draw(), () => frames.length > 0);
const step = (work) => steps.run(work);

const CONTROLS = {
  "proof-first": () => step(async () => { at = 0; }),
  "proof-back": () => step(async () => { at = Math.max(0, at - 1); }),
  "proof-forward": () => step(forward),
  "proof-last": () => step(async () => { while (await forward()) draw(); }),
};
for (const [name, act] of Object.entries(CONTROLS)) {
  document.querySelector(`[data-control=${name}]`).addEventListener("click", act);
}

// Another O: the line after the position shown was another O's.
for (const input of document.querySelectorAll("input[name=o]")) {
  input.addEventListener("change", () => {
    frames = frames.slice(0, at + 1);
    moves = moves.slice(0, at);
    draw();
  });
}

const VIEWER_KEYS = {
  ArrowLeft: CONTROLS["proof-back"], ArrowRight: CONTROLS["proof-forward"],
  Home: CONTROLS["proof-first"], End: CONTROLS["proof-last"],
};
$("viewer").dataset.keys = Object.keys(VIEWER_KEYS).join(" ");
document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea") || !VIEWER_KEYS[event.key]) return;
  VIEWER_KEYS[event.key]();
  event.preventDefault();
});

// --- drawing ------------------------------------------------------------------------

function draw() {
  const f = frames[at];
  const clickable = oPlays() === "you" && !f.board.result && f.board.turn === "o";
  const legal = new Set(clickable ? f.board.legal : []);
  // Tab reaches O's squares when you play O
  drawBoard($("board"), f.board, { last: [f.board.last, moves[at - 1]], legal,
    playable: ", playable for O" });
  $("phase").textContent = `Phase ${f.phase} of 4: ${f.phase_name}.`;
  const next = f.board.result ? "" : f.x_move ? ` X plays ${f.x_move}.`
    : clickable ? " Click a highlighted square for O." : "";
  const left = f.board.result ? "" : ` X wins within ${f.plies_left} more plies.`;
  $("status").textContent = `Ply ${f.ply}: ${f.board.status}.${next}${left}`;
  const list = $("moves");
  list.replaceChildren();
  for (let i = 0; i < moves.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = moves.slice(i, i + 2).map((m, j) => (i + j < at ? m : `(${m})`)).join(" ");
    list.appendChild(li);
  }
}

buildBoard($("board"), "proof-cell", (b, c) => {
  const cell = $("board").querySelector(`[data-square=${square(b, c)}]`);
  if (cell.classList.contains("legal")) step(() => playAfter(square(b, c)));
});
ask(null, null).then((first) => {
  frames = [first];
  draw();
}, (err) => {
  $("error").textContent = err.message;
});
