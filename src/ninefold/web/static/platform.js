// The contests pages: one page, no build step, over /api/platform (see /docs).
// Routes: /platform (contests, sign-up and log-in), /platform/c/NAME (leaderboard,
// upload, starter bots, games), /platform/bot/ID (versions with their compile log and input
// test, rating plot, games, test games of your own bot). A game opens in the web board's
// viewer (/platform-game/ID); a test game is marked so. A closed contest shows its final
// standings.
// The session is an HttpOnly cookie: this script never sees it.

const $ = (id) => document.getElementById(id);
let me = null;

async function api(path, options = {}) {
  const response = await fetch(path, { credentials: "same-origin", ...options });
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({ detail: response.statusText }));
  if (!response.ok) throw new Error(body.detail || response.statusText);
  return body;
}
const postJSON = (path, data) => api(path, {
  method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data) });

function say(text) { $("error").textContent = text || ""; }
function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) node.append(child);
  return node;
}
// a control: `node` with its stable name (data-control, what the browser tests reach it by)
function named(control, node) {
  node.dataset.control = control;
  return node;
}
const link = (control, href, text) => named(control, el("a", { href }, text));
const when = (t) => (t ? new Date(t * 1000).toLocaleString() : "");

// --- the account -------------------------------------------------------------------
async function loadMe() {
  try { me = await api("/api/platform/me"); } catch { me = null; }
  const box = $("account");
  box.replaceChildren();
  if (me) {
    const out = named("log-out", el("button", { type: "button", textContent: "Log out" }));
    out.addEventListener("click", async () => { await api("/api/platform/logout", { method: "POST" }); location.reload(); });
    box.append(`${me.name}${me.admin ? " (admin)" : ""} `, out);
  }
  $("auth").hidden = !!me;
}

$("auth-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const action = event.submitter?.value === "signup" ? "signup" : "login";
  try {
    await postJSON(`/api/platform/${action}`, { name: form.get("name"), password: form.get("password") });
    say("");
    await route();
  } catch (error) { say(error.message); }
});

// --- contests --------------------------------------------------------------------
async function showContests() {
  $("contests").hidden = false;
  const list = await api("/api/platform/contests");
  $("contest-list").replaceChildren(...list.map((c) => el("li", {},
    link("contest-link", `/platform/c/${c.name}`, c.title || c.name),
    ` (${c.protocol}, ${c.rules} rules${c.time_control ? ", " + c.time_control : ""})`)));
  if (!list.length) $("contest-list").append(el("li", { textContent: "No contest yet." }));
  $("new-contest").hidden = !(me && me.admin);
}

$("new-contest").addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = Object.fromEntries(new FormData(event.target));
  try { await postJSON("/api/platform/contests", data); say(""); await showContests(); }
  catch (error) { say(error.message); }
});

function gameItem(g) {
  const result = g.status === "done" ? `${g.result} (${g.reason})` : g.status;
  return el("li", {}, link("game", `/platform-game/${g.id}`, `${g.ranked ? "Game" : "Test game"} ${g.id}`), ": ",
    link("game-bot", `/platform/bot/${g.x_bot}`, g.x), " – ", link("game-bot", `/platform/bot/${g.o_bot}`, g.o),
    `, ${result}, ${g.plies} moves`);
}

let timer = null;
let languages = null;  // each one's starter bot is on the contest's page
async function showContest(name) {
  $("contest").hidden = false;
  const board = await api(`/api/platform/contests/${encodeURIComponent(name)}`);
  const c = board.contest;
  $("contest-title").textContent = c.title || c.name;
  const counts = Object.entries(board.games).map(([k, v]) => `${v} ${k}`).join(", ");
  $("contest-info").textContent = `${c.protocol} protocol, ${c.rules} rules, clock ` +
    `${c.time_control || "the platform's"}, openings ${c.openings}. Games: ${counts || "none yet"}.` +
    (c.opens ? ` Opens ${when(c.opens)}.` : "") + (c.closes ? ` Closes ${when(c.closes)}.` : "") +
    (board.final ? ` Final standings, stored ${when(c.frozen)}.` : "");
  document.querySelector("[data-testid=leaderboard] tbody").replaceChildren(...board.rows.map((r) =>
    el("tr", {}, el("td", { textContent: r.rank }), el("td", {}, link("leaderboard-bot", `/platform/bot/${r.bot}`, r.name)),
      el("td", { textContent: r.owner }), el("td", { textContent: `v${r.version}` }),
      el("td", { textContent: r.language }), el("td", { textContent: r.score.toFixed(2) }),
      el("td", { textContent: r.mu.toFixed(2) }), el("td", { textContent: r.sigma.toFixed(2) }),
      el("td", { textContent: r.games }))));
  $("upload").hidden = !me;
  languages ??= await api("/api/platform/languages");
  $("starters").replaceChildren(...languages.flatMap((lang, i) => [i ? ", " : "",
    named("starter", el("a", { href: `/api/platform/contests/${encodeURIComponent(name)}/starters/${lang}`,
      download: "", textContent: lang }))]));
  const games = await api(`/api/platform/games?contest=${encodeURIComponent(name)}&limit=20`);
  $("contest-games").replaceChildren(...games.games.map(gameItem));
  clearTimeout(timer);
  timer = setTimeout(() => showContest(name).catch((e) => say(e.message)), 3000);  // live
}

$("upload").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = decodeURIComponent(location.pathname.split("/")[3]);
  try {
    const v = await api(`/api/platform/contests/${encodeURIComponent(name)}/bots`,
      { method: "POST", body: new FormData(event.target) });
    location.href = `/platform/bot/${v.bot}`;
  } catch (error) { say(error.message); }
});

// --- a bot -----------------------------------------------------------------------
async function showBot(id) {
  $("bot").hidden = false;
  const bot = await api(`/api/platform/bots/${id}`);
  $("bot-title").textContent = bot.name;
  $("bot-info").replaceChildren(`by ${bot.owner} in `, link("bot-contest", `/platform/c/${bot.contest}`, bot.contest),
    `; ${bot.ratings.length} rated games`);
  $("bot-plot").src = `/api/platform/bots/${id}/rating.png?n=${bot.ratings.length}`;
  $("versions").replaceChildren(...bot.versions.slice().reverse().map((v) => {
    const box = el("div", { className: "version" });
    box.dataset.status = v.status;
    box.append(el("strong", { textContent: `v${v.number}` }), ` ${v.filename}, ${v.language}, `,
      el("span", { className: `status-${v.status}`, textContent: v.status.replace("_", " ") }),
      `, uploaded ${when(v.created)}, ${v.games} games`);
    if (v.compile_log !== null) box.append(el("h3", { textContent: "Compile log" }), el("pre", { textContent: v.compile_log || "(none yet)" }));
    if (v.test_log !== null) box.append(el("h3", { textContent: "Input test" }), el("pre", { textContent: v.test_log || "(not run yet)" }));
    return box;
  }));
  if (bot.mine) await testGamesForm(bot);
  const games = await api(`/api/platform/games?bot=${id}&limit=50`);
  $("bot-games").replaceChildren(...games.games.map((g) => {
    const item = gameItem(g);
    if (bot.mine) {
      const logs = named("stderr", el("button", { type: "button", textContent: "stderr" }));
      logs.addEventListener("click", async () => {
        const l = await api(`/api/platform/games/${g.id}/logs`);
        item.append(el("pre", { textContent: [l.x_log && `X:\n${l.x_log}`, l.o_log && `O:\n${l.o_log}`].filter(Boolean).join("\n") || "(empty)" }));
      });
      item.append(" ", logs);
    }
    return item;
  }));
  const busy = bot.versions.some((v) => ["uploaded", "compiling", "testing"].includes(v.status));
  clearTimeout(timer);
  timer = setTimeout(() => showBot(id).catch((e) => say(e.message)), busy ? 1000 : 5000);
}

// Test games: a version of your bot against a bot of the contest, unranked (made once a page).
async function testGamesForm(bot) {
  if ($("test-games")?.dataset.bot === String(bot.id)) return;
  $("test-games")?.remove();
  const board = await api(`/api/platform/contests/${encodeURIComponent(bot.contest)}`);
  const option = (value, text) => el("option", { value, textContent: text });
  const version = named("test-version", el("select", { name: "version" }, ...bot.versions
    .filter((v) => ["active", "retired"].includes(v.status)).map((v) => option(v.id, `v${v.number}`))));
  const opponent = named("test-opponent", el("select", { name: "opponent" },
    ...board.rows.map((r) => option(r.bot, r.name))));
  const form = el("form", { id: "test-games" }, el("h3", { textContent: "Test games (unranked)" }),
    el("label", {}, "Version ", version), " ", el("label", {}, "against ", opponent), " ",
    named("test-games", el("button", { type: "submit", textContent: "Play two test games" })));
  form.dataset.bot = String(bot.id);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await postJSON("/api/platform/test-games", { version: Number(version.value), opponent: Number(opponent.value) });
      say("Two test games queued: they appear in the list below.");
    } catch (error) { say(error.message); }
  });
  $("bot-info").after(form);
}

// --- routes ----------------------------------------------------------------------
async function route() {
  for (const id of ["contests", "contest", "bot"]) $(id).hidden = true;
  await loadMe();
  const path = location.pathname;
  let m;
  try {
    if ((m = path.match(/^\/platform\/c\/([a-z0-9-]+)$/))) await showContest(m[1]);
    else if ((m = path.match(/^\/platform\/bot\/(\d+)$/))) await showBot(m[1]);
    else await showContests();
  } catch (error) { say(error.message); }
}
route();
