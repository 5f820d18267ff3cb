// The web board: one page, no build step. It talks to the JSON API (/docs) and
// listens to /api/games/{id}/live for changes; a seat's token lives in the link's
// fragment (#t=...), never sent to the server but as a Bearer header, and is kept
// in localStorage so a reload keeps the seat.

import { AnalysisPanel } from "./analysis.js";
import { buildBoard as buildCells, drawBoard, square } from "./board.js";
import { ReviewPanel } from "./review.js";

const $ = (id) => document.getElementById(id);

let game = null;     // the GameView shown
let token = null;    // this page's seat token (null: a spectator)
let cursor = { x: 4, y: 4 };  // the keyboard's square
let socket = null;
let spot = null;     // the PositionView of the analysis board (null: not that page)
let panel = null;    // the AnalysisPanel, once shown

// A view replaces the one shown only if it is not older (a socket message and the
// answer to a request may come in either order).
// A new version clears the messages about the one before and, when this page is to move,
// brings the keyboard's cursor to a square it may play.
function show(view, you) {
  if (game && view.id === game.id && view.version < game.version) return;
  if (you !== undefined) view.you = you;
  const news = !game || view.id !== game.id || view.version !== game.version;
  game = view;
  game.received = performance.now();  // the clock's times are as of now
  if (news) {
    showError("");
    if (canMove()) cursorToPlayable(game.legal);
  }
  render();
}

// Move the cursor to the playable square (of `legal`, by name) nearest it, unless it is
// on one; the focus follows if it was on the board.
function cursorToPlayable(legal) {
  const { b, c } = bcOf(cursor.x, cursor.y);
  if (!legal.length || legal.includes(square(b, c))) return;
  const dist = (sq) => {
    const cell = document.querySelector(`.cell[data-square="${sq}"]`);
    const { x, y } = xyOf(Number(cell.dataset.board), Number(cell.dataset.cell));
    return [(x - cursor.x) ** 2 + (y - cursor.y) ** 2, y, x];
  };
  const [, y, x] = legal.map(dist).sort((p, q) => p[0] - q[0] || p[1] - q[1] || p[2] - q[2])[0];
  cursor = { x, y };
  if (document.activeElement && document.activeElement.classList.contains("cell")) {
    focusCursor();
  }
}

// --- squares: board b, cell c <-> column x, row y <-> "e5" -------------------------
const xyOf = (b, c) => ({ x: 3 * (b % 3) + (c % 3), y: 3 * Math.floor(b / 3) + Math.floor(c / 3) });
const bcOf = (x, y) => ({ b: 3 * Math.floor(y / 3) + Math.floor(x / 3), c: 3 * (y % 3) + (x % 3) });

// --- the API ---------------------------------------------------------------------
async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const res = await fetch(path, body === undefined ? { headers } :
    { method: "POST", headers, body: JSON.stringify(body) });
  const data = await res.json().catch(() => ({ detail: res.statusText }));
  if (!res.ok) throw Object.assign(new Error(data.detail || res.statusText), { status: res.status });
  return data;
}

function showError(text) {
  for (const el of document.querySelectorAll(".error")) el.textContent = text || "";
}

// A message about the whole page, at its top where a phone shows it (`problem`: in the
// error's colour).
function showNotice(text, problem = false) {
  $("notice").hidden = !text;
  $("notice").textContent = text || "";
  $("notice").classList.toggle("problem", problem);
}

// The API's answer at `path`, or null after showing why not, above the new-game screen.
async function fetchOrSetup(path) {
  try {
    return await api(path);
  } catch (err) {
    $("setup").hidden = false;
    const text = err.message.charAt(0).toUpperCase() + err.message.slice(1);
    showNotice(err.status === 404 ? `${text}: check the link, or start a new game below.` : text,
      true);
    return null;
  }
}

// --- new game --------------------------------------------------------------------
$("new-game").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const opening = (form.get("opening") || "").trim();
  const body = {
    mode: form.get("mode"), side: form.get("side"), rules: form.get("rules"),
    opening: opening === "" || opening === "none" ? null : opening,
  };
  if (body.mode === "computer") body.level = Number(form.get("level"));
  if (body.mode === "online" && form.get("clock")) body.clock = form.get("clock");
  const start = (form.get("start") || "").trim();
  if (start) body.start = start;
  try {
    token = null;
    const made = await api("/api/games", body);
    token = made.token;
    localStorage.setItem(`ninefold-seat-${made.game.id}`, made.token);
    if (made.links.invite) localStorage.setItem(`ninefold-invite-${made.game.id}`, made.links.invite);
    history.pushState(null, "", made.links.play);
    open(made.game, made.links.invite);
  } catch (err) {
    showError(err.message);
  }
});

// The proof player (level 11) plays X in open-boards games: offered when the form asks
// for one with you as O.
function offerProof() {
  const form = $("new-game").elements;
  const option = form.level.querySelector("option[value='11']");
  const fits = form.rules.value === "open-boards" && form.side.value === "o";
  option.hidden = option.disabled = !fits;
  if (!fits && option.selected) form.level.value = "10";
}
$("new-game").addEventListener("change", offerProof);

// --- a game ----------------------------------------------------------------------
// `invite`: the invite link's path, for the page that made an online game (kept in
// localStorage, so a reload of the host's page keeps it).
function open(view, invite) {
  $("setup").hidden = true;
  $("play").hidden = false;
  game = view;
  const online = view.mode === "online";
  $("links").hidden = !online;
  if (online) {
    const base = location.origin;
    $("watch").value = `${base}/g/${view.id}`;
    $("invite").value = invite ? base + invite : "";
    $("invite").closest("p").hidden = !invite;
  }
  $("title").hidden = false;
  $("title").textContent = { computer: "Game against the computer", local: "Game on one device",
    online: "Online game" }[view.mode];
  $("game-rules").hidden = false;
  $("game-rules").textContent = rulesLine(view);
  $("record").href = `/api/games/${view.id}/record`;
  $("record").download = `ninefold-${view.id}.txt`;
  $("replay-link").href = `/replay/${view.id}`;
  render();
  focusCursor();  // the keyboard plays at once
  listen(view.id);
}

// The rules, opening and clock of a game, in a line ("Rules: Standard · clock 3 min + 2 s"):
// a preset by the new-game form's own words for it.
function rulesLine(view) {
  const preset = [...$("new-game").elements.rules.options].find((o) => o.value === view.rules);
  const parts = [`Rules: ${preset ? preset.textContent : view.rules}`];
  if (view.opening) parts.push(`opening ${view.opening}`);
  if (view.start) parts.push("from a position");
  if (view.clock) {
    const time = (ms) => (ms >= 60000 && ms % 60000 === 0 ? `${ms / 60000} min` : `${ms / 1000} s`);
    parts.push(`clock ${time(view.clock.bank_ms)} + ${time(view.clock.increment_ms)}` +
      (view.clock.capped ? ", capped" : ""));
  }
  return parts.join(" · ");
}

// A game's page. The browser keeps this game's seat token (`ninefold-seat-<id>`) and, on
// the page that made an online game, its invite link (`ninefold-invite-<id>`): a host who
// opens their own invite keeps their seat instead of taking the other one.
async function load(id) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const linked = fragment.get("t");
  const held = localStorage.getItem(`ninefold-seat-${id}`);
  const invite = localStorage.getItem(`ninefold-invite-${id}`);
  const ownInvite = Boolean(linked && held && linked !== held && invite &&
    invite.endsWith(`#t=${linked}`));
  token = ownInvite ? held : linked || held;
  if (linked && !ownInvite) localStorage.setItem(`ninefold-seat-${id}`, linked);
  let view = await fetchOrSetup(`/api/games/${encodeURIComponent(id)}`);
  if (!view) return;
  if (ownInvite) {
    history.replaceState(null, "", location.pathname);
    showNotice("That is your own game's invite link: send it to your opponent. " +
      "You keep your seat here.");
  }
  if (view.waiting && view.you.includes(view.waiting)) {  // the invited player is here
    try { view = await api(`/api/games/${encodeURIComponent(id)}/join`, {}); } catch { /* later */ }
  }
  // the invite is the host's only: a page holding the other seat's token is the guest's
  open(view, invite && !invite.endsWith(`#t=${token}`) ? invite : null);
}

function listen(id) {
  if (socket) socket.close();
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/games/${encodeURIComponent(id)}/live`);
  socket = ws;
  ws.onmessage = (event) => {
    const view = JSON.parse(event.data);
    if (!game || view.id !== game.id) return;
    show(view, game.you);  // the socket is public: which sides we hold is ours
  };
  ws.onclose = () => {  // a dropped connection: reconnect, then catch up
    if (socket !== ws) return;
    setTimeout(async () => {
      if (socket !== ws) return;
      try { show(await api(`/api/games/${encodeURIComponent(id)}`)); } catch { /* offline */ }
      listen(id);
    }, 1000);
  };
}

const canMove = () => game && game.result === null && game.turn !== null &&
  game.you.includes(game.turn);

// A square chosen (click or keyboard): a move of the game, or a try on the analysis board;
// a square that cannot be played says why.
function press(sq) {
  const view = spot || game;
  if (!view) return;
  const mine = spot !== null || canMove();  // a spectator's or the other side's: not
  if (!mine || !view.legal.includes(sq)) showError(whyNot(view, sq));
  else if (spot) tryMove(sq);
  else play(sq);
}

// Why square `sq` cannot be played now, in words.
function whyNot(view, sq) {
  if (view.result !== null) return "The game is over.";
  const cell = document.querySelector(`.cell[data-square="${sq}"]`);
  if (cell.textContent) return `${sq} is taken (${cell.textContent}).`;
  if (!spot && !canMove()) {
    return game.you.length ? "It is the other side's move." : "You are watching: you cannot move.";
  }
  const open = view.boards.flatMap((b, i) => (b.allowed ? [i + 1] : []));
  return `${sq} is not in ${open.length === 1 ? "board " + open[0] : "an open board"}: ` +
    `${view.turn.toUpperCase()} plays in ${open.length === 1 ? "board " + open[0]
      : "boards " + open.join(", ")}.`;
}

// One move request from a version at a time (a double click sends one). The live
// socket may bring the change before the request's answer: the next move is then
// from a newer version, and goes.
let sendingFrom = null;

async function play(move) {
  if (sendingFrom === game.version || !canMove()) return;
  const from = game.version;
  sendingFrom = from;
  try {
    showError("");
    show(await api(`/api/games/${game.id}/moves`, { move, ply: game.ply }));
  } catch (err) {
    showError(err.message);
  } finally {
    if (sendingFrom === from) sendingFrom = null;
  }
}

function focusCursor() {
  const { b, c } = bcOf(cursor.x, cursor.y);
  document.querySelector(`.cell[data-board="${b}"][data-cell="${c}"]`).focus();
}

async function act(what, body) {
  try {
    showError("");
    show(await api(`/api/games/${game.id}/${what}`, body));
  } catch (err) {
    showError(err.message);
  }
}
$("undo").addEventListener("click", () => act("undo", { ply: game.ply }));
$("resign").addEventListener("click", () => {
  if (confirm("Resign this game?")) act("resign", {});
});
$("draw").addEventListener("click", () => act("draw", {}));
$("decline").addEventListener("click", () => act("draw/decline", {}));

// Copy a link: the clipboard if the browser lets the page write it, else the text
// selected for the reader to copy.
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", async () => {
    const field = $(button.dataset.copy);
    let done = false;
    try {
      await navigator.clipboard.writeText(field.value);
      done = true;
    } catch {
      field.focus();
      field.select();
      try { done = document.execCommand("copy"); } catch { /* selected: copy by hand */ }
    }
    button.textContent = done ? "Copied" : "Selected: copy it";
    setTimeout(() => { button.textContent = "Copy"; }, 2500);
  });
}

// --- drawing ---------------------------------------------------------------------
function buildBoard() {
  buildCells($("board"), "cell", (b, c) => {
    cursor = xyOf(b, c);
    press(square(b, c));
  });
}

// Draw `boards` (SmallBoard list) with `last` marked; `legal` is the set of squares this
// page may play now (empty: none), `highlight` marks the allowed boards, `withCursor`
// shows the keyboard's square, `line` marks the boards of the winning line.
function drawBoards(boards, last,
  { legal = new Set(), highlight = false, withCursor = false, line = [] }) {
  drawBoard($("board"), { boards }, {
    last, legal, allowed: highlight,
    onSmall: (small, b) => {
      small.classList.toggle("line", line.includes(b));
      small.setAttribute("aria-label",
        `Board ${b + 1}${line.includes(b) ? ", in the winning line" : ""}`);
    },
    onCell: (cell, sq, b, c) => {
      const { x, y } = xyOf(b, c);
      const here = withCursor && x === cursor.x && y === cursor.y;
      cell.classList.toggle("cursor", here);
      cell.tabIndex = here ? 0 : -1;  // Tab reaches the board at the cursor
      const mark = boards[b].cells[c];
      cell.setAttribute("aria-label",
        `${sq}, board ${b + 1}: ${mark ? mark.toUpperCase() : "empty"}` +
        `${last === sq ? ", last move" : ""}${legal.has(sq) ? ", playable" : ""}`);
    },
  });
}

function render() {
  if (!game) return;
  const playable = canMove();
  drawBoards(game.boards, game.last, {
    legal: new Set(playable ? game.legal : []), highlight: playable, withCursor: true,
    line: game.line,
  });
  const notes = [];  // sentences after the status line's own, as the reader sees them
  if (game.result === null) {
    const invited = game.waiting && !game.you.includes(game.waiting);  // no one joined yet
    if (game.you.length && !playable && !game.thinking && !invited) {
      notes.push("Waiting for the other side.");
    } else if (!game.you.length) notes.push("You are watching.");
    if (invited) {
      notes.push(game.you.length ? "Waiting for your opponent to open the invite link."
        : `Waiting for ${game.waiting.toUpperCase()}'s player to join.`);
    }
  }
  const offer = game.result === null ? game.draw_offer : null;
  if (offer) {
    notes.push(game.you.includes(offer) ? "You offered a draw."
      : game.you.length ? "Your opponent offers a draw." : `${offer.toUpperCase()} offers a draw.`);
  }
  $("status").textContent = notes.length ? [`${game.status}.`, ...notes].join(" ") : game.status;
  drawThinking();
  showVerdict(game.result === null ? null : verdict(game.winner, game.you, game.mode));
  showPosition(game.position, game.result);
  const sides = game.you.map((s) => s.toUpperCase()).join(" and ");
  $("who").textContent = game.mode === "computer"
    ? `You play ${sides} against ${game.level === 11 ? "proof, which never loses" : `level ${game.level}`}.`
    : game.mode === "local" ? "Two players on this device."
    : sides ? `You play ${sides}.` : "Spectator: you cannot move.";
  const list = $("moves");
  list.replaceChildren();
  const all = [...game.opening_moves, ...game.moves];
  for (let i = 0; i < all.length; i += 2) {
    const li = document.createElement("li");
    li.textContent = all.slice(i, i + 2).join(" ");
    list.appendChild(li);
  }
  const mine = game.you.length > 0 && game.result === null;
  $("undo").hidden = game.mode === "online" || !mine;
  $("undo").disabled = !game.undoable;
  $("resign").hidden = !mine;
  $("review-link-wrap").hidden = game.result === null;  // a finished game: its review
  $("review-link").href = `/replay/${game.id}?review=1`;
  $("draw").hidden = game.mode !== "online" || !mine;
  const offered = Boolean(offer && game.you.includes(offer));
  const offeredToMe = Boolean(offer && !offered && game.you.length);
  $("draw").textContent = offered ? "Draw offered" : offeredToMe ? "Accept draw" : "Offer draw";
  $("draw").disabled = offered;
  $("decline").hidden = $("draw").hidden || !offeredToMe;
  drawClocks();
}

// "Computer thinking… 1.2 s" while the computer searches, counted from when this page
// first saw it think.
let thinkingSince = null;

function drawThinking() {
  const thinking = Boolean(game && game.thinking && game.result === null);
  if (!thinking) thinkingSince = null;
  else if (thinkingSince === null) thinkingSince = performance.now();
  $("thinking").hidden = !thinking;
  if (thinking) {
    $("thinking-time").textContent = `${((performance.now() - thinkingSince) / 1000).toFixed(1)} s`;
  }
}

// The position string shown, its analysis link, and the analysis panel if it is open
// (`result`: the game's result, if it is over there).
function showPosition(position, result) {
  $("position").value = position;
  $("analyse").href = `/analysis?position=${encodeURIComponent(position)}`;
  if (panel && !$("analysis").hidden) panel.show(position, result);
}

// Who won, in the words of the one reading: "You won", "You lost", "Draw", or for a
// spectator (and two players on one device) "X won".
function verdict(winner, you) {
  if (!winner) return "Draw";
  if (you.length !== 1) return `${winner.toUpperCase()} won`;
  return you[0] === winner ? "You won" : "You lost";
}

function showVerdict(text) {
  $("verdict").hidden = !text;
  $("verdict").textContent = text || "";
}

function openPanel(onMove) {
  $("analysis").hidden = false;
  panel = panel || new AnalysisPanel($("analysis-panel"), onMove);
}

// --- the clock: the server's times, counted down here for the side whose time runs ---
function clockText(ms) {
  const s = Math.max(0, ms) / 1000;
  if (s < 20) return s.toFixed(1);
  const whole = Math.ceil(s);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

function drawClocks() {
  const clock = game && game.clock;
  $("clocks").hidden = !clock;
  if (!clock) return;
  const since = performance.now() - (game.received || performance.now());
  for (const el of document.querySelectorAll("#clocks .clock")) {
    const s = el.dataset.side;
    const left = clock[`${s}_ms`] - (clock.running === s ? since : 0);
    el.textContent = `${s.toUpperCase()} ${clockText(left)}`;
    el.classList.toggle("running", clock.running === s);
    el.classList.toggle("low", left < 10000 && clock.running === s);
    el.setAttribute("aria-label", `${s.toUpperCase()}'s time: ${clockText(left)}`);
    if (clock.running === s) askWhenTimeRanOut(left);
  }
}

// A time shown run out for a second with no end heard (its message lost on the way):
// ask the server, whose read ends the game, every 2 s until the answer shows it over.
let clockAsked = 0;
function askWhenTimeRanOut(left) {
  const now = performance.now();
  if (left > -1000 || now - clockAsked < 2000) return;
  clockAsked = now;
  api(`/api/games/${encodeURIComponent(game.id)}`).then((view) => show(view)).catch(() => {});
}

setInterval(() => {
  if (game && game.clock && game.clock.running) drawClocks();
  if (game && game.thinking) drawThinking();
}, 100);

// --- keyboard: arrows move the cursor, Enter or Space plays ---------------------
// Each key table is also listed on its element (data-keys), for the tests' check that
// every key binding has a test.
function moveCursor(dx, dy) {
  cursor = { x: (cursor.x + dx + 9) % 9, y: (cursor.y + dy + 9) % 9 };
  focusCursor();
  if (spot) drawSpot();
  else render();
}

function pressCursor() {
  const { b, c } = bcOf(cursor.x, cursor.y);
  press(square(b, c));
}

const BOARD_KEYS = {
  ArrowLeft: () => moveCursor(-1, 0), ArrowRight: () => moveCursor(1, 0),
  ArrowUp: () => moveCursor(0, -1), ArrowDown: () => moveCursor(0, 1),
  Enter: pressCursor, " ": pressCursor,
};

// The keys of `table` listed on `element`, by name (Space for " ").
function listKeys(element, table) {
  element.dataset.keys = Object.keys(table).map((k) => (k === " " ? "Space" : k)).join(" ");
}

document.addEventListener("keydown", (event) => {
  if (film) return;  // the viewer has its own keys
  // keys typed into a field, or Enter on another button, keep their own meaning
  const target = event.target;
  if ($("play").hidden || target.closest("input, select, textarea, a") ||
      (target.closest("button") && !target.classList.contains("cell"))) return;
  if (BOARD_KEYS[event.key]) {
    BOARD_KEYS[event.key]();
    event.preventDefault();
  }
});

// --- the viewer: a finished (or any) game, step by step --------------------------
let film = null;  // the Replay shown
let frame = 0;
let autoplay = null;
let review = null;  // the ReviewPanel, once asked for

// `reviewOf(film)`: the request for the game's review ([path, body]; a GET without a
// body), or null for a game not over; it is asked for at once on a link with
// ?review=1 (the game page's Review link) or when `reviewNow`.
async function openReplay(path, title, reviewOf = null, reviewNow = false) {
  film = await fetchOrSetup(path);
  if (!film) return;
  const ask = reviewOf && film.result && film.result !== "*" ? reviewOf(film) : null;
  $("review-ask").hidden = !ask;
  if (ask) {
    $("review-start").addEventListener("click", () => startReview(ask));
    if (reviewNow || new URLSearchParams(location.search).get("review") === "1") {
      startReview(ask);
    }
  }
  $("play").hidden = false;
  $("viewer").hidden = false;
  $("actions").hidden = true;
  $("title").hidden = false;
  $("title").textContent = `${title ?? film.title}: ${film.x} (X) vs ${film.o} (O), ${film.result || "*"}`;
  const why = film.reason && film.reason !== film.termination ? ` (${film.reason})` : "";
  $("who").textContent = film.termination ? `Ended: ${film.termination}${why}` : "Not finished";
  $("record").closest("p").hidden = true;
  // a line's moves up to the one clicked: the game's own next moves step the replay;
  // another line opens the analysis board after it (Back comes back to this ply)
  openPanel(async (line) => {
    if (line.every((move, i) => move === film.moves[frame + i])) {
      showFrame(frame + line.length);
      return;
    }
    let position = film.frames[frame].position;
    try {
      for (const move of line.slice(0, -1)) position = (await api(`/api/position?position=` +
        `${encodeURIComponent(position)}&move=${encodeURIComponent(move)}`)).position;
    } catch (err) {
      showError(err.message);
      return;
    }
    location.assign(`/analysis?position=${encodeURIComponent(position)}` +
      `&move=${encodeURIComponent(line[line.length - 1])}`);
  });
  $("analysis").hidden = true;
  $("analyse").addEventListener("click", (event) => {  // here: analyse beside the replay
    event.preventDefault();
    $("analysis").hidden = false;
    panel.show(film.frames[frame].position, frameResult(frame));
  });
  const asked = new URLSearchParams(location.search).get("ply");
  const ply = asked === null ? NaN : Number(asked);
  showFrame(Number.isInteger(ply) && ply >= 0 ? ply : film.moves.length);  // else the end
}

// Ask for the review (`ask`: [path, body]) and show it beside the replay once done.
async function startReview(ask) {
  $("review-ask").hidden = true;
  const url = new URL(location.href);
  url.searchParams.set("review", "1");
  history.replaceState(null, "", url);
  review = new ReviewPanel($("review"), api, showFrame);
  await review.start(...ask);
  showFrame(frame);
}

// The request for the review of a game given by its moves (an arena's, a platform's).
const reviewByMoves = (f) => ["/api/reviews", { start: f.frames[0].position, moves: f.moves,
  book: f.opening_plies, result: f.result }];

// The game's result at frame `i` if the board is over there (else null).
const frameResult = (i) => (film.frames[i].status.startsWith("Game over") ? film.result : null);

// Where frame `i` is, numbered as the move list is ("After 3. e5" for X's third move,
// "After 3… e4" for O's), with the plies counted.
function frameName(i) {
  const plies = `ply ${i} of ${film.moves.length}`;
  if (i === 0) return `Start (${plies})`;
  return `After ${Math.ceil(i / 2)}${i % 2 ? "." : "…"} ${film.moves[i - 1]} (${plies})`;
}

function showFrame(i) {
  frame = Math.max(0, Math.min(i, film.moves.length));
  const f = film.frames[frame];
  game = null;
  drawBoards(f.boards, f.last, { highlight: frame < film.moves.length, line: f.line });
  $("status").textContent = `${frameName(frame)}: ${f.status}`;
  const end = frame === film.moves.length && film.result && film.result !== "*";
  showVerdict(end ? verdict({ "1-0": "x", "0-1": "o" }[film.result] || null, []) : null);
  showPosition(f.position, frameResult(frame));
  const list = $("moves");
  list.replaceChildren();
  for (let i = 0; i < film.moves.length; i += 2) {
    const li = document.createElement("li");
    for (const j of [i, i + 1]) {
      if (j >= film.moves.length) break;
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.control = "move";
      button.className = "move" + (j + 1 === frame ? " current" : "") +
        (j < film.opening_plies ? " opening" : "");
      button.textContent = film.moves[j];
      button.addEventListener("click", () => showFrame(j + 1));
      li.appendChild(button);
    }
    list.appendChild(li);
  }
  const url = new URL(location.href);
  url.searchParams.set("ply", String(frame));
  history.replaceState(null, "", url);
  $("permalink").value = url.href;
  if (review) review.frame(frame, list);
  document.dispatchEvent(new CustomEvent("ninefold:frame", { detail: frame }));  // platform-game.js
}

function toggleAutoplay() {
  if (autoplay) {
    clearInterval(autoplay);
    autoplay = null;
  } else {
    if (frame >= film.moves.length) showFrame(0);
    autoplay = setInterval(() => {
      if (frame >= film.moves.length) toggleAutoplay();
      else showFrame(frame + 1);
    }, 700);
  }
  $("auto").textContent = autoplay ? "⏸ Pause" : "▶ Play";
}

$("first").addEventListener("click", () => showFrame(0));
$("back").addEventListener("click", () => showFrame(frame - 1));
$("forward").addEventListener("click", () => showFrame(frame + 1));
$("last").addEventListener("click", () => showFrame(film.moves.length));
$("auto").addEventListener("click", toggleAutoplay);

const VIEWER_KEYS = {
  ArrowLeft: () => showFrame(frame - 1), ArrowRight: () => showFrame(frame + 1),
  Home: () => showFrame(0), End: () => showFrame(film.moves.length), " ": toggleAutoplay,
};

document.addEventListener("keydown", (event) => {
  if (!film || event.target.closest("input, select, textarea")) return;
  if (VIEWER_KEYS[event.key]) {
    VIEWER_KEYS[event.key]();
    event.preventDefault();
  }
});

// A table row of text cells (names are text, never HTML) and elements.
function tableRow(cells) {
  const row = document.createElement("tr");
  for (const value of cells) {
    const td = document.createElement("td");
    if (typeof value === "string") td.textContent = value;
    else td.appendChild(value);
    row.appendChild(td);
  }
  return row;
}

async function openArena() {
  $("arena").hidden = false;
  try {
    const st = await api("/api/arena/standings");
    $("standings-title").textContent = `Standings: ${st.title}`;
    const table = document.querySelector("[data-testid=standings]");
    table.querySelector("caption").textContent =
      `${st.games} games; rating: Bradley-Terry Elo, mean 0, 95% interval`;
    for (const r of st.rows) {
      table.tBodies[0].appendChild(tableRow([
        String(r.rank), r.player, String(r.games), `${r.wins}-${r.draws}-${r.losses}`,
        r.score === null ? "-" : `${(100 * r.score).toFixed(1)}%`,
        r.games ? `${r.elo >= 0 ? "+" : ""}${Math.round(r.elo)} ± ` +
          (r.err === null ? "∞" : Math.round(r.err)) : "-"]));
    }
    $("match-line").textContent = st.match || "";
    for (const name of st.plots) {
      const img = document.createElement("img");
      img.src = `/api/arena/plots/${name}.png`;
      img.alt = name === "ratings" ? "Ratings with their 95% intervals"
        : "Score of each player against each other";
      $("plots").appendChild(img);
    }
    const data = await api("/api/arena");
    for (const g of data.games) {
      const link = document.createElement("a");
      link.href = `/arena/${g.n}`;
      link.dataset.control = "arena-game";
      link.textContent = String(g.n);
      document.querySelector("[data-testid=arena-games] tbody").appendChild(
        tableRow([link, g.x, g.o, g.result, g.termination, String(g.plies)]));
    }
  } catch (err) {
    if (err.status === 404) {  // no arena games here: say how to get some, calmly
      $("arena-tables").hidden = true;
      $("arena-empty").hidden = false;
    } else {
      $("arena").append(Object.assign(document.createElement("p"),
        { className: "error", role: "alert", textContent: err.message }));
    }
  }
}

// --- the analysis board: any position, moves tried one by one, each with its link -----
async function openAnalysis() {
  const asked = new URLSearchParams(location.search);
  const query = new URLSearchParams();
  for (const key of ["position", "move"]) if (asked.get(key)) query.set(key, asked.get(key));
  spot = await fetchOrSetup(`/api/position?${query}`);
  if (!spot) return;
  $("play").hidden = false;
  $("scratch").hidden = false;
  $("actions").hidden = true;
  $("moves-title").hidden = true;
  $("moves").hidden = true;
  $("record").closest("p").hidden = true;
  $("analyse").hidden = true;
  $("title").hidden = false;
  $("title").textContent = "Analysis board";
  openPanel(async (line) => {  // a line's moves up to the one clicked, one by one
    for (const move of line) await tryMove(move);
  });
  drawSpot();
  focusCursor();
}

function drawSpot() {
  drawBoards(spot.boards, spot.last,
    { legal: new Set(spot.legal), highlight: spot.result === null, withCursor: true });
  $("status").textContent = spot.status;
  $("who").textContent = spot.last ? `After ${spot.last}.` : "";
  showPosition(spot.position, spot.result);
  const start = encodeURIComponent(spot.position);
  $("from-here-computer").href = `/?start=${start}&mode=computer`;
  $("from-here-friend").href = `/?start=${start}&mode=local`;
  $("from-here-computer").closest("p").hidden = spot.result !== null;
}

// Try move `sq`: its link is the position before and the move, so that the move is
// still marked (and named) when the browser comes back to it.
async function tryMove(sq) {
  if (!spot.legal.includes(sq)) return;
  const query = `position=${encodeURIComponent(spot.position)}&move=${encodeURIComponent(sq)}`;
  try {
    showError("");
    spot = await api(`/api/position?${query}`);
  } catch (err) {
    showError(err.message);
    return;
  }
  history.pushState(null, "", `/analysis?${query}`);
  drawSpot();
}

// The setup form, filled from the link (an analysis board's "play from here").
function openSetup() {
  $("setup").hidden = false;
  offerProof();  // (a form the browser filled in again on going back)
  const params = new URLSearchParams(location.search);
  if (params.get("start")) $("start").value = params.get("start");
  const mode = params.get("mode");
  if (mode === "computer" || mode === "local" || mode === "online") {
    document.querySelector(`input[name=mode][value=${mode}]`).checked = true;
  }
}

// An address that names no game (mistyped, cut, or made up): the new-game form, saying so
// (never the address itself, which may be anything).
function noSuchPage() {
  openSetup();
  showNotice("There is no game at this address: check the link, or start a new game below.",
    true);
}

// The rules for a newcomer (/rules).
function openRules() {
  $("rules").hidden = false;
  document.title = "ninefold: the rules of Ultimate Tic-Tac-Toe";
  document.querySelector("[data-control=nav-rules]").setAttribute("aria-current", "page");
}

// --- start -----------------------------------------------------------------------
buildBoard();
listKeys($("board"), BOARD_KEYS);
listKeys($("viewer"), VIEWER_KEYS);
const ID = "([A-Za-z0-9_-]{1,32})";  // a game's id (the server's are 8 characters)
const N = "([1-9][0-9]{0,8})";       // an arena or a ranked game's number
const ROUTES = [
  [/^\/$/, openSetup],
  [new RegExp(`^/g/${ID}$`), load],
  [new RegExp(`^/replay/${ID}$`), (id) => openReplay(`/api/games/${id}/replay`, `Game ${id}`,
    () => [`/api/games/${id}/review`, {}])],
  [new RegExp(`^/arena/${N}$`),
    (n) => openReplay(`/api/arena/${n}/replay`, `Arena game ${n}`, reviewByMoves)],
  [new RegExp(`^/platform-game/${N}$`),
    (n) => openReplay(`/api/platform/games/${n}/replay`, undefined, reviewByMoves)],  // titled
  [/^\/review\/([0-9a-f]{32})$/, (key) => openReplay(`/api/reviews/${key}/replay`,
    "Reviewed game", () => [`/api/reviews/${key}`], true)],
  [/^\/arena$/, openArena],
  [/^\/analysis$/, openAnalysis],
  [/^\/rules$/, openRules],
];
const route = ROUTES.find(([pattern]) => pattern.test(location.pathname));
if (route) route[1](...location.pathname.match(route[0]).slice(1));
else noSuchPage();
window.addEventListener("popstate", () => location.reload());
