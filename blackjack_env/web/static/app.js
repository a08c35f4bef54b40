// The page is a view: it draws the JSON state the server sends and sends the user's
// requests. Which actions are legal, totals, results and values all come from the server;
// no rule of the game is decided here.
"use strict";

const $ = (sel) => document.querySelector(sel);
const KEYS = { h: "hit", s: "stand", d: "double", p: "split", r: "surrender", i: "insure", n: "decline" };
const CASCADE = { left: 1.3, top: 0.3, every: 5 };  // seed 000's layout, in em
let options = null;
let state = null;       // the frame on screen
let live = null;        // the latest frame
let timer = null;

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

async function call(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
  const resp = await fetch(path, init);
  let data = null;
  try { data = await resp.json(); } catch (e) { data = { error: `HTTP ${resp.status}` }; }
  if (!resp.ok) { showError(data.error || `HTTP ${resp.status}`); return null; }
  showError("");
  return data;
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
  const body = {
    mode: $("#mode").value, preset: $("#preset").value, overrides, players,
    bankroll: parseInt($("#bankroll").value, 10), bot_bet: parseInt($("#bot-bet").value, 10),
    seed: seedText === "" ? null : Number(seedText),
  };
  stopPlaying();
  const data = await call("POST", "/api/session", body);
  if (data) { $("#setup").hidden = true; show(data, true); }
}

// ------------------------------------------------------------------ drawing
function cardNode(card, k) {
  const node = card.down
    ? el("div", { class: "card down", title: "face down" })
    : el("div", { class: "card" + (card.red ? " red" : ""), title: card.text, "data-card": card.text },
      el("div", { class: "corner" }, el("span", { text: card.rank }), el("span", { text: card.suit })),
      el("div", { class: "pip", text: card.suit }));
  node.style.left = `${k * CASCADE.left}em`;
  node.style.top = `${(k % CASCADE.every) * CASCADE.top}em`;
  return node;
}

function cardsNode(cards) {
  const box = el("div", { class: "cards" });
  cards.forEach((c, k) => box.append(cardNode(c, k)));
  const n = Math.max(cards.length, 2);
  box.style.width = `calc(${(n - 1) * CASCADE.left}em + var(--card-w))`;
  box.style.height = `calc(${Math.min(n - 1, CASCADE.every - 1) * CASCADE.top}em + var(--card-h))`;
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
  return box;
}

function seatNode(seat, st) {
  const node = el("div", { class: "seat" + (seat.to_act ? " acting" : ""), id: `seat-${seat.index}` });
  const who = seat.person ? `Player ${seat.index + 1}` : `${seat.player}`;
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
  if (seat.net != null && seat.hands.length) {
    node.append(el("div", { class: "seat-net", text: `round ${signed(seat.net)}` }));
  }
  if (st.phase === "betting" && seat.person && st === live) {
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
  const v = st.values;
  if (v && st.to_act) {
    const seat = st.seats[st.to_act.seat];
    const h = seat.hands[st.to_act.hand];
    const who = seat.person ? `Player ${seat.index + 1}` : seat.player;
    body.append(el("p", { id: "values-for", text: `${who}, hand ${st.to_act.hand + 1}: ` +
      `${totalText(h)} against the dealer's ${st.dealer.cards[0].rank}` +
      (st.phase === "insurance" ? " (before the peek)" : "") }));
  }
  if (!v) { body.append(el("p", { text: "No decision awaited." })); }
  else if (!v.available) { body.append(el("p", { class: "note", id: "values-reason", text: v.reason })); }
  else {
    const t = el("table", { id: "values-table" }, el("tr", {}, el("th", { text: "action" }),
      el("th", { text: "EV per unit bet" })));
    for (const [a, ev] of Object.entries(v.evs)) {
      t.append(el("tr", { class: a === v.best ? "best" : "", "data-action": a },
        el("td", { text: a + (a === v.best ? " (best)" : "") }), el("td", { text: ev.toFixed(4) })));
    }
    body.append(t, el("p", { class: "small", id: "values-source", text: `source: ${v.source}` }));
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
  if (isLive) live = st;
  state = st;
  $("#table").hidden = false;
  $("#rules-summary").textContent = `${st.rules.preset}: ${st.rules.summary} · round ${st.round} · ${st.phase}`;
  const d = st.dealer;
  $("#dealer-cards").replaceWith(Object.assign(cardsNode(d.cards), { id: "dealer-cards" }));
  $("#dealer-total").textContent = d.total == null ? "" :
    (d.blackjack ? "Blackjack" : d.bust ? `${d.total} bust` : (d.soft ? "soft " : "") + d.total) +
    (d.revealed || d.cards.length < 2 ? "" : " showing");
  const shoe = st.shoe;
  $("#shoe").replaceChildren(...[
    el("div", { id: "shoe-remaining", text: shoe.infinite ? "infinite deck" :
      `shoe: ${shoe.remaining} of ${shoe.total} cards left · ${shoe.discards} in the discard tray` }),
    shoe.reshuffled ? el("div", { class: "reshuffle", id: "reshuffled", text: "reshuffled before this round" }) : null,
    shoe.cut_card_out ? el("div", { class: "reshuffle", text: "cut card out: reshuffle after this round" }) : null,
  ].filter(Boolean));
  const seats = $("#seats");
  seats.style.setProperty("--n", String(st.seats.length));
  seats.classList.toggle("crowded", st.seats.length >= 5);
  seats.replaceChildren(...st.seats.map((s) => seatNode(s, st)));
  drawValues(st);
  drawControls(st);
}

function drawControls(st) {
  const watch = st.mode === "watch";
  $("#play-controls").hidden = watch;
  $("#watch-controls").hidden = !watch;
  const atLive = st === live;
  for (const b of document.querySelectorAll("#play-controls [data-action]")) {
    b.disabled = !atLive || !st.legal.includes(b.dataset.action);
  }
  $("#raise-box").hidden = !st.rules.bet_raising;
  $("#raise").disabled = !atLive || !st.can_raise;
  $("#deal").disabled = !atLive || st.phase !== "betting";
  $("#next").disabled = !atLive || st.phase !== "settled";
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
    const who = seat.person ? `Player ${seat.index + 1}` : seat.player;
    turn = `${who} (seat ${seat.index + 1}, hand ${st.to_act.hand + 1}) to act` +
      (st.phase === "insurance" ? ": insurance / surrender before the dealer peeks" : "");
  } else if (st.phase === "betting") turn = watch ? "Bets next: Step deals the round." : "Place your bets, then Deal.";
  else if (st.phase === "settled") turn = "Round settled.";
  $("#turn").textContent = turn;
}

// ------------------------------------------------------------------ requests
async function act(action) {
  if (!live || !live.legal.includes(action) || state !== live) return;
  const data = await call("POST", "/api/act", { seat: live.to_act.seat, action });
  if (data) show(data, true);
}

async function deal() {
  const bets = {};
  for (const s of live.seats) {
    if (!s.person) continue;
    const input = $(`#bet-${s.index}`);
    const v = input ? Number(input.value) : 0;
    bets[String(s.index)] = Number.isFinite(v) ? v : 0;
  }
  const data = await call("POST", "/api/deal", { bets });
  if (data) show(data, true);
}

async function nextRound() { const d = await call("POST", "/api/next", {}); if (d) show(d, true); }

async function raiseBet() {
  const amount = Number($("#raise-amount").value);
  const d = await call("POST", "/api/raise", { seat: live.to_act.seat, amount });
  if (d) show(d, true);
}

async function step() {
  if (state !== live) return gotoFrame(state.frame + 1);
  const d = await call("POST", "/api/step", {});
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
  if (ev.target.tagName === "INPUT" && ev.key !== "Enter") return;
  if (ev.target.tagName === "SELECT" || !live) return;
  const key = ev.key.toLowerCase();
  if (live.mode === "watch") {
    if (ev.key === "ArrowRight") { ev.preventDefault(); step(); }
    else if (ev.key === "ArrowLeft") { ev.preventDefault(); gotoFrame(state.frame - 1); }
    else if (ev.key === " ") { ev.preventDefault(); togglePlay(); }
    return;
  }
  if (KEYS[key]) { ev.preventDefault(); act(KEYS[key]); }
  else if (key === "u" && !$("#raise").disabled) raiseBet();
  else if (ev.key === "Enter") {
    ev.preventDefault();
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
  for (const b of document.querySelectorAll("#play-controls [data-action]")) {
    b.addEventListener("click", () => act(b.dataset.action));
  }
  $("#deal").addEventListener("click", deal);
  $("#next").addEventListener("click", nextRound);
  $("#raise").addEventListener("click", raiseBet);
  $("#step").addEventListener("click", step);
  $("#play").addEventListener("click", togglePlay);
  $("#back").addEventListener("click", () => gotoFrame(state.frame - 1));
  $("#forward").addEventListener("click", () => gotoFrame(state.frame + 1));
  $("#live").addEventListener("click", () => gotoFrame(live.frames.last));
  $("#frame-slider").addEventListener("change", (e) => gotoFrame(Number(e.target.value)));
  document.addEventListener("keydown", onKey);
  const resp = await fetch("/api/state");  // a table this browser already has
  if (resp.ok) { show(await resp.json(), true); $("#setup").hidden = true; }
}

document.addEventListener("DOMContentLoaded", init);
