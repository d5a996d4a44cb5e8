"use strict";
// yz's page: every number comes from the JSON API (the library's advisors, from the yz
// server or in the browser); the page
// holds the position being entered, the game being played (kept in the browser's storage)
// and how to show them.

const $ = (id) => document.getElementById(id);
const PLAY_KEY = "yz-play";
const HISTORY_KEY = "yz-history";
const PREFS_KEY = "yz-prefs";
const UNDO_DEPTH = 100;
// A choice that loses at most this much is a best choice (the values' own rounding).
const TOLERANCE = 1e-9;

const page = {
  rules: [], // [{name, boxes, upper_bonus, upper_threshold}]
  views: {}, // rule set -> the empty card's view (labels, upper boxes)
  tab: "advisor",
  dice: [1, 3, 3, 5, 6],
  asked: 0, // the latest advice request; older answers are dropped
  timer: null,
  play: null,
  undo: [],
  review: null, // the last review shown, for opening its rows
  keptRecord: null, // the last game kept in the data directory
  keeping: null, // its request, while it runs
};

// ---- the API ----

class ApiError extends Error {
  constructor(message, status, body) { super(message); this.status = status; this.body = body; }
}

// Where answers come from: the yz server that served the page, or, for a page from
// scripts/build-web (or one whose server is gone), the solver in the browser: yz's library
// built for WebAssembly in a Web Worker (worker.js), which answers the same requests.
const solver = { local: false, worker: null, next: 0, waiting: new Map() };

async function api(path, body, signal) {
  const pending = busy();
  try {
    if (solver.local) return await (path === "/api/history" ? pageHistory(body) : inBrowser(path, body));
    const init = body === undefined ? { signal } : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal,
    };
    const response = await fetch(path, init);
    const answer = await response.json().catch(() => ({ error: response.statusText }));
    if (!response.ok) throw new ApiError(answer.error || response.statusText, response.status, answer);
    return answer;
  } finally {
    pending.done();
  }
}

// The game history of the page without a server, kept in its storage: asked with a game's
// record, the library adds the game (its review's totals) as the server adds one to its
// file, and the history now kept is stored; asked with none, the history is read.
async function pageHistory(body) {
  let kept;
  try {
    kept = JSON.parse(localStorage.getItem(HISTORY_KEY) || "[]");
    if (!Array.isArray(kept)) throw new Error("not a list of games");
  } catch (error) {
    // Never overwritten: a history that cannot be read is the player's to clear.
    throw new ApiError(`the game history kept in this browser cannot be read (${error.message}); ` +
      "clear this site's data to start a new one", 500, {});
  }
  if (body === undefined) return kept;
  const history = await inBrowser("/api/history", { record: body.record, when: Math.floor(Date.now() / 1000), history: kept });
  localStorage.setItem(HISTORY_KEY, JSON.stringify(history));
  return history;
}

// Whether a yz server answers the page's API (else the page runs its own solver).
async function serverAnswers() {
  try {
    const response = await fetch("/api/rules");
    return response.ok && (response.headers.get("Content-Type") || "").includes("json");
  } catch (error) {
    return false;
  }
}

function inBrowser(path, body) {
  if (!solver.worker) {
    solver.worker = new Worker("worker.js");
    solver.worker.onmessage = (event) => {
      const { id, status, answer, progress, tables } = event.data;
      // The worker answers in order: the solve reported is the oldest request's.
      if (progress) { showSolving(progress, solver.waiting.values().next().value.path); return; }
      // The tables kept from earlier visits, taken back (no solve for their games).
      if (tables) { document.body.dataset.tablesKept = tables.kept; return; }
      const { resolve, reject } = solver.waiting.get(id);
      solver.waiting.delete(id);
      if (status === 200) resolve(answer);
      else reject(new ApiError(answer.error || `error ${status}`, status, answer));
    };
    // No worker.js (a page of a yz server that is gone): every request waiting fails.
    solver.worker.onerror = () => {
      const message = "neither the yz server nor a solver in the browser answers: start yz serve again, " +
        "or open the app built by scripts/build-web";
      solver.waiting.forEach(({ reject }) => reject(new ApiError(message, 503, { error: message })));
      solver.waiting.clear();
      solver.worker = null;
    };
  }
  const id = ++solver.next;
  return new Promise((resolve, reject) => {
    solver.waiting.set(id, { resolve, reject, path });
    solver.worker.postMessage({ id, path, body });
  });
}

// ---- waits ----

// A request that has run 300 ms shows the busy marker until every request is answered.
const waits = { pending: 0, timer: null };
function busy() {
  waits.pending += 1;
  if (!waits.timer) waits.timer = setTimeout(() => { $("busy").hidden = false; }, 300);
  return {
    done() {
      waits.pending -= 1;
      if (waits.pending > 0) return;
      clearTimeout(waits.timer);
      waits.timer = null;
      $("busy").hidden = true;
      $("busy-bar").removeAttribute("value");
      $("busy-text").textContent = "Working\u2026";
    },
  };
}

// The browser's solver reports a solve for the request at `path`: its share shown on the
// busy marker, with what is solved.
function showSolving({ done, total }, path) {
  const share = Math.floor((100 * done) / Math.max(total, 1));
  $("busy").hidden = false;
  $("busy-bar").max = 100;
  $("busy-bar").value = share;
  $("busy-text").textContent = path.startsWith("/api/targets/")
    ? `Solving the chances of every total from this position in your browser (kept for the rest of the game): ${share}%`
    : `Solving the ${rulesName()} table in your browser (once per rule set): ${share}%`;
}

function showError(error) { $("error").textContent = error ? (error.message || String(error)) : ""; }

// ---- numbers and words ----

function precise() { return $("precise").checked; }
const MINUS = "\u2212";
function points(x) { return x.toFixed(precise() ? 6 : 2); }
function percent(p) { return (100 * p).toFixed(precise() ? 6 : 2) + "%"; }
function lossText(gap, unit) {
  if (gap <= TOLERANCE) return "best";
  return unit === "chance" ? `${MINUS}${(100 * gap).toFixed(precise() ? 6 : 2)} <abbr title="percentage points">pp</abbr>`
    : `${MINUS}${gap.toFixed(precise() ? 6 : 2)} points`;
}
// Two figures with just enough digits to tell them apart (at least `least`).
function apart(a, b, least, scale = 1) {
  for (let d = least; d < 12; d += 1) {
    const [x, y] = [(scale * a).toFixed(d), (scale * b).toFixed(d)];
    if (x !== y) return [x, y];
  }
  return [(scale * a).toFixed(12), (scale * b).toFixed(12)];
}

function rulesName() { return $("rules").value || "official"; }
function rulesInfo() { return page.rules.find((r) => r.name === rulesName()) || { boxes: [] }; }
function view() { return page.views[rulesName()]; }
function label(box) {
  const entry = view() && view().boxes.find((b) => b.name === box);
  return entry ? entry.label : box;
}

// A choice in the command line's words ("keep 3,3", "keep -", "score fh"): what the
// browser check compares with the CLI.
function choiceKey(o) {
  if (o.action === "keep") return "keep " + (o.keep.length ? o.keep.join(",") : "-");
  return "score " + o.category;
}
// A choice for a player: "keep 3,3", "reroll all", "score Full house: 25", "Sixes: 30 + 100 bonus".
function choiceWords(o) {
  if (o.action === "keep") return o.keep.length ? "keep " + o.keep.join(",") : "reroll all";
  return "score " + label(o.category) + ": " + pointsWords(o);
}
function pointsWords(o) {
  const boxPoints = o.box_points ?? o.points;
  const bonus = o.bonus_points ?? (o.points - boxPoints);
  return bonus > 0 ? `${boxPoints} + ${bonus} bonus` : `${boxPoints}`;
}

// ---- dice ----

const PIPS = {
  1: [[50, 50]], 2: [[28, 28], [72, 72]], 3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]], 5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 25], [72, 25], [28, 50], [72, 50], [28, 75], [72, 75]],
};
function pips(face) {
  return `<svg viewBox="0 0 100 100" aria-hidden="true">` +
    PIPS[face].map(([x, y]) => `<circle cx="${x}" cy="${y}" r="10"/>`).join("") + `</svg>`;
}

// Draws dice as buttons; `kept` and `advised` mark some (by a dashed border, a lift and a
// word, a tick: never by colour alone). Buttons already there are updated in place, so
// that a die keeps the keyboard's focus while the advice changes around it.
function renderDice(element, dice, onClick, kept, advised) {
  while (element.children.length > dice.length) element.lastChild.remove();
  while (element.children.length < dice.length) {
    const die = document.createElement("button");
    die.type = "button";
    element.append(die);
  }
  dice.forEach((face, i) => {
    const die = element.children[i];
    const isKept = Boolean(kept && kept[i]);
    const isAdvised = Boolean(advised && advised[i]);
    die.className = "die" + (isKept ? " kept" : "") + (isAdvised ? " advised" : "");
    die.dataset.die = String(i);
    die.dataset.face = String(face);
    if (kept) die.setAttribute("aria-pressed", String(isKept));
    else die.removeAttribute("aria-pressed");
    die.setAttribute("aria-label", `die ${i + 1}: ${face}` + (isKept ? ", kept" : "") + (isAdvised ? ", advised to keep" : ""));
    die.innerHTML = pips(face);
    die.onclick = () => onClick(i);
  });
}

// Which of `dice` a keep (a multiset of faces) holds.
function keepMask(dice, keep) {
  const left = [...keep];
  return dice.map((face) => {
    const at = left.indexOf(face);
    if (at < 0) return false;
    left.splice(at, 1);
    return true;
  });
}

function cycleDie(i) {
  page.dice[i] = page.dice[i] % 6 + 1;
  $("dice-text").value = page.dice.join("");
  positionChanged();
}

// The dice typed: five faces 1-6; digits typed after five push the oldest out (typing over
// a position works), and anything else is said beside the field, never ignored silently.
const DICE_HELP = "Click a die, or type five faces (13356).";
function readDiceText() {
  const typed = $("dice-text").value.replace(/[^0-9]/g, "");
  const bad = typed.replace(/[1-6]/g, "");
  $("dice-help").textContent = bad ? `A die shows 1 to 6, not ${bad[0]}.`
    : typed.length < 5 ? `${5 - typed.length} more to type: five faces (13356).` : DICE_HELP;
  if (bad || typed.length < 5) return;
  const faces = typed.slice(-5).split("").map(Number);
  if (typed.length > 5) $("dice-text").value = faces.join("");
  page.dice = faces;
  positionChanged();
}

// ---- the score card ----

// The card's rows: boxes in card order, with the upper subtotal and bonus after the upper
// boxes and the totals at the end. `cell(box)` fills a box's points cell.
function cardRows(v, who, cell) {
  const rows = [];
  const upper = v.boxes.filter((b) => b.upper);
  for (const b of v.boxes) {
    rows.push(`<tr data-row="${b.name}"><th scope="row">${b.label}<span class="short">${b.name}</span></th>` +
      `<td class="points">${cell(b)}</td><td class="would" data-would="${who}-${b.name}"></td></tr>`);
    if (upper.length && b === upper[upper.length - 1]) {
      rows.push(`<tr class="subtotal"><th scope="row">Upper subtotal</th><td class="points" data-total="${who}-upper"></td>` +
        `<td class="would" data-total="${who}-upper-progress"></td></tr>`);
      rows.push(`<tr class="subtotal"><th scope="row">Upper bonus</th><td class="points" data-total="${who}-upper-bonus"></td><td></td></tr>`);
    }
  }
  if (v.boxes.some((b) => b.name === "yahtzee")) {
    const input = who === "play" ? "" : `<input type="number" min="0" step="100" data-card="${who}" data-box="bonus" aria-label="Extra Yahtzee bonus points (${who === "me" ? "your" : "the opponent's"} card)">`;
    rows.push(`<tr class="subtotal"><th scope="row">Yahtzee bonus</th><td class="points">${input}<span data-total="${who}-yahtzee-bonus"></span></td><td></td></tr>`);
  }
  rows.push(`<tr class="subtotal"><th scope="row">Lower total</th><td class="points" data-total="${who}-lower"></td><td></td></tr>`);
  rows.push(`<tr class="total"><th scope="row">Total</th><td class="points" data-total="${who}-total"></td><td></td></tr>`);
  return rows.join("");
}

function renderEntryCard(table, who) {
  const v = view();
  const whose = who === "me" ? "your" : "the opponent's";
  table.innerHTML = `<caption class="hint">Type the points written in each filled box.</caption>` +
    cardRows(v, who, (b) => `<input type="number" min="0" max="50" data-card="${who}" data-box="${b.name}" aria-label="${b.label} (${whose} card)">`);
}

function cardText(who) {
  return [...document.querySelectorAll(`input[data-card="${who}"]`)]
    .filter((input) => input.value !== "")
    .map((input) => `${input.dataset.box}=${input.value}`)
    .join(",");
}

function setCardText(who, text) {
  document.querySelectorAll(`input[data-card="${who}"]`).forEach((input) => { input.value = ""; });
  for (const entry of text.split(",").filter(Boolean)) {
    const [box, value] = entry.split("=");
    const input = document.querySelector(`input[data-card="${who}"][data-box="${box}"]`);
    if (input) input.value = value;
  }
}

function setTotal(key, text) {
  const cell = document.querySelector(`[data-total="${key}"]`);
  if (cell) cell.textContent = text;
}

// Writes a card view's totals and would-be points into the card drawn for `who`.
function showCardView(who, v) {
  setTotal(`${who}-upper`, `${v.upper_subtotal}`);
  const needed = v.upper_threshold - v.upper_subtotal;
  setTotal(`${who}-upper-progress`, v.upper_bonus > 0 ? "bonus reached" : v.full ? ""
    : needed > 0 ? `${needed} to go for +${v.upper_bonus_value}` : "");
  setTotal(`${who}-upper-bonus`, `${v.upper_bonus}`);
  setTotal(`${who}-yahtzee-bonus`, who === "play" ? `${v.yahtzee_bonus}` : "");
  setTotal(`${who}-lower`, `${v.lower_total}`);
  setTotal(`${who}-total`, `${v.total}`);
  for (const b of v.boxes) {
    const cell = document.querySelector(`[data-would="${who}-${b.name}"]`);
    if (!cell) continue;
    cell.innerHTML = b.would ? wouldHtml(b.would) : "";
  }
}

function wouldHtml(w) {
  const bonus = w.bonus_points > 0 ? ` <span class="bonus-part">+${w.bonus_points} bonus</span>` : "";
  return `${w.box_points}${bonus}`;
}

// ---- advice as the position changes ----

function rollsLeft() { return Number(document.querySelector("input[name=rolls-left]:checked").value); }

// The answer on screen is of an older position until the new one comes: dimmed and
// marked busy meanwhile, never shown as the new position's.
function markStale(stale) {
  $("answer").classList.toggle("stale", stale);
  $("answer").setAttribute("aria-busy", String(stale));
}

function positionChanged() {
  renderDice($("dice"), page.dice, cycleDie);
  $("share-url").hidden = true;
  clearTimeout(page.timer);
  page.timer = setTimeout(advise, 150);
}

function clearAnswer() {
  showError(null);
  $("follow").hidden = true;
  markStale(false);
  $("summary").textContent = "";
  $("options").innerHTML = "";
  $("reasons").innerHTML = "";
  $("mistakes").innerHTML = "";
  $("curve").innerHTML = "";
  // SVG elements have no `hidden` property: the attribute is set itself.
  $("curve").toggleAttribute("hidden", true);
  $("build").hidden = true;
}

// Draws the options; `asked` names the position they answer (for the browser check).
// What the best choices give, side by side: the expected final score, the bonus and
// Yahtzee chances, the extra bonus and the boxes where they differ most, with the best's
// case against the next one in words.
function renderReasons(options, stop) {
  if (options.length < 2) { $("reasons").innerHTML = ""; return; }
  const name = (o, i) => (i === 0 && stop ? `${choiceWords(stop)} now` : choiceWords(o));
  const pct = (p) => percent(p);
  const rows = [["expected final score", (a) => a.expected_final, points],
    ["upper bonus chance", (a) => a.upper_bonus, pct]];
  if (options[0].aspects.five_of_a_kind !== undefined) rows.push([`${label(rulesInfo().boxes.includes("yatzy") ? "yatzy" : "yahtzee")} scored`, (a) => a.five_of_a_kind, pct]);
  if (rulesInfo().boxes.includes("yahtzee")) rows.push(["extra bonus (expected)", (a) => a.extra_bonus, points]);
  const spread = options[0].aspects.boxes.map((b, k) => {
    const values = options.map((o) => o.aspects.boxes[k].expected);
    return { k, name: b.box, spread: Math.max(...values) - Math.min(...values) };
  }).sort((x, y) => y.spread - x.spread).filter((b) => b.spread > 0.005).slice(0, 3);
  spread.forEach((b) => rows.push([`${label(b.name)} (expected points)`, (a) => a.boxes[b.k].expected, points, label(b.name)]));
  const [best, next] = options;
  const differences = rows.slice(1).map(([what, get, shown, box]) => [box || what, get(best.aspects), get(next.aspects), shown, box])
    .filter(([, a, b]) => Math.abs(a - b) > 0.0005)
    .map(([what, a, b, shown, box]) => `${what} ${shown(a)} instead of ${shown(b)}${box ? " points expected" : ""}`);
  const gain = best.expected_final - next.expected_final;
  const words = `Against \u201c${name(next, 1)}\u201d, \u201c${name(best, 0)}\u201d ` +
    (gain <= TOLERANCE ? "is worth as much" : `gains ${points(gain)} points`) +
    (differences.length ? `: ${differences.join("; ")}.` : ".");
  $("reasons").innerHTML = `<h2>Why</h2><p id="reasons-words">${words}</p>` +
    `<table class="list reasons"><tr><th scope="col">after the choice</th>` +
    options.map((o, i) => `<th scope="col">${name(o, i)}</th>`).join("") + "</tr>" +
    rows.map(([what, get, shown]) => `<tr><th scope="row">${what}</th>` +
      options.map((o) => `<td>${shown(get(o.aspects))}</td>`).join("") + "</tr>").join("") + "</table>";
}

// Follows a real game in the advisor: the best choice made on the position shown. A box
// is written on the card (by the library's scoring, bonuses included) and a new turn
// starts; a keep leaves a reroll fewer. Either way the dice field waits for the next roll.
async function playBest() {
  const best = page.best;
  if (!best) return;
  const { position, choice } = best;
  try {
    if (choice.action === "score") {
      const scored = await api("/api/card/score", { rules: position.rules, card: position.card, dice: position.dice, box: choice.category });
      setCardText("me", scored.card);
      document.querySelector('input[data-rolls-left="2"]').checked = true;
      $("dice-help").textContent = scored.full ? "The card is full." : "A new turn: type the first roll.";
    } else {
      document.querySelector(`input[data-rolls-left="${position.rolls_left - 1}"]`).checked = true;
      $("dice-help").textContent = `Kept ${choice.keep.length ? choice.keep.join(",") : "nothing"}: reroll the others and type all five.`;
    }
    page.best = null;
    $("dice-text").focus();
    $("dice-text").select();
    positionChanged();
  } catch (error) { showError(error); }
}

function renderOptions(options, value, unit, asked) {
  const best = options.length ? options[0][value] : 0;
  const shown = unit === "points" ? points : percent;
  const head = unit === "chance" ? "winning chance" : unit === "target" ? "chance of the target" : "expected final score";
  const rows = options.map((o, i) => {
    const gap = best - o[value];
    const lossUnit = unit === "points" ? "points" : "chance";
    return `<tr class="${i === 0 ? "best" : ""}" data-choice="${choiceKey(o)}" data-value="${o[value]}">` +
      `<td class="choice">${choiceWords(o)}</td><td class="value">${shown(o[value])}</td>` +
      `<td class="gap">${lossText(gap, lossUnit)}</td></tr>`;
  });
  $("options").dataset.position = asked;
  markStale(false);
  $("options").innerHTML = `<caption class="hint">Every choice, best first</caption>` +
    `<tr><th scope="col">choice</th><th scope="col">${head}</th><th scope="col">gap</th></tr>` + rows.join("");
  const first = options[0];
  const advised = first && first.action === "keep" ? keepMask(page.dice, first.keep) : null;
  renderDice($("dice"), page.dice, cycleDie, null, advised);
}

async function advise() {
  if (!["advisor", "duel", "target"].includes(page.tab)) return;
  const asked = ++page.asked;
  const current = () => asked === page.asked;
  // A newer position drops the older request: the server stops its work when it goes.
  if (page.controller) page.controller.abort();
  const signal = (page.controller = new AbortController()).signal;
  const tab = page.tab;
  const position = { rules: rulesName(), card: cardText("me"), dice: page.dice.join(""), rolls_left: rollsLeft() };
  const key = [tab, position.card, position.dice, position.rolls_left,
    tab === "duel" ? cardText("opp") : tab === "target" ? $("target").value : ""].join("|");
  if ($("options").dataset.position !== key && $("options").innerHTML) markStale(true);
  // The best choice to play is the new position's, once it comes.
  page.best = null;
  $("follow").hidden = true;
  try {
    const cards = [["me", position.card]].concat(tab === "duel" ? [["opp", cardText("opp")]] : []);
    const views = await Promise.all(cards.map(([, card]) =>
      api("/api/card/view", { rules: position.rules, card, dice: position.dice })));
    if (!current()) return;
    showError(null);
    cards.forEach(([who], i) => showCardView(who, views[i]));
    if (tab === "advisor") {
      const answer = await api("/api/solo/advise", position);
      if (!current()) return;
      const first = answer.options[0];
      // Keeping all five with rerolls left is scoring now: the summary names the box.
      const stop = await scoreNow(first, position.rolls_left, () => api("/api/solo/advise", { ...position, rolls_left: 0 }));
      if (!current()) return;
      $("summary").textContent = (stop ? `Best: ${choiceWords(stop)} now. ` : "") +
        `Expected final score with best play: ${points(first.expected_final)}`;
      renderOptions(answer.options, "expected_final", "points", key);
      page.best = { position, choice: stop || first };
      $("follow").hidden = false;
      // The reasons analyse the rest of the game after each choice (up to seconds on an
      // empty card): asked for with a button.
      if (answer.options.length > 1) {
        $("reasons").innerHTML = `<button type="button" id="why">Why? The best ${Math.min(3, answer.options.length)} compared</button>`;
        $("why").addEventListener("click", async () => {
          try {
            const reasons = await api("/api/solo/why", { ...position, top: Math.min(3, answer.options.length) });
            if (current()) renderReasons(reasons.options, stop);
          } catch (error) { if (current()) showError(error); }
        });
      }
    } else if (tab === "duel") {
      const answer = await patient(() => api("/api/duel/advise", {
        rules: position.rules, me: position.card, opp: cardText("opp"), dice: position.dice, rolls_left: position.rolls_left,
      }, signal), current);
      if (!answer) return;
      if (!current()) return;
      const estimate = answer.source && answer.source.kind === "emp1";
      $("summary").innerHTML = `You ${answer.me_total} points, the opponent ${answer.opp_total}. ` +
        `Your winning chance with best play: <strong>${percent(answer.options[0].value)}</strong>. ` +
        `<span class="source" data-estimate="${estimate}">${answer.source_text}</span>`;
      renderOptions(answer.options, "value", "chance", key);
    } else {
      const target = Number($("target").value);
      const answer = await patient(() => api("/api/targets/advise", { ...position, target }, signal), current);
      if (!answer || !current()) return;
      $("summary").textContent = `Your chance of a total of at least ${target} with play aimed at it: ${percent(answer.options[0].probability)}`;
      renderOptions(answer.options, "probability", "target", key);
      const curve = await api("/api/targets/curve", { rules: position.rules, card: position.card });
      if (current() && page.tab === "target") drawCurve(curve, target);
    }
  } catch (error) {
    if (!current()) return;
    // A box being typed into is refused until its number is whole ("2" of "25"): its
    // error shows once the typing pauses, not at each digit.
    const typing = document.activeElement && document.activeElement.matches("input[data-card]");
    const shown = () => { if (current()) { clearAnswer(); markStale(false); showError(error); } };
    if (typing && error instanceof ApiError && error.status === 400) setTimeout(shown, 1200); else shown();
  }
}

// Keeping all five dice with rerolls left is scoring now (it is worth the same): the best
// box then, from `adviceWithNone` (the advice with no reroll left); null for any other best.
async function scoreNow(best, rollsLeft, adviceWithNone) {
  if (rollsLeft === 0 || best.action !== "keep" || best.keep.length !== 5) return null;
  return (await adviceWithNone()).options[0];
}

// Asks `request` until the server takes it: while the target table is being built it shows
// the build's progress, while another solve runs it waits its turn; null once the position
// has changed.
async function patient(request, current) {
  for (let waits = 0; ; waits += 1) {
    try {
      const answer = await request();
      $("build").hidden = true;
      return answer;
    } catch (error) {
      if (!current()) return null;
      const building = error instanceof ApiError && error.status === 503 && typeof error.body.percent === "number";
      // Busy for a minute, or a 503 that says the server cannot do it at all: the error shows.
      if (!building && !(error instanceof ApiError && error.status === 503 && waits < 120)) throw error;
      if (building) {
        $("build").hidden = false;
        $("build-bar").value = error.body.percent;
        $("build-percent").textContent = `${error.body.percent}%`;
      }
      await new Promise((resolve) => setTimeout(resolve, building ? 1500 : 500));
      if (!current()) return null;
    }
  }
}

// P(final total >= t) against t, over the totals where it moves, with axes and the target.
function drawCurve(answer, target) {
  const svg = $("curve");
  const all = answer.at_least;
  let from = 0;
  while (from + 1 < all.length && all[from + 1][1] >= 0.9995) from += 1;
  let to = all.length - 1;
  while (to > from + 1 && all[to - 1][1] <= 0.0005) to -= 1;
  const points = all.slice(from, to + 1);
  const [w, h, left, right, top, bottom] = [640, 260, 48, 16, 24, 40];
  const lo = points[0][0], hi = Math.max(points[points.length - 1][0], lo + 1);
  const x = (t) => left + (w - left - right) * (t - lo) / (hi - lo);
  const y = (p) => top + (h - top - bottom) * (1 - p);
  const path = points.map(([t, p], i) => `${i ? "L" : "M"}${x(t).toFixed(1)},${y(p).toFixed(1)}`).join(" ");
  const step = niceStep((hi - lo) / 6);
  const xTicks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) xTicks.push(t);
  const parts = [0, 0.25, 0.5, 0.75, 1].map((p) =>
    `<line class="grid" x1="${left}" x2="${w - right}" y1="${y(p)}" y2="${y(p)}"/>` +
    `<text x="${left - 6}" y="${y(p) + 4}" text-anchor="end">${100 * p}%</text>`);
  parts.push(...xTicks.map((t) => `<line class="axis" x1="${x(t)}" x2="${x(t)}" y1="${h - bottom}" y2="${h - bottom + 5}"/>` +
    `<text x="${x(t)}" y="${h - bottom + 18}" text-anchor="middle">${t}</text>`));
  parts.push(`<line class="axis" x1="${left}" x2="${w - right}" y1="${h - bottom}" y2="${h - bottom}"/>`,
    `<line class="axis" x1="${left}" x2="${left}" y1="${top}" y2="${h - bottom}"/>`,
    `<path class="curve" d="${path}"/>`,
    `<text x="${(left + w - right) / 2}" y="${h - 6}" text-anchor="middle">final total t</text>`,
    `<text x="${left}" y="${top - 8}">chance of a final total of at least t</text>`);
  if (target >= lo && target <= hi) {
    parts.push(`<line class="marker" x1="${x(target)}" x2="${x(target)}" y1="${top}" y2="${h - bottom}"/>`,
      `<text x="${x(target) + 4}" y="${top + 12}">target ${target}</text>`);
  }
  svg.innerHTML = parts.join("");
  svg.setAttribute("aria-label", `The chance of reaching each total from ${lo} to ${hi}; the target ${target} is marked`);
  svg.toggleAttribute("hidden", false);
}

function niceStep(rough) {
  const power = 10 ** Math.floor(Math.log10(Math.max(rough, 1)));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) || 10 * power;
}

// ---- the best reply to an optimal player ----

async function beat() {
  const answer = $("beat-answer");
  answer.textContent = "working it out (about a minute the first time for a rule set)…";
  try {
    const r = await api("/api/solo/beat", { rules: rulesName() });
    answer.textContent = `Playing to beat an optimal player (who averages ${r.opponent_mean.toFixed(2)}), ` +
      `you win ${percent(r.win_probability)} of games at best, ties counting half.`;
  } catch (error) {
    answer.textContent = "";
    showError(error);
  }
}

// ---- a position as a link ----

function positionHash() {
  const params = new URLSearchParams({
    tab: page.tab, rules: rulesName(), dice: page.dice.join(""), rolls: String(rollsLeft()), card: cardText("me"),
  });
  if (page.tab === "duel") params.set("opp", cardText("opp"));
  if (page.tab === "target") params.set("target", $("target").value);
  return "#" + params.toString();
}

function share() {
  const url = location.origin + location.pathname + positionHash();
  history.replaceState(null, "", url);
  const field = $("share-url");
  field.value = url;
  field.hidden = false;
  field.select();
  if (navigator.clipboard) navigator.clipboard.writeText(url).catch(() => {});
}

// Opens the position a link's fragment holds; false if it holds none.
// A game's link: the game of its seed (and rules), dealt anew unless it is the one being
// played, or the player keeps a game in progress.
function openGameLink(seed) {
  showTab("play");
  if (seed === null || !/^[0-9]+$/.test(seed) || (page.play && String(page.play.seed) === seed)) return;
  if (gameInProgress() && !confirm(`Start the game of seed ${seed}? The one in progress is lost.`)) return;
  $("seed").value = seed;
  $("seed").dataset.typed = "true";
  newGame();
}
function openHash() {
  if (location.hash.length < 2) return false;
  const params = new URLSearchParams(location.hash.slice(1));
  const rules = params.get("rules");
  if (rules && page.rules.some((r) => r.name === rules) && rules !== rulesName()) {
    $("rules").value = rules;
    renderRules();
  }
  const dice = (params.get("dice") || "").replace(/[^1-6]/g, "");
  if (dice.length === 5) page.dice = dice.split("").map(Number);
  $("dice-text").value = page.dice.join("");
  const rolls = params.get("rolls");
  if (["0", "1", "2"].includes(rolls)) document.querySelector(`input[data-rolls-left="${rolls}"]`).checked = true;
  setCardText("me", params.get("card") || "");
  setCardText("opp", params.get("opp") || "");
  if (params.get("target")) $("target").value = params.get("target");
  const tab = params.get("tab");
  if (tab === "play") {
    openGameLink(params.get("seed"));
    return true;
  }
  showTab(["advisor", "duel", "target"].includes(tab) ? tab : "advisor");
  return true;
}

// ---- play with feedback, kept in the browser ----

// Mulberry32 over a state kept in the game, so a seed deals the same dice again and an
// undone roll comes back the same.
function nextRandom(play) {
  play.rng = (play.rng + 0x6D2B79F5) >>> 0;
  let t = play.rng;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function die(play) { return 1 + Math.floor(nextRandom(play) * 6); }

function saveGame() {
  try {
    localStorage.setItem(PLAY_KEY, JSON.stringify({ play: page.play, undo: page.undo }));
  } catch (error) { /* storage full or off: the game goes on unsaved */ }
}

function loadGame() {
  try {
    const saved = JSON.parse(localStorage.getItem(PLAY_KEY) || "null");
    // A game saved by an earlier page, which kept its record in a form of its own, is not resumed.
    if (saved && saved.play && typeof saved.play.record === "string" && page.rules.some((r) => r.name === saved.play.rules)) {
      page.play = saved.play;
      page.undo = Array.isArray(saved.undo) ? saved.undo : [];
    }
  } catch (error) { localStorage.removeItem(PLAY_KEY); }
}

function gameInProgress() { return page.play && !page.play.over && page.play.decisions > 0; }

// A new game is dealt from the seed the player typed, else from a fresh random one (shown,
// and in the game's link, so that the game can be dealt again).
function newGame() {
  const typed = $("seed").dataset.typed === "true";
  const seed = typed ? Number($("seed").value) || 0 : crypto.getRandomValues(new Uint32Array(1))[0] % 1000000;
  $("seed").dataset.typed = "false";
  page.play = { rules: rulesName(), seed, rng: seed >>> 0, card: "", record: "", feedback: [], decisions: 0, total: 0, turnNumber: 0, over: false };
  page.undo = [];
  startTurn();
}

function startTurn() {
  const play = page.play;
  play.turnNumber += 1;
  play.dice = [die(play), die(play), die(play), die(play), die(play)];
  play.kept = [false, false, false, false, false];
  play.rollsLeft = 2;
  play.rolls = [play.dice.join("")];
  play.keeps = [];
  play.advised = null;
  saveGame();
  renderPlay();
}

// Remembers the game before a decision, so that Undo can take it back.
function checkpoint() {
  page.undo.push(JSON.stringify(page.play));
  if (page.undo.length > UNDO_DEPTH) page.undo.shift();
}

// Takes back the last decision; it stays in the game's account as taken back (with what
// it lost), though no longer in its record or its count.
function undo() {
  if (!page.undo.length) return;
  const taken = page.play.feedback[page.play.feedback.length - 1];
  const before = page.play.undone || [];
  page.play = JSON.parse(page.undo.pop());
  page.play.undone = taken ? before.concat([taken]) : before;
  $("hint-answer").textContent = "";
  saveGame();
  renderPlay();
  $("play-status").textContent = "Took back the last decision. " + $("play-status").textContent;
}

function toggleKeep(i) {
  const play = page.play;
  if (!play || play.over || play.rollsLeft === 0) return;
  play.kept[i] = !play.kept[i];
  saveGame();
  renderDice($("play-dice"), play.dice, toggleKeep, play.kept, play.advised);
}

function renderPlay() {
  const play = page.play;
  renderDice($("play-dice"), play.dice, toggleKeep, play.kept, play.advised);
  $("seed").value = String(play.seed);
  $("play-status").textContent = play.over ? `Game over: ${play.total} points.`
    : `Turn ${play.turnNumber}, ${play.rollsLeft} reroll${play.rollsLeft === 1 ? "" : "s"} left: ` +
      (play.rollsLeft ? "press dice to keep them, then reroll the others; or score a box." : "score a box.");
  $("reroll").disabled = play.over || play.rollsLeft === 0;
  $("undo").disabled = page.undo.length === 0;
  $("hint").disabled = play.over;
  $("play-record").value = play.record;
  $("feedback").replaceChildren(...play.feedback.map(feedbackItem));
  const undone = play.undone || [];
  $("undone").replaceChildren(...undone.map(feedbackItem));
  $("undone-box").hidden = undone.length === 0;
  const last = play.feedback[play.feedback.length - 1];
  $("last-feedback").innerHTML = last && $("play-feedback").checked ? `<span class="turn">Turn ${last.turn}:</span> ${last.text}` : "";
  $("last-feedback").className = last && last.loss > TOLERANCE ? "loss" : "";
  $("game-link").href = "#" + new URLSearchParams({ tab: "play", rules: play.rules, seed: String(play.seed) });
  renderGameOver();
  drawPlayCard(play).catch(showError);
}

// The game's card, each open box's button showing what the dice would score there.
async function drawPlayCard(play) {
  const v = await api("/api/card/view", { rules: play.rules, card: play.card, dice: play.over ? undefined : play.dice.join("") });
  if (page.play !== play) return;
  $("play-card").innerHTML = cardRows(v, "play", (b) => b.filled !== null && b.filled !== undefined
    ? `<span data-filled="${b.name}">${b.filled}</span>`
    : `<button type="button" class="score" data-score="${b.name}" ${play.over || !b.would ? "disabled" : ""} ` +
      `aria-label="Score ${b.label}${b.would ? " for " + b.would.points : ""}">` +
      `${b.would ? "Score " + wouldHtml(b.would) : "Score"}</button>`);
  showCardView("play", v);
  document.querySelectorAll("button[data-score]").forEach((b) => b.addEventListener("click", () => scoreBox(b.dataset.score)));
}

function feedbackItem(f) {
  const item = document.createElement("li");
  Object.assign(item.dataset, { card: f.card, dice: f.dice, rollsLeft: String(f.rollsLeft), loss: String(f.loss), choice: f.choice, best: f.best, turn: String(f.turn) });
  item.innerHTML = `<span class="turn">Turn ${f.turn}:</span> ${f.text}`;
  if (f.loss > TOLERANCE) item.className = "loss";
  item.hidden = !$("play-feedback").checked;
  return item;
}

// The advisor's options for the game's position at `rollsLeft`.
function playAdvice(rollsLeft) {
  const play = page.play;
  return api("/api/solo/advise", { rules: play.rules, card: play.card, dice: play.dice.join(""), rolls_left: rollsLeft });
}

// The library's judgement of a decision (`/api/solo/judge`: the rule `yz review` and
// `yz play` judge by): the choice made and the best one, and what the choice lost.
function judge(choice) {
  const play = page.play;
  return api("/api/solo/judge", { rules: play.rules, card: play.card, dice: play.dice.join(""), rolls_left: play.rollsLeft, ...choice });
}

// Records a decision's feedback from its judgement: what it was worth against the best choice.
function addFeedback({ chosen, best, loss }, text) {
  const play = page.play;
  const words = loss <= TOLERANCE ? `${text}: a best choice`
    : `${text}: loses ${loss.toFixed(2)} points; best was ${choiceWords(best)}`;
  play.feedback.push({
    turn: play.turnNumber, card: play.card, dice: play.dice.join(","), rollsLeft: play.rollsLeft, loss,
    choice: choiceKey(chosen), best: choiceKey(best), text: words, value: chosen.expected_final,
  });
  play.decisions += 1;
}

async function reroll() {
  showError(null);
  const play = page.play;
  if (!play || play.over || play.rollsLeft === 0) return;
  const keep = play.dice.filter((_, i) => play.kept[i]).sort();
  try {
    const judged = await judge({ keep: keep.length ? keep.join("") : "-" });
    checkpoint();
    addFeedback(judged, choiceWords(judged.chosen));
    play.dice = play.dice.map((face, i) => (play.kept[i] ? face : die(play)));
    play.keeps.push(keep.length ? keep.join("") : "-");
    play.rolls.push(play.dice.join(""));
    play.rollsLeft -= 1;
    play.kept = play.kept.map(() => false);
    play.advised = null;
    $("hint-answer").textContent = "";
    saveGame();
    renderPlay();
  } catch (error) { showError(error); }
}

// Scores a box, with rerolls left or none: one decision, worth the box's value against
// the best choice the position offered (with rerolls left, the best keep).
async function scoreBox(name) {
  showError(null);
  const play = page.play;
  try {
    const judged = await judge({ score: name });
    const text = play.rollsLeft > 0
      ? `${choiceWords(judged.chosen)} with ${play.rollsLeft} reroll${play.rollsLeft === 1 ? "" : "s"} left`
      : choiceWords(judged.chosen);
    // The library adds the turn to the game's record (and checks it as any record's).
    const scored = await api("/api/play/turn", { rules: play.rules, record: play.record, rolls: play.rolls, keeps: play.keeps, box: name });
    checkpoint();
    addFeedback(judged, text);
    play.record = scored.record;
    play.card = scored.card;
    play.total = scored.total;
    play.over = scored.full;
    $("hint-answer").textContent = "";
    if (play.over) {
      play.advised = null;
      // The game's decisions and losses summed by the library's review of its record.
      play.summary = (await api("/api/review", { record: play.record, top: 0 })).players[0];
      saveGame();
      renderPlay();
      page.keeping = keepGame($("play-record").value);
    } else {
      startTurn();
      // The score's button is gone with the card redrawn: focus stays in the game, where
      // Enter rerolls.
      $("reroll").focus();
    }
  } catch (error) { showError(error); }
}

// The best choice now, with a button that makes it: keeping all five dice with rerolls
// left is scoring now (it is worth the same), so the hint names the box.
async function hint() {
  const play = page.play;
  if (!play || play.over) return null;
  try {
    const advice = await playAdvice(play.rollsLeft);
    const best = (await scoreNow(advice.options[0], play.rollsLeft, () => playAdvice(0))) || advice.options[0];
    if (page.play !== play) return null;
    play.advised = best.action === "keep" ? keepMask(play.dice, best.keep) : null;
    const words = best.action === "score" && play.rollsLeft > 0 ? `${choiceWords(best)} now` : choiceWords(best);
    $("hint-answer").innerHTML = `Hint: ${words}, expected final score ${points(best.expected_final)}. ` +
      `<button type="button" id="apply" data-choice="${choiceKey(best)}">Do it <kbd>A</kbd></button>`;
    $("apply").addEventListener("click", () => apply(best));
    saveGame();
    renderDice($("play-dice"), play.dice, toggleKeep, play.kept, play.advised);
    return best;
  } catch (error) { showError(error); return null; }
}

// Makes the hinted choice in one step: keeps its dice and rerolls, or scores its box.
async function apply(choice) {
  const play = page.play;
  const best = choice || await hint();
  if (!best || page.play !== play || play.over) return;
  if (best.action === "score") { await scoreBox(best.category); } else {
    play.kept = keepMask(play.dice, best.keep);
    await reroll();
  }
}

function renderGameOver() {
  const play = page.play;
  const box = $("game-over");
  box.hidden = !play.over;
  if (!play.over) { box.innerHTML = ""; return; }
  const worst = [...play.feedback].filter((f) => f.loss > TOLERANCE).sort((a, b) => b.loss - a.loss).slice(0, 3);
  const summary = play.summary;
  box.innerHTML = `<h2>Game over: ${play.total} points</h2>` +
    (summary ? `<p>${summary.decisions} decisions, mean loss ${summary.mean_loss.toFixed(2)} points per decision ` +
      `(${summary.total_loss.toFixed(2)} in all).</p>` : "") +
    ((play.undone || []).length ? `<p>${play.undone.length} decision${play.undone.length === 1 ? "" : "s"} taken back ` +
      `(losing ${play.undone.reduce((sum, f) => sum + f.loss, 0).toFixed(2)} points before the undo).</p>` : "") +
    (worst.length ? `<p>Worst decisions:</p><ol>${worst.map((f) => `<li>Turn ${f.turn}: ${f.text}</li>`).join("")}</ol>`
      : "<p>Every decision was a best choice.</p>") +
    `<p><button type="button" id="open-review" class="primary">Open the review</button></p>`;
  $("open-review").addEventListener("click", async () => {
    await page.keeping;
    $("record").value = $("play-record").value;
    showTab("review");
    review();
  });
}

// ---- review of a record ----

const FIGURES = [
  ["expected final score", "expected_final", 1], ["chance of the upper bonus", "upper_bonus", 100],
  ["chance of five of a kind", "five_of_a_kind", 100], ["expected extra bonus", "extra_bonus", 1],
];

function breakdown(m) {
  const rows = [];
  for (const [name, key, scale] of FIGURES) {
    const [a, b] = [m.chosen[key], m.best[key]];
    if (a === undefined || b === undefined || Math.abs(a - b) <= TOLERANCE) continue;
    const [x, y] = apart(a, b, 2, scale);
    rows.push([name, x + (scale === 100 ? "%" : ""), y + (scale === 100 ? "%" : "")]);
  }
  for (const box of m.chosen.boxes || []) {
    const other = (m.best.boxes || []).find((b) => b.box === box.box);
    if (!other || Math.abs(box.expected - other.expected) <= TOLERANCE) continue;
    const [x, y] = apart(box.expected, other.expected, 2);
    rows.push([`expected in ${label(box.box)}`, x, y]);
  }
  return rows;
}

async function review() {
  clearAnswer();
  try {
    const record = $("record").value;
    const answer = await api("/api/review", { record });
    page.review = answer;
    const chance = answer.measure !== "expected_points";
    const unit = chance ? "points of winning chance" : "points";
    const scale = chance ? 100 : 1;
    $("summary").textContent = answer.players.map((p) =>
      `${p.name}: ${p.points} points, ${p.decisions} decisions, total loss ${(scale * p.total_loss).toFixed(2)} ${unit} ` +
      `(mean ${(scale * p.mean_loss).toFixed(precise() ? 6 : 3)} per decision)`).join("; ");
    $("summary").dataset.totalLoss = answer.players.map((p) => p.total_loss).join(",");
    const rows = answer.decisions.map((d, i) => `<tr class="${d.loss > TOLERANCE ? "loss" : ""}" data-turn="${d.turn}" data-loss="${d.loss}">` +
      `<td>${d.turn}${answer.players.length > 1 ? " " + d.player : ""}</td><td>${d.dice.replace(/,/g, "")}` +
      `<span class="hint"> ${d.rolls_left} left</span></td><td class="choice">${choiceWords(d.chosen)}</td>` +
      `<td class="choice wide">${d.loss > TOLERANCE ? choiceWords(d.best) : "="}</td>` +
      `<td class="value">${d.loss > TOLERANCE ? (scale * d.loss).toFixed(precise() ? 6 : 2) : "0"}</td>` +
      `<td><button type="button" data-open="${i}" aria-label="Open turn ${d.turn}, ${d.rolls_left} rerolls left, in the advisor">Open</button></td></tr>`);
    $("options").innerHTML = `<caption class="hint">Every decision; Open puts its position in the advisor</caption>` +
      `<tr><th scope="col">turn</th><th scope="col">dice</th><th scope="col">chosen</th><th scope="col" class="wide">best</th>` +
      `<th scope="col">loss</th><th scope="col"><span class="hint">advisor</span></th></tr>` + rows.join("");
    document.querySelectorAll("button[data-open]").forEach((b) => b.addEventListener("click", () => openDecision(Number(b.dataset.open))));
    $("mistakes").innerHTML = answer.mistakes.map((m) => {
      const d = answer.decisions[m.decision];
      const figures = breakdown(m).map(([name, x, y]) => `<tr><th scope="row">${name}</th><td>${x}</td><td>${y}</td></tr>`).join("");
      return `<div class="mistake" data-decision="${m.decision}"><p><strong>Turn ${d.turn}</strong>, dice ${d.dice}, ` +
        `${d.rolls_left} rerolls left: ${choiceWords(d.chosen)} instead of ${choiceWords(d.best)}, ` +
        `loses ${(scale * d.loss).toFixed(chance ? 4 : 2)} ${unit}.</p>` +
        (figures ? `<table><tr><td></td><th scope="col">chosen</th><th scope="col">best</th></tr>${figures}</table>` : "") + "</div>";
    }).join("");
    keepGame(record);
  } catch (error) { showError(error); }
}

// Puts a reviewed decision's position (the mover's card, the dice, the rerolls) in the advisor.
function openDecision(i) {
  const d = page.review.decisions[i];
  if (page.review.rules && page.review.rules !== rulesName()) {
    $("rules").value = page.review.rules;
    renderRules();
  }
  page.dice = d.dice.split(",").map(Number);
  $("dice-text").value = page.dice.join("");
  document.querySelector(`input[data-rolls-left="${d.rolls_left}"]`).checked = true;
  setCardText("me", d.card);
  showTab("advisor");
}

// ---- my games over time ----

// Keeps a game in the data directory, when asked and once (a game played here and then
// reviewed is one game).
async function keepGame(record) {
  if (!$("keep-games").checked || record === page.keptRecord) return;
  page.keptRecord = record;
  try { await api("/api/history", { record }); } catch (error) { showError(error); }
}

// The games kept, one row each: the first player's (the one coached) figures, the
// opponent apart; a solitaire game's loss in points, a two-player game's in winning chance.
async function showHistory() {
  try {
    const entries = await api("/api/history");
    const rows = entries.map((e) => {
      const [me, opp] = e.players;
      const loss = opp ? `${(100 * me.mean_loss).toFixed(3)} pp` : `${me.mean_loss.toFixed(3)} points`;
      return `<tr data-when="${e.when}"><td>${new Date(1000 * e.when).toLocaleString([], { dateStyle: "short", timeStyle: "short" })}</td>` +
        `<td class="wide">${e.rules}</td><td class="wide">${me.name}</td><td>${me.points}</td><td>${me.decisions}</td>` +
        `<td>${loss}</td><td>${opp ? `${opp.name}, ${opp.points}` : "none"}</td></tr>`;
    });
    $("history-table").innerHTML = entries.length
      ? `<tr><th scope="col">when</th><th scope="col" class="wide">rules</th><th scope="col" class="wide">player</th><th scope="col">points</th>` +
        `<th scope="col">decisions</th><th scope="col">mean loss</th><th scope="col">opponent</th></tr>` + rows.join("")
      : `<caption class="hint">No games kept yet: tick the box above, then play or review a game.</caption>`;
    drawHistory(entries.filter((e) => e.players.length === 1));
  } catch (error) { showError(error); }
}

function drawHistory(entries) {
  const svg = $("history-chart");
  const losses = entries.map((e) => e.players[0].mean_loss);
  if (losses.length < 2) { svg.toggleAttribute("hidden", true); return; }
  const [w, h, left, bottom, top] = [640, 220, 48, 30, 16];
  const most = Math.max(...losses, 1e-6);
  const x = (i) => left + (w - left - 10) * i / (losses.length - 1);
  const y = (v) => top + (h - top - bottom) * (1 - v / most);
  svg.innerHTML = `<line class="axis" x1="${left}" x2="${w - 10}" y1="${h - bottom}" y2="${h - bottom}"/>` +
    `<line class="axis" x1="${left}" x2="${left}" y1="${top}" y2="${h - bottom}"/>` +
    `<text x="${left - 6}" y="${top + 4}" text-anchor="end">${most.toFixed(2)}</text>` +
    `<text x="${left - 6}" y="${h - bottom + 4}" text-anchor="end">0</text>` +
    `<text x="${w / 2}" y="${h - 8}" text-anchor="middle">solitaire games, oldest first (mean loss per decision, points)</text>` +
    `<path class="curve" d="${losses.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}"/>`;
  svg.toggleAttribute("hidden", false);
}

// ---- tabs, rules, keys and start ----

function showTab(tab) {
  page.tab = tab;
  document.body.className = "tab-" + tab;
  document.querySelectorAll("#tabs button").forEach((b) => b.setAttribute("aria-selected", String(b.dataset.tab === tab)));
  $("panel").setAttribute("aria-labelledby", "tab-" + tab);
  $("position").hidden = !["advisor", "duel", "target"].includes(tab);
  $("cards").hidden = $("position").hidden;
  $("play").hidden = tab !== "play";
  $("review").hidden = tab !== "review";
  $("history").hidden = tab !== "history";
  clearAnswer();
  if (tab === "play") {
    if (!page.play || page.play.rules !== rulesName()) newGame(); else renderPlay();
  }
  if (tab === "history") showHistory();
  if (!$("position").hidden) positionChanged();
}

function renderRules() {
  $("beat-answer").textContent = "";
  renderEntryCard($("card-me"), "me");
  renderEntryCard($("card-opp"), "opp");
}

async function loadViews() {
  await Promise.all(page.rules.filter((r) => !page.views[r.name]).map(async (r) => {
    page.views[r.name] = await api("/api/card/view", { rules: r.name, card: "" });
  }));
}

function rulesChanged(event) {
  const before = event.target.dataset.current;
  if (gameInProgress() && page.play.rules !== rulesName() &&
      !confirm(`Changing the rules ends your game in progress (turn ${page.play.turnNumber}). Change them?`)) {
    $("rules").value = before;
    return;
  }
  event.target.dataset.current = rulesName();
  renderRules();
  if (page.tab === "play") newGame();
  else if (page.play && page.play.rules !== rulesName()) { page.play = null; page.undo = []; localStorage.removeItem(PLAY_KEY); }
  positionChanged();
}

function onKey(event) {
  const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName);
  if (typing || event.altKey || event.metaKey || page.tab !== "play" || !page.play) return;
  const onButton = document.activeElement.tagName === "BUTTON";
  if (event.key >= "1" && event.key <= "5" && !event.ctrlKey) toggleKeep(Number(event.key) - 1);
  else if ((event.key === "Enter" && !onButton) || event.key === "r") reroll();
  else if (event.key === "h") hint();
  else if (event.key === "a") apply(null);
  else if (event.key === "c" || ((event.key === "ArrowDown" || event.key === "ArrowUp") && onButton)) moveInCard(event.key);
  else if (event.key === "u" || (event.key === "z" && event.ctrlKey)) undo();
  else return;
  event.preventDefault();
}

// The card from the keyboard: C goes to its first open box, the arrows from box to box,
// Enter scores (instead of tabbing through every control on the way).
function moveInCard(key) {
  const open = [...document.querySelectorAll("#play-card button[data-score]:not([disabled])")];
  if (!open.length) return;
  const at = open.indexOf(document.activeElement);
  const next = key === "c" || at < 0 ? 0 : key === "ArrowDown" ? Math.min(at + 1, open.length - 1) : Math.max(at - 1, 0);
  open[next].focus();
}

function savePrefs() {
  localStorage.setItem(PREFS_KEY, JSON.stringify({ keepGames: $("keep-games").checked, precise: precise() }));
}

async function start() {
  solver.local = !(await serverAnswers());
  document.body.dataset.solver = solver.local ? "browser" : "server";
  page.rules = await api("/api/rules");
  await loadViews();
  $("rules").innerHTML = page.rules.map((r) => `<option>${r.name}</option>`).join("");
  loadGame();
  if (page.play) $("rules").value = page.play.rules;
  $("rules").dataset.current = rulesName();
  const prefs = JSON.parse(localStorage.getItem(PREFS_KEY) || "{}");
  $("keep-games").checked = Boolean(prefs.keepGames);
  $("precise").checked = Boolean(prefs.precise);
  renderRules();
  $("rules").addEventListener("change", rulesChanged);
  document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));
  $("position").addEventListener("input", (event) => {
    if (event.target.id === "dice-text") readDiceText();
    else if (event.target.id !== "share-url" && event.target.id !== "precise") positionChanged();
  });
  $("cards").addEventListener("input", positionChanged);
  $("precise").addEventListener("change", () => { savePrefs(); positionChanged(); });
  $("keep-games").addEventListener("change", savePrefs);
  $("play-feedback").addEventListener("change", () => { if (page.play) renderPlay(); });
  $("beat").addEventListener("click", beat);
  $("share").addEventListener("click", share);
  $("new-game").addEventListener("click", () => {
    if (gameInProgress() && !confirm("Start a new game? The one in progress is lost.")) return;
    newGame();
  });
  $("reroll").addEventListener("click", reroll);
  $("play-best").addEventListener("click", playBest);
  $("hint").addEventListener("click", hint);
  $("seed").addEventListener("input", () => { $("seed").dataset.typed = "true"; });
  $("undo").addEventListener("click", undo);
  $("review-run").addEventListener("click", review);
  document.addEventListener("keydown", onKey);
  window.addEventListener("hashchange", openHash);
  if (!openHash()) showTab(page.play && !page.play.over && page.play.decisions > 0 ? "play" : "advisor");
  if ("serviceWorker" in navigator && window.isSecureContext) navigator.serviceWorker.register("sw.js").catch(() => {});
  document.body.dataset.ready = "true";
}

start().catch(showError);
