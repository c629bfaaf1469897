/* gomokud board page: play against the engine (POST /v1/move), live analysis
 * (POST /v1/analyze streamed as NDJSON) and game review (POST /v1/review).
 * Plain browser JavaScript, no dependencies; everything comes from this
 * server (the page's Content-Security-Policy allows nothing else).
 *
 * Notation is the API's: a column letter from the left (a.., no letter
 * skipped) and a row number from the bottom; x, y below are zero-based from
 * the top-left, so "h8" on 15x15 is x = 7, y = 7. */
'use strict';

(function () {
    const SVGNS = 'http://www.w3.org/2000/svg';
    const CELL = 40;           /* SVG units between two lines */
    const MARGIN = 34;         /* room for the coordinates */
    const KEY_STORE = 'gomokud.apiKey';
    const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

    const $ = (id) => document.getElementById(id);

    const state = {
        size: 15,
        rule: 'freestyle',
        moves: [],          /* [x, y] pairs from black */
        redo: [],           /* undone moves, the next one last */
        mode: 'play',       /* 'play' | 'analyse' */
        human: 'black',
        level: 5,
        seed: Math.floor(Math.random() * 1e9),
        numbers: false,
        analysis: null,     /* latest progress line or answer for the shown position */
        forbidden: [],      /* renju, black to move: [x, y] */
        forbiddenKey: '',   /* the position the forbidden list belongs to */
        review: null,       /* the last review's answer */
        reviewMoves: null,  /* the moves (notation) it reviewed */
        info: null,
        sizeMin: 5,
        sizeMax: 25,
        maxTime: 10000,
    };

    let analysisCtl = null;  /* AbortController of the running analysis stream */
    let engineCtl = null;    /* ... of the engine's move request */
    let forbidCtl = null;    /* ... of the forbidden-points lookup */
    let reviewCtl = null;    /* ... of the running review */
    let lastHash = '';

    /* ---- notation ------------------------------------------------------- */

    function moveName(m, size) {
        return LETTERS[m[0]] + String(size - m[1]);
    }

    /* "h8" -> [7, 7] on 15x15; null when it is not a point of the board. */
    function parseMove(text, size) {
        const t = String(text).trim().toLowerCase();
        const m = /^([a-z])(\d{1,2})$/.exec(t);
        if (!m) return null;
        const x = LETTERS.indexOf(m[1]);
        const row = parseInt(m[2], 10);
        if (x < 0 || x >= size || row < 1 || row > size) return null;
        return [x, size - row];
    }

    function sideToMove(n) {
        return n % 2 === 0 ? 'black' : 'white';
    }

    const key = (m) => m[0] + ',' + m[1];

    /* ---- rules (enough to stop the game at a five) ------------------------ */

    /* The cells of the line of five the move at index i completes, or null. */
    function fiveAt(moves, i, size, rule) {
        const grid = new Map();
        for (let k = 0; k <= i; k++) grid.set(key(moves[k]), k % 2);
        const [x, y] = moves[i];
        const colour = i % 2;
        const dirs = [[1, 0], [0, 1], [1, 1], [1, -1]];
        for (const [dx, dy] of dirs) {
            const cells = [[x, y]];
            for (const s of [1, -1]) {
                let cx = x + s * dx, cy = y + s * dy;
                while (cx >= 0 && cy >= 0 && cx < size && cy < size && grid.get(cx + ',' + cy) === colour) {
                    cells.push([cx, cy]);
                    cx += s * dx;
                    cy += s * dy;
                }
            }
            const exact = rule === 'standard' || (rule === 'renju' && colour === 0);
            if (cells.length === 5 || (cells.length > 5 && !exact)) return cells;
        }
        return null;
    }

    function gameOver() {
        const n = state.moves.length;
        if (n === 0) return null;
        const line = fiveAt(state.moves, n - 1, state.size, state.rule);
        if (line) return { winner: sideToMove(n - 1), line };
        if (n >= state.size * state.size) return { winner: null, line: null };
        return null;
    }

    /* ---- the API ---------------------------------------------------------- */

    class ApiError extends Error {
        constructor(problem) {
            super(problem.detail || problem.title || 'request failed');
            this.problem = problem;
        }
    }

    function headers(extra) {
        const h = Object.assign({ 'Content-Type': 'application/json' }, extra || {});
        const k = localStorage.getItem(KEY_STORE);
        if (k) h.Authorization = 'Bearer ' + k;
        return h;
    }

    async function problemOf(resp) {
        let p = null;
        try {
            p = await resp.json();
        } catch (e) {
            p = null;
        }
        if (!p || typeof p !== 'object') p = { status: resp.status, title: resp.statusText, detail: 'HTTP ' + resp.status };
        if (resp.status === 401) showKeyForm(p.detail);
        return new ApiError(p);
    }

    async function apiGet(path) {
        const resp = await fetch(path, { headers: headers() });
        if (!resp.ok) throw await problemOf(resp);
        return resp.json();
    }

    async function apiPost(path, body, signal) {
        const resp = await fetch(path, { method: 'POST', headers: headers(), body: JSON.stringify(body), signal });
        if (!resp.ok) throw await problemOf(resp);
        return resp.json();
    }

    /* POSTs with Accept: application/x-ndjson and calls onLine with each
     * parsed line as it arrives; resolves with the final line. */
    async function apiStream(path, body, signal, onLine) {
        const resp = await fetch(path, {
            method: 'POST',
            headers: headers({ Accept: 'application/x-ndjson' }),
            body: JSON.stringify(body),
            signal,
        });
        if (!resp.ok) throw await problemOf(resp);
        const reader = resp.body.getReader();
        const decoder = new TextDecoder();
        let buf = '', last = null;
        const take = (line) => {
            if (!line.trim()) return;
            const obj = JSON.parse(line);
            if (typeof obj.status === 'number' && obj.type && obj.title) throw new ApiError(obj);
            last = obj;
            onLine(obj);
        };
        for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += decoder.decode(value, { stream: true });
            let nl;
            while ((nl = buf.indexOf('\n')) >= 0) {
                const line = buf.slice(0, nl);
                buf = buf.slice(nl + 1);
                take(line);
            }
        }
        take(buf + decoder.decode());
        return last;
    }

    const isAbort = (e) => e && e.name === 'AbortError';

    function positionBody() {
        return {
            rule: state.rule,
            board_size: state.size,
            moves: state.moves.map((m) => moveName(m, state.size)),
        };
    }

    /* ---- status line ------------------------------------------------------ */

    function setStatus(text, isError) {
        const s = $('status');
        s.textContent = text || '';
        s.classList.toggle('error', !!isError);
    }

    function showError(e) {
        if (isAbort(e)) return;
        setStatus(e instanceof ApiError ? e.message : 'The server cannot be reached: ' + e.message, true);
    }

    function showKeyForm(detail) {
        $('key-form').hidden = false;
        setStatus((detail || 'An API key is needed') + ' - enter it below.', true);
    }

    /* ---- the board -------------------------------------------------------- */

    function el(name, attrs, parent, text) {
        const e = document.createElementNS(SVGNS, name);
        for (const k in attrs) e.setAttribute(k, attrs[k]);
        if (text !== undefined) e.textContent = text;
        if (parent) parent.appendChild(e);
        return e;
    }

    const px = (i) => MARGIN + i * CELL;

    function starPoints(size) {
        if (size < 9) return size % 2 ? [[(size - 1) / 2, (size - 1) / 2]] : [];
        const d = size >= 13 ? 3 : 2;
        const pts = [[d, d], [size - 1 - d, d], [d, size - 1 - d], [size - 1 - d, size - 1 - d]];
        if (size % 2) pts.push([(size - 1) / 2, (size - 1) / 2]);
        return pts;
    }

    /* Lines, coordinates and the clickable points; redrawn when the size changes. */
    function drawGrid() {
        const svg = $('board');
        const n = state.size;
        const span = 2 * MARGIN + (n - 1) * CELL;
        svg.replaceChildren();
        svg.setAttribute('viewBox', `0 0 ${span} ${span}`);
        svg.dataset.size = String(n);
        const g = el('g', { class: 'grid' }, svg);
        for (let i = 0; i < n; i++) {
            el('line', { x1: px(0), y1: px(i), x2: px(n - 1), y2: px(i) }, g);
            el('line', { x1: px(i), y1: px(0), x2: px(i), y2: px(n - 1) }, g);
        }
        for (const [x, y] of starPoints(n)) el('circle', { class: 'star', cx: px(x), cy: px(y), r: 4 }, svg);
        for (let i = 0; i < n; i++) {
            el('text', { class: 'coord', x: px(i), y: span - MARGIN / 2 + 2 }, svg, LETTERS[i]);
            el('text', { class: 'coord', x: MARGIN / 2 - 2, y: px(i) }, svg, String(n - i));
        }
        el('g', { id: 'layer-marks' }, svg);
        el('g', { id: 'layer-stones' }, svg);
        el('g', { id: 'layer-pv' }, svg);
        const hits = el('g', { id: 'layer-hits' }, svg);
        for (let y = 0; y < n; y++)
            for (let x = 0; x < n; x++)
                el('rect', {
                    class: 'hit',
                    x: px(x) - CELL / 2,
                    y: px(y) - CELL / 2,
                    width: CELL,
                    height: CELL,
                    'data-move': moveName([x, y], n),
                }, hits);
    }

    function drawStones() {
        const stones = $('layer-stones');
        const marks = $('layer-marks');
        const pv = $('layer-pv');
        stones.replaceChildren();
        marks.replaceChildren();
        pv.replaceChildren();
        const n = state.size;
        state.moves.forEach((m, i) => {
            const colour = sideToMove(i);
            el('circle', {
                class: 'stone ' + colour,
                cx: px(m[0]),
                cy: px(m[1]),
                r: CELL * 0.45,
                'data-move': moveName(m, n),
                'data-ply': i + 1,
            }, stones);
            if (state.numbers)
                el('text', { class: 'num on-' + colour, x: px(m[0]), y: px(m[1]) }, stones, String(i + 1));
        });
        if (state.moves.length) {
            const m = state.moves[state.moves.length - 1];
            el('circle', { class: 'last', cx: px(m[0]), cy: px(m[1]), r: CELL * 0.2 }, stones);
        }
        const over = gameOver();
        if (over && over.line) {
            const xs = over.line.slice().sort((a, b) => a[0] - b[0] || a[1] - b[1]);
            const a = xs[0], b = xs[xs.length - 1];
            el('line', { class: 'win-line', x1: px(a[0]), y1: px(a[1]), x2: px(b[0]), y2: px(b[1]) }, stones);
        }
        const fkey = positionKey();
        if (state.rule === 'renju' && sideToMove(state.moves.length) === 'black' && state.forbiddenKey === fkey) {
            const r = CELL * 0.22;
            for (const f of state.forbidden) {
                const g = el('g', { class: 'forbidden', 'data-move': moveName(f, n) }, marks);
                el('line', { x1: px(f[0]) - r, y1: px(f[1]) - r, x2: px(f[0]) + r, y2: px(f[1]) + r }, g);
                el('line', { x1: px(f[0]) - r, y1: px(f[1]) + r, x2: px(f[0]) + r, y2: px(f[1]) - r }, g);
            }
        }
        const a = state.mode === 'analyse' ? state.analysis : null;
        if (a && a.pv && a.pv.length) {
            const start = state.moves.length;
            const taken = new Set(state.moves.map(key));
            a.pv.forEach((name, i) => {
                const m = parseMove(name, n);
                if (!m || taken.has(key(m))) return;
                taken.add(key(m));
                const colour = sideToMove(start + i);
                el('circle', {
                    class: 'pv-stone ' + colour,
                    cx: px(m[0]),
                    cy: px(m[1]),
                    r: CELL * 0.42,
                    'data-move': name,
                }, pv);
                el('text', { class: 'pv-num on-' + colour, x: px(m[0]), y: px(m[1]) }, pv, String(i + 1));
            });
            const best = parseMove(a.best_move || a.pv[0], n);
            if (best) el('circle', { class: 'best', cx: px(best[0]), cy: px(best[1]), r: CELL * 0.47 }, pv);
        }
    }

    /* ---- the side panel ---------------------------------------------------- */

    function fmtScore(a) {
        if (a.mate !== null && a.mate !== undefined)
            return a.mate > 0 ? `wins in ${a.mate}` : `loses in ${-a.mate}`;
        return (a.score > 0 ? '+' : '') + a.score;
    }

    /* The evaluation of the shown position (a is from the side to move's view). */
    function showEvaluation(a) {
        const bar = $('winrate-black'), label = $('winrate-label');
        if (!a || typeof a.winrate !== 'number') {
            bar.style.width = '50%';
            label.textContent = '\u2014';
            $('score').textContent = $('best').textContent = $('depth').textContent = $('pv').textContent = '\u2014';
            return;
        }
        const toMove = sideToMove(state.moves.length);
        const black = toMove === 'black' ? a.winrate : 1 - a.winrate;
        bar.style.width = (black * 100).toFixed(1) + '%';
        label.textContent = `Black ${(black * 100).toFixed(1)}% \u00b7 White ${((1 - black) * 100).toFixed(1)}%`;
        $('winrate').dataset.black = black.toFixed(3);
        $('score').textContent = `${fmtScore(a)} (${toMove} to move)`;
        $('best').textContent = a.best_move || (a.pv && a.pv[0]) || '\u2014';
        $('depth').textContent = a.depth !== undefined ? `${a.depth}${a.seldepth ? '/' + a.seldepth : ''}` +
            (a.nodes ? ` \u00b7 ${a.nodes.toLocaleString('en')} nodes` : '') : '\u2014';
        $('pv').textContent = a.pv && a.pv.length ? a.pv.join(' ') : '\u2014';
    }

    function judgementOf(ply) {
        if (!state.review || !state.reviewMoves) return null;
        const names = state.moves.concat(state.redo.slice().reverse()).map((m) => moveName(m, state.size));
        for (let i = 0; i < ply; i++) if (names[i] !== state.reviewMoves[i]) return null;
        const r = state.review.moves[ply - 1];
        return r ? r.judgement : null;
    }

    function drawMoveList() {
        const list = $('moves-list');
        list.replaceChildren();
        const all = state.moves.concat(state.redo.slice().reverse());
        all.forEach((m, i) => {
            const li = document.createElement('li');
            const b = document.createElement('button');
            b.type = 'button';
            b.textContent = `${i + 1}. ${moveName(m, state.size)}`;
            b.dataset.ply = String(i + 1);
            if (i + 1 === state.moves.length) b.classList.add('current');
            if (i >= state.moves.length) b.classList.add('future');
            const j = judgementOf(i + 1);
            if (j) {
                b.classList.add('j-' + j);
                b.title = j;
            }
            b.addEventListener('click', () => jumpTo(i + 1));
            li.appendChild(b);
            list.appendChild(li);
        });
        if (list.lastElementChild) {
            const cur = list.querySelector('.current');
            if (cur && cur.scrollIntoView) cur.scrollIntoView({ block: 'nearest' });
        }
        $('undo').disabled = $('first').disabled = state.moves.length === 0;
        $('redo').disabled = $('last').disabled = state.redo.length === 0;
    }

    /* ---- the URL ----------------------------------------------------------- */

    function positionKey() {
        return state.rule + '/' + state.size + '/' + state.moves.map(key).join(';');
    }

    function writeHash() {
        const p = new URLSearchParams();
        p.set('rule', state.rule);
        p.set('size', String(state.size));
        p.set('mode', state.mode);
        p.set('moves', state.moves.map((m) => moveName(m, state.size)).join(','));
        lastHash = '#' + p.toString().replace(/%2C/g, ',');
        if (location.hash !== lastHash) history.replaceState(null, '', lastHash);
    }

    /* Reads #rule=..&size=..&moves=h8,i9 (and mode); false when it has nothing. */
    function readHash() {
        const h = location.hash.replace(/^#/, '');
        if (!h) return false;
        const p = new URLSearchParams(h);
        const size = parseInt(p.get('size') || '15', 10);
        if (size >= state.sizeMin && size <= state.sizeMax) state.size = size;
        const rule = p.get('rule');
        if (rule === 'freestyle' || rule === 'standard' || rule === 'renju') state.rule = rule;
        const mode = p.get('mode');
        if (mode === 'play' || mode === 'analyse') state.mode = mode;
        const parsed = parseMoves(p.get('moves') || '');
        state.moves = parsed.ok ? parsed.moves : [];
        state.redo = [];
        if (!parsed.ok) setStatus('The link\'s moves are not a game: ' + parsed.error, true);
        return true;
    }

    /* Moves text ("h8 i9 h9", commas or spaces) -> {ok, moves, error}. */
    function parseMoves(text) {
        const words = String(text).split(/[\s,;]+/).filter(Boolean);
        const seen = new Set(), moves = [];
        for (const w of words) {
            if (/^\d+\.$/.test(w)) continue; /* "1." move numbers */
            const m = parseMove(w, state.size);
            if (!m) return { ok: false, error: `"${w}" is not a point of the ${state.size}x${state.size} board` };
            if (seen.has(key(m))) return { ok: false, error: `${w} is played twice` };
            if (moves.length && fiveAt(moves, moves.length - 1, state.size, state.rule))
                return { ok: false, error: `the game is over before ${w}` };
            seen.add(key(m));
            moves.push(m);
        }
        return { ok: true, moves };
    }

    /* ---- what happens when the position changes --------------------------- */

    function stopRequests() {
        for (const c of [analysisCtl, engineCtl, forbidCtl]) if (c) c.abort();
        analysisCtl = engineCtl = forbidCtl = null;
        document.body.dataset.engine = '';
    }

    function render() {
        drawStones();
        drawMoveList();
        drawReviewCursor();
        writeHash();
    }

    /* Called after every change of position, rule or mode. */
    function positionChanged(opts) {
        stopRequests();
        state.analysis = null;
        showEvaluation(null);
        const over = gameOver();
        if (over) setStatus(over.winner ? `${over.winner[0].toUpperCase() + over.winner.slice(1)} wins.` : 'The board is full: a draw.');
        else if (!opts || !opts.keepStatus) setStatus(`${sideToMove(state.moves.length)} to move`);
        render();
        if (over) return;
        if (state.mode === 'analyse') startAnalysis();
        else if (opts && opts.engineReplies) engineMove();
        else if (state.rule === 'renju') lookUpForbidden();
    }

    function startAnalysis() {
        const ctl = new AbortController();
        analysisCtl = ctl;
        const body = positionBody();
        body.limits = { time_ms: Math.min(parseInt($('think').value, 10), state.maxTime) };
        document.body.dataset.engine = 'analysing';
        setStatus('Analysing\u2026');
        apiStream('/v1/analyze', body, ctl.signal, (line) => {
            if (ctl !== analysisCtl) return;
            state.analysis = line;
            if (line.final && Array.isArray(line.forbidden)) {
                state.forbidden = line.forbidden.map((f) => parseMove(f, state.size)).filter(Boolean);
                state.forbiddenKey = positionKey();
            }
            showEvaluation(line);
            drawStones();
            setStatus(line.final ? `Depth ${line.depth}${line.complete ? '' : ' (time up)'}: best ${line.best_move}` :
                `Analysing\u2026 depth ${line.depth}`);
        }).then(() => {
            if (ctl === analysisCtl) {
                analysisCtl = null;
                document.body.dataset.engine = '';
            }
        }, (e) => {
            if (ctl === analysisCtl) {
                analysisCtl = null;
                document.body.dataset.engine = '';
            }
            showError(e);
        });
    }

    /* Renju, black to move, outside analysis: a shallow analysis for the list. */
    function lookUpForbidden() {
        if (sideToMove(state.moves.length) !== 'black') return;
        const ctl = new AbortController();
        forbidCtl = ctl;
        const body = positionBody();
        body.limits = { depth: 1 };
        const k = positionKey();
        apiPost('/v1/analyze', body, ctl.signal).then((a) => {
            if (ctl !== forbidCtl) return;
            forbidCtl = null;
            state.forbidden = (a.forbidden || []).map((f) => parseMove(f, state.size)).filter(Boolean);
            state.forbiddenKey = k;
            drawStones();
        }, showError);
    }

    function engineMove() {
        if (gameOver()) return;
        stopRequests();
        const ctl = new AbortController();
        engineCtl = ctl;
        const body = positionBody();
        body.level = state.level;
        body.seed = state.seed;
        document.body.dataset.engine = 'thinking';
        setStatus('The engine is thinking\u2026');
        apiPost('/v1/move', body, ctl.signal).then((a) => {
            if (ctl !== engineCtl) return;
            engineCtl = null;
            document.body.dataset.engine = '';
            const m = parseMove(a.move, state.size);
            if (!m) {
                setStatus('The engine has no move.', true);
                return;
            }
            state.moves.push(m);
            state.redo = [];
            const wr = typeof a.winrate === 'number' ? ` (its win rate ${(a.winrate * 100).toFixed(0)}%)` : '';
            setStatus(`Engine (level ${a.level}, ${a.level_name}) played ${a.move}${wr}.`);
            positionChanged({ keepStatus: true });
        }, (e) => {
            if (ctl === engineCtl) {
                engineCtl = null;
                document.body.dataset.engine = '';
            }
            showError(e);
        });
    }

    /* ---- user actions ------------------------------------------------------ */

    function place(m) {
        if (gameOver()) return;
        if (state.mode === 'play' && engineCtl) return; /* wait for the engine */
        if (state.moves.some((s) => s[0] === m[0] && s[1] === m[1])) return;
        if (state.rule === 'renju' && sideToMove(state.moves.length) === 'black' &&
            state.forbiddenKey === positionKey() && state.forbidden.some((f) => f[0] === m[0] && f[1] === m[1])) {
            setStatus(`${moveName(m, state.size)} is forbidden for black in renju.`, true);
            return;
        }
        const next = state.redo[state.redo.length - 1];
        if (next && next[0] === m[0] && next[1] === m[1]) state.redo.pop();
        else state.redo = [];
        state.moves.push(m);
        positionChanged({ engineReplies: state.mode === 'play' });
    }

    function undo() {
        if (!state.moves.length) return;
        do state.redo.push(state.moves.pop());
        while (state.mode === 'play' && state.moves.length && sideToMove(state.moves.length) !== state.human);
        positionChanged();
    }

    function redo() {
        if (!state.redo.length) return;
        do state.moves.push(state.redo.pop());
        while (state.mode === 'play' && state.redo.length && sideToMove(state.moves.length) !== state.human);
        positionChanged();
    }

    function jumpTo(ply) {
        const all = state.moves.concat(state.redo.slice().reverse());
        ply = Math.max(0, Math.min(ply, all.length));
        state.moves = all.slice(0, ply);
        state.redo = all.slice(ply).reverse();
        positionChanged();
    }

    function newGame() {
        state.moves = [];
        state.redo = [];
        state.seed = Math.floor(Math.random() * 1e9);
        positionChanged({ engineReplies: state.mode === 'play' && state.human === 'white' });
    }

    function setMode(mode) {
        state.mode = mode;
        document.body.classList.toggle('mode-play', mode === 'play');
        document.body.classList.toggle('mode-analyse', mode === 'analyse');
        $('mode-play').setAttribute('aria-pressed', String(mode === 'play'));
        $('mode-analyse').setAttribute('aria-pressed', String(mode === 'analyse'));
        positionChanged();
    }

    function importMoves() {
        const parsed = parseMoves($('moves-text').value);
        if (!parsed.ok) {
            setStatus('Cannot import: ' + parsed.error, true);
            return;
        }
        state.moves = parsed.moves;
        state.redo = [];
        positionChanged();
    }

    function exportMoves() {
        const all = state.moves.concat(state.redo.slice().reverse());
        $('moves-text').value = all.map((m) => moveName(m, state.size)).join(' ');
        $('moves-text').select();
        setStatus('The game as text; the address bar holds a link to this position.');
    }

    /* ---- review ------------------------------------------------------------- */

    function runReview() {
        const all = state.moves.concat(state.redo.slice().reverse());
        if (!all.length) {
            setStatus('Play or import a game to review first.', true);
            return;
        }
        if (reviewCtl) reviewCtl.abort();
        const ctl = new AbortController();
        reviewCtl = ctl;
        const names = all.map((m) => moveName(m, state.size));
        const body = {
            rule: state.rule,
            board_size: state.size,
            moves: names,
            limits: { time_ms: parseInt($('review-time').value, 10) },
        };
        let done = 0;
        $('review-run').disabled = true;
        document.body.dataset.review = 'running';
        setStatus(`Reviewing ${names.length} moves\u2026`);
        apiStream('/v1/review', body, ctl.signal, (line) => {
            if (!line.final) setStatus(`Reviewing\u2026 ${++done} of ${names.length + 1} positions`);
        }).then((rv) => {
            if (ctl !== reviewCtl) return;
            reviewCtl = null;
            $('review-run').disabled = false;
            document.body.dataset.review = 'done';
            if (!rv || !rv.moves) throw new ApiError({ detail: 'the review came back empty' });
            state.review = rv;
            state.reviewMoves = names;
            drawReview();
            drawMoveList();
            const s = rv.sides;
            setStatus(`Review done: accuracy black ${s.black.accuracy}, white ${s.white.accuracy}.`);
        }).catch((e) => {
            if (ctl === reviewCtl) {
                reviewCtl = null;
                $('review-run').disabled = false;
                document.body.dataset.review = '';
            }
            showError(e);
        });
    }

    const GW = 600, GH = 180, GPAD = 8;

    function graphX(ply, n) {
        return GPAD + (n ? (ply / n) * (GW - 2 * GPAD) : 0);
    }

    function graphY(black) {
        return GPAD + (1 - black) * (GH - 2 * GPAD);
    }

    /* Black's win rate after each ply: the answer gives each move's rates from the mover's view. */
    function reviewCurve(rv) {
        const pts = [];
        const first = rv.moves[0];
        pts.push(first.side === 'black' ? first.winrate_before : 1 - first.winrate_before);
        for (const m of rv.moves) pts.push(m.side === 'black' ? m.winrate_after : 1 - m.winrate_after);
        return pts;
    }

    function drawReview() {
        const svg = $('review-graph');
        svg.replaceChildren();
        svg.setAttribute('viewBox', `0 0 ${GW} ${GH}`);
        svg.setAttribute('preserveAspectRatio', 'none');
        const rv = state.review;
        if (!rv) return;
        const pts = reviewCurve(rv);
        const n = pts.length - 1;
        let area = `M ${graphX(0, n)} ${graphY(0)}`;
        let curve = '';
        pts.forEach((b, i) => {
            area += ` L ${graphX(i, n)} ${graphY(b)}`;
            curve += `${i ? ' L' : 'M'} ${graphX(i, n)} ${graphY(b)}`;
        });
        area += ` L ${graphX(n, n)} ${graphY(0)} Z`;
        el('path', { class: 'area', d: area }, svg);
        el('line', { class: 'mid', x1: GPAD, y1: graphY(0.5), x2: GW - GPAD, y2: graphY(0.5) }, svg);
        el('path', { class: 'curve', d: curve }, svg);
        el('line', { class: 'cursor', id: 'review-cursor', x1: 0, y1: GPAD, x2: 0, y2: GH - GPAD }, svg);
        pts.forEach((b, i) => {
            const mv = i ? rv.moves[i - 1] : null;
            const j = mv ? mv.judgement : 'start';
            const marked = j === 'inaccuracy' || j === 'mistake' || j === 'blunder';
            const c = el('circle', {
                class: 'graph-point ' + j,
                cx: graphX(i, n),
                cy: graphY(b),
                r: marked ? 7 : 4,
                'data-ply': i,
            }, svg);
            el('title', {}, c, mv ? `${i}. ${mv.move} (${mv.side}): ${j}, loses ${mv.winrate_loss} points` +
                (mv.judgement !== 'best' ? `; best ${mv.best_move}` : '') : 'start');
            c.addEventListener('click', () => jumpTo(i));
        });
        const s = rv.sides;
        const count = (k, one, many) => `${k} ${k === 1 ? one : many}`;
        const line = (side) => `${side}: accuracy ${s[side].accuracy}, ` +
            `${count(s[side].inaccuracy, 'inaccuracy', 'inaccuracies')}, ${count(s[side].mistake, 'mistake', 'mistakes')}, ` +
            `${count(s[side].blunder, 'blunder', 'blunders')}`;
        $('review-summary').textContent = `${line('black')}. ${line('white')}.`;
        drawReviewCursor();
    }

    function drawReviewCursor() {
        const c = $('review-cursor');
        if (!c || !state.review) return;
        const n = state.review.moves.length;
        const x = graphX(Math.min(state.moves.length, n), n);
        c.setAttribute('x1', x);
        c.setAttribute('x2', x);
    }

    /* ---- set-up --------------------------------------------------------------- */

    function fillSelects() {
        const size = $('size');
        size.replaceChildren();
        for (let n = state.sizeMin; n <= state.sizeMax; n++) {
            const o = document.createElement('option');
            o.value = String(n);
            o.textContent = `${n}\u00d7${n}`;
            size.appendChild(o);
        }
        const level = $('level');
        level.replaceChildren();
        const levels = state.info && Array.isArray(state.info.levels) ? state.info.levels :
            Array.from({ length: 10 }, (_, i) => ({ level: i + 1, name: '' }));
        for (const lv of levels) {
            const o = document.createElement('option');
            o.value = String(lv.level);
            o.textContent = `${lv.level}${lv.name ? ' \u00b7 ' + lv.name : ''}${lv.elo ? ' (' + lv.elo + ' Elo)' : ''}`;
            level.appendChild(o);
        }
        if (!levels.some((lv) => lv.level === state.level)) state.level = levels[Math.floor(levels.length / 2)].level;
    }

    function syncControls() {
        $('size').value = String(state.size);
        $('rule').value = state.rule;
        $('level').value = String(state.level);
        $('human').value = state.human;
        $('numbers').checked = state.numbers;
    }

    function bind() {
        $('board').addEventListener('click', (ev) => {
            const t = ev.target;
            if (!t.classList || !t.classList.contains('hit')) return;
            const m = parseMove(t.getAttribute('data-move'), state.size);
            if (m) place(m);
        });
        $('undo').addEventListener('click', undo);
        $('redo').addEventListener('click', redo);
        $('first').addEventListener('click', () => jumpTo(0));
        $('last').addEventListener('click', () => jumpTo(Infinity));
        $('new-game').addEventListener('click', newGame);
        $('mode-play').addEventListener('click', () => setMode('play'));
        $('mode-analyse').addEventListener('click', () => setMode('analyse'));
        $('engine-move').addEventListener('click', engineMove);
        $('rule').addEventListener('change', () => {
            state.rule = $('rule').value;
            state.forbiddenKey = '';
            positionChanged();
        });
        $('size').addEventListener('change', () => {
            state.size = parseInt($('size').value, 10);
            state.moves = [];
            state.redo = [];
            drawGrid();
            positionChanged();
        });
        $('level').addEventListener('change', () => {
            state.level = parseInt($('level').value, 10);
            localStorage.setItem('gomokud.level', String(state.level));
        });
        $('human').addEventListener('change', () => {
            state.human = $('human').value;
            if (state.mode === 'play' && sideToMove(state.moves.length) !== state.human) engineMove();
        });
        $('think').addEventListener('change', () => {
            if (state.mode === 'analyse') positionChanged();
        });
        $('numbers').addEventListener('change', () => {
            state.numbers = $('numbers').checked;
            drawStones();
        });
        $('import').addEventListener('click', importMoves);
        $('export').addEventListener('click', exportMoves);
        $('review-run').addEventListener('click', runReview);
        $('key-form').addEventListener('submit', (ev) => {
            ev.preventDefault();
            const k = $('key-input').value.trim();
            if (k) localStorage.setItem(KEY_STORE, k);
            $('key-input').value = '';
            $('key-form').hidden = true;
            start();
        });
        $('key-forget').addEventListener('click', () => {
            localStorage.removeItem(KEY_STORE);
            setStatus('The API key is forgotten.');
        });
        document.addEventListener('keydown', (ev) => {
            if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLTextAreaElement ||
                ev.target instanceof HTMLSelectElement)
                return;
            if (ev.key === 'ArrowLeft') undo();
            else if (ev.key === 'ArrowRight') redo();
        });
        window.addEventListener('hashchange', () => {
            if (location.hash === lastHash) return;
            readHash();
            syncControls();
            drawGrid();
            setMode(state.mode);
        });
    }

    /* Reads /v1/info (levels, sizes, limits), then shows the position of the URL. */
    async function start() {
        let failure = null;
        try {
            state.info = await apiGet('/v1/info');
            const bs = state.info.board_size || {};
            if (bs.min) state.sizeMin = bs.min;
            if (bs.max) state.sizeMax = bs.max;
            if (bs.default && !location.hash) state.size = bs.default;
            const max = state.info.limits && state.info.limits.max;
            if (max && max.time_ms) state.maxTime = max.time_ms;
        } catch (e) {
            failure = e;
        }
        const saved = parseInt(localStorage.getItem('gomokud.level') || '', 10);
        if (saved) state.level = saved;
        fillSelects();
        readHash();
        syncControls();
        drawGrid();
        setMode(state.mode);
        if (failure) showError(failure); /* after setMode's "black to move" */
    }

    bind();
    start();
})();
