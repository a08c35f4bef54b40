// The page is a view: it draws the JSON state the server sends and sends the user's
// requests. Which actions are legal, totals, results and values all come from the server;
// no rule of the game is decided here.
"use strict";

const $ = (sel) => document.querySelector(sel);
const KEYS = { h: "hit", s: "stand", d: "double", p: "split", r: "surrender", i: "insure", n: "decline" };
const CASCADE = { left: 1.75, top: 0.3, every: 5 };  // in em: a "10" in the corner stays readable
let options = null;
let state = null;       // the frame on screen
let live = null;        // the latest frame
let timer = null;
let busy = 0;           // requests in flight: the action buttons are disabled meanwhile
// One press, one request. A press (of a decision, Deal, Next round or Raise: a click, a
// tap or a key) begins at pointerdown or keydown, and is taken only
// * if the table it would act on was on screen when it began: never a press begun on
//   the frame before (drawnAt: when the latest frame was drawn), and
// * if it begins DOUBLE_MS or more after the press before it: the second click or tap
//   of a double click (up to 500 ms apart on common settings) is the same press, on
//   whichever button now sits under it, whatever the interval; so is a second click the
//   browser itself counts as one (event.detail > 1). A person who means a second hit
//   presses again once the card is seen.
const DOUBLE_MS = 600;
let drawnAt = 0;
// The server may give a table idle for options.evict_seconds to a new visitor when it is
// full (it never does while the table is in use). The page keeps no connection open, so it
// counts the time since it last heard from the server and says so before that age.
let lastContact = performance.now();
const WARN_BEFORE_S = 120;  // the warning shows this long before the age (or at half of it)
let lastPress = -Infinity;  // when the latest press began (taken or not)
window.bjIdle = () => busy === 0;  // for tests: no request in flight
window.bjReady = () => busy === 0 && performance.now() - lastPress >= DOUBLE_MS;
window.bjDoubleMs = DOUBLE_MS;

function pressTaken(start) {
  const repeat = start - lastPress < DOUBLE_MS;
  lastPress = Math.max(lastPress, start);
  return !repeat && busy === 0 && live !== null && state === live && start >= drawnAt;
}

// a control of the table: run() once per press (pressTaken), from a click or a tap
function control(node, run) {
  let downAt = null;
  node.addEventListener("pointerdown", () => { downAt = performance.now(); });
  node.addEventListener("click", (ev) => {
    // a click made with the keyboard (Enter or Space on the focused button) has detail 0
    const start = ev.detail === 0 || downAt === null ? performance.now() : downAt;
    downAt = null;
    if (pressTaken(start) && ev.detail <= 1) run();
  });
}
let chartData = null;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c);
  return node;
}

function showError(text) {
  const box = $("#message");
  if (text) { box.textContent = text; box.hidden = false; } else { box.hidden = true; box.textContent = ""; }
}

function setBusy(delta) {
  busy += delta;
  if (live) drawControls(state || live);
}

async function call(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
  setBusy(1);
  // a request that takes a while (the first values of a rule set): say so, keep the page
  const slow = setTimeout(() => { $("#working").hidden = false; }, 400);
  let resp;
  let data = null;
  try {
    resp = await fetch(path, init);
    try { data = await resp.json(); } catch (e) { data = { error: `HTTP ${resp.status}` }; }
  } catch (e) {
    data = { error: `the server did not answer (${e.message})` };
  } finally {
    clearTimeout(slow);
    $("#working").hidden = true;
    setBusy(-1);
  }
  if (resp) { lastContact = performance.now(); idleCheck(); }
  if (!resp || !resp.ok) {
    showError(data.error || `HTTP ${resp.status}`);
    // a stale decision (409: the table moved on) or a lost table: draw what is there now
    if (resp && (resp.status === 409 || resp.status === 404) && path !== "/api/session") refresh();
    return null;
  }
  showError("");
  return data;
}

async function refresh() {
  const resp = await fetch("/api/session");
  lastContact = performance.now();
  idleCheck();
  if (!resp.ok) return;
  const doc = await resp.json();
  if (doc.state) show(doc.state, true);
  else tableGone();
}

// this browser has no table any more (expired, or replaced when the server was full):
// nothing of the old one stays on screen, the header included
function tableGone() {
  live = null; state = null;
  stopPlaying();
  $("#rules-summary").textContent = "no table: set one up";
  $("#table").hidden = true;
  if (view === "table") $("#setup").hidden = false;
}

function idleCheck() {
  const box = $("#idle");
  const evict = options && options.evict_seconds;
  if (!evict || !live) { box.hidden = true; return; }
  const idle = (performance.now() - lastContact) / 1000;
  const warnAt = Math.max(evict / 2, evict - WARN_BEFORE_S);
  if (idle < warnAt) { box.hidden = true; return; }
  const mins = (s) => (s < 90 ? `${Math.round(s)} s` : `${Math.round(s / 60)} minutes`);
  $("#idle-text").textContent = idle < evict
    ? `This table has been idle for ${mins(idle)}. When the server is full, a table idle for ` +
      `${mins(evict)} can be given to a new visitor: keep it, or make your move.`
    : `This table has been idle for ${mins(idle)}: if the server filled up meanwhile it may ` +
      `have been given to a new visitor. Keep it checks, and keeps it if it is still yours.`;
  box.hidden = false;
}

// ------------------------------------------------------------------ setup form
function playerSelects() {
  const n = Math.max(1, Math.min(7, parseInt($("#seat-count").value, 10) || 1));
  const box = $("#players");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.replaceChildren();
  for (let i = 0; i < n; i++) {
    const sel = el("select", { id: `player-${i}` });
    for (const p of options.players) sel.append(el("option", { value: p, text: p }));
    sel.value = old[i] || (i === 0 ? "person" : "basic");
    box.append(el("label", { text: `Seat ${i + 1}` }, sel));
  }
}

function presetChanged() {
  const p = options.presets.find((x) => x.name === $("#preset").value);
  $("#preset-summary").textContent = p ? p.summary : "";
  if (p) { $("#seat-count").value = p.seats; playerSelects(); }
}

function modeChanged() {
  const watch = $("#mode").value === "watch";
  for (const sel of document.querySelectorAll("#players select")) {
    if (watch && sel.value === "person") sel.value = "basic";
  }
}

async function sitDown(ev) {
  ev.preventDefault();
  let overrides;
  try { overrides = JSON.parse($("#overrides").value || "{}"); } catch (e) {
    showError(`rule overrides are not valid JSON: ${e.message}`); return;
  }
  const players = [...document.querySelectorAll("#players select")].map((s) => s.value);
  const seedText = $("#seed").value.trim();
  if (seedText !== "" && !(/^[0-9]{1,16}$/.test(seedText) && Number.isSafeInteger(Number(seedText)))) {
    showError(`seed "${seedText.slice(0, 30)}" is not a whole number: give 0 to ` +
      `${Number.MAX_SAFE_INTEGER}, or leave it empty for a random seed`);
    return;
  }
  const body = {
    mode: $("#mode").value, preset: $("#preset").value, overrides, players,
    bankroll: parseInt($("#bankroll").value, 10), bot_bet: parseInt($("#bot-bet").value, 10),
    seed: seedText === "" ? null : Number(seedText),
  };
  stopPlaying();
  const data = await call("POST", "/api/session", body);
  if (data) { $("#setup").hidden = true; show(data, true); showView("table"); }
}

// ------------------------------------------------------------------ drawing
function cardNode(card, k) {
  const node = card.down
    ? el("div", { class: "card down", title: "face down" })
    : el("div", { class: "card" + (card.red ? " red" : ""), title: card.text, "data-card": card.text },
      el("div", { class: "corner" }, el("span", { text: card.rank }), el("span", { text: card.suit })),
      el("div", { class: "pip", text: card.suit }));
  node.style.left = `calc(${k} * var(--step))`;
  node.style.top = `${(k % CASCADE.every) * CASCADE.top}em`;
  return node;
}

function cardsNode(cards) {
  const box = el("div", { class: "cards" });
  cards.forEach((c, k) => box.append(cardNode(c, k)));
  const n = Math.max(cards.length, 2);
  box.style.width = `calc(${(n - 1) * CASCADE.left}em + var(--card-w))`;
  // where the box is narrower than the cascade (a long hand in a narrow seat: the box's
  // max-width is its hand's width), the cards overlap more instead of spilling out
  box.style.setProperty("--step", `min(${CASCADE.left}em, (100% - var(--card-w)) / ${n - 1})`);
  // the full cascade's height from the start, so a card drawn never moves what is below
  box.style.height = `calc(${(CASCADE.every - 1) * CASCADE.top}em + var(--card-h))`;
  return box;
}

function chips(x) { return x == null ? "–" : (Number.isInteger(x) ? `${x}` : x.toFixed(2)); }
function signed(x) { return x == null ? "–" : (x > 0 ? "+" : "") + chips(x); }
function totalText(h) {
  if (h.total == null) return "";
  if (h.blackjack) return "Blackjack";
  if (h.bust) return `${h.total} bust`;
  return (h.soft ? "soft " : "") + h.total;
}
const OUTCOME = { win: "Win", blackjack: "Blackjack", push: "Push", loss: "Lose", bust: "Bust",
  surrender: "Surrender", even_money: "Even money" };

function handNode(h, s, k) {
  const box = el("div", { class: "hand-box" + (h.to_act ? " acting" : ""), id: `seat-${s}-hand-${k}`,
    "data-hand": k });
  box.append(cardsNode(h.cards));
  box.append(el("div", { class: "total", text: totalText(h) }));
  box.append(el("div", { class: "bet", text: `bet ${chips(h.bet)}` }));
  const flags = [h.split ? "split" : null, h.doubled ? "doubled" : null, h.surrendered ? "surrendered" : null]
    .filter(Boolean).join(" ");
  box.append(el("div", { class: "flags", text: flags || "\u00a0" }));
  const r = h.result;
  box.append(el("div", { class: "result" + (r ? ` ${r.outcome}` : ""),
    text: r ? `${OUTCOME[r.outcome] || r.outcome} ${signed(r.net)}` : "\u00a0" }));
  if (r && r.why) box.append(el("div", { class: "why", text: r.why }));
  return box;
}

// a bot seat by its strategy's name as a bot's ("dealer" plays like the dealer: it is not
// the Dealer at the head of the table)
const BOT_NAMES = { dealer: "dealer-style" };
function playerName(seat) {
  return seat.person ? `Player ${seat.index + 1}` : `${BOT_NAMES[seat.player] || seat.player} bot`;
}

function seatNode(seat, st) {
  const node = el("div", { class: "seat" + (seat.to_act ? " acting" : ""), id: `seat-${seat.index}` });
  const who = playerName(seat);
  node.append(el("div", { class: "seat-head" },
    el("span", { class: "seat-name", text: `${seat.index + 1}. ${who}` }),
    el("span", { class: "bankroll", text: `bankroll ${chips(seat.bankroll)}` })));
  const ses = seat.session;
  node.append(el("div", { class: "seat-stats", text:
    `session: ${signed(ses.realised)} realised, value given up ${chips(ses.given_up)} (${ses.valued}/${ses.decisions} decisions valued)` }));
  if (seat.insurance) {
    const back = seat.insurance_returned;
    node.append(el("div", { class: "flags insurance", text: `insured ${chips(seat.insurance)}` +
      (back == null ? "" : back > 0 ? `, paid ${chips(back)}` : ", lost") }));
  }
  // always there (blank until the round is settled), so nothing below it moves
  node.append(el("div", { class: "seat-net", text: seat.net != null && seat.hands.length ?
    `round ${signed(seat.net)}` : "\u00a0" }));
  if (st.phase === "betting" && seat.person && st === live && seat.broke) {
    node.append(el("div", { class: "note broke", id: `broke-${seat.index}`,
      text: `out of chips (under the table minimum of ${st.rules.min_bet}): this seat sits out; Setup starts a new table` }));
  } else if (st.phase === "betting" && seat.person && st === live) {
    const input = el("input", { class: "bet-input", type: "number", id: `bet-${seat.index}`,
      min: "0", value: String(seat.bet || seat.next_bet || st.rules.min_bet) });
    node.append(el("label", { class: "label", text: "bet " }, input));
  } else if (st.phase === "betting" && seat.bet) {
    node.append(el("div", { class: "bet", text: `bet ${chips(seat.bet)}` }));
  }
  const hands = el("div", { class: "hands" });
  seat.hands.forEach((h, k) => hands.append(handNode(h, seat.index, k)));
  node.append(hands);
  return node;
}

function drawValues(st) {
  const body = $("#values-body");
  body.replaceChildren();
  // the values of the decision awaited: a table of one column per legal action, in the
  // decision bar beside the buttons (always in sight); what they are and their caveats here
  const now = $("#values-now");
  now.replaceChildren();
  const v = st.values;
  if (v && st.to_act) {
    const seat = st.seats[st.to_act.seat];
    const h = seat.hands[st.to_act.hand];
    const who = playerName(seat);
    body.append(el("p", { id: "values-for", text: `${who}, hand ${st.to_act.hand + 1}: ` +
      `${totalText(h)} against the dealer's ${st.dealer.cards[0].rank}` +
      (st.phase === "insurance" ? " (before the peek)" : "") }));
  }
  if (!v) {
    body.append(el("p", { text: "No decision awaited." }));
    // a settled round: why a hand lost where the table pays the highest hand, in sight
    const why = st.phase === "settled" ? st.seats.flatMap((s) => s.hands.filter((h) => h.result && h.result.why)
      .map((h) => `${playerName(s)}: ${h.result.why}`)) : [];
    if (why.length) now.append(el("p", { class: "note", id: "round-why", text: why.join(" · ") }));
  }
  else if (!v.available) {
    body.append(el("p", { class: "note", id: "values-reason", text: v.reason }));
    now.append(el("p", { class: "small", id: "values-brief", text: "No values for this decision (below: why)." }));
  } else {
    const names = el("tr", {}, el("th", { scope: "row", text: "action" }));
    const evs = el("tr", {}, el("th", { scope: "row" }, v.alone ? "EV*" : "EV",
      el("span", { class: "wide", text: v.alone ? " v the dealer alone" : " per chip bet" })));
    // in the order of the buttons below them (Hit, Stand, Double, ...), then any other
    const order = [...document.querySelectorAll("#play-controls [data-action]")].map((b) => b.dataset.action);
    const rank = (a) => (order.includes(a) ? order.indexOf(a) : order.length);
    const entries = Object.entries(v.evs).sort((x, y) => rank(x[0]) - rank(y[0]));
    for (const [a, ev] of entries) {
      const best = a === v.best ? "best" : "";
      names.append(el("th", { class: best, "data-action": a, text: a + (best ? " (best)" : "") }));
      evs.append(el("td", { class: best, "data-action": a, text: (ev > 0 ? "+" : "") + ev.toFixed(4) }));
    }
    now.append(el("table", { id: "values-table" }, names, evs));
    if (v.alone) body.append(el("p", { class: "note", id: "values-alone",
      text: "* Against the dealer alone: this table pays the highest hand, so these are not its true values." }));
    body.append(el("p", { class: "small", id: "values-source", text: `source: ${v.source}` }));
    if (v.note) body.append(el("p", { class: "note", id: "values-note", text: v.note }));
  }
  const tbody = $("#log tbody");
  tbody.replaceChildren();
  for (const d of [...st.log].reverse()) {
    tbody.append(el("tr", {}, el("td", { text: d.seat + 1 }), el("td", { text: d.hand + 1 }),
      el("td", { text: d.player }), el("td", { text: d.action }), el("td", { text: d.best || "–" }),
      el("td", { text: d.given_up == null ? "not valued" :
        `${d.given_up.toFixed(4)} per unit (${chips(d.given_up_chips)} chips)` })));
  }
}

function show(st, isLive) {
  if (isLive && (!live || live.frame !== st.frame)) drawnAt = performance.now();
  if (isLive) live = st;
  state = st;
  $("#table").hidden = view !== "table";
  $("#rules-summary").textContent = `${st.rules.preset}: ${st.rules.summary} · round ${st.round} · ${st.phase}`;
  const special = Object.entries(st.rules.card_values || {});
  $("#card-values").hidden = special.length === 0;
  $("#card-values").textContent = special.length ? "Card values at this table: " +
    special.map(([r, v]) => `${r} = ${v}`).join(", ") + " (other cards as usual; A = 1 or 11)" : "";
  $("#settlement").hidden = !st.rules.settlement;
  $("#settlement").textContent = st.rules.settlement || "";
  const d = st.dealer;
  $("#dealer-cards").replaceWith(Object.assign(cardsNode(d.cards), { id: "dealer-cards" }));
  $("#dealer-total").textContent = d.total == null ? "" :
    d.showing != null ? `${d.showing} showing` :
      (d.blackjack ? "Blackjack" : d.bust ? `${d.total} bust` : (d.soft ? "soft " : "") + d.total);
  const shoe = st.shoe;
  $("#shoe").replaceChildren(...[
    el("div", { id: "shoe-remaining", text: shoe.infinite ? "infinite deck" :
      `shoe: ${shoe.remaining} of ${shoe.total} cards left · ${shoe.discards} in the discard tray` }),
    shoe.reshuffled ? el("div", { class: "reshuffle", id: "reshuffled", text: "reshuffled before this round" }) : null,
    shoe.cut_card_out ? el("div", { class: "reshuffle", text: "cut card out: reshuffle after this round" }) : null,
    shoe.every_round ? el("div", { class: "small", id: "every-round", text: "shuffled before every round" }) : null,
  ].filter(Boolean));
  const seats = $("#seats");
  seats.style.setProperty("--n", String(st.seats.length));
  seats.classList.toggle("crowded", st.seats.length >= 5);
  seats.replaceChildren(...st.seats.map((s) => seatNode(s, st)));
  drawValues(st);
  drawControls(st);
  if (isLive && st.to_act && view === "table") inSight(st.to_act);
}

// the hand to act, in sight: above the decision bar fixed at the foot of the screen and
// below the top (on a phone a hot seat's hand may sit under the bar); its scroll margins
// (style.css) keep it clear of the bar
function inSight(who) {
  const hand = document.getElementById(`seat-${who.seat}-hand-${who.hand}`);
  if (!hand) return;
  const r = hand.getBoundingClientRect();
  const barTop = $("#controls").getBoundingClientRect().top;
  if (r.top < 0 || r.bottom > barTop) hand.scrollIntoView({ block: "nearest" });
}

// before the peek: what is offered (only that), and what insurance costs
function offerText(st) {
  if (st.phase !== "insurance") return "";
  const ins = st.insurance;
  const parts = [];
  if (ins && ins.even_money) parts.push(`even money: +${chips(ins.pays)} now (1:1), before the dealer checks for blackjack`);
  else if (ins) parts.push(`insurance costs ${chips(ins.cost)} and pays ${chips(ins.pays)} if the dealer has blackjack`);
  if (st.legal.includes("surrender")) parts.push("or surrender early, before the dealer checks");
  return parts.length ? ` · ${parts.join("; ")}` : "";
}

function drawControls(st) {
  const watch = st.mode === "watch";
  $("#play-controls").hidden = watch;
  $("#watch-controls").hidden = !watch;
  const atLive = st === live;
  const ready = atLive && busy === 0;  // no second request while one is in flight
  for (const b of document.querySelectorAll("#play-controls [data-action]")) {
    const legal = atLive && st.legal.includes(b.dataset.action);
    b.classList.toggle("legal", legal);
    b.disabled = !ready || !legal;
  }
  $("#raise-box").hidden = !st.rules.bet_raising;
  $("#raise").disabled = !ready || !st.can_raise;
  const canDeal = st.phase === "betting" && !st.cannot_deal;
  $("#deal").disabled = !ready || !canDeal;
  $("#next").disabled = !ready || st.phase !== "settled";
  $("#deal").classList.toggle("legal", atLive && canDeal);
  $("#next").classList.toggle("legal", atLive && st.phase === "settled");
  const f = live.frames;
  const slider = $("#frame-slider");
  slider.min = f.first; slider.max = f.last; slider.value = st.frame;
  $("#frame-label").textContent = `decision frame ${st.frame} of ${f.last}`;
  $("#back").disabled = st.frame <= f.first;
  $("#forward").disabled = st.frame >= f.last;
  $("#live").disabled = atLive;
  $("#step").disabled = false;
  let turn = "";
  if (st.to_act) {
    const seat = st.seats[st.to_act.seat];
    const who = playerName(seat);
    const h = seat.hands[st.to_act.hand];
    turn = `${who} (seat ${seat.index + 1}, hand ${st.to_act.hand + 1}) to act: ` +
      `${totalText(h)} against the dealer's ${st.dealer.cards[0].rank}` + offerText(st);
  } else if (st.phase === "betting" && st.cannot_deal) turn = st.cannot_deal;
  else if (st.phase === "betting") turn = watch ? "Bets next: Step deals the round." : "Place your bets, then Deal.";
  else if (st.phase === "settled") {
    // the round's result, in the bar (in sight whatever the size of the table above)
    const nets = st.seats.filter((s) => s.net != null && s.hands.length)
      .map((s) => `${playerName(s)} ${signed(s.net)}`);
    turn = "Round settled" + (nets.length ? ": " + nets.join(" · ") : ".");
  }
  $("#turn").textContent = turn;
  // out of chips: what can be done, in the bar where Deal would have been pressed
  if (st.phase === "betting" && st.cannot_deal && atLive) {
    const again = el("button", { type: "button", id: "new-table", text: "New table" });
    again.addEventListener("click", () => { showView("table"); $("#setup").hidden = false; $("#setup").scrollIntoView(); });
    $("#turn").append(" ", again);
  }
}

// ------------------------------------------------------------------ requests
// (each is called for a press that pressTaken let through)
async function act(action) {
  if (!live || busy || !live.legal.includes(action) || state !== live) return;
  // the frame this decision answers: a repeat of it is refused (409), never applied twice
  const data = await call("POST", "/api/act", { seat: live.to_act.seat, action, frame: live.frame });
  if (data) show(data, true);
}

async function deal() {
  if (!live || busy || state !== live || live.phase !== "betting") return;
  const bets = {};
  for (const s of live.seats) {
    if (!s.person) continue;
    const input = $(`#bet-${s.index}`);
    const v = input ? Number(input.value) : 0;
    bets[String(s.index)] = Number.isFinite(v) ? v : 0;
  }
  const data = await call("POST", "/api/deal", { bets, frame: live.frame });
  if (data) show(data, true);
}

async function nextRound() {
  if (!live || busy || state !== live || live.phase !== "settled") return;
  const d = await call("POST", "/api/next", { frame: live.frame });
  if (d) show(d, true);
}

async function raiseBet() {
  if (!live || busy || state !== live || !live.can_raise) return;
  const amount = Number($("#raise-amount").value);
  const d = await call("POST", "/api/raise", { seat: live.to_act.seat, amount, frame: live.frame });
  if (d) show(d, true);
}

async function step() {
  if (state !== live) return gotoFrame(state.frame + 1);
  if (busy) return;
  const d = await call("POST", "/api/step", { frame: live.frame });
  if (d) show(d, true); else stopPlaying();
}

async function gotoFrame(n) {
  if (!live) return;
  if (n >= live.frames.last) { show(live, false); state = live; drawControls(live); return; }
  const d = await call("GET", `/api/state?frame=${n}`);
  if (d) show(d, false);
}

function stopPlaying() { if (timer) { clearInterval(timer); timer = null; } $("#play").textContent = "Play"; }
function togglePlay() {
  if (timer) return stopPlaying();
  timer = setInterval(step, Number($("#speed").value));
  $("#play").textContent = "Pause";
}

function onKey(ev) {
  if (ev.repeat) { if (KEYS[ev.key.toLowerCase()] || ev.key === "Enter") ev.preventDefault(); return; }  // a held key acts once
  if (ev.target.tagName === "INPUT" && ev.key !== "Enter") return;
  if (ev.target.tagName === "SELECT" || !live) return;
  const key = ev.key.toLowerCase();
  if (live.mode === "watch") {
    if (ev.key === "ArrowRight") { ev.preventDefault(); step(); }
    else if (ev.key === "ArrowLeft") { ev.preventDefault(); gotoFrame(state.frame - 1); }
    else if (ev.key === " ") { ev.preventDefault(); togglePlay(); }
    return;
  }
  const start = performance.now();
  if (KEYS[key]) { ev.preventDefault(); if (pressTaken(start)) act(KEYS[key]); }
  else if (key === "u" && !$("#raise").disabled) { if (pressTaken(start)) raiseBet(); }
  else if (ev.key === "Enter") {
    ev.preventDefault();
    if (!pressTaken(start)) return;
    if (!$("#deal").disabled) deal(); else if (!$("#next").disabled) nextRound();
  }
}

async function init() {
  options = await call("GET", "/api/options");
  if (!options) return;
  for (const p of options.presets) $("#preset").append(el("option", { value: p.name, text: p.name }));
  $("#preset").value = "vegas-strip";
  presetChanged();
  $("#preset").addEventListener("change", presetChanged);
  $("#seat-count").addEventListener("input", playerSelects);
  $("#mode").addEventListener("change", modeChanged);
  $("#setup").addEventListener("submit", sitDown);
  $("#show-setup").addEventListener("click", () => { $("#setup").hidden = !$("#setup").hidden; });
  $("#rules-summary").addEventListener("click", () => {
    const open = $("#rules-summary").classList.toggle("open");
    $("#rules-summary").setAttribute("aria-expanded", String(open));
  });
  for (const b of document.querySelectorAll("nav .view")) b.addEventListener("click", () => showView(b.dataset.view));
  for (const a of options.agents) $("#chart-agent").append(el("option", { value: a, text: a }));
  $("#chart-agent").addEventListener("change", loadChart);
  for (const b of document.querySelectorAll("#play-controls [data-action]")) {
    control(b, () => act(b.dataset.action));
  }
  control($("#deal"), deal);
  control($("#next"), nextRound);
  control($("#raise"), raiseBet);
  $("#step").addEventListener("click", step);
  $("#play").addEventListener("click", togglePlay);
  $("#back").addEventListener("click", () => gotoFrame(state.frame - 1));
  $("#forward").addEventListener("click", () => gotoFrame(state.frame + 1));
  $("#live").addEventListener("click", () => gotoFrame(live.frames.last));
  $("#frame-slider").addEventListener("change", (e) => gotoFrame(Number(e.target.value)));
  document.addEventListener("keydown", onKey);
  $("#keep").addEventListener("click", refresh);
  setInterval(idleCheck, 5000);
  // room at the foot of the page for the decision bar fixed there (style.css)
  const bar = $("#controls");
  new ResizeObserver(() => {
    document.documentElement.style.setProperty("--bar", `${bar.getBoundingClientRect().height}px`);
  }).observe(bar);
  const resp = await fetch("/api/session");  // a table this browser already has (or null)
  if (resp.ok) {
    const doc = await resp.json();
    if (doc.state) { show(doc.state, true); $("#setup").hidden = true; }
  }
}

// ------------------------------------------------------------------ chart and run views
let view = "table";
function showView(name) {
  view = name;
  for (const b of document.querySelectorAll("nav .view")) b.classList.toggle("on", b.dataset.view === name);
  $("#table").hidden = name !== "table" || !live;
  $("#chart-view").hidden = name !== "chart";
  $("#runs-view").hidden = name !== "runs";
  if (name === "table") $("#setup").hidden = !!live; else $("#setup").hidden = true;
  if (name === "chart") loadChart();
  if (name === "runs") loadRuns();
}

const KIND_NAMES = { hard: "Hard totals", soft: "Soft totals", pair: "Pairs" };
const CHART_KEY = { hard: "hard", soft: "soft", pair: "pairs" };

function rowName(kind, row) {
  if (kind === "soft") return Number(row) > 12 ? `A,${Number(row) - 11}` : "A,A";
  if (kind === "pair") { const c = row === "T" ? "10" : row; return `${c},${c}`; }
  return row;
}

function cellText(evs, gap) {
  const parts = Object.entries(evs).sort((a, b) => b[1] - a[1])
    .map(([a, v]) => `${a} ${v >= 0 ? "+" : ""}${v.toFixed(4)}`);
  return parts.join(" · ") + (gap == null ? "" : ` — best by ${gap.toFixed(4)}`);
}

function chartGrid(d, chart, kind, diffs, who) {
  const key = CHART_KEY[kind];
  const rows = Object.keys(chart[key]);
  if (!rows.length) return null;
  const t = el("table", { class: "chart", "data-kind": kind, "data-who": who });
  const head = el("tr", {}, el("th", { text: kind === "pair" ? "pair" : "hand" }));
  for (const u of chart.upcards) head.append(el("th", { text: u === "T" ? "10" : u }));
  t.append(head);
  rows.forEach((row, i) => {
    const tr = el("tr", {}, el("th", { text: rowName(kind, row) }));
    chart[key][row].forEach((code, j) => {
      const cell = d.cells[kind][i][j];
      const up = chart.upcards[j];
      const diff = diffs && diffs.get(`${kind}|${row}|${up}`);
      let title = `${rowName(kind, row)} v ${up === "T" ? "10" : up}: ${d.codes[code] || code}. ` + cellText(cell.evs, cell.gap);
      if (diff) title += ` — the agent plays ${diff.agent} here` + (diff.cost == null ? "" : `, giving up ${diff.cost.toFixed(4)} per chip bet`);
      const td = el("td", { text: code, title, "data-row": row, "data-up": up,
        class: diff ? "differs" : "" });
      td.style.background = d.colours[code] || "#ddd";
      td.addEventListener("pointerenter", (e) => { if (e.pointerType === "mouse") $("#chart-cell").textContent = title; });
      td.addEventListener("click", () => { $("#chart-cell").textContent = title; });
      tr.append(td);
    });
    t.append(tr);
  });
  return el("div", { class: "chart-block" }, el("h3", { text: KIND_NAMES[kind] }), t);
}

async function loadChart() {
  const agent = $("#chart-agent").value;
  const q = new URLSearchParams();
  if (!live) q.set("preset", $("#preset").value);  // no table yet: the rules chosen in setup
  if (agent) q.set("agent", agent);
  const d = await call("GET", "/api/chart" + (q.toString() ? `?${q}` : ""));
  if (!d) return;
  chartData = d;
  $("#chart-title").textContent = `Strategy chart: ${d.preset} (${d.finite ? "infinite-deck optimum" : "exact optimum"})`;
  $("#chart-about").textContent = (d.finite
    ? `The optimal play for each two-card hand (rows) against the dealer's upcard (columns) ` +
      `with an infinite deck under these rules: this table's ${d.decks}-deck shoe changes a few close ` +
      `cells (the Table view's values are exact for the cards that remain). `
    : "The exact optimal play for each two-card hand (rows) against the dealer's upcard (columns). ") +
    "Hover over or tap a cell: the value of every action (chips per chip bet) and how much " +
    "the best one beats the second best.";
  $("#chart-note").hidden = !d.note;
  $("#chart-note").textContent = d.note;
  $("#chart-legend").replaceChildren(...Object.entries(d.codes).map(([code, name]) => {
    const sw = el("span", { class: "swatch", text: code });
    sw.style.background = d.colours[code] || "#ddd";
    return el("span", { class: "legend" }, sw, ` ${name}`);
  }));
  const body = $("#chart-body");
  body.replaceChildren();
  const diffs = d.agent ? new Map(d.agent.differ.map((x) => [`${x.kind}|${x.row}|${x.upcard}`, x])) : null;
  const optimal = el("div", { class: "chart-col", id: "chart-optimal" }, el("h3", { text: "Optimal" }));
  for (const kind of ["hard", "soft", "pair"]) {
    const grid = chartGrid(d, d.chart, kind, null, "optimal");
    if (grid) optimal.append(grid);  // (no pair rows where splitting is not allowed)
  }
  body.append(optimal);
  if (d.agent) {
    const cost = d.agent.differ.reduce((s, x) => s + (x.cost || 0), 0);
    const mine = el("div", { class: "chart-col", id: "chart-agent-col" },
      el("h3", { text: `${d.agent.name}: ${d.agent.differ.length} cells differ (outlined)` }));
    for (const kind of ["hard", "soft", "pair"]) {
      const grid = chartGrid(d, d.agent.chart, kind, diffs, "agent");
      if (grid) mine.append(grid);
    }
    const list = el("table", { id: "chart-diffs" }, el("tr", {}, el("th", { text: "hand" }),
      el("th", { text: "v" }), el("th", { text: "optimal" }), el("th", { text: "agent" }),
      el("th", { text: "cost per chip bet" })));
    for (const x of [...d.agent.differ].sort((a, b) => (b.cost || 0) - (a.cost || 0))) {
      list.append(el("tr", {}, el("td", { text: rowName(x.kind, x.row) }), el("td", { text: x.upcard }),
        el("td", { text: x.optimal }), el("td", { text: x.agent }),
        el("td", { text: x.cost == null ? "–" : x.cost.toFixed(4) })));
    }
    mine.append(el("p", { class: "small", text: `Summed over the differing cells: ${cost.toFixed(4)} ` +
      "per chip bet (each cell's cost when that hand is dealt; not weighted by how often it is)." }), list);
    body.append(mine);
  }
}

function curveSvg(points, optimum) {
  // a canvas (nothing fetched): the curve, and the optimum as a dashed gold line
  const W = 640, H = 260, P = 44;
  const canvas = el("canvas", { class: "curve", width: String(W), height: String(H) });
  const g = canvas.getContext("2d");
  const xs = points.map((p) => p[0]), ys = points.map((p) => p[1]);
  if (optimum != null) ys.push(optimum);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
  const sx = (x) => P + (W - 2 * P) * (x1 === x0 ? 0.5 : (x - x0) / (x1 - x0));
  const sy = (y) => H - P - (H - 2 * P) * (y1 === y0 ? 0.5 : (y - y0) / (y1 - y0));
  g.fillStyle = "#0a1a26"; g.fillRect(0, 0, W, H);
  g.strokeStyle = "#9ab"; g.beginPath(); g.moveTo(P, P); g.lineTo(P, H - P); g.lineTo(W - P, H - P); g.stroke();
  g.font = "12px sans-serif"; g.fillStyle = "#cde";
  g.fillText(y1.toFixed(4), 4, P - 6); g.fillText(y0.toFixed(4), 4, H - P + 14);
  g.textAlign = "right"; g.fillText(`${x1.toLocaleString()} hands / steps`, W - P, H - 8);
  if (optimum != null) {
    g.strokeStyle = "#e8c15a"; g.setLineDash([6, 4]); g.beginPath();
    g.moveTo(P, sy(optimum)); g.lineTo(W - P, sy(optimum)); g.stroke(); g.setLineDash([]);
    g.fillStyle = "#e8c15a"; g.fillText(`optimum ${optimum.toFixed(4)}`, W - P, sy(optimum) - 5);
  }
  g.strokeStyle = "#7fd"; g.lineWidth = 2; g.beginPath();
  points.forEach((p, k) => (k ? g.lineTo(sx(p[0]), sy(p[1])) : g.moveTo(sx(p[0]), sy(p[1]))));
  g.stroke();
  return canvas;
}

async function loadRuns() {
  const d = await call("GET", "/api/runs");
  if (!d) return;
  const body = $("#runs-body");
  body.replaceChildren();
  if (!d.runs.length) body.append(el("p", { text: "No runs: start the server with --runs FOLDER (a folder written by blackjack-train)." }));
  for (const run of d.runs) {
    const box = el("div", { class: "run", "data-run": run.name }, el("h3", { text: run.name }));
    const grades = run.curve && Array.isArray(run.curve.grades) ? run.curve.grades : [];
    const blocks = run.curve && Array.isArray(run.curve.blocks) ? run.curve.blocks : [];
    if (grades.length) box.append(el("p", { class: "small", text: "exact return of the greedy policy" }), curveSvg(grades, run.optimum));
    else if (blocks.length) box.append(el("p", { class: "small", text: "training reward per hand (no exact grade for these rules)" }), curveSvg(blocks, null));
    for (const p of run.problems) box.append(el("p", { class: "note", text: p }));
    if (run.rows.length) {  // the summary as the server words it: figures rounded, no path
      const t = el("table", { class: "run-summary" });
      for (const [label, text] of run.rows) t.append(el("tr", {}, el("th", { text: label }), el("td", { text })));
      box.append(t);
    }
    body.append(box);
  }
}

document.addEventListener("DOMContentLoaded", init);
