// The contests pages: one page, no build step, over /api/platform (see /docs).
// Routes: /platform (contests, sign-up and log-in, a new contest for organisers),
// /platform/account (where one is signed in and one's API tokens, each revoked by a button),
// /platform/c/NAME (leaderboard, upload, starter bots, games, house bots for its organiser),
// /platform/bot/ID (versions with their compile log and input test, rating plot, games, test
// games of your own bot). A game opens in the web board's viewer (/platform-game/ID, with
// platform-game.js); a test game is marked so. A closed contest shows its final standings.
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

// A refusal (`say`, in the alert) or a confirmation (`tell`, a status): one at a time.
function say(text) { $("error").textContent = text || ""; $("notice").textContent = ""; }
function tell(text) { $("notice").textContent = text; $("error").textContent = ""; }
// Send a form's request with its submit button disabled meanwhile (a double click sends one).
async function busy(form, request) {
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try { return await request(); } finally { button.disabled = false; }
}
const organises = (contest) => !!me && (me.admin || me.id === contest.organiser);
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
// Bring `box`'s children up to date with `entries` ([key, data, make]) in place, so that a
// click pressed on a link, a selection or a log opened under an item survive the live pages'
// refresh (rebuilding every child at each refresh lost them): a child whose key and data
// are unchanged is kept as it is; one whose data changed is brought to look like `make()`'s
// node (`morph`); a new key's node is inserted where it belongs.
function sync(box, entries) {
  const had = new Map([...box.children].map((node) => [node.dataset.key, node]));
  let at = box.firstChild;
  for (const [key, data, make] of entries) {
    const sig = JSON.stringify(data);
    let node = had.get(String(key));
    if (!node || node.dataset.sig !== sig) {
      const made = make();
      Object.assign(made.dataset, { key: String(key), sig });
      node = node ? morph(node, made) : made;
    }
    if (node === at) at = at.nextSibling;
    else box.insertBefore(node, at);
  }
  while (at) {
    const next = at.nextSibling;
    at.remove();
    at = next;
  }
}
// `old` changed in place to look like `made` (its attributes and text; a node of another
// kind is replaced); returns the node that stands. Children marked `data-extra` (a log
// opened under an item) are left as they are.
function morph(old, made) {
  if (old.nodeType !== made.nodeType || old.nodeName !== made.nodeName) {
    old.replaceWith(made);
    return made;
  }
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== made.nodeValue) old.nodeValue = made.nodeValue;
    return old;
  }
  for (const { name, value } of made.attributes) if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  for (const { name } of [...old.attributes]) if (!made.hasAttribute(name)) old.removeAttribute(name);
  const mine = [...old.childNodes].filter((n) => !n.dataset?.extra);
  const theirs = [...made.childNodes];
  theirs.forEach((child, i) => {
    if (i < mine.length) morph(mine[i], child);
    else old.insertBefore(child, mine.length ? mine[mine.length - 1].nextSibling : old.firstChild);
  });
  mine.slice(theirs.length).forEach((n) => n.remove());
  return old;
}
// `box`'s contents made by `make()` only when `data` differs from the last time.
function fillOnce(box, data, make) {
  const sig = JSON.stringify(data);
  if (box.dataset.sig === sig) return;
  box.replaceChildren(...make());
  box.dataset.sig = sig;
}
const when = (t) => (t ? new Date(t * 1000).toLocaleString() : "");

// --- the account -------------------------------------------------------------------
async function loadMe() {
  try { me = await api("/api/platform/me"); } catch { me = null; }
  const box = $("account");
  box.replaceChildren();
  if (me) {
    const out = named("log-out", el("button", { type: "button", textContent: "Log out" }));
    out.addEventListener("click", async () => { await api("/api/platform/logout", { method: "POST" }); location.reload(); });
    box.append(link("account", "/platform/account", me.name),
      `${me.admin ? " (admin)" : me.organiser ? " (organiser)" : ""} `, out);
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

// --- the account page: sessions and API tokens ---------------------------------------
async function showAccount() {
  $("account-page").hidden = false;
  if (!me) return;  // the log-in form shows instead
  const rows = await api("/api/platform/sessions");
  $("account-page").querySelector("tbody").replaceChildren(...rows.map((s) => {
    const revoke = named("revoke-session", el("button", { type: "button", textContent: "Revoke" }));
    revoke.setAttribute("aria-label", `Revoke the ${s.kind === "api" ? "API token" : "log-in"} of ${when(s.created)}`);
    revoke.addEventListener("click", async () => {
      try {
        await api(`/api/platform/sessions/${s.id}`, { method: "DELETE" });
        if (s.current) { location.reload(); return; }  // this browser is signed out
        tell(`Revoked the ${s.kind === "api" ? "API token" : "log-in"} of ${when(s.created)}.`);
        await showAccount();
      } catch (error) { say(error.message); }
    });
    const kind = s.kind === "api" ? "API token" : s.current ? "this browser" : "a browser";
    return el("tr", {}, el("td", { textContent: kind }), el("td", { textContent: when(s.created) }),
      el("td", { textContent: when(s.last_used) }), el("td", { textContent: when(s.expires) }),
      el("td", {}, revoke));
  }));
}

$("new-token").addEventListener("click", async () => {
  try {
    const made = await postJSON("/api/platform/tokens", {});
    $("token-text").textContent = made.token;
    $("token-shown").hidden = false;
    say("");
    await showAccount();
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
  $("new-contest").hidden = !(me && (me.admin || me.organiser));
}

// A datetime-local field's value (the viewer's time) as epoch seconds; empty: null.
const epoch = (text) => (text ? new Date(text).getTime() / 1000 : null);
// Epoch seconds as a datetime-local field's value (the viewer's time); null: empty.
function local(t) {
  if (!t) return "";
  const d = new Date(t * 1000);
  d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
  return d.toISOString().slice(0, 16);
}

// A CodinGame bot is told only the last move, so it cannot start from an opening: choosing
// that protocol picks openings "none" and leaves "random4" out until another is chosen.
const contestProtocol = document.querySelector("#new-contest [name=protocol]");
contestProtocol.addEventListener("change", () => {
  const openings = document.querySelector("#new-contest [name=openings]");
  const lastOnly = contestProtocol.value === "codingame";
  for (const option of openings.options) option.disabled = lastOnly && option.value !== "none";
  if (lastOnly) openings.value = "none";
});

$("new-contest").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const data = Object.fromEntries(new FormData(form));
  Object.assign(data, { max_bots_per_user: Number(data.max_bots_per_user),
    opens: epoch(data.opens), closes: epoch(data.closes) });
  try {
    const made = await busy(form, () => postJSON("/api/platform/contests", data));
    tell(`The contest ${made.name} is made: you organise it.`);
    await showContests();
  } catch (error) { say(error.message); }
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
  sync(document.querySelector("[data-testid=leaderboard] tbody"), board.rows.map((r) => [r.bot, r, () =>
    el("tr", {}, el("td", { textContent: r.rank }), el("td", {}, link("leaderboard-bot", `/platform/bot/${r.bot}`, r.name)),
      el("td", { textContent: r.owner }), el("td", { textContent: `v${r.version}` }),
      el("td", { textContent: r.language }), el("td", { textContent: r.score.toFixed(2) }),
      el("td", { textContent: r.mu.toFixed(2) }), el("td", { textContent: r.sigma.toFixed(2) }),
      el("td", { textContent: r.games }))]));
  $("upload").hidden = !me;
  $("house").hidden = $("times").hidden = !organises(c) || board.final;
  if ($("times").dataset.contest !== c.name) {  // filled once: a refresh keeps what is typed
    $("times").dataset.contest = c.name;
    $("times").elements.opens.value = local(c.opens);
    $("times").elements.closes.value = local(c.closes);
  }
  languages ??= await api("/api/platform/languages");
  fillOnce($("starters"), [name, languages], () => languages.flatMap((lang, i) => [i ? ", " : "",
    named("starter", el("a", { href: `/api/platform/contests/${encodeURIComponent(name)}/starters/${lang}`,
      download: "", textContent: lang }))]));
  const games = await api(`/api/platform/games?contest=${encodeURIComponent(name)}&limit=20`);
  sync($("contest-games"), games.games.map((g) => [g.id, g, () => gameItem(g)]));
  clearTimeout(timer);
  timer = setTimeout(() => showContest(name).catch((e) => say(e.message)), 3000);  // live
}

const contestName = () => decodeURIComponent(location.pathname.split("/")[3]);

$("upload").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  try {
    const v = await busy(form, () => api(`/api/platform/contests/${encodeURIComponent(contestName())}/bots`,
      { method: "POST", body: new FormData(form) }));
    location.href = `/platform/bot/${v.bot}`;
  } catch (error) { say(error.message); }
});

$("times").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const times = { opens: epoch(form.elements.opens.value), closes: epoch(form.elements.closes.value) };
  try {
    await busy(form, () => api(`/api/platform/contests/${encodeURIComponent(contestName())}/times`, {
      method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify(times) }));
    tell("The contest's times are set.");
    await showContest(contestName());
  } catch (error) { say(error.message); }
});

$("house").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target;
  const data = Object.fromEntries(new FormData(form));
  try {
    const v = await busy(form, () => postJSON(`/api/platform/contests/${encodeURIComponent(contestName())}/house`, data));
    tell(`House bot ${data.name} v${v.number} (${data.spec}) entered: it is on the leaderboard.`);
    form.reset();
    await showContest(contestName());
  } catch (error) { say(error.message); }
});

// --- a bot -----------------------------------------------------------------------
async function showBot(id) {
  $("bot").hidden = false;
  const bot = await api(`/api/platform/bots/${id}`);
  $("bot-title").textContent = bot.name;
  fillOnce($("bot-info"), [bot.owner, bot.contest, bot.ratings.length], () => [`by ${bot.owner} in `,
    link("bot-contest", `/platform/c/${bot.contest}`, bot.contest), `; ${bot.ratings.length} rated games`]);
  const plot = `/api/platform/bots/${id}/rating.png?n=${bot.ratings.length}`;
  if ($("bot-plot").getAttribute("src") !== plot) $("bot-plot").src = plot;
  sync($("versions"), bot.versions.slice().reverse().map((v) => [v.id, v, () => {
    const box = el("div", { className: "version" });
    box.dataset.status = v.status;
    box.append(el("strong", { textContent: `v${v.number}` }), ` ${v.filename}, ${v.language}, `,
      el("span", { className: `status-${v.status}`, textContent: v.status.replace("_", " ") }),
      `, uploaded ${when(v.created)}, ${v.games} games`);
    if (v.compile_log !== null) box.append(el("h3", { textContent: "Compile log" }), el("pre", { textContent: v.compile_log || "(none yet)" }));
    if (v.test_log !== null) box.append(el("h3", { textContent: "Input test" }), el("pre", { textContent: v.test_log || "(not run yet)" }));
    return box;
  }]));
  if (bot.mine) await testGamesForm(bot);
  else $("test-games")?.remove();
  const games = await api(`/api/platform/games?bot=${id}&limit=50`);
  sync($("bot-games"), games.games.map((g) => [g.id, [g, bot.mine], () => {
    const item = gameItem(g);
    if (bot.mine) {
      const logs = named("stderr", el("button", { type: "button", textContent: "stderr" }));
      logs.addEventListener("click", async () => {  // opens the game's stderr, or closes it
        const shown = item.querySelector("pre");
        if (shown) { shown.remove(); return; }
        const l = await api(`/api/platform/games/${g.id}/logs`);
        const log = el("pre", { textContent: [l.x_log && `X:\n${l.x_log}`, l.o_log && `O:\n${l.o_log}`].filter(Boolean).join("\n") || "(empty)" });
        log.dataset.extra = "stderr";  // kept when the item is brought up to date (`morph`)
        item.append(log);
      });
      item.append(" ", logs);
    }
    return item;
  }]));
  const busy = bot.versions.some((v) => ["uploaded", "compiling", "testing"].includes(v.status));
  clearTimeout(timer);
  timer = setTimeout(() => showBot(id).catch((e) => say(e.message)), busy ? 1000 : 5000);
}

// Test games: a version of your bot against a bot of the contest, unranked. The form is made
// once a page and its choices brought up to date at each refresh (a version that finishes
// its build joins them), keeping what is chosen.
async function testGamesForm(bot) {
  let form = $("test-games");
  if (form?.dataset.bot !== String(bot.id)) {
    form?.remove();
    form = makeTestGamesForm(bot);
    $("bot-plot").before(form);
  }
  const board = await api(`/api/platform/contests/${encodeURIComponent(bot.contest)}`);
  const playable = bot.versions.filter((v) => ["active", "retired"].includes(v.status)).reverse();
  fill(form.elements.version, playable.map((v) => [v.id, `v${v.number}`]));
  fill(form.elements.opponent, board.rows.map((r) => [r.bot, r.name]));
  const none = !playable.length || !board.rows.length;
  form.querySelector(".hint").hidden = !none;
  if (!form.dataset.sending) form.querySelector("button").disabled = none;
}

// A select's options: `choices` ([value, text]), the chosen one kept if it still is one.
function fill(select, choices) {
  const had = select.value;
  const same = select.options.length === choices.length &&
    choices.every(([value, text], i) => select.options[i].value === String(value) && select.options[i].text === text);
  if (same) return;
  select.replaceChildren(...choices.map(([value, text]) => el("option", { value, textContent: text })));
  if (choices.some(([value]) => String(value) === had)) select.value = had;
}

function makeTestGamesForm(bot) {
  const version = named("test-version", el("select", { name: "version" }));
  const opponent = named("test-opponent", el("select", { name: "opponent" }));
  const button = named("test-games", el("button", { type: "submit", textContent: "Play two test games" }));
  const form = el("form", { id: "test-games", className: "inline-form" }, el("h2", { textContent: "Test games (unranked)" }),
    el("label", {}, "Version ", version), el("label", {}, "against ", opponent), button,
    el("p", { className: "hint muted", textContent: "A version plays test games once it has passed its input test." }));
  form.dataset.bot = String(bot.id);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    form.dataset.sending = "1";
    try {
      await busy(form, () => postJSON("/api/platform/test-games", { version: Number(version.value), opponent: Number(opponent.value) }));
      tell("Two test games queued: they appear in the list below.");
    } catch (error) { say(error.message); } finally { delete form.dataset.sending; }
  });
  return form;
}

// --- routes ----------------------------------------------------------------------
async function route() {
  for (const id of ["contests", "contest", "bot", "account-page"]) $(id).hidden = true;
  await loadMe();
  const path = location.pathname;
  const contest = path.match(/^\/platform\/c\/([a-z0-9-]+)$/);
  const bot = path.match(/^\/platform\/bot\/(\d+)$/);
  const account = path === "/platform/account";
  const section = contest ? "contest" : bot ? "bot" : account ? "account-page" : "contests";
  $(section).querySelector("h1").after($("auth"));  // the log-in form under the page's title
  try {
    if (contest) await showContest(contest[1]);
    else if (bot) await showBot(bot[1]);
    else if (account) await showAccount();
    else await showContests();
  } catch (error) { say(error.message); }
}
route();
