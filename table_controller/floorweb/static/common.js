/* Floor web: the WebSocket (snapshot, then diffs; reconnect with back-off), server time,
   ages, the hold sound (WebAudio, mutable) and helpers shared by the floor and table pages.
   Every message received is kept in window.fwMessages (tests read it). */
"use strict";
window.fwMessages = [];
window.fwHoldSeen = [];
window.fwBeeps = 0;
const FW = {offset: 0, backoff: 500, maxBackoff: 10000, opened: false};

function esc(v) {
  return String(v === null || v === undefined ? "" : v).replace(/[&<>"']/g,
    c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}
function serverNow() { return (Date.now() + FW.offset) / 1000; }
function ago(ts) {
  if (!ts) return "—";
  const s = Math.max(0, Math.round(serverNow() - ts));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.floor(s / 60) + " min " + (s % 60) + " s";
  return Math.floor(s / 3600) + " h " + Math.floor((s % 3600) / 60) + " min";
}
/* ages are filled in by refreshAges (every second, and after each render), so a tile's HTML
   stays the same from one second to the next */
function agoSpan(ts) { return '<span class="ago" data-ts="' + esc(ts || "") + '"></span>'; }
function refreshAges(root) {
  (root || document).querySelectorAll(".ago").forEach(el => {
    const ts = parseFloat(el.dataset.ts);
    el.textContent = ago(isNaN(ts) ? 0 : ts);
  });
}
/* the journal's shipping to the central store (row.shipping; null: not shipped) */
const SHIP_WORDS = {caught_up: "caught up", shipping: "shipping", starting: "starting",
  retrying: "central store unreachable, retrying", refused: "REFUSED (journal differs: verify)",
  stopped: "shipper stopped", silent: "shipper not running", unknown: "no shipper status yet"};
function shippingText(s) {
  if (!s) return "";
  const ok = !s.trouble;  /* model.shipping_trouble: the server decides */
  const behind = s.behind === null || s.behind === undefined ? "" :
    " · " + money(s.behind) + " entr" + (s.behind === 1 ? "y" : "ies") + " behind";
  const last = s.shipped_seq ? " · last shipped #" + esc(s.shipped_seq) +
    (s.last_shipped_at ? " " + agoSpan(s.last_shipped_at) + " ago" : "") : "";
  return '<span class="shipping ' + (ok ? "ok" : "bad") + '">journal: ' +
    esc(SHIP_WORDS[s.status] || s.status) + behind + last +
    (s.error && !ok ? ' <span class="ship-error">(' + esc(s.error) + ")</span>" : "") + "</span>";
}
/* a feed whose messages come in late (row.feed "stale", row.behind whole seconds) */
function behindText(behind) {
  return "feed behind the table by " + (behind === null || behind === undefined ? "?" : behind) +
    " s: catching up…";
}
function money(n) { return (n || 0).toLocaleString("en-US"); }
const SUITS = {s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663"};
function card(code) {
  if (!code) return '<span class="card empty">··</span>';
  if (!/^[2-9TJQKA][shdc]$/.test(code)) return '<span class="card back">▒▒</span>';
  const red = code[1] === "h" || code[1] === "d";
  const rank = code[0] === "T" ? "10" : code[0];
  return '<span class="card' + (red ? " red" : "") + '">' + rank + SUITS[code[1]] + "</span>";
}

/* -- sound: a two-tone alarm made with WebAudio, muted with the button (remembered) -- */
const Sound = {
  ctx: null,
  muted: localStorage.getItem("fw-muted") === "1",
  ensure() {
    if (!this.ctx) {
      const AC = window.AudioContext || window.webkitAudioContext;
      if (AC) this.ctx = new AC();
    }
    if (this.ctx && this.ctx.state === "suspended") this.ctx.resume();
  },
  beep() {
    if (this.muted) return;
    this.ensure();
    window.fwBeeps += 1;
    if (!this.ctx) return;
    const t = this.ctx.currentTime;
    [0, 0.35, 0.7].forEach((d, i) => {
      const o = this.ctx.createOscillator(), g = this.ctx.createGain();
      o.type = "square";
      o.frequency.value = i % 2 ? 660 : 880;
      g.gain.setValueAtTime(0.0001, t + d);
      g.gain.exponentialRampToValueAtTime(0.3, t + d + 0.02);
      g.gain.exponentialRampToValueAtTime(0.0001, t + d + 0.3);
      o.connect(g).connect(this.ctx.destination);
      o.start(t + d);
      o.stop(t + d + 0.32);
    });
  },
  bind(button) {
    const show = () => {
      button.textContent = this.muted ? "Sound off" : "\u266A Sound on";
      button.setAttribute("aria-pressed", this.muted ? "false" : "true");
    };
    button.addEventListener("click", () => {
      this.muted = !this.muted;
      localStorage.setItem("fw-muted", this.muted ? "1" : "0");
      if (!this.muted) this.ensure();
      show();
    });
    document.addEventListener("pointerdown", () => { if (!this.muted) this.ensure(); },
                              {once: true});
    show();
  },
};

/* -- the WebSocket: a full snapshot on every (re)connect, then diffs -- */
function connect(query, onSnapshot, onDiff) {
  const conn = document.getElementById("conn");
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" + query;
  const ws = new WebSocket(url);
  let opened = false;
  ws.onopen = () => {
    opened = true;
    FW.backoff = 500;
    conn.textContent = "live";
    conn.className = "conn live";
    document.body.classList.remove("stale");
  };
  ws.onmessage = ev => {
    const msg = JSON.parse(ev.data);
    window.fwMessages.push(msg);
    if (msg.now) FW.offset = msg.now * 1000 - Date.now();
    if (msg.t === "snapshot") onSnapshot(msg); else if (msg.t === "diff") onDiff(msg);
  };
  ws.onclose = ev => {
    document.body.classList.add("stale");
    if (ev.code === 4001) { location.href = "/login?next=" + encodeURIComponent(location.pathname); return; }
    const wait = FW.backoff;
    FW.backoff = Math.min(FW.maxBackoff, FW.backoff * 2);
    conn.textContent = "server connection lost: retrying in " + Math.round(wait / 1000) + " s";
    conn.className = "conn lost";
    const retry = () => connect(query, onSnapshot, onDiff);
    if (!opened) {
      /* refused at the handshake: logged out? then go to the login page */
      fetch(location.pathname, {redirect: "manual", cache: "no-store"}).then(r => {
        if (r.type === "opaqueredirect") location.href = "/login?next=" + encodeURIComponent(location.pathname);
        else setTimeout(retry, wait);
      }).catch(() => setTimeout(retry, wait));
    } else {
      setTimeout(retry, wait);
    }
  };
}
setInterval(() => refreshAges(document), 1000);
