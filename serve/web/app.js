// The page of `vzero serve`: a game (start position + moves) shown at one ply, moves by click,
// the engine's replies, a live analysis (Server-Sent Events), records, and the training
// dashboard. All rules live in the server: legal moves, notation, outcomes and messages come
// from /api (docs/web.md).
'use strict';

const $ = (id) => document.getElementById(id);

const state = {
  info: null,
  variant: 'chaco-rex',
  startFen: '',
  moves: [],        // protocol form, the whole game line
  cursor: 0,        // ply shown
  position: null,   // /api/position answer at the cursor
  flipped: false,
  mode: 'play',
  selected: null,
  evals: {},        // ply -> White's winrate in [0, 1]
  generation: 0,    // bumps on every change of game or ply; late answers of older ones are dropped
  thinking: false,
  analysis: null,   // {source, id, generation}
  centres: {},
  runsTimer: null,
  selectedRun: null,
  fullHistory: [],  // history of the whole line (display forms of moves past the cursor)
};

class ApiError extends Error {
  constructor(message, field, status) {
    super(message);
    this.field = field;
    this.status = status;
  }
}

async function api(method, path, body) {
  const options = {method, headers: {}};
  if (body !== undefined) {
    options.headers['Content-Type'] = 'application/json';
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let data = null;
  try {
    data = await response.json();
  } catch (e) {
    throw new ApiError(`${method} ${path}: HTTP ${response.status}`, null, response.status);
  }
  if (!response.ok) throw new ApiError(data.error || `HTTP ${response.status}`, data.field, response.status);
  return data;
}

function showMessage(text, kind) {
  const el = $('message');
  el.textContent = text || '';
  el.className = 'message' + (kind ? ' ' + kind : '');
}

function sideOfStart(fen) {
  if (state.variant === 'portuguese-draughts') return fen[0] === 'B' ? 'black' : 'white';
  return (fen.split(' ')[1] || 'w') === 'b' ? 'black' : 'white';
}

// ---- game and position --------------------------------------------------------------------

async function fetchPosition(moves) {
  return api('POST', '/api/position', {variant: state.variant, fen: state.startFen, moves});
}

async function newGame(variant, fen, moves, cursor) {
  stopAnalysis();
  state.generation++;
  state.variant = variant;
  state.selected = null;
  state.evals = {};
  $('variant').value = variant;
  fillEvaluators();
  const start = await api('POST', '/api/position', {variant, fen: fen || ''});
  state.startFen = start.fen;
  state.moves = [];
  state.cursor = 0;
  state.position = start;
  state.fullHistory = [];
  if (moves && moves.length) {
    const full = await fetchPosition(moves);
    state.moves = full.history.map((h) => h.move);
    state.cursor = state.moves.length;
    state.position = full;
    state.fullHistory = full.history;
    if (cursor !== undefined && cursor >= 0 && cursor < state.moves.length) await goToPly(cursor);
  }
  render();
  afterPositionChange();
}

async function goToPly(ply) {
  ply = Math.max(0, Math.min(state.moves.length, ply));
  stopAnalysis();
  state.generation++;
  const generation = state.generation;
  const position = await fetchPosition(state.moves.slice(0, ply));
  if (generation !== state.generation) return;
  state.cursor = ply;
  state.position = position;
  state.selected = null;
  render();
  if (state.mode === 'analyse') startAnalysis();
}

// Plays `move` (protocol form) at the cursor; a move off the end of the line starts a new line.
async function playMove(move) {
  state.selected = null;
  const line = state.moves.slice(0, state.cursor).concat([move]);
  try {
    const position = await fetchPosition(line);
    stopAnalysis();
    state.generation++;
    state.moves = line;
    state.cursor = line.length;
    state.position = position;
    state.fullHistory = position.history;
    for (const ply of Object.keys(state.evals)) if (+ply > state.cursor) delete state.evals[ply];
    showMessage('');
    render();
    afterPositionChange();
  } catch (e) {
    showMessage(e.message, 'error');
    render();
  }
}

function engineToMove() {
  const who = $('engine-color').value;
  const side = state.position.sideToMove;
  return state.mode === 'play' && (who === 'both' || who === side);
}

function afterPositionChange() {
  if (state.position.status !== 'ongoing') return;
  if (state.mode === 'analyse') startAnalysis();
  else if (engineToMove() && state.cursor === state.moves.length) engineMove();
}

function whiteWinrate(rootInfo, side) {
  if (!rootInfo || rootInfo.winrate === null || rootInfo.winrate === undefined) return null;
  return side === 'white' ? rootInfo.winrate : 1 - rootInfo.winrate;
}

async function engineMove() {
  if (state.thinking || state.position.status !== 'ongoing') return;
  state.thinking = true;
  const generation = ++state.generation;
  const side = state.position.sideToMove;
  render();
  const request = {variant: state.variant, fen: state.startFen,
                   moves: state.moves.slice(0, state.cursor), evaluator: $('evaluator').value};
  const budget = Number($('budget').value);
  if ($('budget-kind').value === 'seconds') request.seconds = budget;
  else request.simulations = Math.round(budget);
  try {
    const reply = await api('POST', '/api/play', request);
    state.thinking = false;
    if (generation !== state.generation) return;
    const w = whiteWinrate(reply.analysis.rootInfo, side);
    if (w !== null) state.evals[state.cursor] = w;
    state.moves = state.moves.slice(0, state.cursor).concat([reply.move]);
    state.cursor = state.moves.length;
    state.position = reply.position;
    state.fullHistory = reply.position.history;
    state.generation++;
    showMessage(`vzero played ${reply.display} (${reply.analysis.rootInfo.visits} visits, ` +
                `${reply.analysis.rootInfo.evaluator})`, 'info');
    render();
    if ($('engine-color').value === 'both') setTimeout(afterPositionChange, 50);
  } catch (e) {
    state.thinking = false;
    showMessage('engine: ' + e.message, 'error');
    render();
  }
}

// ---- clicks on the board ------------------------------------------------------------------

function onCellClick(name) {
  const position = state.position;
  if (!position) return;
  if (state.thinking) {
    showMessage('vzero is thinking; wait for its move', 'error');
    return;
  }
  if (position.status !== 'ongoing') {
    showMessage(`The game is over (${position.status}${position.reason ? ', ' + position.reason : ''})`, 'error');
    return;
  }
  if (state.mode === 'play' && engineToMove()) {
    showMessage(`It is vzero's turn (${position.sideToMove})`, 'error');
    return;
  }
  const legal = position.legalMoves;
  const from = state.selected;
  if (from) {
    const candidates = legal.filter((m) => m.from === from && m.to === name);
    if (candidates.length === 1 && name !== from) {
      playMove(candidates[0].move);
    } else if (candidates.length > 0) {
      chooseMove(candidates);  // several moves, or a promotion in place (confirmed, not a misclick)
    } else if (name === from) {
      state.selected = null;
      render();
    } else if (legal.some((m) => m.from === name)) {
      state.selected = name;
      render();
    } else {
      // Not a legal move: the engine says why.
      const text = state.variant === 'portuguese-draughts' ? `${from}-${name}` : `${from}${name}`;
      playMove(text);
    }
    return;
  }
  if (legal.some((m) => m.from === name)) {
    state.selected = name;
    showMessage('');
    render();
  } else {
    const piece = BOARDS[state.variant].placement(position.fen)[name];
    const what = piece ? `${pieceInfo(state.variant, piece).color} ${pieceInfo(state.variant, piece).name} on ${name}` : `${name} is empty`;
    showMessage(`${what}: no legal move starts there (${position.sideToMove} to move)`, 'error');
  }
}

// Several legal moves share the clicked from and to cells: promotion choices (Cuarenta's
// optional promotion offers "no promotion") or draughts capture paths.
function chooseMove(candidates) {
  const dialog = $('choice-dialog');
  const options = $('choice-options');
  options.innerHTML = '';
  const draughts = state.variant === 'portuguese-draughts';
  $('choice-title').textContent = draughts ? 'Which capture path?' : 'Promote to';
  for (const move of candidates) {
    const button = document.createElement('button');
    button.className = 'choice';
    button.setAttribute('data-move', move.move);
    if (draughts) {
      button.textContent = move.path.join('x');
    } else {
      const side = state.position.sideToMove;
      const letter = move.promotion ? PROMOTION_LETTERS[state.variant][move.promotion] : 'P';
      const shown = side === 'white' ? letter : letter.toLowerCase();
      if (letter && PIECE_SETS[state.variant][letter]) button.appendChild(pieceIcon(state.variant, shown, 48));
      const caption = document.createElement('span');
      caption.textContent = move.promotion ? move.display : `${move.display} (no promotion)`;
      button.appendChild(caption);
    }
    button.addEventListener('click', () => {
      dialog.hidden = true;
      playMove(move.move);
    });
    if (draughts) {
      button.addEventListener('mouseenter', () => drawPath(move.path));
      button.addEventListener('mouseleave', () => drawPath(null));
    }
    options.appendChild(button);
  }
  dialog.hidden = false;
}

// ---- drawing --------------------------------------------------------------------------------

function render() {
  const svg = $('board');
  const board = BOARDS[state.variant];
  state.centres = drawBoard(svg, state.variant, state.flipped);
  const position = state.position;
  if (!position) return;
  svg.setAttribute('data-ply', String(state.cursor));
  svg.setAttribute('data-fen', position.fen);
  const placement = board.placement(position.fen);
  const size = board.cellSize;
  const mark = (cell, cls) => {
    const el = svg.querySelector(`[data-cell="${cell}"]`);
    if (el) el.classList.add(cls);
  };
  const last = position.history[state.cursor - 1];
  if (last) {
    mark(last.from, 'last-move');
    mark(last.to, 'last-move');
  }
  if (position.inCheck) {
    const king = position.sideToMove === 'white' ? 'K' : 'k';
    for (const [cell, letter] of Object.entries(placement)) if (letter === king) mark(cell, 'in-check');
  }
  const pieces = svg.querySelector('.pieces');
  for (const [cell, letter] of Object.entries(placement)) {
    const c = state.centres[cell];
    if (c) drawPiece(pieces, state.variant, letter, c.x, c.y, size);
  }
  if (state.selected) {
    mark(state.selected, 'selected');
    const markers = svg.querySelector('.markers');
    const targets = new Set(position.legalMoves.filter((m) => m.from === state.selected).map((m) => m.to));
    for (const target of targets) {
      const c = state.centres[target];
      const capture = placement[target] && target !== state.selected;
      svgEl('circle', {cx: c.x, cy: c.y, r: size * (capture || target === state.selected ? 0.44 : 0.14),
                       class: capture || target === state.selected ? 'target ring' : 'target dot',
                       'data-target': target}, markers);
    }
  }
  renderStatus();
  renderMoveList();
  renderEvalGraph();
  renderEvalBar(state.evals[state.cursor]);
  $('eval-bar').setAttribute('data-flipped', state.flipped ? '1' : '0');
  const legend = $('legend');
  if (legend.getAttribute('data-variant') !== state.variant) drawLegend(legend, state.variant);
  fitBoard();
  $('fen').value = position.fen;
  $('undo').disabled = state.cursor === 0 || state.thinking;
  $('engine-move').disabled = state.thinking || position.status !== 'ongoing';
  updateAddress();
}

// The least width left to the panels beside the board, and the least board height on a window
// too low for the board and its controls (a phone on its side: the page scrolls then).
const kSideMinWidth = 340;
const kMinBoardHeight = 200;

// Sizes the board to the window: as large as the width allows (beside the panels, or the whole
// width when the panels go below it on a narrow window, style.css) and as the height allows with
// the status line, the buttons, the legend and one message line under it, all in view with the
// page scrolled to the top. The rows under the board wrap by the column's width, which follows
// the board's, so the size settles over a few rounds.
function fitBoard() {
  const view = $('game-view');
  if (view.hidden) return;
  const board = BOARDS[state.variant];
  const svg = $('board'), column = $('board-column'), row = $('board-row'), legend = $('legend');
  const px = (el, property) => parseFloat(getComputedStyle(el)[property]) || 0;
  const stacked = getComputedStyle(view).flexDirection === 'column';
  const barWidth = $('eval-bar').offsetWidth + px(row, 'columnGap');
  const sideWidth = stacked ? 0 : kSideMinWidth + px(view, 'columnGap');
  const widthLimit = view.clientWidth - barWidth - sideWidth;
  const messageLine = px($('message'), 'minHeight') + px($('message'), 'marginTop');
  for (let round = 0; round < 4; round++) {
    const rowBox = row.getBoundingClientRect();
    const below = legend.getBoundingClientRect().bottom - rowBox.bottom + messageLine;
    const heightLimit = window.innerHeight - (rowBox.top + window.scrollY) - below - 4;
    const scale = Math.min(widthLimit / board.width,
                           Math.max(heightLimit, kMinBoardHeight) / board.height);
    const width = `${Math.max(1, Math.floor(board.width * scale))}px`;
    const height = `${Math.max(1, Math.floor(board.height * scale))}px`;
    column.style.width = stacked ? '' : `${parseFloat(width) + barWidth}px`;
    if (svg.style.width === width && svg.style.height === height) break;
    svg.style.width = width;
    svg.style.height = height;
  }
}

function renderStatus() {
  const p = state.position;
  const el = $('status-line');
  el.setAttribute('data-side', p.sideToMove);
  el.setAttribute('data-status', p.status);
  if (p.status !== 'ongoing') {
    el.textContent = `Game over: ${p.status.replace('-', ' ')}${p.reason ? ' (' + p.reason + ')' : ''}`;
  } else {
    el.textContent = `${p.sideToMove === 'white' ? 'White' : 'Black'} to move` +
        (p.inCheck ? ' · check' : '') + (state.thinking ? ' · vzero is thinking…' : '') +
        (state.cursor < state.moves.length ? ` · viewing ply ${state.cursor} of ${state.moves.length}` : '');
  }
}

function renderMoveList() {
  const list = $('move-list');
  list.innerHTML = '';
  const whiteFirst = sideOfStart(state.startFen) === 'white';
  // The display forms of the whole line come from the last full answer; the shown ply's answer
  // covers the moves up to it, so the rest keep their protocol form.
  const displays = state.fullHistory && state.fullHistory.length === state.moves.length &&
      state.fullHistory.every((h, i) => h.move === state.moves[i]) ? state.fullHistory : null;
  state.moves.forEach((move, i) => {
    const li = document.createElement('li');
    const ply = i + 1;
    const number = Math.floor((i + (whiteFirst ? 0 : 1)) / 2) + 1;
    const white = (i % 2 === 0) === whiteFirst;
    const display = displays ? displays[i].display :
        (state.position.history[i] ? state.position.history[i].display : move);
    li.textContent = (white ? `${number}. ` : (i === 0 ? `${number}… ` : '')) + display;
    li.setAttribute('data-ply', String(ply));
    if (ply === state.cursor) li.className = 'current';
    li.addEventListener('click', () => goToPly(ply));
    list.appendChild(li);
  });
  const current = list.querySelector('.current');
  if (current) current.scrollIntoView({block: 'nearest'});
}

function renderEvalBar(w) {
  const fill = $('eval-fill');
  const text = $('eval-text');
  if (w === undefined || w === null) {
    fill.style.height = '50%';
    text.textContent = '–';
    return;
  }
  fill.style.height = `${(w * 100).toFixed(1)}%`;
  text.textContent = `${Math.round(w * 100)}`;
  $('eval-bar').setAttribute('data-white', w.toFixed(3));
}

function renderEvalGraph() {
  const svg = $('eval-graph');
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const n = Math.max(1, state.moves.length);
  const X = (ply) => (ply / n) * 300, Y = (w) => (1 - w) * 80;
  svgEl('rect', {x: 0, y: 0, width: 300, height: 80, class: 'graph-back'}, svg);
  svgEl('line', {x1: 0, y1: 40, x2: 300, y2: 40, class: 'graph-mid'}, svg);
  const points = Object.keys(state.evals).map(Number).sort((a, b) => a - b)
      .map((ply) => `${X(ply).toFixed(1)},${Y(state.evals[ply]).toFixed(1)}`);
  if (points.length) svgEl('polyline', {points: points.join(' '), class: 'graph-line'}, svg);
  svgEl('line', {x1: X(state.cursor), y1: 0, x2: X(state.cursor), y2: 80, class: 'graph-cursor'}, svg);
}

function drawArrow(group, from, to, cls, width, opacity) {
  const a = state.centres[from], b = state.centres[to];
  if (!a || !b) return;
  if (from === to) {
    svgEl('circle', {cx: a.x, cy: a.y, r: BOARDS[state.variant].cellSize * 0.45,
                     class: 'arrow-ring ' + cls, 'stroke-width': width, opacity}, group);
    return;
  }
  const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy);
  const ux = dx / len, uy = dy / len;
  const head = width * 2.6;
  const ex = b.x - ux * head, ey = b.y - uy * head;
  svgEl('line', {x1: a.x, y1: a.y, x2: ex, y2: ey, class: 'arrow ' + cls, 'stroke-width': width,
                 opacity}, group);
  const px = -uy * head * 0.8, py = ux * head * 0.8;
  svgEl('polygon', {points: `${b.x},${b.y} ${ex + px},${ey + py} ${ex - px},${ey - py}`,
                    class: 'arrow-head ' + cls, opacity}, group);
}

function drawPath(path) {
  const group = $('board').querySelector('.arrows');
  group.innerHTML = '';
  if (!path) return;
  for (let i = 0; i + 1 < path.length; i++) drawArrow(group, path[i], path[i + 1], 'path', 7, 0.9);
}

// ---- analysis (Server-Sent Events) ----------------------------------------------------------

async function startAnalysis() {
  stopAnalysis();
  const position = state.position;
  if (!position) return;
  if (position.status !== 'ongoing') {
    $('analysis-summary').textContent = `Game over: ${position.status}`;
    return;
  }
  const generation = state.generation;
  try {
    const {id} = await api('POST', '/api/analysis', {
      variant: state.variant, fen: state.startFen, moves: state.moves.slice(0, state.cursor),
      evaluator: $('evaluator').value, multiPv: 8, every: 0.3});
    if (generation !== state.generation) {
      api('POST', `/api/analysis/${id}/stop`).catch(() => {});
      return;
    }
    const source = new EventSource(`/api/analysis/${id}/events`);
    state.analysis = {source, id, generation};
    $('analyse-toggle').textContent = 'Stop';
    $('analysis-panel').setAttribute('data-running', '1');
    source.onmessage = (event) => {
      if (!state.analysis || state.analysis.source !== source) return;
      const answer = JSON.parse(event.data);
      if (answer.error) {
        showMessage('analysis: ' + answer.error, 'error');
        return;
      }
      showAnalysis(answer);
    };
    source.addEventListener('end', () => {
      source.close();
      if (state.analysis && state.analysis.source === source) finishAnalysis();
    });
    source.onerror = () => {
      source.close();
      if (state.analysis && state.analysis.source === source) finishAnalysis();
    };
  } catch (e) {
    showMessage('analysis: ' + e.message, 'error');
  }
}

function finishAnalysis() {
  state.analysis = null;
  $('analyse-toggle').textContent = 'Start';
  $('analysis-panel').setAttribute('data-running', '0');
}

function stopAnalysis() {
  if (!state.analysis) return;
  const {source, id} = state.analysis;
  source.close();
  api('POST', `/api/analysis/${id}/stop`).catch(() => {});
  finishAnalysis();
}

function percent(x) {
  return x === null || x === undefined ? '–' : (100 * x).toFixed(1);
}

function showAnalysis(answer) {
  const side = state.position.sideToMove;
  const root = answer.rootInfo;
  const w = whiteWinrate(root, side);
  if (w !== null) {
    state.evals[state.cursor] = w;
    renderEvalBar(w);
    renderEvalGraph();
  }
  $('analysis-summary').textContent =
      `${root.visits} visits · ${root.evaluator} · ${side} ${percent(root.winrate)}% ` +
      (answer.isDuringSearch ? '· searching…' : '· done');
  const body = $('candidates').querySelector('tbody');
  body.innerHTML = '';
  for (const info of answer.moveInfos) {
    const tr = document.createElement('tr');
    tr.className = 'candidate';
    tr.setAttribute('data-move', info.move);
    const wdl = info.wdl ? `${percent(info.wdl.win)} / ${percent(info.wdl.draw)} / ${percent(info.wdl.loss)}` : '–';
    const line = (info.pvDisplay || info.pv).slice(0, 8).join(' ');
    for (const text of [info.displayMove, info.visits, percent(info.winrate), wdl, line]) {
      const td = document.createElement('td');
      td.textContent = String(text);
      tr.appendChild(td);
    }
    tr.lastChild.title = line;
    tr.addEventListener('click', () => playMove(info.move));
    body.appendChild(tr);
  }
  const group = $('board').querySelector('.arrows');
  group.innerHTML = '';
  const infos = answer.moveInfos.filter((m) => m.visits > 0);
  const top = infos.length ? infos[0].visits : 1;
  infos.slice(1, 4).forEach((info) => {
    drawArrow(group, info.cells.from, info.cells.to, 'candidate-arrow', 5, 0.25 + 0.5 * info.visits / top);
  });
  if (infos.length) {
    infos[0].pvCells.slice(0, 4).forEach((cells, i) => {
      drawArrow(group, cells.from, cells.to, i % 2 === 0 ? 'pv-own' : 'pv-reply', i === 0 ? 9 : 6,
                i === 0 ? 0.85 : 0.55);
    });
  }
}

// ---- records and addresses -------------------------------------------------------------------

// The address of the shown game: the game, the ply, the board's turn, the tab, and the side vzero
// plays with its budget, so that a link opens the same game against the same engine.
function updateAddress() {
  if (!state.info || !state.position) return;
  const params = new URLSearchParams();
  params.set('variant', state.variant);
  if (state.startFen && state.startFen !== startFenOf(state.variant)) params.set('fen', state.startFen);
  if (state.moves.length) params.set('moves', state.moves.join(' '));
  if (state.cursor !== state.moves.length) params.set('ply', String(state.cursor));
  if (state.flipped) params.set('flip', '1');
  if (state.mode !== 'play') params.set('mode', state.mode);
  params.set('engine', $('engine-color').value);
  params.set($('budget-kind').value, $('budget').value);
  history.replaceState(null, '', '/?' + params.toString());
}

function startFenOf(variant) {
  const v = state.info.variants.find((x) => x.name === variant);
  return v ? v.startFen : '';
}

function fillEvaluators() {
  const select = $('evaluator');
  const v = state.info.variants.find((x) => x.name === state.variant);
  const previous = select.value;
  select.innerHTML = '';
  for (const name of v.evaluators) {
    const option = document.createElement('option');
    option.value = name;
    option.textContent = name === 'net' ? 'network' : 'random rollouts';
    select.appendChild(option);
  }
  select.value = v.evaluators.includes(previous) ? previous : v.defaultEvaluator;
}

// ---- training dashboard ------------------------------------------------------------------------

async function refreshRuns() {
  try {
    const {runs} = await api('GET', '/api/runs');
    const ul = $('runs-list').querySelector('ul');
    ul.innerHTML = '';
    for (const run of runs) {
      const li = document.createElement('li');
      li.textContent = run.name;
      li.setAttribute('data-run', run.name);
      if (run.name === state.selectedRun) li.className = 'current';
      li.addEventListener('click', () => {
        state.selectedRun = run.name;
        refreshRuns();
      });
      ul.appendChild(li);
    }
    if (!runs.length) ul.innerHTML = '<li>No run directories yet.</li>';
    if (state.selectedRun) await showRun(state.selectedRun);
  } catch (e) {
    $('runs-list').querySelector('ul').innerHTML = '';
    $('run-summary').textContent = e.status === 404 ? 'Start vzero serve with --runs DIR to see training runs.' : e.message;
  }
}

function lineChart(title, series) {
  const W = 420, H = 160, pad = 34;
  const all = series.flatMap((s) => s.points);
  if (!all.length) return null;
  const xs = all.map((p) => p[0]), ys = all.map((p) => p[1]);
  const x0 = Math.min(...xs), x1 = Math.max(...xs, x0 + 1);
  const y0 = Math.min(...ys), y1 = Math.max(...ys, y0 + 1e-9);
  const svg = svgEl('svg', {viewBox: `0 0 ${W} ${H}`, class: 'chart'});
  svgEl('rect', {x: 0, y: 0, width: W, height: H, class: 'graph-back'}, svg);
  const t = svgEl('text', {x: pad, y: 14, class: 'chart-title'}, svg);
  t.textContent = title;
  const X = (x) => pad + (x - x0) / (x1 - x0) * (W - pad - 8);
  const Y = (y) => H - 18 - (y - y0) / (y1 - y0) * (H - 40);
  for (const [value, y] of [[y0, Y(y0)], [y1, Y(y1)]]) {
    const label = svgEl('text', {x: 2, y, class: 'chart-axis'}, svg);
    label.textContent = Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
  }
  const xl = svgEl('text', {x: W - 8, y: H - 4, class: 'chart-axis', 'text-anchor': 'end'}, svg);
  xl.textContent = `step ${x1}`;
  series.forEach((s, i) => {
    if (!s.points.length) return;
    svgEl('polyline', {points: s.points.map(([x, y]) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`).join(' '),
                       class: `chart-line series-${i}`}, svg);
    for (const [x, y] of s.points.length <= 40 ? s.points : []) {
      svgEl('circle', {cx: X(x), cy: Y(y), r: 2.5, class: `series-${i}`}, svg);
    }
    const legend = svgEl('text', {x: W - 8, y: 14 + 12 * i, class: `chart-legend series-${i}`,
                                  'text-anchor': 'end'}, svg);
    legend.textContent = s.name;
  });
  return svg;
}

async function showRun(name) {
  const run = await api('GET', `/api/runs/${encodeURIComponent(name)}`);
  $('run-name').textContent = run.name;
  $('run-summary').textContent = run.summary;
  const charts = $('run-charts');
  charts.innerHTML = '';
  const train = run.metrics.filter((m) => m.type === 'train');
  const pick = (key) => train.filter((m) => typeof m[key] === 'number').map((m) => [m.step, m[key]]);
  const losses = lineChart('losses', [{name: 'total', points: pick('loss')},
                                      {name: 'policy', points: pick('policy_loss')},
                                      {name: 'value', points: pick('value_loss')}]);
  if (losses) charts.appendChild(losses);
  const evaluation = run.metrics.filter((m) => m.type === 'evaluation' && typeof m.elo === 'number');
  const opponents = [...new Set(evaluation.map((m) => m.opponent))];
  const strength = lineChart('Elo against fixed opponents', opponents.map((o) => ({
    name: String(o), points: evaluation.filter((m) => m.opponent === o).map((m) => [m.step, m.elo])})));
  if (strength) charts.appendChild(strength);
  const plots = $('run-plots');
  plots.innerHTML = '';
  for (const plot of run.plots) {
    const img = document.createElement('img');
    img.src = `/api/runs/${encodeURIComponent(name)}/plots/${encodeURIComponent(plot)}?t=${Date.now()}`;
    img.alt = plot;
    plots.appendChild(img);
  }
}

// ---- modes and controls ------------------------------------------------------------------------

function setMode(mode) {
  state.mode = mode;
  showMessage('');
  for (const tab of document.querySelectorAll('.tab')) tab.classList.toggle('active', tab.dataset.mode === mode);
  $('game-view').hidden = mode === 'runs';
  $('runs-view').hidden = mode !== 'runs';
  $('play-panel').hidden = mode !== 'play';
  $('analysis-panel').hidden = mode !== 'analyse';
  clearInterval(state.runsTimer);
  state.runsTimer = null;
  if (mode === 'runs') {
    refreshRuns();
    state.runsTimer = setInterval(refreshRuns, 5000);
    return;
  }
  if (mode !== 'analyse') stopAnalysis();
  if (state.position) {
    render();
    afterPositionChange();
  }
}

function wire() {
  $('board').addEventListener('click', (event) => {
    const cell = event.target.closest('[data-cell]');
    if (cell) onCellClick(cell.getAttribute('data-cell'));
  });
  // Dragging a piece from one cell to another is the same as clicking both (a press and release
  // on one cell is an ordinary click).
  let pressed = null;
  $('board').addEventListener('pointerdown', (event) => {
    const cell = event.target.closest('[data-cell]');
    pressed = cell ? cell.getAttribute('data-cell') : null;
  });
  $('board').addEventListener('pointerup', (event) => {
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const cell = under && under.closest('[data-cell]');
    const released = cell ? cell.getAttribute('data-cell') : null;
    const from = pressed;
    pressed = null;
    if (!from || !released || released === from || !state.position) return;
    if (!state.position.legalMoves.some((m) => m.from === from)) return;
    state.selected = from;
    onCellClick(released);
  });
  $('variant').addEventListener('change', () => newGame($('variant').value).catch((e) => showMessage(e.message, 'error')));
  for (const tab of document.querySelectorAll('.tab')) tab.addEventListener('click', () => setMode(tab.dataset.mode));
  $('new-game').addEventListener('click', () => newGame(state.variant, state.startFen));
  $('flip').addEventListener('click', () => {
    state.flipped = !state.flipped;
    render();
  });
  $('undo').addEventListener('click', () => {
    // Back to the last position where the person was to move.
    let ply = state.cursor - 1;
    if (state.mode === 'play' && $('engine-color').value !== 'none' && ply > 0) ply--;
    goToPly(Math.max(0, ply));
  });
  $('engine-move').addEventListener('click', () => engineMove());
  $('engine-color').addEventListener('change', () => {
    // Playing Black against vzero: Black's side at the bottom.
    state.flipped = $('engine-color').value === 'white';
    render();
    afterPositionChange();
  });
  $('copy-link').addEventListener('click', () => {
    updateAddress();
    const link = location.href;
    if (navigator.clipboard) navigator.clipboard.writeText(link).catch(() => {});
    showMessage('Link: ' + link, 'info');
  });
  $('nav-first').addEventListener('click', () => goToPly(0));
  $('nav-prev').addEventListener('click', () => goToPly(state.cursor - 1));
  $('nav-next').addEventListener('click', () => goToPly(state.cursor + 1));
  $('nav-last').addEventListener('click', () => goToPly(state.moves.length));
  document.addEventListener('keydown', (event) => {
    if (event.target.tagName === 'INPUT' || event.target.tagName === 'TEXTAREA') return;
    if (event.key === 'ArrowLeft') goToPly(state.cursor - 1);
    if (event.key === 'ArrowRight') goToPly(state.cursor + 1);
  });
  $('eval-graph').addEventListener('click', (event) => {
    const box = $('eval-graph').getBoundingClientRect();
    goToPly(Math.round((event.clientX - box.left) / box.width * state.moves.length));
  });
  $('analyse-toggle').addEventListener('click', () => (state.analysis ? stopAnalysis() : startAnalysis()));
  $('evaluator').addEventListener('change', () => {
    if (state.analysis) startAnalysis();
  });
  $('budget-kind').addEventListener('change', () => {
    $('budget').value = $('budget-kind').value === 'seconds' ? '1' : String(state.info.limits.defaultSimulations);
    updateAddress();
  });
  $('budget').addEventListener('input', () => updateAddress());
  window.addEventListener('resize', () => {
    if (state.position) fitBoard();
  });
  $('load-fen').addEventListener('click', () =>
    newGame(state.variant, $('fen').value.trim()).catch((e) => showMessage(e.message, 'error')));
  $('export-record').addEventListener('click', async () => {
    try {
      const engine = $('engine-color').value;
      const names = {white: engine === 'white' || engine === 'both' ? 'vzero' : '?',
                     black: engine === 'black' || engine === 'both' ? 'vzero' : '?'};
      const record = await api('POST', '/api/record/export', {variant: state.variant, fen: state.startFen,
                                                               moves: state.moves, ...names});
      $('record').value = record.text;
      showMessage(`Exported as ${record.format.toUpperCase()}`, 'info');
    } catch (e) {
      showMessage(e.message, 'error');
    }
  });
  $('import-record').addEventListener('click', async () => {
    try {
      const game = await api('POST', '/api/record/import', {text: $('record').value});
      await newGame(game.variant, game.fen, game.moves);
      showMessage(`Imported ${game.moves.length} moves of ${game.variant}`, 'info');
    } catch (e) {
      showMessage(e.message, 'error');
    }
  });
  $('choice-cancel').addEventListener('click', () => {
    $('choice-dialog').hidden = true;
    state.selected = null;
    render();
  });
}

async function main() {
  wire();
  state.info = await api('GET', '/api/info');
  $('budget').value = String(state.info.limits.defaultSimulations);
  $('budget').max = String(state.info.limits.maxSimulations);
  const params = new URLSearchParams(location.search);
  const variant = params.get('variant') || 'chaco-rex';
  state.flipped = params.get('flip') === '1';
  const mode = params.get('mode');
  if (mode === 'analyse' || mode === 'runs') state.mode = mode;
  if (['black', 'white', 'none', 'both'].includes(params.get('engine'))) {
    $('engine-color').value = params.get('engine');
  }
  if (params.get('seconds')) {
    $('budget-kind').value = 'seconds';
    $('budget').value = params.get('seconds');
  } else if (params.get('simulations')) {
    $('budget').value = params.get('simulations');
  }
  const moves = (params.get('moves') || '').split(/[ ,]+/).filter(Boolean);
  const ply = params.has('ply') ? parseInt(params.get('ply'), 10) : undefined;
  try {
    state.variant = variant;
    await newGame(variant, params.get('fen') || '', moves, ply);
  } catch (e) {
    showMessage(e.message, 'error');
    if (!state.position) await newGame(state.info.variants.some((v) => v.name === variant) ? variant : 'chaco-rex');
  }
  setMode(state.mode);
  document.body.setAttribute('data-ready', '1');
}

main().catch((e) => showMessage(e.message, 'error'));
