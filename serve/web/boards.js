// The four boards as they are: geometry of every playable cell (its name, its centre, its
// outline), the board's own markings, coordinates, and the piece placement read from the first
// field of a position string. Drawing is SVG; every playable cell carries data-cell="NAME".
// Rules pages: shared/rules/*.md; engine/<game>/game.h and notation.h in C++.
'use strict';

const SVG_NS = 'http://www.w3.org/2000/svg';

function svgEl(tag, attrs, parent) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

// Reads ranks of a placement field: `rows` top rank first, each a list of cell names left to
// right; digits (one or two) count empty cells. Returns {cellName: pieceLetter}.
function readRanks(field, rows) {
  const ranks = field.split('/');
  const placement = {};
  if (ranks.length !== rows.length) return placement;
  ranks.forEach((rank, r) => {
    let i = 0;
    for (let k = 0; k < rank.length; k++) {
      const c = rank[k];
      if (c >= '0' && c <= '9') {
        let n = c;
        if (k + 1 < rank.length && rank[k + 1] >= '0' && rank[k + 1] <= '9') n += rank[++k];
        i += parseInt(n, 10);
      } else {
        if (i < rows[r].length) placement[rows[r][i]] = c;
        i++;
      }
    }
  });
  return placement;
}

// ---- Chaco Rex: 85 hexagons, files a..t without k, cell (x, y) exists when x + y is even ------
const CHACO_FILES = 'abcdefghijlmnopqrst';
function chacoRexBoard() {
  const R = 30, W = Math.sqrt(3) * R;
  const left = 44, top = 40;
  const cells = [];
  const rows = [];
  for (let y = 9; y >= 1; y--) {
    const row = [];
    for (let x = 0; x < 19; x++) {
      if ((x + y) % 2 !== 0) continue;
      const name = CHACO_FILES[x] + y;
      row.push(name);
      const cx = left + x * W / 2 + W / 2, cy = top + (9 - y) * 1.5 * R + R;
      const points = [];
      for (let k = 0; k < 6; k++) {
        const a = Math.PI / 180 * (60 * k - 90);
        points.push([cx + R * Math.cos(a), cy + R * Math.sin(a)]);
      }
      // Three colours, so that no two touching hexagons share one.
      const shade = ((x + 3 * y) / 2) % 3;
      cells.push({name, cx, cy, points, fill: ['#e9d9b6', '#c9a57a', '#dcc093'][shade]});
    }
    rows.push(row);
  }
  const width = left + 19 * W / 2 + W / 2 + 16, height = top + 8 * 1.5 * R + 2 * R + 30;
  const labels = [];
  for (let x = 0; x < 19; x++) {
    labels.push({text: CHACO_FILES[x], x: left + x * W / 2 + W / 2, y: height - 12, side: 'bottom'});
  }
  for (let y = 1; y <= 9; y++) {
    labels.push({text: String(y), x: 16, y: top + (9 - y) * 1.5 * R + R, side: 'left'});
  }
  return {
    width, height, cellSize: W * 0.98, cells, labels,
    placement: (fen) => readRanks(fen.split(' ')[0], rows),
  };
}

// ---- Chad: 12x12, castles c3-e5 and h8-j10, each ringed by its 12 wall squares --------------
function chadBoard() {
  const S = 44, left = 30, top = 12;
  const files = 'abcdefghijkl';
  const inBox = (f, r, f0, r0) => f >= f0 && f <= f0 + 2 && r >= r0 && r <= r0 + 2;
  const castle = (f, r) => inBox(f, r, 2, 2) ? 'w' : inBox(f, r, 7, 7) ? 'b' : null;
  const wall = (f, r) => {
    if (castle(f, r)) return null;
    for (const [df, dr] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
      const c = castle(f + df, r + dr);
      if (c) return c;
    }
    return null;
  };
  const cells = [], rows = [];
  for (let r = 11; r >= 0; r--) {
    const row = [];
    for (let f = 0; f < 12; f++) {
      const name = files[f] + (r + 1);
      row.push(name);
      const x = left + f * S, y = top + (11 - r) * S;
      const light = (f + r) % 2 === 1;
      let fill = light ? '#eee8dc' : '#c8bba4';
      let mark = null;
      if (castle(f, r)) {
        fill = light ? '#f3d9a4' : '#e2bc78';
        mark = 'castle-' + castle(f, r);
      } else if (wall(f, r)) {
        fill = light ? '#b9b3ad' : '#9d958e';
        mark = 'wall-' + wall(f, r);
      }
      cells.push({name, cx: x + S / 2, cy: y + S / 2, rect: [x, y, S, S], fill, mark});
    }
    rows.push(row);
  }
  const width = left + 12 * S + 8, height = top + 12 * S + 26;
  const labels = [];
  for (let f = 0; f < 12; f++) {
    labels.push({text: files[f], x: left + f * S + S / 2, y: height - 8, side: 'bottom'});
  }
  for (let r = 0; r < 12; r++) {
    labels.push({text: String(r + 1), x: 14, y: top + (11 - r) * S + S / 2, side: 'left'});
  }
  // Castle outlines (a castle is a 3x3 box; its wall ring lies outside the outline).
  const outlines = [[2, 2], [7, 7]].map(([f0, r0]) => ({
    rect: [left + f0 * S, top + (11 - (r0 + 2)) * S, 3 * S, 3 * S],
  }));
  return {
    width, height, cellSize: S, cells, labels, outlines,
    placement: (fen) => readRanks(fen.split(' ')[0], rows),
  };
}

// ---- Cuarenta: 9x9, the 40 light squares (file + rank odd, a = 1) are the board -------------
function cuarentaBoard() {
  const S = 52, left = 30, top = 12;
  const files = 'abcdefghi';
  const cells = [], dark = [], rows = [];
  for (let r = 9; r >= 1; r--) {
    const row = [];
    for (let f = 1; f <= 9; f++) {
      const x = left + (f - 1) * S, y = top + (9 - r) * S;
      if ((f + r) % 2 === 1) {
        const name = files[f - 1] + r;
        row.push(name);
        cells.push({name, cx: x + S / 2, cy: y + S / 2, rect: [x, y, S, S], fill: '#f1e4c8'});
      } else {
        dark.push({cx: x + S / 2, cy: y + S / 2, rect: [x, y, S, S], fill: '#6f5a44'});
      }
    }
    rows.push(row);
  }
  const width = left + 9 * S + 8, height = top + 9 * S + 26;
  const labels = [];
  for (let f = 0; f < 9; f++) {
    labels.push({text: files[f], x: left + f * S + S / 2, y: height - 8, side: 'bottom'});
  }
  for (let r = 1; r <= 9; r++) {
    labels.push({text: String(r), x: 14, y: top + (9 - r) * S + S / 2, side: 'left'});
  }
  return {
    width, height, cellSize: S, cells, dark, labels,
    placement: (fen) => readRanks(fen.split(' ')[0], rows),
  };
}

// ---- Portuguese draughts: the 32 dark squares numbered 1-32 from White's lower right --------
// The square numbers are the notation: no file letters or rank numbers beside the board (rank
// numbers 1-8 next to square numbers 1-32 read as squares).
function draughtsBoard() {
  const S = 60, left = 8, top = 8;
  const cells = [], dark = [];
  const byCol = {};
  for (let s = 0; s < 32; s++) {
    const row = Math.floor(s / 4), k = s % 4;
    const col = row % 2 === 0 ? 7 - 2 * k : 6 - 2 * k;
    byCol[row * 8 + col] = s + 1;
  }
  for (let row = 7; row >= 0; row--) {
    for (let col = 0; col < 8; col++) {
      const x = left + col * S, y = top + (7 - row) * S;
      const number = byCol[row * 8 + col];
      if (number) {
        cells.push({name: String(number), cx: x + S / 2, cy: y + S / 2, rect: [x, y, S, S],
                    fill: '#7a5230', number});
      } else {
        dark.push({cx: x + S / 2, cy: y + S / 2, rect: [x, y, S, S], fill: '#f0dfbf'});
      }
    }
  }
  const width = left + 8 * S + 8, height = top + 8 * S + 8;
  const labels = [];
  // `W:W1,2,K5:B21-32:H3`: men and kings by square number, ranges of men allowed.
  const placement = (fen) => {
    const result = {};
    for (const part of fen.split(':').slice(1)) {
      const color = part[0];
      if (color !== 'W' && color !== 'B') continue;
      for (const item of part.slice(1).split(',')) {
        if (!item) continue;
        const king = item[0] === 'K';
        const body = king ? item.slice(1) : item;
        const range = body.split('-').map((n) => parseInt(n, 10));
        const last = range.length === 2 ? range[1] : range[0];
        for (let n = range[0]; n <= last && n <= 32; n++) {
          result[String(n)] = color === 'W' ? (king ? 'K' : 'M') : (king ? 'k' : 'm');
        }
      }
    }
    return result;
  };
  return {width, height, cellSize: S, cells, dark, labels, placement, numbered: true};
}

const BOARDS = {
  'chaco-rex': chacoRexBoard(),
  'chad': chadBoard(),
  'cuarenta': cuarentaBoard(),
  'portuguese-draughts': draughtsBoard(),
};

// Draws `board` into `svg` (emptied first), turned half a turn when `flipped`. Returns a map
// cellName -> {x, y} of the drawn centres, for pieces, highlights and arrows.
function drawBoard(svg, variant, flipped) {
  const board = BOARDS[variant];
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  svg.setAttribute('viewBox', `0 0 ${board.width} ${board.height}`);
  svg.setAttribute('data-variant', variant);
  svg.setAttribute('data-flipped', flipped ? '1' : '0');
  const W = board.width, H = board.height;
  // Turning half a turn about the middle of the cell area keeps the margins for the labels.
  const xs = board.cells.map((c) => c.cx), ys = board.cells.map((c) => c.cy);
  const midX = (Math.min(...xs) + Math.max(...xs)) / 2, midY = (Math.min(...ys) + Math.max(...ys)) / 2;
  const fx = (x) => (flipped ? 2 * midX - x : x);
  const fy = (y) => (flipped ? 2 * midY - y : y);
  svgEl('rect', {x: 0, y: 0, width: W, height: H, class: 'board-frame'}, svg);
  const back = svgEl('g', {class: 'board-cells'}, svg);
  const centres = {};
  const shape = (cell, attrs) => {
    if (cell.points) {
      const pts = cell.points.map(([x, y]) => `${fx(x).toFixed(1)},${fy(y).toFixed(1)}`).join(' ');
      return svgEl('polygon', Object.assign({points: pts}, attrs), back);
    }
    const [x, y, w, h] = cell.rect;
    const x0 = flipped ? 2 * midX - x - w : x, y0 = flipped ? 2 * midY - y - h : y;
    return svgEl('rect', Object.assign({x: x0, y: y0, width: w, height: h}, attrs), back);
  };
  for (const cell of board.dark || []) shape(cell, {fill: cell.fill, class: 'off-cell'});
  for (const cell of board.cells) {
    const attrs = {fill: cell.fill, class: 'cell' + (cell.mark ? ' ' + cell.mark : ''),
                   'data-cell': cell.name};
    const title = cell.mark ? `${cell.name} (${cell.mark.startsWith('castle') ? 'castle' : 'wall'} of ${cell.mark.endsWith('w') ? 'White' : 'Black'})` : cell.name;
    const el = shape(cell, attrs);
    svgEl('title', {}, el).textContent = title;
    centres[cell.name] = {x: fx(cell.cx), y: fy(cell.cy)};
  }
  for (const outline of board.outlines || []) {
    const [x, y, w, h] = outline.rect;
    const x0 = flipped ? 2 * midX - x - w : x, y0 = flipped ? 2 * midY - y - h : y;
    svgEl('rect', {x: x0, y: y0, width: w, height: h, class: 'castle-outline'}, svg);
  }
  if (board.numbered) {
    const g = svgEl('g', {class: 'square-numbers'}, svg);
    for (const cell of board.cells) {
      const c = centres[cell.name];
      const t = svgEl('text', {x: c.x - board.cellSize * 0.44, y: c.y - board.cellSize * 0.3}, g);
      t.textContent = cell.name;
    }
  }
  const labels = svgEl('g', {class: 'coords'}, svg);
  for (const label of board.labels) {
    let x = label.x, y = label.y;
    if (flipped && label.side === 'bottom') x = 2 * midX - x;
    if (flipped && label.side === 'left') y = 2 * midY - y;
    const t = svgEl('text', {x, y, 'text-anchor': 'middle', 'dominant-baseline': 'central'}, labels);
    t.textContent = label.text;
  }
  svgEl('g', {class: 'highlights'}, svg);
  svgEl('g', {class: 'pieces'}, svg);
  svgEl('g', {class: 'markers'}, svg);
  svgEl('g', {class: 'arrows'}, svg);
  return centres;
}
