// Piece images as inline SVG: a turned token for each piece, lettered in the game's own letters
// (Chaco Rex: R Rege = king, D Dama, T Turre, B Bispo, C Cavallo, P Pedon; its position strings
// keep the English letters KQRBNP), a crown for kings and draughts kings, smaller pawns.
'use strict';

// Per game: position-string letter (upper case) -> {label, name, kind}.
const PIECE_SETS = {
  'chaco-rex': {
    K: {label: 'R', name: 'Rege (king)', kind: 'king'},
    Q: {label: 'D', name: 'Dama (queen)', kind: 'piece'},
    R: {label: 'T', name: 'Turre (rook)', kind: 'piece'},
    B: {label: 'B', name: 'Bispo (bishop)', kind: 'piece'},
    N: {label: 'C', name: 'Cavallo (knight)', kind: 'piece'},
    P: {label: 'P', name: 'Pedon (pawn)', kind: 'pawn'},
  },
  'chad': {
    K: {label: 'K', name: 'king', kind: 'king'},
    Q: {label: 'Q', name: 'queen', kind: 'piece'},
    R: {label: 'R', name: 'rook', kind: 'piece'},
  },
  'cuarenta': {
    K: {label: 'K', name: 'king', kind: 'king'},
    B: {label: 'B', name: 'bishop', kind: 'piece'},
    V: {label: 'V', name: 'vao', kind: 'piece'},
    C: {label: 'C', name: 'camel', kind: 'piece'},
    F: {label: 'F', name: 'frog', kind: 'piece'},
    G: {label: 'G', name: 'guard', kind: 'piece'},
    P: {label: 'P', name: 'pawn', kind: 'pawn'},
  },
  'portuguese-draughts': {
    M: {label: '', name: 'man', kind: 'man'},
    K: {label: '', name: 'king', kind: 'draughts-king'},
  },
};

// Promotion letters of protocol moves (lower case) -> position-string letter.
const PROMOTION_LETTERS = {
  'chaco-rex': {q: 'Q', r: 'R', b: 'B', n: 'N'},
  'chad': {q: 'Q'},
  'cuarenta': {c: 'C', f: 'F', g: 'G', v: 'V', b: 'B'},
  'portuguese-draughts': {},
};

function pieceInfo(variant, letter) {
  const white = letter === letter.toUpperCase();
  const info = PIECE_SETS[variant][letter.toUpperCase()];
  if (!info) return null;
  return Object.assign({color: white ? 'white' : 'black'}, info);
}

function crownPath(cx, cy, s) {
  // A three-pointed crown of width 2s centred on (cx, cy).
  const p = [[-1, 0.55], [-1, -0.35], [-0.5, 0.05], [0, -0.6], [0.5, 0.05], [1, -0.35], [1, 0.55]];
  return 'M' + p.map(([x, y]) => `${(cx + x * s).toFixed(1)},${(cy + y * s).toFixed(1)}`).join(' L') + ' Z';
}

// Appends the image of `letter` (a position-string letter of `variant`) centred on (x, y), sized
// for a cell of `size`, to `parent`. Returns the group (class "piece", data-piece="wK" ...).
function drawPiece(parent, variant, letter, x, y, size) {
  const info = pieceInfo(variant, letter);
  if (!info) return null;
  const white = info.color === 'white';
  const g = svgEl('g', {class: `piece piece-${info.color} piece-${info.kind}`,
                        'data-piece': (white ? 'w' : 'b') + letter.toUpperCase()}, parent);
  svgEl('title', {}, g).textContent = `${white ? 'White' : 'Black'} ${info.name}`;
  const r = size * (info.kind === 'pawn' ? 0.3 : info.kind === 'piece' || info.kind === 'king' ? 0.4 : 0.36);
  const fill = white ? '#fbf7ee' : '#2b2623';
  const ink = white ? '#2b2623' : '#fbf7ee';
  svgEl('circle', {cx: x + size * 0.03, cy: y + size * 0.05, r, fill: 'rgba(0,0,0,0.28)'}, g);
  svgEl('circle', {cx: x, cy: y, r, fill, stroke: white ? '#3a332e' : '#c9beb0',
                   'stroke-width': size * 0.035}, g);
  svgEl('circle', {cx: x, cy: y, r: r * 0.8, fill: 'none', stroke: ink, 'stroke-opacity': 0.35,
                   'stroke-width': size * 0.02}, g);
  if (info.kind === 'man' || info.kind === 'draughts-king') {
    svgEl('circle', {cx: x, cy: y, r: r * 0.55, fill: 'none', stroke: ink, 'stroke-opacity': 0.5,
                     'stroke-width': size * 0.025}, g);
    if (info.kind === 'draughts-king') {
      svgEl('path', {d: crownPath(x, y, r * 0.5), fill: '#d4a017', stroke: ink,
                     'stroke-width': size * 0.02}, g);
    }
    return g;
  }
  if (info.kind === 'king') {
    svgEl('path', {d: crownPath(x, y - r * 0.62, r * 0.36), fill: '#d4a017', stroke: ink,
                   'stroke-width': size * 0.015}, g);
  }
  const text = svgEl('text', {x, y: y + (info.kind === 'king' ? r * 0.2 : 0),
                              'text-anchor': 'middle', 'dominant-baseline': 'central',
                              fill: ink, 'font-size': r * (info.kind === 'pawn' ? 1.0 : 1.15),
                              class: 'piece-letter'}, g);
  text.textContent = info.label;
  return g;
}

// A stand-alone <svg> of one piece (legend, promotion dialog).
function pieceIcon(variant, letter, size) {
  const svg = svgEl('svg', {viewBox: `0 0 ${size} ${size}`, width: size, height: size,
                            class: 'piece-icon'});
  drawPiece(svg, variant, letter, size / 2, size / 2, size);
  return svg;
}

// Fills `container` with one entry per piece of `variant`: its image (White's) and its name in
// the game's own words, so that the letters on the discs read without hovering. Each entry is
// class "legend-item" with data-piece = the position-string letter.
function drawLegend(container, variant) {
  container.innerHTML = '';
  container.setAttribute('data-variant', variant);
  for (const [letter, info] of Object.entries(PIECE_SETS[variant])) {
    const item = document.createElement('span');
    item.className = 'legend-item';
    item.setAttribute('data-piece', letter);
    item.appendChild(pieceIcon(variant, letter, 26));
    const name = document.createElement('span');
    name.textContent = info.name;
    item.appendChild(name);
    container.appendChild(item);
  }
}
