// haptic studio: the page. The server is the contract in docs/studio.md; this file draws the
// pattern, edits the file's AHAP JSON locally (so drags redraw at once), and sends the server the
// edits only (which Pattern entries changed, were removed or added): it applies them to the
// file's own text to analyse (lint, effective curves, the waveform of what is on screen), save,
// compare, play through the engine and render WAV.
"use strict";

const $ = (id) => document.getElementById(id);
const LEFT = 44; // pixels for the lane labels
// The lanes' vertical extents; an audio file (audio to haptics) adds the sound's lane on top.
const PATTERN_LANES = { intensity: [12, 130], sharpness: [142, 226], waveform: [238, 292], curves: [304, 340], axis: [356, 380] };
const AUDIO_LANES = { audio: [12, 88], intensity: [100, 170], sharpness: [182, 230], waveform: [242, 292], curves: [304, 340], axis: [356, 380] };
const LANES = { ...PATTERN_LANES };
function setLanes(layout) { for (const key of Object.keys(LANES)) delete LANES[key]; Object.assign(LANES, layout); }
const AUDIO_EXTENSIONS = /\.(wav|wave|flac|ogg|oga|opus|mp3)$/i;
const isAudio = (path) => AUDIO_EXTENSIONS.test(path || "");
const MULTIPLICATIVE = new Set(["HapticIntensityControl", "AudioVolumeControl"]);
const DEFAULTS = { HapticIntensity: 1, HapticSharpness: 0.5, AudioVolume: 0.75 };

const state = {
  files: [], path: null, view: null, ahap: null, base: null, dirty: false, original: null,
  undo: [], redo: [], selection: null, hover: null,
  viewport: { start: 0, spp: 0.01 }, range: null,
  compare: null, diff: null,
  playhead: null, audio: null, drag: null,
  // An open audio file: `mode` is "audio", `sound` the last conversion (docs/studio.md, "Audio").
  mode: "pattern", sound: null, buffers: {},
  // `inflight`: requests out; `sent`/`applied`: the numbers of the last sent and the newest
  // applied; `out`: each request's first edit time, by number (see runAnalysis).
  // `lost`: an answer refused because the file moved on disk, to be asked again once the page
  // has the new version; `quiet`: the next answer applied leaves the status as it is (it
  // tells of the reload).
  analysis: { inflight: 0, pending: false, sent: 0, applied: 0, out: new Map(), since: null, lost: false, quiet: false },
};
// `parts`: per analysis drawn, where its time went (haptic-bench studio prints them): waiting
// behind the one in flight, the request to its answer (and, of it, to the answer's headers), the
// server's own analysis, the page's applying and drawing it.
const metrics = { ready: null, edits: [], parts: [], draws: 0, drawMilliseconds: [], eventLayers: 0, eventStrips: 0, eventFilters: 0, curveLayers: 0, findingPaths: 0, seriesLayers: 0, seriesColumns: 0, analyses: 0, dropped: 0, bytesSent: 0, bytesReceived: 0 };
// Which entry of the opened file each element object of `state.ahap.Pattern` is (objects the
// page added have none). Edited elements are copies that keep their original's entry.
let origins = new WeakMap();
// What each copied element was copied from (an edit copies what it changes), so that any version
// of an element (in the undo history too) finds its entry.
const lineage = new WeakMap();
function originOf(element) {
  for (let e = element; e !== undefined; e = lineage.get(e)) if (origins.has(e)) return origins.get(e);
  return undefined;
}
// This tab, so that it can tell its own saves from another tab's.
const TAB = Math.random().toString(36).slice(2);
window.studio = { state, metrics };

// ---------------------------------------------------------------- server

// The credential (docs/studio.md, "Security"): the printed address carries the token in its
// fragment (#token=T[&open=PATH]), which the browser never sends to a server. It is kept in this
// origin's sessionStorage (its own per port, so two studios never share one) and sent as a header;
// no cookie, which a browser would send to every other server on 127.0.0.1.
const launch = (() => {
  const hash = location.hash.slice(1);
  if (!hash.startsWith("token=")) return { open: decodeURIComponent(hash) };
  const [params, extra] = hash.split(/#(.*)/s);
  const query = new URLSearchParams(params);
  if (query.get("token")) sessionStorage.setItem("haptic-studio-token", query.get("token"));
  const open = query.get("open") || (extra ? decodeURIComponent(extra) : "");
  history.replaceState(null, "", location.pathname + (open ? "#" + encodeURIComponent(open) : ""));
  return { open };
})();
const token = sessionStorage.getItem("haptic-studio-token") || "";

// An edit's analysis is what a drag waits for. Fetched here, its answer reaches the page's script
// in several tasks (the headers, then the body), and during a drag Chromium runs each only in a
// gap between the drag's frames; a worker (studio-worker.js) receives and reads the answer whole
// on its own thread and hands it over in one message.
const analyzer = { worker: null, next: 0, waiting: new Map() };
try {
  analyzer.worker = new Worker("/studio-worker.js");
  analyzer.worker.onmessage = ({ data }) => {
    const resolve = analyzer.waiting.get(data.id);
    analyzer.waiting.delete(data.id);
    if (resolve) resolve(data);
  };
  // A worker that cannot run: the requests waiting on it fail (and are shown), later ones are
  // fetched here.
  analyzer.worker.onerror = () => {
    analyzer.worker = null;
    for (const resolve of analyzer.waiting.values()) resolve({ failed: "the analysis worker stopped" });
    analyzer.waiting.clear();
  };
} catch (e) {
  analyzer.worker = null;
}

function analyzerFetch(body) {
  const id = (analyzer.next += 1);
  return new Promise((resolve) => {
    analyzer.waiting.set(id, resolve);
    analyzer.worker.postMessage({ id, url: location.origin + "/api/analyze", token, body });
  });
}

async function api(method, url, body, raw, timing) {
  const init = { method, credentials: "omit", headers: { "X-Studio-Token": token } };
  // Without the worker: at the default priority Chromium hands the answer to the page only after
  // the drag's queued frames and mouse moves.
  if (url === "/api/analyze") init.priority = "high";
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
    metrics.bytesSent += init.body.length;
  }
  let status, text;
  if (url === "/api/analyze" && analyzer.worker) {
    const posted = performance.now();
    const answer = await analyzerFetch(init.body);
    if (answer.failed !== undefined) throw new TypeError(answer.failed);
    if (timing) timing.headers = posted + answer.headers;
    ({ status, text } = answer);
  } else {
    const response = await fetch(url, init);
    if (timing) timing.headers = performance.now();
    if (raw && response.ok) return response.arrayBuffer();
    status = response.status;
    text = await response.text();
  }
  metrics.bytesReceived += text.length;
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = { error: text }; }
  if (status < 200 || status > 299) {
    const error = new Error((json && json.error) || `${status}`);
    error.status = status;
    error.body = json;
    throw error;
  }
  return json;
}

function status(text) { $("status").textContent = text; }
function emptyFolderStatus() { return "no .ahap, .haptic, .vij or audio files under " + (state.roots || []).join(", "); }

function banner(text, a, b, isError) {
  const el = $("banner");
  if (!text) { el.hidden = true; return; }
  $("banner-text").textContent = text;
  for (const [button, action] of [[$("banner-a"), a], [$("banner-b"), b]]) {
    button.hidden = !action;
    if (action) { button.textContent = action[0]; button.onclick = () => { banner(null); action[1](); }; }
  }
  el.classList.toggle("error", !!isError);
  el.hidden = false;
}

// ---------------------------------------------------------------- files

async function loadFiles() {
  const list = await api("GET", "/api/files");
  state.files = list.files;
  state.roots = list.roots;
  renderFileList();
  const compare = $("compare");
  while (compare.options.length > 2) compare.remove(2);
  for (const file of list.files) if (!isAudio(file.path)) compare.add(new Option(file.path, "file:" + file.path));
  return list;
}

function renderFileList() {
  const filter = $("filter").value.toLowerCase();
  const ul = $("file-list");
  ul.replaceChildren();
  const shown = state.files.filter((file) => !filter || file.path.toLowerCase().includes(filter));
  if (!shown.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = state.files.length ? `No file matches “${$("filter").value}”.`
      : `No pattern or audio files under ${(state.roots || []).join(", ") || "the served folders"}.`;
    ul.append(li);
  }
  for (const file of shown) {
    const li = document.createElement("li");
    // The folders above the file's own give way first (an ellipsis), then the file's own folder
    // down to its first letters (never to nothing), and only then the file's name.
    const cut = file.path.lastIndexOf("/") + 1;
    const inner = file.path.lastIndexOf("/", cut - 2) + 1;
    const folder = document.createElement("span");
    folder.className = "folder";
    folder.textContent = file.path.slice(0, inner);
    const last = document.createElement("span");
    last.className = "folder-last";
    last.textContent = file.path.slice(inner, cut);
    last.style.minWidth = Math.min(last.textContent.length, 5) + "ch";
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = file.path.slice(cut);
    li.append(folder, last, name);
    li.title = `${file.path} (${file.format}, ${file.bytes} bytes)`;
    li.dataset.path = file.path;
    if (file.path === state.path) li.classList.add("current");
    if (isAudio(file.path)) li.classList.add("audio");
    li.onclick = () => openFile(file.path);
    ul.append(li);
  }
}

async function openFile(path, keepViewport) {
  if (state.dirty && path !== state.path && !window.confirm(`Discard unsaved changes to ${state.path}?`)) return;
  if (isAudio(path)) return openAudio(path);
  let view;
  try {
    view = await api("GET", "/api/pattern?path=" + encodeURIComponent(path));
  } catch (error) {
    banner(`Cannot open ${path}: ${error.message}`, null, null, true);
    status(`cannot open ${path}`);
    return;
  }
  const samePath = path === state.path;
  if (!samePath) {
    // Nothing of the previous file stays on screen: its playback, selection, range and readout.
    stopBrowser();
    if (state.playhead) api("POST", "/api/stop", {}).catch(() => {});
    state.playhead = null;
    state.range = null;
    state.hover = null;
    delete canvas.dataset.playhead;
  }
  leaveAudio();
  state.path = path;
  takeOver(view.ahap, view.version);
  state.undo = []; state.redo = [];
  state.selection = null;
  renderInspector();
  setDirty(false);
  applyView(view);
  if (!samePath || !keepViewport) fit();
  history.replaceState(null, "", "#" + encodeURIComponent(path));
  setFileName(path);
  renderFileList();
  if (state.compare) await loadCompare($("compare").value);
  draw();
  if (metrics.ready === null) {
    metrics.ready = performance.now();
    document.body.dataset.ready = "1";
  }
  status(summary());
}

// `ahap` (the file's JSON, version `version`) becomes what edits are made against.
function takeOver(ahap, version) {
  state.ahap = ahap;
  state.original = ahap;
  state.base = version;
  origins = new WeakMap();
  (ahap?.Pattern || []).forEach((element, i) => { if (element && typeof element === "object") origins.set(element, i); });
}

// The edits that turn the opened file's Pattern into the page's: entries changed, removed, added.
// An entry object still at its place in the opened file's Pattern is that entry, unchanged
// (`takeOver` gave it that place): no look-up (each edit of a drag asks twice, and a 10-minute
// pattern has 6,000 entries).
function edits() {
  const out = [];
  if (!state.ahap || !state.original) return out;
  const base = state.original.Pattern || [];
  const seen = new Uint8Array(base.length);
  const pattern = state.ahap.Pattern || [];
  for (let n = 0; n < pattern.length; n += 1) {
    const element = pattern[n];
    const i = element === base[n] && element !== null && typeof element === "object" ? n : originOf(element);
    if (i === undefined || seen[i]) { out.push({ add: element }); continue; }
    seen[i] = 1;
    if (element !== base[i] && JSON.stringify(element) !== JSON.stringify(base[i])) out.push({ index: i, element });
  }
  for (let i = 0; i < base.length; i += 1) if (!seen[i]) out.push({ remove: i });
  return out;
}

function setFileName(path) {
  const cut = path.lastIndexOf("/") + 1;
  $("file-folder").textContent = path.slice(0, cut);
  $("file-base").textContent = path.slice(cut);
  $("file-name").title = path;
}

// The last few findings lists shown, by key: an answer to a request sent before the previous
// answer was applied patches the list that request named, not the one shown now.
const recentFindings = new Map();

// The one stretch between two lists that differs, as a patch of `from`.
function findingsDifference(from, to) {
  const same = (x, y) => x === y || JSON.stringify(x) === JSON.stringify(y);
  let start = 0;
  while (start < from.length && start < to.length && same(from[start], to[start])) start += 1;
  let end = 0;
  while (end < from.length - start && end < to.length - start && same(from[from.length - 1 - end], to[to.length - 1 - end])) end += 1;
  return { start, remove: from.length - start - end, insert: to.slice(start, to.length - end) };
}

function applyView(view) {
  // An analysis sends the findings only when they changed, and then (when the studio has the
  // list this page has) as the one stretch of it that changed.
  const old = state.view;
  let patch = null;
  if (view.diagnostics === undefined && old) {
    const list = old.diagnostics || [];
    const p = view.findingsPatch;
    // A list the answer names by key alone (unchanged since the request's), or patches.
    const named = view.findingsKey === old.findingsKey ? list : recentFindings.get(view.findingsKey);
    const base = p && (p.from === old.findingsKey ? list : recentFindings.get(p.from));
    if (view.path !== old.path) view.diagnostics = list;
    else if (!p) {
      view.diagnostics = named || list;
      if (view.diagnostics !== list) patch = findingsDifference(list, view.diagnostics);
    } else if (base) {
      view.diagnostics = base.slice(0, p.start).concat(p.insert, base.slice(p.start + p.remove));
      patch = base === list ? p : findingsDifference(list, view.diagnostics);
    } else {
      // A patch of a list this page no longer has (it reopened the file meanwhile): keep the
      // list it has and ask again, for the whole list.
      view.diagnostics = list;
      view.findingsKey = undefined;
      setTimeout(analyze, 0);
    }
    delete view.findingsPatch;
  }
  const findingsChanged = view.findingsKey !== old?.findingsKey || view.path !== old?.path;
  state.view = view;
  if (view.findingsKey !== undefined && view.diagnostics) {
    recentFindings.delete(view.findingsKey);
    recentFindings.set(view.findingsKey, view.diagnostics);
    if (recentFindings.size > 4) recentFindings.delete(recentFindings.keys().next().value);
  }
  if (findingsChanged) renderFindings(patch);
  renderMetadata();
  updateButtons();
}

function setDirty(dirty) {
  state.dirty = dirty;
  $("dirty").hidden = !dirty;
  updateButtons();
}

function updateButtons() {
  const editable = !!state.ahap && !!state.path && state.mode !== "audio";
  $("undo").disabled = state.undo.length === 0;
  $("redo").disabled = state.redo.length === 0;
  $("save").disabled = !state.dirty || !editable || state.view?.format === "vij";
  $("delete").disabled = !state.selection;
  for (const id of ["add-transient", "add-continuous"]) $(id).disabled = !editable;
  for (const id of ["play-engine", "play-browser", "stop", "zoom-in", "zoom-out", "zoom-fit"]) $(id).disabled = !state.path;
  $("compare").disabled = !editable;
  $("filter").disabled = !state.files.length;
}

// ---------------------------------------------------------------- the model, from the AHAP JSON

function parameterValue(list, id) {
  let value = DEFAULTS[id] ?? 0;
  for (const p of list || []) if (p.ParameterID === id) value = p.ParameterValue;
  return value;
}

// The model of each version of the pattern, and of each Pattern entry object (an edit copies
// only what it changes, so a drag on a 6,000-entry pattern models one entry, not all of them).
const models = new WeakMap();
const entryModels = new WeakMap();

// What edit() made each version from: the version before it and the entries it copied.
const derivations = new WeakMap();

function model(ahap) {
  if (ahap && models.has(ahap)) return models.get(ahap);
  const patched = ahap ? patchedModel(ahap) : null;
  if (patched) { models.set(ahap, patched); return patched; }
  const events = [], curves = [], parameters = [];
  ((ahap && ahap.Pattern) || []).forEach((element, index) => {
    if (!element || typeof element !== "object") return;
    const known = entryModels.get(element);
    if (known && known.entry.index === index) { known.list === "events" ? events.push(known.entry) : known.list === "curves" ? curves.push(known.entry) : parameters.push(known.entry); return; }
    const made = modelEntry(element, index);
    if (!made) return;
    entryModels.set(element, made);
    made.list === "events" ? events.push(made.entry) : made.list === "curves" ? curves.push(made.entry) : parameters.push(made.entry);
  });
  const out = { events, curves, parameters, from: null, changed: [] };
  if (ahap) models.set(ahap, out);
  return out;
}

// The model of a version edit() made by changing a few entries in place (a drag's move, a
// nudge): the model of the version before with those entries' models replaced, so that a move
// costs the entries it changed, not the 6,000 of a 10-minute pattern. `from` is that model and
// `changed` the [before, after] entries, from which the drawing patches what it keeps (the events
// on screen). Null when the version is not such an edit (entries added, removed or moved).
// Only the last step is kept (a model forgets the one it was made from once another is made
// from it), so that a long drag does not keep every version it passed through.
function patchedModel(ahap) {
  const derivation = derivations.get(ahap);
  derivations.delete(ahap);
  const previous = derivation && models.get(derivation.from);
  if (!previous) return null;
  const before = derivation.from.Pattern || [], after = ahap.Pattern || [];
  if (before.length !== after.length) return null;
  const touched = new Set(derivation.touch);
  for (let i = 0; i < after.length; i += 1) if (after[i] !== before[i] && !touched.has(i)) return null;
  const out = { events: previous.events, curves: previous.curves, parameters: previous.parameters, from: previous, changed: [] };
  const copied = new Set();
  for (const i of touched) {
    if (after[i] === before[i]) continue;
    const old = entryModels.get(before[i]);
    const made = after[i] && typeof after[i] === "object" ? modelEntry(after[i], i) : null;
    if (!old || !made || old.list !== made.list || old.entry.index !== i) return null;
    entryModels.set(after[i], made);
    if (!copied.has(made.list)) { out[made.list] = out[made.list].slice(); copied.add(made.list); }
    const list = out[made.list];
    const at = indexPlace(list, i);
    if (list[at] !== old.entry) return null;
    list[at] = made.entry;
    out.changed.push([made.list, old.entry, made.entry]);
  }
  previous.from = null;
  previous.changed = [];
  return out;
}

// Where the entry of Pattern index `index` is (or goes) in a list of entries in Pattern order.
function indexPlace(list, index) {
  let lo = 0, hi = list.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (list[mid].index < index) lo = mid + 1; else hi = mid; }
  return lo;
}

function modelEntry(element, index) {
  {
    if (element.Event) {
      const e = element.Event;
      const haptic = e.EventType === "HapticTransient" || e.EventType === "HapticContinuous";
      const continuous = e.EventType === "HapticContinuous" || e.EventType === "AudioContinuous";
      return { list: "events", entry: {
        index, type: e.EventType, time: +e.Time || 0, continuous,
        duration: continuous ? +e.EventDuration || 0 : 0, haptic,
        // As played: a value outside 0...1 is clamped (and has a finding).
        intensity: clamp(+parameterValue(e.EventParameters, haptic ? "HapticIntensity" : "AudioVolume") || 0, 0, 1),
        sharpness: clamp(+parameterValue(e.EventParameters, "HapticSharpness") || 0, 0, 1),
      } };
    } else if (element.ParameterCurve) {
      const c = element.ParameterCurve;
      const t0 = +c.Time || 0;
      const points = (c.ParameterCurveControlPoints || []).map((p, i) => ({ i, time: t0 + (+p.Time || 0), value: clamp(+p.ParameterValue || 0, ...curveRange(c.ParameterID)) }));
      let end = t0;
      for (const p of points) end = Math.max(end, p.time);
      return { list: "curves", entry: { index, id: c.ParameterID, time: t0, end, points } };
    } else if (element.Parameter) {
      const p = element.Parameter;
      return { list: "parameters", entry: { index, id: p.ParameterID, time: +p.Time || 0, value: +p.ParameterValue || 0 } };
    }
  }
  return null;
}

// The longest pattern, seconds (AHAPLimits.maxDuration).
const LONGEST_PATTERN = 3600;

function duration() {
  const m = model(state.ahap);
  let end = 0;
  for (const e of m.events) end = Math.max(end, e.time + e.duration);
  // A control point held for good (Apple's trailer pattern ends a curve at 3.4e38 s) does not
  // stretch the timeline: past the longest pattern, as `plot` draws it, the curve ends at the axis.
  for (const c of m.curves) for (const p of c.points) if (p.time <= LONGEST_PATTERN) end = Math.max(end, p.time);
  for (const p of m.parameters) if (p.time <= LONGEST_PATTERN) end = Math.max(end, p.time);
  return Math.max(end, state.view?.duration || 0, state.mode === "audio" ? state.sound?.audio.seconds || 0 : 0);
}

// ---------------------------------------------------------------- editing

const clone = (value) => JSON.parse(JSON.stringify(value));
const round = (value, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;
const clamp = (value, lo, hi) => Math.min(hi, Math.max(lo, value));

// Every version of the pattern is kept as it was (an edit copies what it changes), so undo
// keeps references, not copies.
function remember() {
  state.undo.push(state.ahap);
  if (state.undo.length > 500) state.undo.shift();
  state.redo = [];
}

// `change` edits a new version of the pattern in which the Pattern entries `touch` are copies
// (the others are shared with the previous version and must not be changed).
function edit(change, touch = [], rememberIt = true) {
  // A pattern made from audio is changed through its options; save it to edit it.
  if (!state.ahap || state.mode === "audio") return;
  if (rememberIt) remember();
  const next = { ...state.ahap, Pattern: (state.ahap.Pattern || []).slice() };
  for (const i of touch) {
    const old = next.Pattern[i];
    if (!old) continue;
    const copy = clone(old);
    lineage.set(copy, old);
    next.Pattern[i] = copy;
  }
  change(next);
  derivations.set(next, { from: state.ahap, touch });
  state.ahap = next;
  setDirty(edits().length > 0);
  draw();
  analyze();
}

function setEventParameter(event, id, value) {
  event.EventParameters = event.EventParameters || [];
  const existing = event.EventParameters.find((p) => p.ParameterID === id);
  if (existing) existing.ParameterValue = value;
  else event.EventParameters.push({ ParameterID: id, ParameterValue: value });
}

// Undo and redo: the current pattern goes on one stack, the other stack's top comes back.
function travel(from, to) {
  if (!from.length) return;
  to.push(state.ahap);
  state.ahap = from.pop();
  state.selection = null;
  renderInspector();
  setDirty(edits().length > 0);
  draw();
  analyze();
}

function undo() { travel(state.undo, state.redo); }
function redo() { travel(state.redo, state.undo); }

function addEvent(type, time) {
  edit((ahap) => {
    ahap.Pattern = ahap.Pattern || [];
    const event = { Time: round(Math.max(0, time)), EventType: type, EventParameters: [
      { ParameterID: "HapticIntensity", ParameterValue: 0.8 }, { ParameterID: "HapticSharpness", ParameterValue: 0.5 }] };
    if (type === "HapticContinuous") event.EventDuration = 0.2;
    ahap.Pattern.push({ Event: event });
    state.selection = { kind: "event", index: ahap.Pattern.length - 1 };
  });
}

function deleteSelection() {
  const sel = state.selection;
  if (!sel) return;
  edit((ahap) => {
    if (sel.kind === "event") ahap.Pattern.splice(sel.index, 1);
    else if (sel.kind === "point") {
      const points = ahap.Pattern[sel.index].ParameterCurve.ParameterCurveControlPoints;
      points.splice(sel.point, 1);
      if (points.length === 0) ahap.Pattern.splice(sel.index, 1);
    }
  }, sel.kind === "point" ? [sel.index] : []);
  state.selection = null;
  renderInspector();
  updateButtons();
}

// Each edit is analysed by the server. Up to two requests are out at once, so an edit made
// while one is on its way is sent at once rather than after its answer; later edits wait and
// only the newest is sent, so a drag never queues a backlog. Answers are applied newest-wins:
// one that arrives after a newer one was applied is dropped, never drawn over it.
const MAX_IN_FLIGHT = 2;
function analyze() {
  if (state.mode === "audio") return convertAudio();
  const a = state.analysis;
  if (a.since === null) a.since = performance.now();
  if (a.inflight >= MAX_IN_FLIGHT) { a.pending = true; return; }
  runAnalysis();
}

async function runAnalysis() {
  const a = state.analysis;
  a.inflight += 1;
  const number = (a.sent += 1);
  a.out.set(number, a.since);
  a.since = null;
  const path = state.path;
  const base = state.base;
  try {
    const sent = performance.now();
    const timing = {};
    const view = await api("POST", "/api/analyze", analysisRequest(), false, timing);
    if (number <= a.applied) {
      metrics.dropped += 1;
    } else if (path === state.path) {
      // This answer answers every edit sent with it and before it: timed from the first of them.
      let started = Infinity;
      for (const [n, t] of a.out) if (n <= number) { started = Math.min(started, t ?? Infinity); a.out.delete(n); }
      if (started === Infinity) started = sent;
      a.applied = number;
      const received = performance.now();
      const server = view.analyzeMilliseconds;
      applyView(view);
      if (state.compare) await refreshDiff();
      draw();
      metrics.analyses += 1;
      const drawn = performance.now();
      metrics.edits.push(drawn - started);
      metrics.parts.push({ wait: sent - started, answer: received - sent, server, headers: timing.headers - sent, page: drawn - received });
      document.body.dataset.analyses = String(metrics.analyses);
      if (a.quiet) a.quiet = false;
      else status(summary());
    }
  } catch (error) {
    if (error.status === 409) staleAnalysis(path, base, error.body?.version);
    else banner("The studio could not analyse the edit: " + error.message, null, null, true);
  } finally {
    a.inflight -= 1;
    if (a.pending && a.inflight < MAX_IN_FLIGHT) {
      a.pending = false;
      if (state.mode === "audio") convertAudio();
      else runAnalysis();
    }
  }
}

// An analysis refused because the file is no longer the version it was made against. That is
// not news for the designer: the studio's message on the socket reloads the file and says who
// wrote it (another tab or another program), and this answer may come before or after it.
function staleAnalysis(path, base, version) {
  const a = state.analysis;
  if (path !== state.path) return;
  if (base !== state.base) {
    // The page took over the new version while the request was on its way: ask again.
    a.quiet = true;
    analyze();
  } else if (document.body.dataset.socket !== "open" && version) {
    // No message will come: the page reloads (or asks) by itself.
    a.lost = true;
    fileChanged(version, "disk");
  } else if (state.dirty && told.how.has(version)) {
    status(`${state.path} changed on disk; edits are not analysed until you save over it or load theirs`);
  } else {
    a.lost = true;
    // A message can be lost (a page too slow for the socket drops its oldest): with no word of
    // this version after a while, the page reloads by itself.
    if (version) setTimeout(() => { if (state.path === path && !told.how.has(version)) fileChanged(version, "disk"); }, STALE_WAIT);
  }
}
const STALE_WAIT = 2000;

// What the server needs to see this page's pattern: the file, its version and the edits, and
// the time on screen (the effective curves and the waveform come for that stretch only).
function analysisRequest() {
  const [t0, t1] = [timeAt(LEFT), timeAt(LEFT + width())];
  return { path: state.path, baseVersion: state.base, edits: edits(), tab: TAB,
    window: { start: Math.max(0, t0), end: Math.max(0, t1), columns: Math.max(1, Math.round(width())) },
    findingsKey: state.view?.findingsKey };
}

// Saves this page's whole pattern over the version `theirs` on disk: the server changes only
// what differs from that text.
async function overwrite(theirs) {
  try {
    const result = await api("PUT", "/api/pattern?path=" + encodeURIComponent(state.path), { ahap: state.ahap, baseVersion: theirs, tab: TAB });
    takeOver(state.ahap, result.version);
    setDirty(false);
    status(`saved ${state.path} over the other version`);
    document.body.dataset.saved = result.version;
  } catch (error) {
    banner("Save failed: " + error.message, null, null, true);
  }
}

async function save() {
  if (state.mode === "audio") return saveAudio(false);
  if (!state.ahap || !state.path) return;
  try {
    const sent = state.ahap;
    const result = await api("PUT", "/api/pattern?path=" + encodeURIComponent(state.path), { edits: edits(), baseVersion: state.base, tab: TAB });
    // The file is now the pattern sent: later edits are made against the text just written,
    // whose entries are the sent pattern's in order (the ones it added come last, where they were).
    const current = state.ahap;
    takeOver(sent, result.version);
    // Earlier versions of each entry (in the undo history) are that entry too; edits made while
    // the save was on its way stay unsaved, now against the new text.
    sent.Pattern.forEach((element, i) => {
      for (let e = lineage.get(element); e !== undefined && !origins.has(e); e = lineage.get(e)) origins.set(e, i);
    });
    state.ahap = current;
    setDirty(edits().length > 0);
    const losses = result.losses && result.losses.length ? ` (as .haptic: ${result.losses.join("; ")})` : "";
    status(`saved ${state.path}${losses}`);
    document.body.dataset.saved = result.version;
  } catch (error) {
    if (error.status === 409) {
      const theirs = error.body.version;
      banner(`${state.path} changed on disk since you opened it (another tab or an editor saved it). Your edit is not saved.`,
        ["Overwrite with mine", () => overwrite(theirs)],
        ["Load theirs (drop mine)", () => openFile(state.path)], true);
      document.body.dataset.conflict = "1";
    } else {
      banner("Save failed: " + error.message, null, null, true);
    }
  }
}

// ---------------------------------------------------------------- panels

// The findings list; with `patch` (the stretch of the list an analysis changed), only that
// stretch of its items is replaced. The items are kept in groups of about FINDINGS_GROUP, each
// laid out, painted and hit-tested only near the list's view (`content-visibility: auto`): a
// 10-minute pattern has 3,700 findings, and as items of their own each cost Chromium every frame
// (its visibility checks) and every mouse move (its hit test).
const FINDINGS_GROUP = 100;

function findingsGroup(items) {
  const group = document.createElement("div");
  group.className = "group";
  group.setAttribute("role", "none");
  // Its height until first shown (then the height it had): the items' usual height.
  group.style.containIntrinsicSize = `auto ${items.length * 38}px`;
  group.append(...items);
  return group;
}

function renderFindings(patch) {
  const ul = $("findings");
  const findings = state.view?.diagnostics || [];
  $("finding-count").textContent = findings.length ? `(${findings.length})` : "— none";
  let shown = 0;
  for (const group of ul.children) shown += group.children.length;
  if (patch && shown && shown - patch.remove + patch.insert.length === findings.length) {
    // The group holding the patch's first item (or the end of the list), and its place there.
    let group = ul.firstElementChild, at = patch.start;
    while (at >= group.children.length && group.nextElementSibling) { at -= group.children.length; group = group.nextElementSibling; }
    for (let left = patch.remove, from = group, offset = at; left > 0 && from;) {
      const n = Math.min(left, from.children.length - offset);
      for (let k = 0; k < n; k += 1) from.children[offset].remove();
      left -= n;
      const next = from.nextElementSibling;
      if (from !== group && !from.children.length) from.remove();
      from = next; offset = 0;
    }
    const next = group.children[at] || null;
    for (const f of patch.insert) group.insertBefore(findingItem(f), next);
    // A group that grew past twice its size is split; an emptied one goes.
    if (group.children.length > 2 * FINDINGS_GROUP) {
      const items = [...group.children];
      const parts = [];
      for (let k = 0; k < items.length; k += FINDINGS_GROUP) parts.push(findingsGroup(items.slice(k, k + FINDINGS_GROUP)));
      group.replaceWith(...parts);
    } else if (!group.children.length) {
      group.remove();
    }
    return;
  }
  const all = document.createDocumentFragment();
  for (let k = 0; k < findings.length; k += FINDINGS_GROUP) all.append(findingsGroup(findings.slice(k, k + FINDINGS_GROUP).map(findingItem)));
  ul.replaceChildren(all);
}

function findingItem(f) {
  const li = document.createElement("li");
  li.className = f.severity;
  const sev = document.createElement("span");
  sev.className = "severity";
  sev.textContent = f.severity;
  const code = document.createElement("span");
  code.className = "code";
  code.textContent = `[${f.code}] `;
  const place = document.createElement("span");
  place.className = "place";
  place.textContent = f.jsonPath + (f.line ? ` (line ${f.line}, column ${f.column})` : "") + (f.time !== undefined ? ` at ${f.time.toFixed(3)} s` : "");
  li.append(sev, code, document.createTextNode(f.message), place);
  li.dataset.code = f.code;
  li.onclick = () => {
    if (f.element !== undefined && state.ahap?.Pattern?.[f.element]) {
      const el = state.ahap.Pattern[f.element];
      state.selection = el.ParameterCurve ? { kind: "point", index: f.element, point: 0 } : { kind: "event", index: f.element };
      if (f.time !== undefined) centerOn(f.time);
      renderInspector();
      draw();
      $("timeline").classList.remove("flash");
      void $("timeline").offsetWidth;
      $("timeline").classList.add("flash");
    }
  };
  return li;
}

// Each answer shows the metadata and the counts again: the page changes only what differs, so
// that the browser does not lay out the panel again on each answer of a drag.
const shownMetadata = { json: null, stats: null };

function renderMetadata() {
  const meta = state.view?.metadata || {};
  const json = JSON.stringify(meta);
  if (json !== shownMetadata.json) {
    const dl = $("metadata");
    dl.replaceChildren();
    for (const [key, value] of Object.entries(meta)) {
      const dt = document.createElement("dt");
      dt.textContent = key;
      const dd = document.createElement("dd");
      dd.textContent = typeof value === "string" ? value : JSON.stringify(value);
      dl.append(dt, dd);
    }
    shownMetadata.json = json;
  }
  const m = model(state.ahap);
  const transients = m.events.filter((e) => e.type === "HapticTransient").length;
  const stats = `${m.events.length} events (${transients} transient, ${m.events.length - transients} other), `
    + `${m.curves.length} curves, ${m.parameters.length} parameters; ${(state.view?.duration || 0).toFixed(3)} s; `
    + `format ${state.view?.format || "?"}`;
  if (stats !== shownMetadata.stats) { $("stats").textContent = stats; shownMetadata.stats = stats; }
}

function renderInspector() {
  const sel = state.selection;
  $("inspector-empty").hidden = !!sel;
  $("inspector-fields").hidden = !sel;
  updateButtons();
  if (!sel || !state.ahap) return;
  const element = state.ahap.Pattern[sel.index];
  if (!element) { state.selection = null; return renderInspector(); }
  const show = (id, visible) => { $(id).hidden = !visible; };
  if (sel.kind === "event") {
    const e = element.Event;
    const haptic = e.EventType.startsWith("Haptic");
    $("inspector-kind").textContent = `${e.EventType} #${sel.index}`;
    $("f-time").value = e.Time;
    show("f-duration-label", e.EventType.endsWith("Continuous"));
    $("f-duration").value = e.EventDuration ?? 0;
    show("f-intensity-label", true);
    $("f-intensity").value = parameterValue(e.EventParameters, haptic ? "HapticIntensity" : "AudioVolume");
    show("f-sharpness-label", haptic);
    $("f-sharpness").value = parameterValue(e.EventParameters, "HapticSharpness");
    show("f-value-label", false);
  } else {
    const c = element.ParameterCurve;
    const p = c.ParameterCurveControlPoints[sel.point];
    $("inspector-kind").textContent = `${c.ParameterID} point ${sel.point + 1} of ${c.ParameterCurveControlPoints.length}`;
    $("f-time").value = round((+c.Time || 0) + p.Time, 6);
    show("f-duration-label", false);
    show("f-intensity-label", false);
    show("f-sharpness-label", false);
    show("f-value-label", true);
    $("f-value").value = p.ParameterValue;
  }
}

function inspectorChanged(field) {
  const sel = state.selection;
  if (!sel) return;
  const value = parseFloat($(field).value);
  if (!Number.isFinite(value)) return;
  edit((ahap) => {
    const element = ahap.Pattern[sel.index];
    if (sel.kind === "event") {
      const e = element.Event;
      const haptic = e.EventType.startsWith("Haptic");
      if (field === "f-time") e.Time = round(Math.max(0, value));
      if (field === "f-duration") e.EventDuration = round(Math.max(0, value));
      if (field === "f-intensity") setEventParameter(e, haptic ? "HapticIntensity" : "AudioVolume", round(clamp(value, 0, 1)));
      if (field === "f-sharpness") setEventParameter(e, "HapticSharpness", round(clamp(value, 0, 1)));
    } else {
      const c = element.ParameterCurve;
      const p = c.ParameterCurveControlPoints[sel.point];
      if (field === "f-time") p.Time = round(Math.max(0, value - (+c.Time || 0)));
      if (field === "f-value") p.ParameterValue = round(clamp(value, MULTIPLICATIVE.has(c.ParameterID) ? 0 : -1, 1));
    }
  }, [sel.index]);
  // The field shows what is stored (a typed 7 becomes 1).
  renderInspector();
}

// ---------------------------------------------------------------- compare

async function loadCompare(choice) {
  state.compare = null;
  state.diff = null;
  $("diff-panel").hidden = true;
  $("play-which-label").hidden = true;
  if (!choice || !state.path) { draw(); return; }
  try {
    const view = choice === "git"
      ? await api("GET", "/api/git?path=" + encodeURIComponent(state.path))
      : await api("GET", "/api/pattern?path=" + encodeURIComponent(choice.slice(5)));
    state.compare = { label: choice === "git" ? "last commit" : choice.slice(5), choice, view };
    $("play-which-label").hidden = false;
    await refreshDiff();
  } catch (error) {
    banner(`Cannot compare: ${error.message}`, null, null, true);
    $("compare").value = "";
  }
  draw();
}

// The differences of this file as a save would write it (the page's edits applied to its text)
// from the compared one (B): the pattern's changes and, against the last commit, the lines.
async function refreshDiff() {
  if (!state.compare || !state.ahap) return;
  const against = state.compare.choice === "git" ? "git" : state.compare.label;
  state.diff = await api("POST", "/api/diff", { path: state.path, baseVersion: state.base, edits: edits(), against });
  const ul = $("diff");
  ul.replaceChildren();
  const text = state.diff.text;
  const lines = text ? (text.identical ? "; the text is the committed text"
    : `; a save writes +${text.linesAdded} −${text.linesRemoved} lines against it`) : "";
  $("diff-summary").textContent = (state.diff.identical ? `— identical to ${state.compare.label}`
    : `— ${state.diff.changes.length} against ${state.compare.label} (B)`) + lines;
  if (text) {
    for (const hunk of text.hunks) {
      const li = document.createElement("li");
      li.className = "hunk";
      li.textContent = `line ${hunk.newLine}:\n` + hunk.lines.join("\n");
      ul.append(li);
    }
  }
  for (const change of state.diff.changes) {
    const li = document.createElement("li");
    li.textContent = change.line;
    li.dataset.kind = change.kind;
    li.onclick = () => { centerOn(change.time); draw(); };
    ul.append(li);
  }
  $("diff-panel").hidden = false;
}

// ---------------------------------------------------------------- playback

// Whether ▶ plays the compared pattern (B): what the Play menu shows, while one is compared.
function playingB() { return !!state.compare && $("play-which").value === "b"; }

// What to play: the compared pattern (B), else this file with the page's edits.
function playSource() {
  if (state.mode === "audio") return { path: null, ahap: state.ahap };
  if (playingB()) return { ahap: state.compare.view.ahap };
  return { path: state.path, baseVersion: state.base, edits: edits() };
}

function playOptions() {
  const options = { voice: $("voice").value, rate: parseFloat($("rate").value), from: 0, loop: false };
  if (state.range) {
    options.from = round(state.range[0], 6);
    options.to = round(state.range[1], 6);
    options.loop = $("loop").checked;
  } else if ($("loop").checked) {
    options.loop = true;
  }
  return options;
}

async function playEngine(fromTime) {
  stopBrowser();
  const options = playOptions();
  if (fromTime !== undefined) options.from = fromTime;
  try {
    const source = playingB() ? state.compare.view : state.view;
    const result = await api("POST", "/api/play", { path: state.path, ...playSource(), ...options });
    state.playhead = { mode: "engine", id: result.id, time: options.from, rate: options.rate,
      from: options.from, to: options.to, end: options.to ?? source?.duration ?? Infinity, loop: options.loop,
      playing: true, messages: 0 };
    status(`playing through the engine${options.loop ? " (looping)" : ""}`);
    animate();
  } catch (error) {
    banner(`${error.message}. Use ▶ Browser to hear it here.`, ["Play in the browser", () => playBrowser()], null, true);
  }
}

async function playBrowser(fromTime) {
  await api("POST", "/api/stop", {}).catch(() => {});
  stopBrowser();
  const options = playOptions();
  if (fromTime !== undefined) options.from = fromTime;
  let bytes;
  try {
    bytes = await api("POST", "/api/render", { path: state.path, ...playSource(), voice: options.voice, rate: options.rate }, true);
  } catch (error) {
    banner("Cannot play in the browser: " + error.message, null, null, true);
    return;
  }
  const context = state.audioContext || (state.audioContext = new AudioContext());
  const buffer = await context.decodeAudioData(bytes);
  const source = context.createBufferSource();
  source.buffer = buffer;
  source.connect(context.destination);
  const startAudio = options.from / options.rate;
  const end = options.to !== undefined ? options.to / options.rate : buffer.duration;
  if (options.loop) {
    source.loop = true;
    source.loopStart = startAudio;
    source.loopEnd = end;
  }
  const at = context.currentTime + 0.02;
  if (options.loop) source.start(at, startAudio); else source.start(at, startAudio, Math.max(0, end - startAudio));
  state.audio = source;
  state.playhead = { mode: "browser", at, context, rate: options.rate, from: options.from, to: options.to ?? buffer.duration * options.rate,
    loop: options.loop, playing: true, path: state.path };
  source.onended = () => {
    if (state.audio !== source) return;
    state.audio = null;
    if (state.playhead) state.playhead.playing = false;
    status(`played ${state.path} to the end`);
    draw();
  };
  status("playing in the browser");
  animate();
}

function stopBrowser() {
  if (state.audio) { try { state.audio.stop(); } catch (e) { /* already stopped */ } state.audio = null; }
  for (const source of state.alongside || []) { try { source.stop(); } catch (e) { /* already stopped */ } }
  state.alongside = [];
}

async function stopAll() {
  stopBrowser();
  // A stopped head is not left on screen (nor keeps moving).
  state.playhead = null;
  delete canvas.dataset.playhead;
  await api("POST", "/api/stop", {}).catch(() => {});
  draw();
}

function playheadTime() {
  const p = state.playhead;
  if (!p) return null;
  if (p.mode === "browser") {
    if (!p.playing) return null;
    let t = p.from + Math.max(0, p.context.currentTime - p.at) * p.rate;
    if (p.loop && t >= p.to) t = p.from + ((t - p.to) % Math.max(1e-6, p.to - p.from));
    return Math.min(t, p.to);
  }
  if (!p.playing) return p.time;
  // Between the engine's messages (about every 16 ms) the head follows the engine's clock.
  let t = p.startEngine === undefined ? p.from
    : p.from + (performance.now() / 1000 - p.offset - p.startEngine) * p.rate;
  if (p.loop && p.to !== undefined && t >= p.to) t = p.from + ((t - p.to) % Math.max(1e-6, p.to - p.from));
  return Math.max(p.from, p.loop ? t : Math.min(t, p.end));
}

function animate() {
  if (state.animating) return;
  state.animating = true;
  const step = () => {
    draw();
    if (state.playhead && state.playhead.playing) requestAnimationFrame(step);
    else { state.animating = false; draw(); }
  };
  requestAnimationFrame(step);
}

// What this page was told of the open file's versions written elsewhere: by whom ("studio":
// another tab's save; "disk": another program). One write can be told twice (the save's
// message and the file watcher's, in either order): the first starts the reload, and another
// tab's save is what the designer is told, whichever came first.
const told = { path: null, how: new Map(), said: null };

function fileChanged(version, how) {
  if (told.path !== state.path) { told.path = state.path; told.how.clear(); told.said = null; }
  const before = told.how.get(version);
  told.how.set(version, before === "studio" ? before : how);
  const reloaded = () => `reloaded: ${state.path} ${told.how.get(state.base) === "studio" ? "was saved in another tab" : "changed on disk"}`;
  if (version === state.base) {
    // Loaded already: a later word that another tab saved it corrects what the status said.
    if (told.said !== null && told.said === $("status").textContent && told.how.get(version) !== before) {
      told.said = reloaded();
      status(told.said);
    }
    return;
  }
  if (before !== undefined) return; // its reload (or the question) is under way
  if (!state.dirty) {
    const from = state.base;
    openFile(state.path, true).then(() => {
      if (state.base === from) return; // it could not be read: the banner says why
      told.said = reloaded();
      status(told.said);
      const a = state.analysis;
      if (a.lost) { a.lost = false; a.quiet = true; analyze(); }
    });
  } else {
    banner(`${state.path} changed on disk, and you have unsaved edits.`,
      ["Load theirs (drop mine)", () => openFile(state.path, true)], ["Keep mine", () => {}]);
  }
  document.body.dataset.changed = version;
}

function connectSocket() {
  const socket = new WebSocket(`ws://${location.host}/ws?token=${encodeURIComponent(token)}`);
  // A socket that opens (or reopens) after the file list arrived keeps what the list said.
  socket.onopen = () => {
    document.body.dataset.socket = "open";
    status(state.path ? summary() : state.files && !state.files.length ? emptyFolderStatus() : "connected");
  };
  socket.onmessage = (message) => {
    const data = JSON.parse(message.data);
    if (data.type === "playhead") {
      const p = state.playhead;
      if (p && p.mode === "engine" && p.id === data.id) {
        // The engine clock, mapped to this page's: the smallest (arrival - engineTime) seen is the
        // offset with the least delay in it, so a message held up in a busy page does not pull
        // the head back.
        const offset = performance.now() / 1000 - data.engineTime;
        p.offset = p.offset === undefined ? offset : Math.min(p.offset, offset);
        p.startEngine = data.engineTime - (data.time - p.from) / p.rate;
        p.time = data.time;
        p.playing = data.playing;
        p.messages += 1;
        if (!data.playing) { status("played to the end"); draw(); }
      }
    } else if (data.type === "changed" && data.path === state.path) {
      if (data.tab === TAB) return; // our own save
      fileChanged(data.version, data.by === "studio" ? "studio" : "disk");
    }
  };
  socket.onclose = () => { document.body.dataset.socket = "closed"; status("disconnected from the studio; retrying…"); setTimeout(connectSocket, 1000); };
}

// ---------------------------------------------------------------- audio to haptics

// An audio file opens as its sound beside the pattern the server makes of it with the options
// in the audio bar; every change of an option makes and draws it again. The pattern is not
// edited here: it is saved as an .ahap beside the sound, and that file is edited like any other.
async function openAudio(path) {
  if (path !== state.path) {
    stopBrowser();
    if (state.playhead) api("POST", "/api/stop", {}).catch(() => {});
    state.playhead = null;
    state.range = null;
    state.hover = null;
    state.compare = null;
    state.diff = null;
    $("compare").value = "";
    $("diff-panel").hidden = true;
    $("play-which-label").hidden = true;
    delete canvas.dataset.playhead;
    delete canvas.dataset.audioColumns;
  }
  const entering = state.mode !== "audio" || path !== state.path;
  state.mode = "audio";
  setLanes(AUDIO_LANES);
  state.path = path;
  state.sound = null;
  state.view = null;
  state.ahap = null;
  state.undo = []; state.redo = [];
  state.selection = null;
  if (entering) setAudioOptions({});
  $("audio-bar").hidden = false;
  const base = path.slice(path.lastIndexOf("/") + 1);
  $("save-name").value = base.replace(/\.[^.]*$/, "") + ".ahap";
  setFileName(path);
  renderFileList();
  renderInspector();
  setDirty(false);
  history.replaceState(null, "", "#" + encodeURIComponent(path));
  // The first pattern made (now, or after a request still on its way) fits the view.
  state.fitOnSound = true;
  draw();
  await convertAudio();
}

// Back to a pattern file: the usual lanes, no audio bar.
function leaveAudio() {
  if (state.mode !== "audio") return;
  state.mode = "pattern";
  state.sound = null;
  setLanes(PATTERN_LANES);
  $("audio-bar").hidden = true;
  delete canvas.dataset.audioColumns;
}

const AUDIO_DEFAULTS = { gain: 0, sensitivity: 0.5, resolution: 0.75, content: "both", minimumGap: 0.03, maxEventsPerSecond: 30 };

function setAudioOptions(options) {
  const o = { ...AUDIO_DEFAULTS, ...options };
  $("o-gain").value = o.gain;
  $("o-sensitivity").value = o.sensitivity;
  $("o-resolution").value = o.resolution;
  $("o-content").value = o.content;
  $("o-gap").value = o.minimumGap;
  $("o-cap").value = o.maxEventsPerSecond;
  $("o-band-low").value = o.band ? o.band.low : "";
  $("o-band-high").value = o.band ? o.band.high : "";
  showOptionValues();
}

function showOptionValues() {
  $("o-sensitivity-value").textContent = Number($("o-sensitivity").value).toFixed(2);
  $("o-resolution-value").textContent = Number($("o-resolution").value).toFixed(2);
}

// The options as the server takes them; a field left empty (or not a number) is the default.
function audioOptions() {
  const number = (id) => { const v = parseFloat($(id).value); return Number.isFinite(v) ? v : undefined; };
  const options = { gain: number("o-gain"), sensitivity: number("o-sensitivity"), resolution: number("o-resolution"),
    content: $("o-content").value, minimumGap: number("o-gap"), maxEventsPerSecond: number("o-cap") };
  if (options.maxEventsPerSecond !== undefined) options.maxEventsPerSecond = Math.round(options.maxEventsPerSecond);
  const low = number("o-band-low"), high = number("o-band-high");
  if (low !== undefined && high !== undefined) options.band = { low, high };
  for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key];
  return options;
}

// Makes the pattern again (with the options and the stretch on screen); while one request is out,
// later changes wait and only the newest is sent.
async function convertAudio() {
  const a = state.analysis;
  if (a.inflight) { a.pending = true; return null; }
  a.inflight += 1;
  const path = state.path;
  const body = { path, options: audioOptions() };
  if (state.sound && state.sound.path === path) {
    const [t0, t1] = [timeAt(LEFT), timeAt(LEFT + width())];
    body.window = { start: Math.max(0, t0), end: Math.max(0, t1), columns: Math.max(1, Math.round(width())) };
  }
  let made = null;
  try {
    made = await api("POST", "/api/audio/convert", body);
    if (path === state.path && state.mode === "audio") {
      banner(null);
      state.sound = made;
      state.ahap = made.pattern.ahap;
      state.original = made.pattern.ahap;
      state.base = made.pattern.version;
      applyView(made.pattern);
      $("audio-counts").textContent = `${made.transients} transient${made.transients === 1 ? "" : "s"}, ${made.continuous} continuous`
        + (made.droppedForBudget ? ` (${made.droppedForBudget} over the cap left out)` : "");
      document.body.dataset.audioEvents = String(made.transients + made.continuous);
      metrics.analyses += 1;
      document.body.dataset.analyses = String(metrics.analyses);
      if (state.fitOnSound) { state.fitOnSound = false; fit(); }
      draw();
      status(audioSummary());
      if (metrics.ready === null) {
        metrics.ready = performance.now();
        document.body.dataset.ready = "1";
      }
    }
  } catch (error) {
    banner(`Cannot make haptics from ${path}: ${error.message}`, null, null, true);
    status(`cannot convert ${path}`);
    made = null;
  } finally {
    a.inflight -= 1;
    // What waited is sent for whatever is open now (a pattern file may have been opened meanwhile).
    if (a.pending) { a.pending = false; if (state.mode === "audio") convertAudio(); else analyze(); }
  }
  return made;
}

function audioSummary() {
  const s = state.sound;
  return `${state.path}: ${s.audio.seconds.toFixed(3)} s of ${s.audio.container}, ${s.audio.sampleRate} Hz, `
    + `${s.audio.channels} channel${s.audio.channels === 1 ? "" : "s"}; ${s.transients} transient${s.transients === 1 ? "" : "s"}, `
    + `${s.continuous} continuous events; made in ${s.analyzeMilliseconds} ms`;
}

// Saves the pattern the options make as the named .ahap beside the sound; an existing file is
// replaced only after the user says so.
async function saveAudio(overwrite) {
  if (state.mode !== "audio" || !state.path) return;
  const name = $("save-name").value.trim();
  try {
    const withAudio = $("save-with-audio").checked;
    const result = await api("POST", "/api/audio/save", { path: state.path, name, options: audioOptions(), overwrite, withAudio, tab: TAB });
    status(`saved ${result.path} (${result.events} events, ${result.bytes} bytes)${result.replaced ? ", replacing the old one" : ""}`);
    await loadFiles().catch(() => {});
    document.body.dataset.audioSaved = result.path;
  } catch (error) {
    if (error.status === 409) {
      banner(`${error.body.path} exists. Replace it with the pattern made from ${state.path}?`,
        ["Replace it", () => saveAudio(true)], ["Keep it", () => status("not saved")], true);
      document.body.dataset.audioConflict = error.body.path;
    } else {
      banner("Save failed: " + error.message, null, null, true);
    }
  }
}

// Decoded sounds for the browser: the audio file itself, or the render of the pattern.
async function decoded(key, fetchBytes) {
  if (state.buffers[key]) return state.buffers[key];
  const context = state.audioContext || (state.audioContext = new AudioContext());
  const buffer = await context.decodeAudioData(await fetchBytes());
  state.buffers = { [key]: buffer, ...Object.fromEntries(Object.entries(state.buffers).slice(0, 3)) };
  return buffer;
}

// Plays the sound, the haptics (the pattern's render) or both at once, in the browser, so one
// can A/B them; from the selection's start when there is one.
async function playAudio(which) {
  await api("POST", "/api/stop", {}).catch(() => {});
  stopBrowser();
  if (state.mode !== "audio" || !state.sound) return;
  const path = state.path;
  const options = playOptions();
  let buffers;
  try {
    const sound = () => decoded(`audio:${path}:${state.sound.version}`,
      () => api("GET", "/api/audio/file?path=" + encodeURIComponent(path), undefined, true));
    const haptics = () => decoded(`haptics:${path}:${state.sound.pattern.version}`,
      () => api("POST", "/api/render", { ahap: state.ahap, voice: options.voice }, true));
    buffers = which === "audio" ? [await sound()] : which === "haptics" ? [await haptics()] : [await sound(), await haptics()];
  } catch (error) {
    banner("Cannot play in the browser: " + error.message, null, null, true);
    return;
  }
  if (path !== state.path) return;
  const context = state.audioContext;
  const at = context.currentTime + 0.03;
  const from = options.from;
  const longest = Math.max(...buffers.map((b) => b.duration));
  const to = options.to ?? longest;
  const sources = buffers.map((buffer) => {
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(context.destination);
    if (options.loop) { source.loop = true; source.loopStart = from; source.loopEnd = Math.min(to, buffer.duration); source.start(at, from); }
    else if (from < buffer.duration) source.start(at, from, Math.max(0, Math.min(to, buffer.duration) - from));
    return source;
  });
  state.audio = sources[0];
  state.alongside = sources.slice(1);
  state.playhead = { mode: "browser", at, context, rate: 1, from, to, loop: options.loop, playing: true, path };
  const longestSource = sources[buffers.findIndex((b) => b.duration === longest)];
  longestSource.onended = () => {
    if (!sources.includes(state.audio)) return;
    state.audio = null;
    state.alongside = [];
    if (state.playhead) state.playhead.playing = false;
    status(`played ${path} to the end`);
    draw();
  };
  document.body.dataset.audioPlaying = which;
  status(`playing ${which === "both" ? "the sound and its haptics" : which === "audio" ? "the sound" : "the haptics"} in the browser`);
  animate();
}

function wireAudio() {
  const changed = () => { showOptionValues(); if (state.mode === "audio") convertAudio(); };
  for (const id of ["o-gain", "o-sensitivity", "o-resolution", "o-gap", "o-cap", "o-band-low", "o-band-high"]) $(id).oninput = changed;
  $("o-content").onchange = changed;
  $("o-defaults").onclick = () => { setAudioOptions({}); changed(); };
  $("play-audio").onclick = () => playAudio("audio");
  $("play-haptics").onclick = () => playAudio("haptics");
  $("play-both").onclick = () => playAudio("both");
  $("save-audio").onclick = () => saveAudio(false);
}

// ---------------------------------------------------------------- drawing

const canvas = $("timeline");
const ctx2d = canvas.getContext("2d");

// The timeline's size in CSS pixels, kept from its ResizeObserver: a draw or a request that read
// the canvas's layout would make Chromium lay out whatever an answer or a mouse move just changed
// on the page (the findings, the inspector, the readout) then and there, and again in the frame.
const canvasSize = { w: canvas.clientWidth, h: canvas.clientHeight };
new ResizeObserver(() => {
  const size = { w: canvas.clientWidth, h: canvas.clientHeight };
  if (size.w === canvasSize.w && size.h === canvasSize.h) return;
  Object.assign(canvasSize, size);
  draw();
}).observe(canvas);
// The page's colours (its CSS variables), read once.
const colors = new Map();
function color(name) {
  if (!colors.has(name)) colors.set(name, getComputedStyle(document.documentElement).getPropertyValue(name).trim());
  return colors.get(name);
}

function width() { return canvasSize.w - LEFT - 8; }
function x(t) { return LEFT + (t - state.viewport.start) / state.viewport.spp; }
function timeAt(px) { return state.viewport.start + (px - LEFT) * state.viewport.spp; }
function laneY(lane, value, lo = 0, hi = 1) { const [top, bottom] = LANES[lane]; return bottom - (value - lo) / (hi - lo) * (bottom - top); }
function laneValue(lane, y, lo = 0, hi = 1) { const [top, bottom] = LANES[lane]; return lo + (bottom - y) / (bottom - top) * (hi - lo); }
function laneAt(y) { for (const [name, [top, bottom]] of Object.entries(LANES)) if (y >= top - 6 && y <= bottom + 6) return name; return null; }
function curveRange(id) { return MULTIPLICATIVE.has(id) ? [0, 1] : [-1, 1]; }

function fit() {
  const d = Math.max(duration(), 0.05);
  state.viewport.start = -d * 0.02;
  state.viewport.spp = (d * 1.06) / Math.max(100, width());
  viewportChanged();
}

function zoom(factor, around) {
  const t = around ?? timeAt(LEFT + width() / 2);
  const px = x(t);
  state.viewport.spp = clamp(state.viewport.spp * factor, 1e-5, 10);
  state.viewport.start = t - (px - LEFT) * state.viewport.spp;
  draw();
  viewportChanged();
}

// After a zoom or pan settles, the server sends the effective curves and the waveform for what
// is on screen, so the drawing refines as one zooms in.
let viewportTimer = null;
function viewportChanged() {
  clearTimeout(viewportTimer);
  viewportTimer = setTimeout(() => { if (state.path && state.view) analyze(); }, 120);
}

function centerOn(t) { state.viewport.start = t - (width() / 2) * state.viewport.spp; }

function niceStep(seconds) {
  const raw = seconds / 8;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

// What each parameter's curve is drawn in: the intensity controls in the intensity colour, the
// sharpness controls in the sharpness colour, the rest (attack, decay, release...) in others.
function curveColor(id, color) {
  if (/Intensity|Volume/.test(id)) return color("--intensity");
  if (/Sharpness|Brightness|Pitch/.test(id)) return color("--sharpness");
  return color("--curve");
}

// Runs `body` with drawing clipped to the plot area of `lane` (nothing spills into the label
// gutter, past the right edge, or into another lane).
function inLane(lane, w, body, g = ctx2d) {
  const [top, bottom] = LANES[lane];
  g.save();
  g.beginPath();
  g.rect(LEFT + 1, top - 6, w - LEFT - 9, bottom - top + 12);
  g.clip();
  body();
  g.restore();
}

// The events other than the selected one, drawn once into an offscreen canvas and copied onto
// the timeline until they, the view or the selection change: a drag redraws only what it moves
// (a whole 10-minute pattern on screen is 6,000 events). The layer is painted in vertical strips
// of `EVENT_STRIP` device pixels, each clipped to its strip and drawn from the events that reach
// it, the whole layer too: a strip painted again alone is then the same pixels as in a whole
// repaint (one path cut at a strip's edge is rasterised differently from the whole path), so a new
// selection paints again only the strips where the events that came and went are.
const EVENT_STRIP = 32;
const eventLayer = { canvas: null, key: "", events: [], top: 0 };
const seriesLayer = { canvas: null, key: "", effective: null, top: 0 };
const findingMarks = { diagnostics: null, key: "", marked: null, marks: null };
const curvesLayer = { canvas: null, key: "", curves: [], parameters: [], labels: new Map(), top: 0 };

// Paints `layer` into its offscreen canvas when `stale` (`paint` gets that canvas's context),
// then copies it onto the timeline. The layer holds the rows `rows` (CSS pixels, top and bottom)
// of the timeline, where what it draws is clipped to: only they are copied on each draw.
function copyLayer(g, layer, stale, w, h, dpr, paint, rows) {
  const top = Math.max(0, Math.floor(rows[0] * dpr)), bottom = Math.max(top, Math.min(canvas.height, Math.ceil(rows[1] * dpr)));
  if (stale || !layer.canvas || layer.top !== top || layer.canvas.width !== canvas.width || layer.canvas.height !== bottom - top) {
    layer.canvas = layer.canvas || document.createElement("canvas");
    layer.canvas.width = canvas.width;
    layer.canvas.height = bottom - top;
    layer.top = top;
    const lg = layer.canvas.getContext("2d");
    layerTransform(lg, layer, dpr);
    lg.clearRect(0, 0, w, h);
    paint(lg);
  }
  if (layer.canvas.width && layer.canvas.height) {
    g.save();
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.drawImage(layer.canvas, 0, layer.top);
    g.restore();
  }
}

// A layer's context drawing in the timeline's CSS pixels.
function layerTransform(lg, layer, dpr) { lg.setTransform(dpr, 0, 0, dpr, 0, -layer.top); }

function draw() {
  const drawStarted = performance.now();
  const dpr = window.devicePixelRatio || 1;
  const { w, h } = canvasSize;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  const g = ctx2d;
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  const t0 = timeAt(LEFT), t1 = timeAt(w - 8);
  const empty = !state.path;

  // Lanes with their value scales, and the time axis.
  g.font = "11px system-ui, sans-serif";
  g.lineWidth = 1;
  const scales = { audio: ["+1", "−1"], intensity: ["1", "0"], sharpness: ["1", "0"], waveform: ["+1", "−1"], curves: ["+1", "−1"] };
  for (const [name, [top, bottom]] of Object.entries(LANES)) {
    if (name === "axis") continue;
    g.strokeStyle = "#262a33";
    g.strokeRect(LEFT + 0.5, top + 0.5, w - LEFT - 8, bottom - top);
    g.fillStyle = name === "intensity" ? color("--intensity") : name === "sharpness" ? color("--sharpness") : color("--muted");
    g.textAlign = "left";
    g.fillText(name === "intensity" ? "intens." : name === "sharpness" ? "sharp." : name === "waveform" ? "wave" : name, 3, (top + bottom) / 2 + 4);
    g.fillStyle = color("--muted");
    g.textAlign = "right";
    const [hi, lo] = scales[name];
    g.fillText(hi, LEFT - 3, top + 9);
    g.fillText(lo, LEFT - 3, bottom);
  }
  g.textAlign = "left";
  if (empty) {
    g.fillStyle = color("--muted");
    g.textAlign = "center";
    g.fillText(state.files.length ? "Open a file from the list." : "No pattern or audio files in the served folders.", (LEFT + w) / 2, LANES.intensity[0] + 60);
    g.textAlign = "left";
    metrics.draws += 1;
    canvas.dataset.draws = String(metrics.draws);
    return;
  }
  const step = niceStep(t1 - t0);
  g.textAlign = "center";
  g.strokeStyle = "#262a33";
  for (let t = Math.ceil(t0 / step) * step; t <= t1; t += step) {
    const px = Math.round(x(t)) + 0.5;
    g.beginPath(); g.moveTo(px, (LANES.audio || LANES.intensity)[0]); g.lineTo(px, LANES.curves[1]); g.stroke();
    g.fillStyle = color("--muted");
    g.fillText(`${round(t, 4)} s`, px, LANES.axis[0] + 14);
  }
  g.textAlign = "left";

  // The selected range: shaded, with its edges marked.
  if (state.range) {
    const a = x(state.range[0]), b = x(state.range[1]);
    g.save();
    g.beginPath(); g.rect(LEFT + 1, 0, w - LEFT - 9, h); g.clip();
    g.fillStyle = "rgba(120,170,255,0.16)";
    g.fillRect(a, LANES.intensity[0], b - a, LANES.curves[1] - LANES.intensity[0]);
    g.strokeStyle = "rgba(160,200,255,0.8)";
    g.beginPath(); g.moveTo(Math.round(a) + 0.5, LANES.intensity[0]); g.lineTo(Math.round(a) + 0.5, LANES.curves[1]);
    g.moveTo(Math.round(b) + 0.5, LANES.intensity[0]); g.lineTo(Math.round(b) + 0.5, LANES.curves[1]); g.stroke();
    g.restore();
  }

  // Differences against the compared pattern.
  if (state.diff) {
    for (const lane of ["intensity", "sharpness"]) inLane(lane, w, () => {
      for (const change of state.diff.changes) {
        g.fillStyle = change.kind === "added" ? "rgba(90,200,120,0.16)" : change.kind === "removed" ? "rgba(255,80,80,0.16)" : "rgba(255,200,80,0.14)";
        const a = x(change.start), b = Math.max(x(change.end), a + 3);
        g.fillRect(a, LANES[lane][0], b - a, LANES[lane][1] - LANES[lane][0]);
      }
    });
  }

  // Effective intensity (filled) and sharpness, after curves and dynamic parameters.
  const eff = state.view?.effective;
  const other = state.compare?.view?.effective;
  const range = eff && eff.times.length ? seriesRange(eff.times, t0, t1) : null;
  const dense = range !== null && range[1] - range[0] > w - LEFT - 8;
  // The rows of the intensity and sharpness lanes (with their clip's margin): the series' and the
  // events' layers.
  const eventRows = [LANES.intensity[0] - 6, LANES.sharpness[1] + 6];
  if (dense) {
    // Drawn once per analysis and view into a layer of its own, copied until then; an analysis
    // of the same view paints again only the columns where its samples differ from the last.
    const key = [w, h, dpr, state.viewport.start, state.viewport.spp, color("--intensity"), color("--sharpness"), JSON.stringify(LANES)].join(" ");
    const changed = seriesLayer.canvas && seriesLayer.key === key && seriesLayer.effective !== eff ? changedColumns(seriesLayer.effective, eff) : null;
    if (changed) {
      const lg = seriesLayer.canvas.getContext("2d");
      layerTransform(lg, seriesLayer, dpr);
      if (changed.length) {
        const [c0, c1] = changed;
        // Every sample the columns' bars use: from the one before the first column to the first after the last.
        const [first, last] = seriesRange(eff.times, timeAt(c0), timeAt(c1 + 1));
        for (const lane of ["intensity", "sharpness"]) inLane(lane, w, () => {
          lg.beginPath(); lg.rect(c0, 0, c1 + 1 - c0, h); lg.clip();
          lg.clearRect(c0, 0, c1 + 1 - c0, h);
          drawSeriesColumns(lg, eff.times, eff[lane], lane, color("--" + lane), Math.max(first - 1, range[0]), Math.min(last + 1, range[1]));
        }, lg);
        metrics.seriesColumns += c1 + 1 - c0;
      }
      seriesLayer.effective = eff;
    }
    copyLayer(g, seriesLayer, !changed && (seriesLayer.key !== key || seriesLayer.effective !== eff), w, h, dpr, (lg) => {
      for (const lane of ["intensity", "sharpness"]) inLane(lane, w, () => drawSeriesColumns(lg, eff.times, eff[lane], lane, color("--" + lane), ...range), lg);
      seriesLayer.key = key;
      seriesLayer.effective = eff;
      metrics.seriesLayers += 1;
      metrics.seriesColumns += w;
    }, eventRows);
  }
  for (const lane of ["intensity", "sharpness"]) inLane(lane, w, () => {
    if (range && !dense) drawSeries(eff.times, eff[lane], lane, color("--" + lane), true, t0, t1);
    if (other && other.times.length) {
      g.setLineDash([5, 4]);
      drawSeries(other.times, other[lane], lane, lane === "intensity" ? "#cfe6ff" : "#ffe0b8", false, t0, t1);
      g.setLineDash([]);
    }
  });

  // The rendered waveform (of what is on screen, after each edit and zoom), min and max per column.
  const wave = state.view?.waveform;
  canvas.dataset.waveformNote = "";
  if (wave && wave.min.length) inLane("waveform", w, () => {
    const [top, bottom] = LANES.waveform;
    const mid = (top + bottom) / 2, half = (bottom - top) / 2 - 1;
    const begin = wave.start || 0;
    const perColumn = wave.seconds / wave.min.length;
    g.strokeStyle = color("--waveform");
    g.lineWidth = 1;
    g.beginPath();
    const first = Math.max(0, Math.floor((t0 - begin) / perColumn)), last = Math.min(wave.min.length - 1, Math.ceil((t1 - begin) / perColumn));
    for (let i = first; i <= last; i += 1) {
      const px = Math.round(x(begin + i * perColumn)) + 0.5;
      g.moveTo(px, mid - clamp(wave.max[i], -1, 1) * half);
      g.lineTo(px, mid - clamp(wave.min[i], -1, 1) * half + 0.5);
    }
    g.stroke();
    // A window longer than what the server renders (300 s): the note goes where the drawing
    // stops, in the empty part of the lane, or over its start on a backdrop when that is too narrow.
    let note = "", noteX = 0;
    if (wave.truncated) {
      note = begin > 0 ? `waveform: ${wave.seconds} s from ${+begin.toFixed(2)} s` : `waveform: first ${wave.seconds} s`;
      const width = g.measureText(note).width;
      const after = Math.round(x(begin + wave.seconds)) + 6;
      noteX = after >= LEFT + 6 && after + width <= w - 10 ? after : LEFT + 6;
      if (noteX !== after) { g.fillStyle = color("--bg"); g.fillRect(noteX - 3, top + 1, width + 6, 14); }
      g.fillStyle = color("--muted");
      g.fillText(note, noteX, top + 12);
    }
    if (note) canvas.dataset.waveformNote = `${note} @${Math.round(noteX)}`;
  });

  // The sound (audio to haptics): min and max per column, as the server summarised it for the
  // stretch on screen (it refines as one zooms in).
  const sound = state.mode === "audio" ? state.sound?.waveform : null;
  if (sound && sound.min.length) inLane("audio", w, () => {
    const [top, bottom] = LANES.audio;
    const mid = (top + bottom) / 2, half = (bottom - top) / 2 - 1;
    const perColumn = sound.seconds / sound.min.length;
    g.strokeStyle = color("--audio");
    g.lineWidth = 1;
    g.beginPath();
    const first = Math.max(0, Math.floor((t0 - sound.start) / perColumn)), last = Math.min(sound.min.length - 1, Math.ceil((t1 - sound.start) / perColumn));
    let drawnColumns = 0;
    for (let i = first; i <= last; i += 1) {
      const px = Math.round(x(sound.start + i * perColumn)) + 0.5;
      g.moveTo(px, mid - clamp(sound.max[i], -1, 1) * half);
      g.lineTo(px, mid - clamp(sound.min[i], -1, 1) * half + 0.5);
      drawnColumns += 1;
    }
    g.stroke();
    canvas.dataset.audioColumns = String(drawnColumns);
  });

  // Events from the local AHAP (so an edit shows before the server has answered): intensity in
  // the intensity lane in its colour, sharpness in the sharpness lane in its colour.
  const m = model(state.ahap);
  const selectedEvent = state.selection?.kind === "event" ? state.selection.index : -1;
  const { visible, others } = eventsOnScreen(m, t0, t1, selectedEvent);
  const drawn = visible.length;
  // Events of one colour are one path of lines and one of fills (a whole 10-minute pattern on
  // screen is 6,000 events), the selected one after them.
  const eventShapes = (list, lane, selected) => {
    const lines = new Path2D(), fills = new Path2D();
    for (const e of list) {
      const value = lane === "intensity" ? e.intensity : e.sharpness;
      const y = laneY(lane, value);
      if (e.continuous) {
        const a = x(e.time), b = Math.max(x(e.time + e.duration), a + 2);
        if (lane === "intensity") {
          lines.rect(a, y, b - a, LANES.intensity[1] - y);
          fills.rect(b - 2, y, 3, Math.min(8, LANES.intensity[1] - y));
        } else {
          lines.moveTo(a, y); lines.lineTo(b, y);
        }
      } else {
        const px = x(e.time);
        if (lane === "intensity") { lines.moveTo(px, LANES.intensity[1]); lines.lineTo(px, y); }
        const r = selected ? 5 : lane === "intensity" ? 3.5 : 2.5;
        fills.moveTo(px + r, y); fills.arc(px, y, r, 0, 2 * Math.PI);
      }
    }
    return { lines, fills };
  };
  const layerKey = [w, h, dpr, state.viewport.start, state.viewport.spp, color("--intensity"), color("--sharpness"), color("--waveform"), JSON.stringify(LANES)].join(" ");
  const strip = Math.max(1, Math.round(EVENT_STRIP * dpr));
  const strips = Math.ceil(canvas.width / strip);
  // The strips an event's marks reach (its line, dot or box and their antialiasing).
  const stripsOf = (e) => {
    const a = x(e.time), b = e.continuous ? Math.max(x(e.time + e.duration), a + 2) : a;
    return [Math.max(0, Math.floor((a - 6) * dpr / strip)), Math.min(strips - 1, Math.floor((b + 6) * dpr / strip))];
  };
  const sameEvents = eventLayer.events === others || (eventLayer.events.length === others.length && others.every((e, i) => e === eventLayer.events[i]));
  let stale = !eventLayer.canvas || eventLayer.key !== layerKey;
  if (!stale && !sameEvents) {
    // The strips of the events that left the layer and of those that came into it.
    const before = new Set(eventLayer.events), after = new Set(others);
    const dirty = new Set();
    const mark = (e) => { const [first, last] = stripsOf(e); for (let k = first; k <= last; k += 1) dirty.add(k); };
    for (const e of eventLayer.events) if (!after.has(e)) mark(e);
    for (const e of others) if (!before.has(e)) mark(e);
    if (dirty.size <= strips / 2) {
      paintEventStrips(eventLayer.canvas.getContext("2d"), [...dirty], strip, true);
      eventLayer.events = others;
    } else {
      stale = true;
    }
  }
  // Paints the strips `list` of the layer from `others` (clearing each first when `clear`).
  function paintEventStrips(lg, list, strip, clear) {
    const wanted = new Map(list.map((k) => [k, []]));
    for (const e of others) {
      const [first, last] = stripsOf(e);
      for (let k = first; k <= last; k += 1) wanted.get(k)?.push(e);
    }
    for (const [k, events] of wanted) {
      lg.save();
      lg.setTransform(1, 0, 0, 1, 0, 0);
      lg.beginPath(); lg.rect(k * strip, 0, strip, lg.canvas.height); lg.clip();
      if (clear) lg.clearRect(k * strip, 0, strip, lg.canvas.height);
      layerTransform(lg, eventLayer, dpr);
      for (const lane of ["intensity", "sharpness"]) inLane(lane, w, () => {
        const base = color("--" + lane);
        const groups = [[base, events.filter((e) => e.haptic)]];
        if (lane === "intensity") groups.push([color("--waveform"), events.filter((e) => !e.haptic)]);
        for (const [stroke, group] of groups) {
          if (!group.length) continue;
          const { lines, fills } = eventShapes(group, lane, false);
          lg.strokeStyle = stroke; lg.fillStyle = stroke; lg.lineWidth = 1;
          lg.stroke(lines); lg.fill(fills);
        }
      }, lg);
      lg.restore();
      metrics.eventStrips += 1;
    }
  }
  copyLayer(g, eventLayer, stale, w, h, dpr, (lg) => {
    paintEventStrips(lg, Array.from({ length: strips }, (_, k) => k), strip, false);
    eventLayer.key = layerKey;
    eventLayer.events = others;
    metrics.eventLayers += 1;
  }, eventRows);
  const selectedOnScreen = selectedEvent >= 0 ? visible[indexPlace(visible, selectedEvent)] : undefined;
  for (const lane of ["intensity", "sharpness"]) inLane(lane, w, () => {
    for (const e of selectedOnScreen?.index === selectedEvent ? [selectedOnScreen] : []) {
      if (lane === "sharpness" && !e.haptic) continue;
      const { lines, fills } = eventShapes([e], lane, true);
      g.strokeStyle = color("--select"); g.fillStyle = color("--select"); g.lineWidth = 2;
      g.stroke(lines); g.fill(fills);
      // A ring around the selection, so it shows on a dense file.
      const y = laneY(lane, lane === "intensity" ? e.intensity : e.sharpness);
      g.beginPath(); g.arc(x(e.time), y, 8, 0, 2 * Math.PI); g.stroke();
    }
  });

  // Parameter curves and dynamic parameters, in a layer of their own (the curves lane's rows):
  // painted again only when a curve or parameter, the selected point or the view changed, not on
  // each draw (a whole 10-minute pattern on screen is 240 curves); one label per parameter, in a
  // legend.
  const selectedPoint = state.selection?.kind === "point" ? state.selection : null;
  const curvesKey = [w, h, dpr, state.viewport.start, state.viewport.spp, color("--intensity"), color("--sharpness"), color("--curve"), color("--select"),
    JSON.stringify(LANES), selectedPoint ? `${selectedPoint.index}:${selectedPoint.point}` : ""].join(" ");
  const sameList = (a, b) => a === b || (a.length === b.length && a.every((entry, i) => entry === b[i]));
  const curvesStale = curvesLayer.key !== curvesKey || !sameList(curvesLayer.curves, m.curves) || !sameList(curvesLayer.parameters, m.parameters);
  copyLayer(g, curvesLayer, curvesStale, w, h, dpr, (lg) => {
    const labels = new Map();
    inLane("curves", w, () => {
      for (const c of m.curves) {
        const [lo, hi] = curveRange(c.id);
        const stroke = curveColor(c.id, color);
        labels.set(c.id.replace("Control", ""), stroke);
        if (c.end < t0 || c.time > t1) continue;
        lg.strokeStyle = stroke;
        lg.lineWidth = 1;
        lg.beginPath();
        c.points.forEach((p, i) => { const px = x(p.time), py = laneY("curves", p.value, lo, hi); if (i) lg.lineTo(px, py); else lg.moveTo(px, py); });
        lg.stroke();
        for (const p of c.points) {
          const selected = selectedPoint !== null && selectedPoint.index === c.index && selectedPoint.point === p.i;
          lg.fillStyle = selected ? color("--select") : stroke;
          lg.fillRect(x(p.time) - (selected ? 4 : 3), laneY("curves", p.value, lo, hi) - (selected ? 4 : 3), selected ? 8 : 6, selected ? 8 : 6);
        }
      }
      for (const p of m.parameters) {
        const stroke = curveColor(p.id, color);
        labels.set(p.id.replace("Control", ""), stroke);
        lg.strokeStyle = stroke;
        lg.setLineDash([2, 3]);
        lg.beginPath(); lg.moveTo(x(p.time), LANES.curves[0]); lg.lineTo(x(p.time), LANES.curves[1]); lg.stroke();
        lg.setLineDash([]);
      }
    }, lg);
    Object.assign(curvesLayer, { key: curvesKey, curves: m.curves, parameters: m.parameters, labels });
    metrics.curveLayers += 1;
  }, [LANES.curves[0] - 6, LANES.curves[1] + 6]);
  let legendX = LEFT + 6;
  for (const [label, stroke] of curvesLayer.labels) {
    g.fillStyle = stroke;
    g.fillText(label, legendX, LANES.curves[1] + 12);
    legendX += g.measureText(label).width + 12;
  }
  canvas.dataset.curveLabels = [...curvesLayer.labels.keys()].join(",");

  // Findings, as marks on the top edge at their element's time.
  inLane("intensity", w, () => {
    // One mark per pixel and severity: a 10-minute pattern on screen has 3,700 notes. The marks
    // are made again only when the findings or the view change (not on each move of a drag), and
    // their paths only when the columns with a mark change (an answer to a drag's edit moves one
    // event's findings, if any).
    const diagnostics = state.view?.diagnostics || [];
    const key = [w, t0, t1, LANES.intensity[0]].join(" ");
    if (findingMarks.diagnostics !== diagnostics || findingMarks.key !== key) {
      const severities = ["note", "warning", "error"];
      const columns = Math.ceil(w) + 12;
      const marked = new Uint8Array(columns * severities.length);
      for (const f of diagnostics) {
        if (f.time === undefined || f.time < t0 - 1 || f.time > t1 + 1) continue;
        const px = Math.round(x(f.time));
        if (px < -6 || px >= columns - 6) continue;
        marked[Math.max(0, severities.indexOf(f.severity)) * columns + px + 6] = 1;
      }
      const last = findingMarks.marked;
      if (findingMarks.key !== key || !last || last.length !== marked.length || marked.some((m, i) => m !== last[i])) {
        const marks = { note: new Path2D(), warning: new Path2D(), error: new Path2D() };
        for (let i = 0; i < marked.length; i += 1) {
          if (!marked[i]) continue;
          const mark = marks[severities[Math.floor(i / columns)]], px = (i % columns) - 6;
          mark.moveTo(px - 5, LANES.intensity[0] - 6); mark.lineTo(px + 5, LANES.intensity[0] - 6); mark.lineTo(px, LANES.intensity[0] + 2); mark.closePath();
        }
        findingMarks.marks = marks;
        metrics.findingPaths += 1;
      }
      Object.assign(findingMarks, { diagnostics, key, marked });
    }
    for (const severity of ["note", "warning", "error"]) { g.fillStyle = color("--" + severity); g.fill(findingMarks.marks[severity]); }
  });

  // The playhead.
  const head = playheadTime();
  if (head !== null && state.playhead && head >= t0 && head <= t1) {
    g.strokeStyle = color("--playhead");
    g.lineWidth = 2;
    const px = x(head);
    g.beginPath(); g.moveTo(px, 0); g.lineTo(px, LANES.curves[1]); g.stroke();
  }
  if (head !== null && state.playhead) canvas.dataset.playhead = head.toFixed(4);

  metrics.draws += 1;
  metrics.drawMilliseconds.push(performance.now() - drawStarted);
  if (metrics.drawMilliseconds.length > 10_000) metrics.drawMilliseconds.splice(0, 5_000);
  canvas.dataset.draws = String(metrics.draws);
  canvas.dataset.eventsDrawn = String(drawn);
  updateReadout();
}

// The events on screen (from t0 to t1, in Pattern order) and those of them not selected, kept
// from one draw to the next: for a model that patched the last one (a drag's move), the lists
// are patched for the entries it changed instead of filtering every event again (a whole
// 10-minute pattern on screen is 6,000 events, and a drag draws on each move and each answer);
// a new selection takes the selected event out of the list on screen.
const onScreen = { model: null, t0: NaN, t1: NaN, selected: -1, visible: [], others: [] };

function eventsOnScreen(m, t0, t1, selected) {
  const kept = onScreen;
  const inView = (e) => e.time + e.duration >= t0 && e.time <= t1;
  const sameView = kept.t0 === t0 && kept.t1 === t1;
  if (kept.model === m && sameView && kept.selected === selected) return kept;
  let visible, others = null;
  if (kept.model === m && sameView) {
    visible = kept.visible;
  } else if (kept.model !== null && kept.model === m.from && sameView) {
    visible = kept.visible;
    if (kept.selected === selected) others = kept.others;
    for (const [list, old, e] of m.changed) {
      if (list !== "events") continue;
      const wasIn = inView(old), isIn = inView(e);
      if (!wasIn && !isIn) continue;
      const update = (entries) => {
        const out = entries.slice(), at = indexPlace(out, e.index);
        if (wasIn && isIn) out[at] = e;
        else if (wasIn) out.splice(at, 1);
        else out.splice(at, 0, e);
        return out;
      };
      visible = update(visible);
      if (others !== null && e.index !== selected) others = update(others);
    }
  } else {
    visible = m.events.filter(inView);
    metrics.eventFilters += 1;
  }
  if (others === null) {
    const at = selected >= 0 ? indexPlace(visible, selected) : -1;
    others = at >= 0 && visible[at]?.index === selected ? visible.slice(0, at).concat(visible.slice(at + 1)) : visible;
  }
  Object.assign(kept, { model: m, t0, t1, selected, visible, others });
  return kept;
}

// The pixel columns [c0, c1] where two answers' effective samples (of one view) differ: those
// between the last sample before the first difference and the first after the last one (both
// samples the answers share); [] when they are the same.
function changedColumns(old, eff) {
  const a = old.times.length, b = eff.times.length;
  const same = (i, j) => old.times[i] === eff.times[j] && old.intensity[i] === eff.intensity[j] && old.sharpness[i] === eff.sharpness[j];
  let head = 0;
  while (head < a && head < b && same(head, head)) head += 1;
  if (head === a && a === b) return [];
  let tail = 0;
  while (tail < a - head && tail < b - head && same(a - 1 - tail, b - 1 - tail)) tail += 1;
  const c0 = head > 0 ? Math.floor(x(eff.times[head - 1])) : LEFT;
  const c1 = tail > 0 ? Math.floor(x(eff.times[b - tail])) : canvasSize.w;
  // Nothing on screen changed when the stretch is left or right of it.
  return c1 < LEFT || c0 > canvasSize.w ? [] : [Math.max(LEFT, c0), Math.min(canvasSize.w, c1)];
}

// The samples of a series that a drawing of t0...t1 uses: from the one before t0 to the first
// after t1.
function seriesRange(times, t0, t1) {
  const first = Math.max(0, lowerBound(times, t0) - 1);
  let after = lowerBound(times, t1);
  while (after < times.length && times[after] <= t1) after += 1;
  return [first, Math.min(times.length - 1, after)];
}

function drawSeries(times, values, lane, stroke, fill, t0, t1) {
  const g = ctx2d;
  const [first, last] = seriesRange(times, t0, t1);
  g.strokeStyle = stroke;
  g.lineWidth = 1.5;
  g.beginPath();
  for (let i = first; i <= last; i += 1) {
    const px = x(times[i]), py = laneY(lane, values[i]);
    if (i === first) g.moveTo(px, py); else g.lineTo(px, py);
  }
  g.stroke();
  if (fill) {
    g.lineTo(x(times[last]), LANES[lane][1]);
    g.lineTo(x(times[first]), LANES[lane][1]);
    g.closePath();
    g.globalAlpha = 0.18;
    g.fillStyle = stroke;
    g.fill();
    g.globalAlpha = 1;
  }
}

// A series with more samples on screen than pixel columns (a long pattern seen whole) is drawn
// per column: a bar over the values the line passes through there, over the area under the
// column's highest value. It looks as the line does at that scale, and costs the rasteriser
// only rectangles: a filled line zigzagging through thousands of samples costs a software
// rasteriser (Chromium without a GPU) several frames each time it is drawn.
function drawSeriesColumns(g, times, values, lane, stroke, first, last) {
  const bottom = LANES[lane][1], right = canvasSize.w + 2;
  const columns = [];
  let column = null, top = 0, low = 0, previous = null;
  const close = () => { if (column !== null) columns.push(column, top, low); };
  for (let i = first; i <= last; i += 1) {
    const px = x(times[i]), py = laneY(lane, values[i]);
    const c = Math.floor(px);
    if (c !== column) {
      close();
      // Across columns without samples the line runs straight from the previous sample.
      if (previous !== null) {
        for (let k = Math.max(column + 1, -2); k < Math.min(c, right); k += 1) {
          const y = previous[1] + (py - previous[1]) * ((k + 0.5 - previous[0]) / (px - previous[0]));
          columns.push(k, y, y);
        }
      }
      // The line enters this column at the previous sample's height.
      const entry = previous !== null && c - column === 1 ? previous[1] : py;
      column = c; top = Math.min(entry, py); low = Math.max(entry, py);
    } else {
      top = Math.min(top, py); low = Math.max(low, py);
    }
    previous = [px, py];
  }
  close();
  g.fillStyle = stroke;
  g.globalAlpha = 0.18;
  for (let k = 0; k < columns.length; k += 3) g.fillRect(columns[k], columns[k + 1], 1, bottom - columns[k + 1]);
  g.globalAlpha = 1;
  for (let k = 0; k < columns.length; k += 3) g.fillRect(columns[k], columns[k + 1] - 0.75, 1, columns[k + 2] - columns[k + 1] + 1.5);
}

function lowerBound(array, value) {
  let lo = 0, hi = array.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (array[mid] < value) lo = mid + 1; else hi = mid; }
  return lo;
}

function effectiveAt(t) {
  const eff = state.view?.effective;
  if (!eff || !eff.times.length) return null;
  const i = clamp(lowerBound(eff.times, t), 0, eff.times.length - 1);
  const j = Math.max(0, i - 1);
  const a = eff.times[j], b = eff.times[i];
  const f = b > a ? clamp((t - a) / (b - a), 0, 1) : 0;
  return { intensity: eff.intensity[j] + (eff.intensity[i] - eff.intensity[j]) * f, sharpness: eff.sharpness[j] + (eff.sharpness[i] - eff.sharpness[j]) * f };
}

function updateReadout() {
  const out = $("readout");
  if (!state.hover) { out.textContent = ""; return; }
  const t = state.hover.time;
  const e = effectiveAt(t);
  const parts = [`${t.toFixed(4)} s`];
  if (e) parts.push(`intensity ${e.intensity.toFixed(3)}`, `sharpness ${e.sharpness.toFixed(3)}`);
  if (state.hover.hit) parts.push(describe(state.hover.hit));
  out.textContent = parts.join(" · ");
}

function describe(hit) {
  const element = state.ahap?.Pattern?.[hit.index];
  if (!element) return "";
  if (hit.kind === "event") return `${element.Event.EventType} #${hit.index}`;
  return `${element.ParameterCurve.ParameterID} point ${hit.point + 1}`;
}

function summary() {
  if (state.mode === "audio" && state.sound) return audioSummary();
  const m = model(state.ahap);
  const v = state.view;
  const errors = (v?.diagnostics || []).filter((d) => d.severity === "error").length;
  return `${state.path}: ${m.events.length} events, ${(v?.duration || 0).toFixed(3)} s, `
    + `${(v?.diagnostics || []).length} findings${errors ? ` (${errors} errors)` : ""}; analysed in ${v?.analyzeMilliseconds ?? "?"} ms`;
}

// ---------------------------------------------------------------- pointer and keys

// The events of a model in time order (transients, and continuous events by start), so that a
// hit test looks only at those near the pointer (a 10-minute pattern is 6,000 events, and each
// mouse move tests). An edit's model differs from the one before in the entries it copied, so
// the index is patched from the last one rather than sorted again.
const byTime = (a, b) => a.time - b.time || a.index - b.index;
let eventIndex = null;

function sortedPlace(list, entry) {
  let lo = 0, hi = list.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (byTime(list[mid], entry) < 0) lo = mid + 1; else hi = mid; }
  return lo;
}

function firstFrom(list, time) {
  let lo = 0, hi = list.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (list[mid].time < time) lo = mid + 1; else hi = mid; }
  return lo;
}

function indexOfEvents(m) {
  if (eventIndex && eventIndex.model === m) return eventIndex;
  const last = eventIndex;
  // The [before, after] entries that differ: as the model made them from the last one, or found.
  let changed = null;
  if (last && m.from === last.model) {
    changed = m.changed.filter(([list]) => list === "events").map(([, old, e]) => [old, e]);
  } else if (last && last.model.events.length === m.events.length) {
    changed = [];
    for (let n = 0; n < m.events.length && changed.length <= 16; n += 1) if (m.events[n] !== last.model.events[n]) changed.push([last.model.events[n], m.events[n]]);
  }
  let index = null;
  if (changed && changed.length <= 16 && changed.every(([old, e]) => e.index === old.index)) {
    index = { model: m, transients: last.transients.slice(), continuous: last.continuous.slice(), longest: last.longest };
    for (const [old, e] of changed) {
      const from = old.continuous ? index.continuous : index.transients;
      const at = sortedPlace(from, old);
      if (from[at] !== old) { index = null; break; }
      from.splice(at, 1);
      const to = e.continuous ? index.continuous : index.transients;
      to.splice(sortedPlace(to, e), 0, e);
      if (e.continuous) index.longest = Math.max(index.longest, e.duration);
    }
  }
  if (index === null) {
    index = { model: m, transients: m.events.filter((e) => !e.continuous).sort(byTime), continuous: m.events.filter((e) => e.continuous).sort(byTime), longest: 0 };
    for (const e of index.continuous) index.longest = Math.max(index.longest, e.duration);
  }
  eventIndex = index;
  return index;
}

function hitTest(px, py) {
  const m = model(state.ahap);
  const lane = laneAt(py);
  if (lane === "curves") {
    for (const c of m.curves) {
      const [lo, hi] = curveRange(c.id);
      for (const p of c.points) {
        if (Math.abs(x(p.time) - px) <= 6 && Math.abs(laneY("curves", p.value, lo, hi) - py) <= 6) return { kind: "point", index: c.index, point: p.i };
      }
    }
    return null;
  }
  if (lane !== "intensity" && lane !== "sharpness") return null;
  // A transient under the pointer wins over a continuous event's body or end edge (grabbing a
  // transient must never resize its neighbour); then the nearest end edge; then a body. Of
  // events as near, the first in the pattern.
  const { transients, continuous, longest } = indexOfEvents(m);
  let transient = null, transientDistance = 7, edge = null, edgeDistance = 5.5, body = null;
  // Transients within 7 pixels (a pixel's margin for rounding).
  for (let n = firstFrom(transients, timeAt(px - 8)); n < transients.length; n += 1) {
    const e = transients[n];
    if (e.time > timeAt(px + 8)) break;
    const d = Math.abs(x(e.time) - px);
    if (d < transientDistance || (d === transientDistance && transient && e.index < transient.index)) { transient = { kind: "event", index: e.index, lane }; transientDistance = d; }
  }
  // Continuous events whose body or end edge can be within reach: starting at most 6 pixels
  // right of the pointer, and not ending (nor starting, for the shortest) more than 8 left of it.
  for (let n = firstFrom(continuous, timeAt(px - 8) - Math.max(0, longest)); n < continuous.length; n += 1) {
    const e = continuous[n];
    if (e.time > timeAt(px + 6)) break;
    const a = x(e.time), b = Math.max(x(e.time + e.duration), a + 2);
    const d = Math.abs(px - b);
    if (d < edgeDistance || (d === edgeDistance && edge && e.index < edge.index)) { edge = { kind: "event", index: e.index, edge: "end", lane }; edgeDistance = d; }
    if (px >= a - 3 && px <= b && (body === null || e.index < body.index)) body = { kind: "event", index: e.index, lane };
  }
  if (transient && transientDistance <= 4) return transient;
  return edge || transient || body;
}

function pointer(event) {
  const rect = canvas.getBoundingClientRect();
  return { px: event.clientX - rect.left, py: event.clientY - rect.top };
}

canvas.addEventListener("mousedown", (event) => {
  canvas.focus();
  const { px, py } = pointer(event);
  const t = timeAt(px);
  if (event.shiftKey) { state.drag = { kind: "range", anchor: t }; state.range = [t, t]; draw(); return; }
  const hit = state.ahap ? hitTest(px, py) : null;
  if (hit) {
    state.selection = hit.kind === "event" ? { kind: "event", index: hit.index } : { kind: "point", index: hit.index, point: hit.point };
    const element = state.ahap.Pattern[hit.index];
    state.drag = { kind: hit.kind, hit, startPx: px, startPy: py, origin: clone(element), moved: false };
    renderInspector();
    draw();
  } else {
    state.selection = null;
    renderInspector();
    state.drag = { kind: "pan", startPx: px, start: state.viewport.start, moved: false };
    draw();
  }
});

window.addEventListener("mousemove", (event) => {
  const { px, py } = pointer(event);
  const inside = px >= LEFT && py >= 0 && px <= canvasSize.w && py <= canvasSize.h;
  state.hover = inside ? { time: timeAt(px), hit: state.ahap ? hitTest(px, py) : null } : null;
  const drag = state.drag;
  if (!drag) { updateReadout(); return; }
  if (drag.kind === "range") { const t = timeAt(px); state.range = [Math.max(0, Math.min(drag.anchor, t)), Math.max(0, drag.anchor, t)]; draw(); return; }
  if (drag.kind === "pan") { state.viewport.start = drag.start - (px - drag.startPx) * state.viewport.spp; drag.moved = true; draw(); return; }
  if (Math.abs(px - drag.startPx) < 2 && Math.abs(py - drag.startPy) < 2 && !drag.moved) return;
  // Only the drag's first edit puts the pattern before it on the undo stack: one undo takes
  // back the whole drag.
  const first = !drag.moved;
  drag.moved = true;
  const dt = (px - drag.startPx) * state.viewport.spp;
  const snap = event.altKey ? (v) => v : (v) => Math.round(v * 1000) / 1000;
  edit((ahap) => {
    const element = ahap.Pattern[drag.hit.index];
    if (drag.kind === "event") {
      const e = element.Event, o = drag.origin.Event;
      const haptic = e.EventType.startsWith("Haptic");
      if (drag.hit.edge === "end") { e.EventDuration = Math.max(0.001, snap((o.EventDuration || 0) + dt)); return; }
      e.Time = Math.max(0, snap(o.Time + dt));
      if (drag.hit.lane === "intensity") {
        setEventParameter(e, haptic ? "HapticIntensity" : "AudioVolume", round(clamp(laneValue("intensity", py), 0, 1), 3));
      } else if (drag.hit.lane === "sharpness" && haptic) {
        setEventParameter(e, "HapticSharpness", round(clamp(laneValue("sharpness", py), 0, 1), 3));
      }
    } else {
      const c = element.ParameterCurve, o = drag.origin.ParameterCurve;
      const p = c.ParameterCurveControlPoints[drag.hit.point];
      const [lo, hi] = curveRange(c.ParameterID);
      p.Time = Math.max(0, snap(o.ParameterCurveControlPoints[drag.hit.point].Time + dt));
      p.ParameterValue = round(clamp(laneValue("curves", py, lo, hi), lo, hi), 3);
    }
  }, [drag.hit.index], first);
  renderInspector();
});

window.addEventListener("mouseup", () => {
  const drag = state.drag;
  state.drag = null;
  if (drag && drag.kind === "pan" && drag.moved) viewportChanged();
  if (drag && drag.kind === "range" && state.range && state.range[1] - state.range[0] < 0.002) { state.range = null; draw(); }
});

canvas.addEventListener("wheel", (event) => {
  event.preventDefault();
  const { px } = pointer(event);
  if (event.shiftKey) { state.viewport.start += event.deltaY * state.viewport.spp; draw(); viewportChanged(); return; }
  zoom(event.deltaY > 0 ? 1.25 : 0.8, timeAt(px));
  return;
}, { passive: false });

canvas.addEventListener("dblclick", (event) => {
  const { px, py } = pointer(event);
  const lane = laneAt(py);
  // Over a continuous event's body (not its end edge) a double-click adds a transient too.
  const hit = hitTest(px, py);
  const overBody = hit && hit.kind === "event" && !hit.edge && state.ahap.Pattern[hit.index]?.Event?.EventType?.endsWith("Continuous");
  if (lane === "intensity" && (!hit || overBody)) addEvent(event.altKey ? "HapticContinuous" : "HapticTransient", timeAt(px));
  if (lane === "curves" && !hitTest(px, py)) addCurvePoint(timeAt(px), py);
});

// A double-click in the curves lane adds a control point to the curve whose span is there (or
// the nearest one), else starts a HapticIntensityControl curve at that time.
function addCurvePoint(time, py) {
  const t = Math.max(0, round(time));
  const curves = model(state.ahap).curves;
  let target = curves.find((c) => c.points.length && c.points[0].time <= t && c.points[c.points.length - 1].time >= t);
  if (!target && curves.length) {
    target = curves.reduce((best, c) => {
      const d = Math.min(...c.points.map((p) => Math.abs(p.time - t)));
      return !best || d < best.d ? { c, d } : best;
    }, null).c;
  }
  edit((ahap) => {
    if (target) {
      const curve = ahap.Pattern[target.index].ParameterCurve;
      const [lo, hi] = curveRange(curve.ParameterID);
      const points = curve.ParameterCurveControlPoints;
      const relative = round(Math.max(0, t - (+curve.Time || 0)));
      const at = points.findIndex((p) => p.Time > relative);
      const point = { Time: relative, ParameterValue: round(clamp(laneValue("curves", py, lo, hi), lo, hi), 3) };
      if (at < 0) points.push(point); else points.splice(at, 0, point);
      state.selection = { kind: "point", index: target.index, point: at < 0 ? points.length - 1 : at };
    } else {
      const value = round(clamp(laneValue("curves", py, 0, 1), 0, 1), 3);
      ahap.Pattern = ahap.Pattern || [];
      ahap.Pattern.push({ ParameterCurve: { ParameterID: "HapticIntensityControl", Time: t,
        ParameterCurveControlPoints: [{ Time: 0, ParameterValue: value }, { Time: 0.1, ParameterValue: value }] } });
      state.selection = { kind: "point", index: ahap.Pattern.length - 1, point: 0 };
    }
  }, target ? [target.index] : []);
  renderInspector();
}

window.addEventListener("keydown", (event) => {
  const typing = event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement;
  const ctrl = event.ctrlKey || event.metaKey;
  if (ctrl && event.key.toLowerCase() === "s") { event.preventDefault(); save(); return; }
  if (typing) return;
  if (ctrl && event.key.toLowerCase() === "z") { event.preventDefault(); if (event.shiftKey) redo(); else undo(); return; }
  if (ctrl && event.key.toLowerCase() === "y") { event.preventDefault(); redo(); return; }
  if (ctrl) return;
  const sel = state.selection;
  const hoverTime = state.hover ? state.hover.time : timeAt(LEFT + width() / 2);
  switch (event.key) {
    case " ": event.preventDefault(); if (state.playhead?.playing) stopAll(); else playEngine(); break;
    case "b": case "B": playBrowser(); break;
    case "Escape": stopAll(); state.range = null; draw(); break;
    case "Delete": case "Backspace": event.preventDefault(); deleteSelection(); break;
    case "t": case "T": addEvent("HapticTransient", hoverTime); break;
    case "c": case "C": addEvent("HapticContinuous", hoverTime); break;
    case "+": case "=": zoom(0.8); break;
    case "-": case "_": zoom(1.25); break;
    case "f": case "F": fit(); draw(); break;
    case "a": case "A":
      if (state.compare) { $("play-which").value = playingB() ? "a" : "b"; if (state.playhead?.playing) playEngine(playheadTime()); }
      break;
    case "ArrowLeft": case "ArrowRight": case "ArrowUp": case "ArrowDown":
      if (!sel || sel.kind !== "event") break;
      event.preventDefault();
      nudge(event.key, event.shiftKey);
      break;
  }
});

function nudge(key, shift) {
  const sel = state.selection;
  edit((ahap) => {
    const e = ahap.Pattern[sel.index].Event;
    const haptic = e.EventType.startsWith("Haptic");
    if (key === "ArrowLeft" || key === "ArrowRight") {
      e.Time = round(Math.max(0, e.Time + (key === "ArrowRight" ? 1 : -1) * (shift ? 0.01 : 0.001)));
    } else {
      const id = shift ? "HapticSharpness" : haptic ? "HapticIntensity" : "AudioVolume";
      setEventParameter(e, id, round(clamp(parameterValue(e.EventParameters, id) + (key === "ArrowUp" ? 0.05 : -0.05), 0, 1), 3));
    }
  }, [sel.index]);
  renderInspector();
}

// ---------------------------------------------------------------- start

function wire() {
  $("play-engine").onclick = () => playEngine();
  $("play-browser").onclick = () => playBrowser();
  $("stop").onclick = () => stopAll();
  $("undo").onclick = undo;
  $("redo").onclick = redo;
  $("save").onclick = () => save();
  $("delete").onclick = deleteSelection;
  $("add-transient").onclick = () => addEvent("HapticTransient", state.range ? state.range[0] : timeAt(LEFT + width() / 2));
  $("add-continuous").onclick = () => addEvent("HapticContinuous", state.range ? state.range[0] : timeAt(LEFT + width() / 2));
  $("zoom-in").onclick = () => zoom(0.8);
  $("zoom-out").onclick = () => zoom(1.25);
  $("zoom-fit").onclick = () => { fit(); draw(); };
  $("filter").oninput = renderFileList;
  $("compare").onchange = () => loadCompare($("compare").value);
  wireAudio();
  for (const id of ["f-time", "f-duration", "f-intensity", "f-sharpness", "f-value"]) $(id).onchange = () => inspectorChanged(id);
  window.addEventListener("beforeunload", (event) => { if (state.dirty) { event.preventDefault(); event.returnValue = ""; } });
}

async function start() {
  wire();
  connectSocket();
  try {
    const list = await loadFiles();
    const wanted = launch.open;
    const first = list.files.find((f) => f.path === wanted) || list.files.find((f) => !isAudio(f.path)) || list.files[0];
    if (first) await openFile(first.path);
    else {
      status(emptyFolderStatus());
      $("inspector-empty").textContent = "Nothing to edit: the served folders have no pattern or audio files.";
      updateButtons();
      document.body.dataset.ready = "1";
    }
  } catch (error) {
    banner("The studio refused: " + error.message, null, null, true);
    status(error.message);
  }
  draw();
}

// For tests and the benchmark: where things are drawn, and where the head is.
Object.assign(window.studio, { x, laneY, timeAt, playheadTime, analyze, edits, model, hitTest, LANES, LEFT, analyzer, seriesLayer, eventLayer, curvesLayer, findingMarks, onScreen, draw, duration });

start();
