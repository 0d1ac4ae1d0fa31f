// Shared by match.html and tune.html (put in place of their `/*COMMON_JS*/` line when the
// page is first served, see `monitor::with_common`): escaping, the board drawn from SFEN, a
// game card, and the line charts.
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
const KANJI = { P: "歩", L: "香", N: "桂", S: "銀", G: "金", B: "角", R: "飛", K: "玉",
  "+P": "と", "+L": "杏", "+N": "圭", "+S": "全", "+B": "馬", "+R": "龍" };

function esc(s) {
  return String(s == null ? "" : s).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
}

function board(sfen, lastMove) {
  const parts = (sfen || "").split(" ");
  const rows = (parts[0] || "9/9/9/9/9/9/9/9/9").split("/");
  let last = -1;
  if (lastMove && lastMove.length >= 4) { const to = lastMove.slice(2, 4); last = (to.charCodeAt(1) - 97) * 9 + (9 - Number(to[0])); }
  let html = "", idx = 0;
  for (const row of rows.slice(0, 9)) {
    let prom = false;
    for (const ch of row) {
      if (ch === "+") { prom = true; continue; }
      if (/[1-9]/.test(ch)) { for (let k = 0; k < Number(ch); k++, idx++) html += `<div class="${idx === last ? "last" : ""}"></div>`; continue; }
      const up = ch.toUpperCase();
      const kanji = up === "K" && ch !== up ? "王" : (KANJI[(prom ? "+" : "") + up] || "?");
      html += `<div class="${[ch === up ? "b" : "w", prom ? "prom" : "", idx === last ? "last" : ""].join(" ")}">${kanji}</div>`;
      prom = false; idx++;
    }
  }
  while (idx < 81) { html += "<div></div>"; idx++; }
  const hands = { b: [], w: [] };
  let n = "";
  for (const ch of parts[2] || "-") {
    if (/[0-9]/.test(ch)) { n += ch; continue; }
    if (ch === "-") break;
    hands[ch === ch.toUpperCase() ? "b" : "w"].push(KANJI[ch.toUpperCase()] + (n && n !== "1" ? n : ""));
    n = "";
  }
  return { html, hands };
}

// A game in progress (a `board` event): caption, hands and board, as `<div id="board-N">`.
function gameCard(b) {
  const d = board(b.sfen, b.last);
  return `<div class="game" id="board-${b.worker}"><div class="cap">game ${b.game}: ☗${esc(b.black)} vs ☖${esc(b.white)}<br>ply ${b.ply}: ${esc(b.last_kif)} <span class="muted">${esc(b.score)} ${b.time_ms} ms</span></div>
    <div class="hand">☖ ${d.hands.w.join(" ") || "なし"}</div><div class="board">${d.html}</div><div class="hand">☗ ${d.hands.b.join(" ") || "なし"}</div></div>`;
}

// Line charts into `<svg id=svgId>` (viewBox 600×220): `series` of `{id, color, points:
// [{x, y, lo?, hi?}]}` (a band where lo/hi are given). `opts`: ymin/ymax (always shown),
// lines (horizontal rules, labelled with lineDigits decimals, 2), x0 (the first x, 1), xlabel
// ("games"), digits (of the axis labels, 0), zero (a dashed rule at 0, true).
function chart(svgId, series, opts) {
  const svg = document.getElementById(svgId);
  const W = 600, H = 220;
  const x0 = opts.x0 == null ? 1 : opts.x0, digits = opts.digits || 0;
  let xmax = x0 + 1, ymin = opts.ymin, ymax = opts.ymax;
  for (const s of series) for (const p of s.points) {
    xmax = Math.max(xmax, p.x);
    for (const v of [p.y, p.lo, p.hi]) if (v != null && isFinite(v)) { ymin = Math.min(ymin, v); ymax = Math.max(ymax, v); }
  }
  for (const v of opts.lines || []) { ymin = Math.min(ymin, v); ymax = Math.max(ymax, v); }
  const pad = (ymax - ymin) * 0.08 || 1; ymin -= pad; ymax += pad;
  const x = v => 30 + (W - 40) * (v - x0) / Math.max(1, xmax - x0);
  const y = v => H - 14 - (H - 24) * (Math.max(ymin, Math.min(ymax, v)) - ymin) / (ymax - ymin);
  let out = opts.zero === false ? "" : `<line x1="30" x2="${W}" y1="${y(0)}" y2="${y(0)}" stroke="#bbb" stroke-dasharray="4 3"/>`;
  for (const v of opts.lines || []) out += `<line x1="30" x2="${W}" y1="${y(v)}" y2="${y(v)}" stroke="#c88"/><text x="32" y="${y(v) - 3}" font-size="10" fill="#a66">${v.toFixed(opts.lineDigits == null ? 2 : opts.lineDigits)}</text>`;
  out += `<text x="2" y="12" font-size="10" fill="#999">${ymax.toFixed(digits)}</text><text x="2" y="${H - 16}" font-size="10" fill="#999">${ymin.toFixed(digits)}</text>`;
  out += `<text x="${W - 4}" y="${H - 2}" font-size="10" fill="#999" text-anchor="end">${xmax} ${opts.xlabel || "games"}</text>`;
  series.forEach(s => {
    const band = s.points.filter(p => p.lo != null && p.hi != null);
    if (band.length > 1) {
      const poly = band.map(p => `${x(p.x).toFixed(1)},${y(p.hi).toFixed(1)}`).concat(band.slice().reverse().map(p => `${x(p.x).toFixed(1)},${y(p.lo).toFixed(1)}`));
      out += `<polygon points="${poly.join(" ")}" fill="${s.color}" fill-opacity="0.12" stroke="none"/>`;
    }
    const pts = s.points.filter(p => p.y != null).map(p => `${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`);
    out += `<polyline data-series="${esc(s.id)}" data-points="${pts.length}" fill="none" stroke="${s.color}" stroke-width="2" points="${pts.join(" ")}"/>`;
  });
  svg.innerHTML = out;
}

// Follows the event stream: `apply` each event, then `render`. `?stream=S` (for headless
// browsers) is passed on: the server ends each stream after S s and the page reconnects.
function connect(apply, render, finished) {
  const q = new URLSearchParams(location.search).get("stream");
  const es = new EventSource("/events" + (q ? "?stream=" + encodeURIComponent(q) : ""));
  const status = document.getElementById("status");
  let down = null;
  es.onopen = () => { clearTimeout(down); status.className = "live"; status.textContent = "live"; };
  es.onerror = () => { clearTimeout(down); down = setTimeout(() => { status.className = "down"; status.textContent = finished() ? "finished" : "not connected"; }, 3000); };
  // Events can come hundreds a second (a tune of a fast engine): the page draws at most every
  // 100 ms, what the events applied so far say.
  let pending = null;
  const draw = () => { pending = null; try { render(); } catch (err) { console.error(err); } };
  es.onmessage = e => {
    try { apply(JSON.parse(e.data)); } catch (err) { console.error(err); }
    if (pending == null) pending = setTimeout(draw, 100);
  };
}
