/* One table's page: board, pots, seats, whose turn, announcements and irregularities. */
"use strict";
const TABLE = document.body.dataset.table;
const ROLE = document.body.dataset.role;
let page = {};
let knownHolds = null;

function seatRow(s) {
  const cards = s.hole && s.hole.length ? s.hole.map(card).join(" ")
    : s.shown && s.shown.length ? s.shown.map(card).join(" ")
    : s.cards ? card("??") + " " + card("??") : "";
  const marks = [];
  if (page.button === s.seat) marks.push('<span class="mark btn">BTN</span>');
  if (page.to_act === s.seat) marks.push('<span class="mark act">TO ACT</span>');
  if (s.folded) marks.push('<span class="mark">folded</span>');
  if (s.all_in) marks.push('<span class="mark act">ALL-IN</span>');
  if (s.out) marks.push('<span class="mark">sitting out</span>');
  return "<tr" + (page.to_act === s.seat ? ' class="to-act"' : "") + "><td>" + esc(s.seat) +
    "</td><td>" + esc(s.player) + '</td><td class="num">' + money(s.stack) + '</td><td class="num">' +
    (s.bet ? money(s.bet) : "") + '</td><td class="cards">' + cards + "</td><td>" + marks.join(" ") + "</td></tr>";
}
function render() {
  const p = page;
  document.getElementById("title").textContent = (p.name || TABLE) +
    (p.hand === null || p.hand === undefined ? " · no hand" : " · hand " + p.hand) + " · " + (p.stage || "—");
  const holds = (p.holds || []).map(h => "<li><b>HOLD</b> " + esc(h[0]) + ' <span class="since">' + agoSpan(h[1]) + "</span></li>").join("");
  const hb = document.getElementById("holds");
  hb.innerHTML = holds ? "<ul>" + holds + "</ul>" : "";
  hb.className = holds ? "banner hold" : "banner";
  const keys = new Set((p.holds || []).map(h => h[0]));
  if (knownHolds !== null) {
    const fresh = [...keys].filter(k => !knownHolds.has(k));
    if (fresh.length) {
      Sound.beep();
      for (const t of fresh) window.fwHoldSeen.push({table: TABLE, text: t, at: Date.now() / 1000});
    }
  }
  knownHolds = keys;
  const feed = p.feed === "live" ? "feed live" : p.feed === "lost" ?
    "not heard from for " + agoSpan(p.heard) : p.feed === "stale" ? behindText(p.behind) :
    esc(p.feed);
  document.getElementById("feed").innerHTML = feed +
    (ROLE === "surveillance" ? " · surveillance feed: " + esc(p.surveillance ? p.secret_feed : "not followed (no key)") : "");
  document.getElementById("feed").className = p.feed === "live" ? "feed ok" : "feed bad";
  document.getElementById("shipping").innerHTML = shippingText(p.shipping);
  const board = (p.board && p.board.length ? p.board : ["", "", "", "", ""]);
  while (board.length < 5) board.push("");
  document.getElementById("board").innerHTML = board.map(card).join(" ");
  const pots = (p.pots || []).map((pot, i) =>
    (i ? "side pot " + i : "main pot") + " <b>" + money(pot[0]) + "</b>");
  pots.push('pot with bets <b class="pot">' + money(p.pot) + "</b>");
  document.getElementById("pots").innerHTML = pots.join(" · ");
  document.getElementById("prompt").textContent = p.prompt || "";
  document.getElementById("seats").innerHTML = (p.seats || []).map(seatRow).join("");
  document.getElementById("announcements").innerHTML = (p.announcements || []).slice().reverse()
    .map(a => "<li>" + esc(a) + "</li>").join("");
  const irr = (p.alerts || []).map(a => '<li class="alert">' + esc(a[0]) + ' <span class="since">' + agoSpan(a[1]) + "</span></li>");
  const hist = (p.history || []).slice().reverse().map(a => '<li class="past">' + esc(a) + "</li>");
  document.getElementById("irregularities").innerHTML = irr.concat(hist).join("") || "<li class=\"past\">none</li>";
  document.getElementById("devices").innerHTML = Object.entries(p.devices || {}).map(([n, l]) =>
    '<span class="dev ' + (["ok", "unavailable"].includes(l) ? "ok" : "bad") + '">' + esc(n) + " " + esc(l) + "</span>").join(" ") +
    Object.entries(p.health || {}).map(([n, t]) => ' <span class="health">' + esc(n) + ": " + esc(t) + "</span>").join("");
  refreshAges(document);
  const hand = document.getElementById("recall-hand");
  if (hand && !hand.value && p.hand) hand.value = p.hand;
}
connect("?table=" + encodeURIComponent(TABLE),
  msg => { page = msg.page; render(); },
  msg => { Object.assign(page, msg.page); render(); });
Sound.bind(document.getElementById("sound"));
