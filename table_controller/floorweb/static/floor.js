/* The floor page: one tile per table, the tables that need someone first. */
"use strict";
const rows = new Map();
const tiles = new Map();
const knownHolds = new Set();
const fresh = new Map();   /* hold key -> until (ms): flashed as new */
let primed = false;

function holdKey(id, text) { return id + "\u0000" + text; }
function oldest(r) {
  const ts = (r.holds || []).map(h => h[1] || Infinity);
  return ts.length ? Math.min(...ts) : Infinity;
}
function order(a, b) {
  return (a.need - b.need) || (oldest(a) - oldest(b)) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
function feedText(r) {
  if (r.feed === "live") return '<span class="feed ok">feed live</span>';
  if (r.feed === "connecting") return '<span class="feed bad">connecting to the table…</span>';
  if (r.feed === "syncing") return '<span class="feed bad">catching up (gap)…</span>';
  if (r.feed === "stale") return '<span class="feed bad stale">' + behindText(r.behind) + "</span>";
  if (!r.heard) return '<span class="feed bad">never heard from</span>';
  return '<span class="feed bad">not heard from for ' + agoSpan(r.heard) + "</span>";
}
function tileHtml(r) {
  const now = Date.now();
  const holds = (r.holds || []).map(h => {
    const isNew = (fresh.get(holdKey(r.id, h[0])) || 0) > now;
    return '<li class="hold' + (isNew ? " new" : "") + '"><b>HOLD</b> ' + esc(h[0]) +
           ' <span class="since">' + agoSpan(h[1]) + "</span></li>";
  }).join("");
  const alerts = (r.alerts || []).map(a => '<li class="alert">' + esc(a[0]) +
           ' <span class="since">' + agoSpan(a[1]) + "</span></li>").join("");
  const devs = Object.entries(r.devices || {}).map(([n, l]) =>
    '<span class="dev ' + (["ok", "unavailable"].includes(l) ? "ok" : "bad") + '">' + esc(n) +
    " " + esc(l) + "</span>").join(" ");
  const health = Object.entries(r.health || {}).map(([n, t]) =>
    '<div class="health">' + esc(n) + ": " + esc(t) + "</div>").join("");
  return '<a class="name" href="/table/' + encodeURIComponent(r.id) + '">' + esc(r.name || r.id) + "</a>" +
    '<div class="line"><span class="hand">' + (r.hand === null || r.hand === undefined ? "no hand" : "Hand " + esc(r.hand)) +
    '</span> · <span class="stage">' + esc(r.stage || "—") + '</span> · Pot <span class="pot">' + money(r.pot) + "</span></div>" +
    '<div class="line small">' + (r.last_action ? "last action " + agoSpan(r.last_action) + " ago" : "no action seen yet") + "</div>" +
    (holds ? '<ul class="holds">' + holds + "</ul>" : "") +
    (alerts ? '<ul class="alerts">' + alerts + "</ul>" : "") +
    '<div class="line small">' + devs + health + "</div>" +
    '<div class="line small">' + feedText(r) + "</div>" +
    (r.shipping ? '<div class="line small">' + shippingText(r.shipping) + "</div>" : "");
}
function render(changed) {
  const main = document.getElementById("tables");
  const newHolds = [];
  for (const id of changed) {
    const r = rows.get(id);
    for (const h of r.holds || []) {
      const k = holdKey(id, h[0]);
      if (!knownHolds.has(k)) {
        knownHolds.add(k);
        if (primed) { fresh.set(k, Date.now() + 15000); newHolds.push([id, h[0]]); }
      }
    }
    let el = tiles.get(id);
    if (!el) {
      el = document.createElement("article");
      el.dataset.table = id;
      tiles.set(id, el);
    }
    const cls = "tile need-" + r.need + ((r.holds || []).some(h => (fresh.get(holdKey(id, h[0])) || 0) > Date.now()) ? " fresh" : "");
    if (el.className !== cls) el.className = cls;
    const html = tileHtml(r);
    if (el.dataset.html !== html) {  /* a busy table changes seq often, its tile less often */
      el.dataset.html = html;
      el.innerHTML = html;
      refreshAges(el);
    }
  }
  const sorted = [...rows.values()].sort(order);
  sorted.forEach((r, i) => {
    const el = tiles.get(r.id);
    if (main.children[i] !== el) main.insertBefore(el, main.children[i] || null);
  });
  const held = sorted.filter(r => r.holds && r.holds.length).length;
  const stale = sorted.filter(r => r.feed === "stale").length;
  const lost = sorted.filter(r => r.feed !== "live" && r.feed !== "stale").length;
  const shipping = sorted.filter(r => r.shipping && r.shipping.trouble).length;
  document.getElementById("summary").textContent =
    sorted.length + " tables · " + held + " on hold · " + lost + " not heard from" +
    (stale ? " · " + stale + " behind" : "") +
    (shipping ? " · " + shipping + " not shipping" : "");
  document.title = (held ? "(" + held + " HOLD) " : "") + "Floor";
  const at = Date.now();
  for (const [id, text] of newHolds) window.fwHoldSeen.push({table: id, text: text, at: at / 1000});
  if (newHolds.length) Sound.beep();
}
function onSnapshot(msg) {
  rows.clear();
  for (const r of msg.rows) rows.set(r.id, r);
  for (const [id, el] of tiles) if (!rows.has(id)) { el.remove(); tiles.delete(id); }
  render([...rows.keys()]);
  primed = true;
}
function onDiff(msg) {
  const changed = [];
  for (const [id, d] of Object.entries(msg.rows)) {
    const r = Object.assign(rows.get(id) || {id: id}, d);
    rows.set(id, r);
    changed.push(id);
  }
  render(changed);
}
Sound.bind(document.getElementById("sound"));
setInterval(() => {  /* a new hold stops flashing after 15 s */
  const now = Date.now();
  for (const [k, until] of fresh) if (until <= now) {
    fresh.delete(k);
    const id = k.split("\u0000")[0];
    if (rows.has(id)) render([id]);
  }
}, 1000);
connect("", onSnapshot, onDiff);
