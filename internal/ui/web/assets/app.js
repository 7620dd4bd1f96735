// csa serve --ui: the session tree, live from /api/events; a session's
// log from /api/log as it grows; send and kill. Plain JavaScript: no build.
"use strict";
const token = new URL(document.currentScript.src).searchParams.get("token");
const q = (path, params = {}) => path + "?" + new URLSearchParams({ ...params, token });
const $ = (id) => document.getElementById(id);
const classes = ["needs_input", "stuck", "failed", "working", "idle", "unknown", "done"];
let rows = [], selected = null, collapsed = new Set(), logSource = null;

function age(created) {
  const s = Math.max(0, (Date.now() - Date.parse(created)) / 1000);
  if (s < 60) return Math.floor(s) + "s";
  if (s < 3600) return Math.floor(s / 60) + "m";
  if (s < 172800) return Math.floor(s / 3600) + "h";
  return Math.floor(s / 86400) + "d";
}
const num = (n) => n >= 1e6 ? (n / 1e6).toFixed(1) + "M" : n >= 1e4 ? Math.floor(n / 1000) + "k" : String(n);
const mem = (r) => (!r.memory_mb && !r.peak_memory_mb) ? "-" : (r.memory_mb ? r.memory_mb + "M" : "-") + "/" + r.peak_memory_mb + "M";
const tokens = (r) => (!r.input_tokens && !r.output_tokens) ? "-" : num(r.input_tokens) + "/" + num(r.output_tokens);
function retries(r) {
  const p = [];
  if (r.retries) p.push("r" + r.retries);
  if (r.failovers) p.push("f" + r.failovers);
  return p.length ? p.join(" ") : "-";
}

// A worktree run's branch and change: "csa/01JF3K4Q2M 3 files +10 -2",
// "3 files" so far while it runs.
function change(r) {
  if (!r.branch) return "-";
  const n = (r.files || 0) + " files";
  return r.branch + " " + (r.recorded ? n + " +" + (r.insertions || 0) + " -" + (r.deletions || 0) : n);
}
// Other live worktree runs changing the same files.
const overlaps = (r) => (r.overlaps || []).map((o) => "overlap " + o.with.slice(0, 10) + ": " + o.paths.join(", ")).join("; ");

function matches(r, words) {
  const hay = [r.id, r.tool, r.model, r.state, r.class, r.label, r.last_line, r.project].join(" ").toLowerCase();
  return words.every((w) => hay.includes(w));
}

// The tree, roots oldest first, children under their parent; with a
// filter, a row stays when it, a descendant or an ancestor matches.
function lines() {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const kids = new Map(), roots = [];
  for (const r of rows) {
    if (r.parent_id && byId.has(r.parent_id)) {
      if (!kids.has(r.parent_id)) kids.set(r.parent_id, []);
      kids.get(r.parent_id).push(r);
    } else roots.push(r);
  }
  const older = (a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1);
  roots.sort(older);
  for (const k of kids.values()) k.sort(older);
  const words = $("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
  const keep = new Map();
  const walk = (r, inMatch) => {
    let m = inMatch || matches(r, words);
    for (const k of kids.get(r.id) || []) if (walk(k, m)) m = true;
    keep.set(r.id, m);
    return m;
  };
  roots.forEach((r) => walk(r, false));
  const out = [];
  const add = (r, level) => {
    if (!keep.get(r.id)) return;
    const n = (kids.get(r.id) || []).length;
    out.push({ r, level, kids: n });
    if (!collapsed.has(r.id)) for (const k of kids.get(r.id) || []) add(k, level + 1);
  };
  roots.forEach((r) => add(r, 0));
  return out;
}

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function render() {
  const counts = {};
  for (const r of rows) counts[r.class] = (counts[r.class] || 0) + 1;
  const c = $("counts");
  c.replaceChildren(document.createTextNode(rows.length + " sessions "));
  for (const k of classes) {
    if (!counts[k]) continue;
    const r = rows.find((x) => x.class === k);
    const s = document.createElement("span");
    s.className = k;
    s.textContent = r.symbol + " " + counts[k] + " " + r.label;
    c.appendChild(s);
  }
  const body = $("rows");
  const ls = lines();
  if (!ls.length) {
    const tr = document.createElement("tr");
    tr.appendChild(cell(rows.length ? "no sessions match the filter" : "no sessions in this project", "dim"));
    tr.firstChild.colSpan = 11;
    body.replaceChildren(tr);
  } else {
    body.replaceChildren(...ls.map(({ r, level, kids }) => {
      const tr = document.createElement("tr");
      tr.className = "row" + (r.id === selected ? " selected" : "");
      tr.dataset.id = r.id;
      tr.dataset.class = r.class;
      tr.appendChild(cell(r.symbol + " " + r.label, "state " + r.class));
      const id = cell("", "id");
      id.style.paddingLeft = (level * 1.5) + "em";
      const t = document.createElement("span");
      t.className = "toggle";
      t.textContent = kids ? (collapsed.has(r.id) ? "▸" : "▾") : "";
      id.append(t, r.id + (kids && collapsed.has(r.id) ? " +" + kids : ""));
      tr.appendChild(id);
      tr.append(cell(r.tool), cell(r.model || ""), cell(age(r.created_at)), cell(mem(r)), cell(tokens(r)), cell(retries(r)), cell(change(r)), cell(overlaps(r), "overlap"), cell(r.last_line || "", "last"));
      return tr;
    }));
  }
  const r = rows.find((x) => x.id === selected);
  if (r) {
    $("detail-state").textContent = r.symbol + " " + r.label + " (" + r.state + ")";
    $("detail-state").className = "state " + r.class;
    $("reason").textContent = r.reason || "";
    const live = r.interactive && !["done", "failed"].includes(r.class);
    $("send-text").disabled = $("send").disabled = !live;
    $("kill").disabled = ["done", "failed"].includes(r.class);
  }
}

// The rows are drawn anew on every update: a click whose press and release
// straddle a redraw lands on two rows and is lost (it was, on a busy
// machine), so a row is chosen, or its subtree folded, as the pointer goes
// down on it.
$("rows").addEventListener("pointerdown", (e) => {
  const tr = e.button === 0 && e.target.closest("tr[data-id]");
  if (!tr) return;
  const id = tr.dataset.id;
  if (e.target.closest(".toggle") && e.target.textContent) {
    collapsed.has(id) ? collapsed.delete(id) : collapsed.add(id);
    render();
    return;
  }
  select(id);
});

function select(id) {
  if (selected === id) return;
  selected = id;
  if (logSource) logSource.close();
  $("detail").hidden = !id;
  $("log").textContent = "";
  $("action-status").textContent = "";
  render();
  if (!id) return;
  $("detail-id").textContent = id;
  logSource = new EventSource(q("api/log", { id }));
  const log = $("log");
  const atEnd = () => log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  logSource.addEventListener("replace", (e) => { log.textContent = JSON.parse(e.data).text; log.scrollTop = log.scrollHeight; });
  logSource.addEventListener("append", (e) => { const end = atEnd(); log.textContent += JSON.parse(e.data).text; if (end) log.scrollTop = log.scrollHeight; });
  logSource.addEventListener("problem", (e) => { $("action-status").textContent = "log: " + JSON.parse(e.data).error; });
}

async function act(what, body) {
  $("action-status").textContent = what + "…";
  const res = await fetch(q("api/" + what), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const out = await res.json().catch(() => ({}));
  $("action-status").textContent = res.ok ? what + ": done" : what + ": " + (out.error || res.status);
  return res.ok;
}

$("send-form").onsubmit = async (e) => {
  e.preventDefault();
  const text = $("send-text").value;
  if (selected && text.trim() && await act("send", { id: selected, text })) $("send-text").value = "";
};
$("kill").onclick = () => { if (selected && confirm("kill " + selected + "?")) act("kill", { id: selected }); };
$("close").onclick = () => select(null);
$("filter").oninput = render;

function connect() {
  const es = new EventSource(q("api/events"));
  es.onopen = () => { $("conn").textContent = "live"; };
  es.onerror = () => { $("conn").textContent = "reconnecting…"; };
  es.addEventListener("snapshot", (e) => {
    rows = JSON.parse(e.data).sessions || [];
    document.body.dataset.updated = JSON.parse(e.data).at;
    render();
  });
  es.addEventListener("problem", (e) => { $("conn").textContent = "error: " + JSON.parse(e.data).error; });
}
connect();
setInterval(render, 5000); // ages move on
