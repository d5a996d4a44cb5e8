"use strict";
// yz serve's page: every number comes from the JSON API (the library's advisors); the page
// only holds the position being entered and the game being played.

const $ = (id) => document.getElementById(id);
const page = { rules: [], tab: "advisor", dice: [1, 3, 3, 5, 6], play: null };

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const answer = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

function showError(error) { $("error").textContent = error ? (error.message || String(error)) : ""; }

function rulesName() { return $("rules").value || "official"; }
function boxes() {
  const rules = page.rules.find((r) => r.name === rulesName());
  return rules ? rules.boxes : [];
}

// A choice in the words of the command line: "keep 3,3", "keep -", "score fh for 25".
function choiceText(o) {
  if (o.action === "keep") return "keep " + (o.keep.length ? o.keep.join(",") : "-");
  return "score " + o.category + " for " + o.points;
}
function sameChoice(o, action, what) {
  if (o.action !== action) return false;
  return action === "keep" ? o.keep.join(",") === what.join(",") : o.category === what;
}

// ---- the position: dice and cards entered by clicking ----

function renderDice(element, dice, onClick, kept) {
  element.replaceChildren(...dice.map((face, i) => {
    const die = document.createElement("button");
    die.className = "die" + (kept && kept[i] ? " kept" : "");
    die.dataset.die = String(i);
    die.dataset.face = String(face);
    die.textContent = String(face);
    die.addEventListener("click", () => onClick(i));
    return die;
  }));
}

function cycleDie(i) {
  page.dice[i] = page.dice[i] % 6 + 1;
  renderDice($("dice"), page.dice, cycleDie);
}

function renderCard(table, who) {
  const rows = boxes().map((name) =>
    `<tr><th>${name}</th><td><input type="number" min="0" max="50" data-card="${who}" data-box="${name}"></td></tr>`);
  rows.push(`<tr><th>bonus</th><td><input type="number" min="0" step="100" data-card="${who}" data-box="bonus"></td></tr>`);
  table.innerHTML = rows.join("");
}

function cardText(who) {
  return [...document.querySelectorAll(`input[data-card="${who}"]`)]
    .filter((input) => input.value !== "")
    .map((input) => `${input.dataset.box}=${input.value}`)
    .join(",");
}

function rollsLeft() { return Number(document.querySelector("input[name=rolls-left]:checked").value); }

function renderOptions(options, valueKey, valueName) {
  const best = options.length ? options[0][valueKey] : 0;
  const rows = options.map((o, i) => {
    const gap = best - o[valueKey];
    return `<tr class="${i === 0 ? "best" : ""}" data-choice="${choiceText(o)}">` +
      `<td>${choiceText(o)}</td><td class="value">${o[valueKey].toFixed(6)}</td><td class="gap">${gap.toFixed(6)}</td></tr>`;
  });
  $("options").innerHTML = `<tr><th>choice</th><th>${valueName}</th><th>gap</th></tr>` + rows.join("");
}

function clearAnswer() {
  showError(null);
  $("summary").textContent = "";
  $("options").innerHTML = "";
  $("mistakes").innerHTML = "";
  $("curve").hidden = true;
}

async function advise() {
  clearAnswer();
  const position = { rules: rulesName(), card: cardText("me"), dice: page.dice.join(","), rolls_left: rollsLeft() };
  try {
    if (page.tab === "advisor") {
      const answer = await api("/api/solo/advise", position);
      $("summary").textContent = `card "${answer.card}", dice ${answer.dice}, rolls left ${answer.rolls_left}`;
      renderOptions(answer.options, "expected_final", "expected final score");
    } else if (page.tab === "duel") {
      const answer = await api("/api/duel/advise", {
        rules: position.rules, me: position.card, opp: cardText("opp"), dice: position.dice, rolls_left: position.rolls_left,
      });
      $("summary").textContent = `you "${answer.me}" against "${answer.opp}", difference ${answer.diff}, dice ${answer.dice}`;
      renderOptions(answer.options, "value", "winning chance");
    } else if (page.tab === "target") {
      const target = Number($("target").value);
      const answer = await api("/api/targets/advise", { ...position, target });
      $("summary").textContent = `card "${answer.card}", dice ${answer.dice}, target ${answer.target}`;
      renderOptions(answer.options, "probability", `P(final >= ${target})`);
      drawCurve(await api("/api/targets/curve", { rules: position.rules, card: position.card }), target);
    }
  } catch (error) { showError(error); }
}

// P(final total >= t) against t, with the target marked.
function drawCurve(answer, target) {
  const svg = $("curve");
  const points = answer.at_least;
  const [w, h, pad] = [640, 240, 30];
  const lo = points[0][0], hi = points[points.length - 1][0];
  const x = (t) => pad + (w - 2 * pad) * (t - lo) / Math.max(1, hi - lo);
  const y = (p) => h - pad - (h - 2 * pad) * p;
  const path = points.map(([t, p], i) => `${i ? "L" : "M"}${x(t).toFixed(1)},${y(p).toFixed(1)}`).join(" ");
  const tx = x(Math.min(Math.max(target, lo), hi));
  svg.innerHTML = `<path d="${path}" fill="none" stroke="#2b5d9b" stroke-width="2"/>` +
    `<line x1="${tx}" x2="${tx}" y1="${pad}" y2="${h - pad}" stroke="#a00" stroke-dasharray="4"/>` +
    `<text x="${pad}" y="${pad - 8}">P(final total >= t), t from ${lo} to ${hi}; the red line is the target</text>` +
    `<text x="${pad}" y="${h - 8}">${lo}</text><text x="${w - pad - 30}" y="${h - 8}">${hi}</text>`;
  svg.hidden = false;
}

// ---- play with feedback ----

// Mulberry32: a small seeded generator, so a seed deals the same dice again.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function newGame() {
  const seed = Number($("seed").value) || 0;
  page.play = { random: generator(seed), card: "", lines: [], over: false };
  $("feedback").replaceChildren();
  startTurn();
}

function die() { return 1 + Math.floor(page.play.random() * 6); }

function startTurn() {
  const play = page.play;
  play.dice = [die(), die(), die(), die(), die()];
  play.kept = [false, false, false, false, false];
  play.rollsLeft = 2;
  play.turn = [play.dice.join("")];
  renderPlay();
}

function toggleKeep(i) {
  if (page.play.rollsLeft === 0) return;
  page.play.kept[i] = !page.play.kept[i];
  renderPlay();
}

async function renderPlay() {
  const play = page.play;
  renderDice($("play-dice"), play.dice, toggleKeep, play.kept);
  $("play-status").textContent = play.over ? "game over" : `rerolls left ${play.rollsLeft}: click dice to keep them, then reroll; or click a box to score`;
  $("play-record").value = ["yz-record 1", `rules ${rulesName()}`, ...play.lines].join("\n") + "\n";
  const filled = Object.fromEntries(play.card.split(",").filter(Boolean).map((e) => e.split("=")));
  $("play-card").innerHTML = boxes().map((name) => name in filled
    ? `<tr><th>${name}</th><td>${filled[name]}</td></tr>`
    : `<tr><th>${name}</th><td><button data-score="${name}" ${play.over ? "disabled" : ""}>score</button></td></tr>`).join("") +
    `<tr><th>total</th><td id="play-total">${play.total || 0}</td></tr>`;
  document.querySelectorAll("button[data-score]").forEach((b) => b.addEventListener("click", () => scoreBox(b.dataset.score)));
}

// Values a decision as the coach does and reports it.
async function judge(rollsLeft, action, what) {
  const play = page.play;
  const answer = await api("/api/solo/advise", { rules: rulesName(), card: play.card, dice: play.dice.join(","), rolls_left: rollsLeft });
  const chosen = answer.options.find((o) => sameChoice(o, action, what));
  if (!chosen) throw new Error(`${action} ${what} is not a choice here`);
  const best = answer.options[0];
  const item = document.createElement("li");
  item.dataset.dice = answer.dice;
  item.dataset.rollsLeft = String(rollsLeft);
  item.dataset.card = answer.card;
  item.dataset.loss = String(chosen.gap);
  item.textContent = chosen.gap <= 1e-9 ? `${choiceText(chosen)}: a best choice`
    : `${choiceText(chosen)}: loses ${chosen.gap.toFixed(4)} points; best was ${choiceText(best)}`;
  if (chosen.gap > 1e-9) item.className = "loss";
  item.hidden = !$("play-feedback").checked;
  $("feedback").append(item);
  return chosen;
}

async function reroll() {
  showError(null);
  const play = page.play;
  if (!play || play.over) return;
  if (play.rollsLeft === 0) { showError("no reroll left: click a box to score"); return; }
  const keep = play.dice.filter((_, i) => play.kept[i]).sort();
  try {
    await judge(play.rollsLeft, "keep", keep);
    play.dice = play.dice.map((face, i) => (play.kept[i] ? face : die()));
    play.turn.push("keep", keep.length ? keep.join("") : "-", play.dice.join(""));
    play.rollsLeft -= 1;
    play.kept = play.kept.map(() => false);
    renderPlay();
  } catch (error) { showError(error); }
}

async function scoreBox(name) {
  showError(null);
  const play = page.play;
  try {
    // Scoring with rerolls left keeps all five dice at each, then chooses the box.
    for (let left = play.rollsLeft; left > 0; left -= 1) await judge(left, "keep", [...play.dice].sort());
    await judge(0, "score", name);
    const scored = await api("/api/card/score", { rules: rulesName(), card: play.card, dice: play.dice.join(","), box: name });
    play.lines.push(`${play.turn.join(" ")} ${name}=${scored.box_points}`);
    play.card = scored.card;
    play.total = scored.total;
    play.over = scored.full;
    if (play.over) renderPlay(); else startTurn();
  } catch (error) { showError(error); }
}

// ---- review of a pasted record ----

async function review() {
  clearAnswer();
  try {
    const answer = await api("/api/review", { record: $("record").value });
    const unit = answer.measure === "expected_points" ? "points of expected score" : "winning chance";
    $("summary").textContent = answer.players.map((p) =>
      `${p.name}: ${p.points} points, ${p.decisions} decisions, loss ${p.total_loss.toFixed(4)} (mean ${p.mean_loss.toFixed(4)}) in ${unit}`).join("; ");
    const rows = answer.decisions.map((d) => `<tr class="${d.loss > 1e-9 ? "loss" : ""}" data-turn="${d.turn}">` +
      `<td>${d.turn} ${d.player}</td><td>${d.dice}</td><td>${d.rolls_left}</td><td>${choiceText(d.chosen)}</td>` +
      `<td>${d.loss > 1e-9 ? choiceText(d.best) : "="}</td><td class="value">${d.loss.toFixed(6)}</td></tr>`);
    $("options").innerHTML = "<tr><th>turn</th><th>dice</th><th>rolls left</th><th>chosen</th><th>best</th><th>loss</th></tr>" + rows.join("");
    $("mistakes").innerHTML = answer.mistakes.map((m) => {
      const d = answer.decisions[m.decision];
      const rows = [["expected final", "expected_final"], ["P(upper bonus)", "upper_bonus"], ["P(five of a kind)", "five_of_a_kind"]]
        .filter(([, key]) => m.chosen[key] !== undefined)
        .map(([label, key]) => `${label} ${m.chosen[key].toFixed(4)} instead of ${m.best[key].toFixed(4)}`);
      return `<div class="mistake">turn ${d.turn}, dice ${d.dice}, rolls left ${d.rolls_left}: ${choiceText(d.chosen)} ` +
        `instead of ${choiceText(d.best)}, loses ${d.loss.toFixed(6)}<br>${rows.join("; ")}</div>`;
    }).join("");
  } catch (error) { showError(error); }
}

// ---- the best reply to an optimal player ----

async function beat() {
  const answer = $("beat-answer");
  answer.textContent = "working it out (about a minute the first time for a rule set)…";
  try {
    const r = await api("/api/solo/beat", { rules: rulesName() });
    answer.textContent = `Playing to beat an optimal player (who averages ${r.opponent_mean.toFixed(2)}), ` +
      `you win ${(100 * r.win_probability).toFixed(2)}% of games at best, ties counting half.`;
  } catch (error) {
    answer.textContent = "";
    showError(error);
  }
}

// ---- tabs and start ----

function showTab(tab) {
  page.tab = tab;
  document.body.className = "tab-" + tab;
  document.querySelectorAll("#tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === tab));
  $("position").hidden = !["advisor", "duel", "target"].includes(tab);
  $("play").hidden = tab !== "play";
  $("review").hidden = tab !== "review";
  clearAnswer();
  if (tab === "play" && !page.play) newGame();
}

function renderRules() {
  $("beat-answer").textContent = "";
  renderCard($("card-me"), "me");
  renderCard($("card-opp"), "opp");
  if (page.play) newGame();
}

async function start() {
  page.rules = await api("/api/rules");
  $("rules").innerHTML = page.rules.map((r) => `<option>${r.name}</option>`).join("");
  $("rules").addEventListener("change", renderRules);
  renderRules();
  renderDice($("dice"), page.dice, cycleDie);
  document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));
  $("advise").addEventListener("click", advise);
  $("beat").addEventListener("click", beat);
  $("new-game").addEventListener("click", newGame);
  $("reroll").addEventListener("click", reroll);
  $("review-run").addEventListener("click", review);
  document.body.dataset.ready = "true";
}

start().catch(showError);
