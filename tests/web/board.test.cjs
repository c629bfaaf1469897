/* The board page in a real browser: Debian's chromium, headless, driven by
 * playwright-core against a running gomokud (tests/web/run.sh starts both).
 *
 *   node tests/web/board.test.cjs BASE_URL OUT_DIR
 *
 * With WEB_API_KEY (the server then has api_keys set) it first checks that
 * the page asks for the key and goes on with it. Plays a move and waits for the engine's answer, undoes and redoes, turns
 * on the live analysis and waits for a PV and a win rate while the stream
 * still runs, switches to renju and finds a forbidden point, reviews a game
 * and jumps through its graph, checks the layout at phone size, and fails
 * on any console error, page error, failed request, HTTP error answer or
 * request to another origin. Screenshots go to OUT_DIR. Prints one line per
 * check and "N passed, N failed" at the end; exit status 1 on a failure. */
'use strict';

const path = require('path');
const fs = require('fs');

const base = process.argv[2];
const outDir = process.argv[3] || 'build';
const tools = process.env.WEB_TOOLS_DIR || path.join(__dirname, '..', '..', 'build', 'web-tools');
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const STEP_MS = 20000; /* bound on any one wait */
const apiKey = process.env.WEB_API_KEY || ''; /* the server's api_keys, when it has one */

const { chromium } = require(path.join(path.resolve(tools), 'node_modules', 'playwright-core'));

let passed = 0, failed = 0;
const problems = []; /* console errors, failed requests and the like */

function check(name, ok, detail) {
    if (ok) {
        passed++;
        console.log(`ok   ${name}`);
    } else {
        failed++;
        console.log(`FAIL ${name}${detail ? ': ' + detail : ''}`);
    }
    return ok;
}

/* Runs one step; a thrown error (a wait that timed out) fails it. */
async function step(name, fn) {
    try {
        const detail = await fn();
        check(name, detail === undefined || detail === true, typeof detail === 'string' ? detail : undefined);
    } catch (e) {
        check(name, false, String(e.message || e).split('\n')[0]);
    }
}

async function main() {
    if (!base) throw new Error('usage: board.test.cjs BASE_URL [OUT_DIR]');
    fs.mkdirSync(outDir, { recursive: true });
    const browser = await chromium.launch({
        executablePath,
        headless: true,
        timeout: 30000,
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
            '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
    });
    try {
        const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
        const page = await context.newPage();
        page.setDefaultTimeout(STEP_MS);
        const origin = new URL(base).origin;
        page.on('console', (m) => {
            if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
        });
        page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        page.on('request', (r) => {
            if (!r.url().startsWith(origin + '/') && !r.url().startsWith('data:'))
                problems.push(`request to another origin: ${r.url()}`);
        });
        page.on('requestfailed', (r) => {
            /* The page aborts the stream of a position it left, on purpose. */
            const why = r.failure() ? r.failure().errorText : '?';
            if (why !== 'net::ERR_ABORTED') problems.push(`request failed: ${r.method()} ${r.url()}: ${why}`);
        });
        page.on('response', (r) => {
            if (r.status() >= 400) problems.push(`HTTP ${r.status()} for ${r.request().method()} ${r.url()}`);
        });

        const stones = (sel) => page.locator(`#board .stone${sel || ''}`).count();
        const hash = () => page.evaluate(() => decodeURIComponent(location.hash));

        if (apiKey) {
            await step('with api_keys the page loads without a key, asks for one and uses it', async () => {
                const before = problems.length;
                const resp = await page.goto(base, { waitUntil: 'load' });
                if (!resp.ok()) return `GET / answered ${resp.status()}`;
                await page.waitForSelector('#key-form:not([hidden])');
                const status = await page.textContent('#status');
                if (!/API key/.test(status)) return `status: ${status}`;
                /* The one expected error: /v1/info's 401 (and chromium's console line for it). */
                const seen = problems.splice(before);
                const other = seen.filter((p) => !/401/.test(p));
                if (other.length || !seen.some((p) => p.startsWith('HTTP 401 for GET') && p.endsWith('/v1/info')))
                    return `unexpected: ${seen.join('; ')}`;
                await page.fill('#key-input', apiKey);
                await page.click('#key-form button[type="submit"]');
                await page.waitForSelector('#level option:has-text("grandmaster")', { state: 'attached' });
                return (await page.isHidden('#key-form')) ? true : 'the key form stays';
            });
        }

        await step('the page loads with an empty 15x15 board and the levels from /v1/info', async () => {
            const resp = await page.goto(base, { waitUntil: 'load' });
            if (!resp.ok()) return `GET / answered ${resp.status()}`;
            const csp = resp.headers()['content-security-policy'] || '';
            if (!csp.includes("default-src 'self'")) return `CSP: ${csp}`;
            await page.waitForSelector('#board .hit[data-move="h8"]');
            const size = await page.getAttribute('#board', 'data-size');
            const levels = await page.locator('#level option').count();
            const named = await page.locator('#level option', { hasText: 'grandmaster' }).count();
            if (size !== '15') return `board size ${size}`;
            if (levels !== 10 || named !== 1) return `${levels} levels, grandmaster ${named}`;
            return (await stones()) === 0 ? true : 'stones on a new board';
        });

        await step('play: a click places black at h8 and the engine answers with a white stone', async () => {
            await page.selectOption('#level', '3');
            await page.click('#board .hit[data-move="h8"]');
            await page.waitForSelector('#board .stone.black[data-move="h8"]');
            await page.waitForSelector('#board .stone.white');
            const status = await page.textContent('#status');
            if (!/Engine \(level 3/.test(status)) return `status: ${status}`;
            return (await stones()) === 2 ? true : `${await stones()} stones`;
        });

        await step('play: the position is in the URL', async () => {
            const white = await page.getAttribute('#board .stone.white', 'data-move');
            const h = await hash();
            return h.includes(`moves=h8,${white}`) && h.includes('rule=freestyle') && h.includes('size=15') ? true : h;
        });

        await step('undo takes back both moves, redo brings them back', async () => {
            await page.click('#undo');
            if ((await stones()) !== 0) return `after undo: ${await stones()} stones`;
            await page.click('#redo');
            return (await stones()) === 2 ? true : `after redo: ${await stones()} stones`;
        });

        await step('analysis: a PV and a win rate appear while the stream is still running', async () => {
            await page.click('#mode-analyse');
            await page.selectOption('#think', '3000');
            await page.waitForFunction(() => document.querySelector('#board .pv-stone') &&
                document.body.dataset.engine === 'analysing' && document.querySelector('#winrate').dataset.black);
            const pv = await page.textContent('#pv');
            const label = await page.textContent('#winrate-label');
            if (!/^[a-o]\d+( [a-o]\d+)*$/.test(pv.trim())) return `pv: ${pv}`;
            if (!/Black \d+\.\d%/.test(label)) return `win rate: ${label}`;
            /* the lines that stream in must not move the buttons below them */
            const tops = await page.evaluate(async () => {
                const seen = new Set();
                for (let i = 0; i < 15 && document.body.dataset.engine === 'analysing'; i++) {
                    seen.add(document.querySelector('#import').getBoundingClientRect().top);
                    await new Promise((r) => setTimeout(r, 100));
                }
                return [...seen];
            });
            return tops.length === 1 ? true : `Import moved while the analysis streamed: top at ${tops.join(', ')}`;
        });

        await step('analysis: a new stone cancels the running search and starts another', async () => {
            const free = await page.evaluate(() => {
                for (const c of ['j10', 'g6', 'k11', 'f5']) if (!document.querySelector(`#board .stone[data-move="${c}"]`)) return c;
                return null;
            });
            await page.click(`#board .hit[data-move="${free}"]`);
            await page.waitForSelector(`#board .stone.black[data-move="${free}"]`);
            if ((await stones()) !== 3) return `${await stones()} stones: the engine must not answer in analysis`;
            await page.waitForFunction(() => document.querySelector('#board .pv-stone') && document.body.dataset.engine === '');
            const status = await page.textContent('#status');
            return /Depth \d+/.test(status) ? true : `status: ${status}`;
        });

        await step('renju: switching the rule shows black\'s forbidden point and refuses it', async () => {
            /* The position first, then the rule: the rule's change alone must
             * bring the forbidden points. */
            await page.fill('#moves-text', 'h8 a1 i9 a3 j8 a5 i7 a7');
            await page.click('#import');
            await page.waitForSelector('#board .stone.white[data-move="a7"]');
            await page.selectOption('#rule', 'renju');
            try {
                await page.waitForSelector('#board .forbidden[data-move="i8"]');
            } catch (e) {
                return `no forbidden mark at i8 (status "${await page.textContent('#status')}", ${await stones()} stones, ` +
                    `${await page.locator('#board .forbidden').count()} marks, engine "${await page.evaluate(() => document.body.dataset.engine)}", ${await hash()})`;
            }
            if (!(await hash()).includes('rule=renju')) return `hash: ${await hash()}`;
            await page.click('#board .hit[data-move="i8"]');
            const status = await page.textContent('#status');
            if (!/forbidden/.test(status)) return `status: ${status}`;
            return (await stones()) === 8 ? true : `${await stones()} stones`;
        });

        await step('a link with a position reloads it', async () => {
            await page.goto(base + '#rule=standard&size=19&mode=analyse&moves=j10,k11,k10', { waitUntil: 'load' });
            await page.waitForSelector('#board .stone.black[data-move="k10"]');
            const size = await page.getAttribute('#board', 'data-size');
            const rule = await page.inputValue('#rule');
            return size === '19' && rule === 'standard' && (await stones()) === 3 ? true : `size ${size}, rule ${rule}`;
        });

        await step('review: a game gets a win-rate graph with its blunders marked', async () => {
            await page.selectOption('#rule', 'freestyle');
            await page.selectOption('#size', '15');
            await page.fill('#moves-text', 'h8 i9 h9 g10 h10 a15 h11 h12 o1 h7 j9');
            await page.click('#import');
            await page.selectOption('#review-time', '100');
            await page.click('#review-run');
            await page.waitForFunction(() => document.body.dataset.review === 'done', null, { timeout: 40000 });
            const points = await page.locator('#review-graph .graph-point').count();
            const blunders = await page.locator('#review-graph .graph-point.blunder').count();
            if (points !== 12) return `${points} points for 11 moves`;
            return blunders >= 1 ? true : 'no blunder marked (ply 9 misses a five)';
        });

        await step('review: clicking a point of the graph jumps to that move', async () => {
            await page.click('#review-graph .graph-point[data-ply="5"]');
            await page.waitForFunction(() => document.querySelectorAll('#board .stone').length === 5);
            const current = await page.textContent('#moves-list .current');
            if (!/^5\. h10$/.test(current.trim())) return `current move: ${current}`;
            const marked = await page.locator('#moves-list button.j-blunder').count();
            if (marked < 1) return 'the move list marks no blunder';
            await page.waitForFunction(() => document.querySelector('#board .pv-stone') && document.body.dataset.engine === '');
            await page.screenshot({ path: path.join(outDir, 'web-board.png') });
            return true;
        });

        await step('phone size: the board fits the screen without sideways scrolling', async () => {
            await page.setViewportSize({ width: 390, height: 844 });
            const box = await page.locator('#board').boundingBox();
            const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
            await page.screenshot({ path: path.join(outDir, 'web-phone.png') });
            return box.width <= 390 && box.width > 300 && scroll <= 390 ? true : `board ${box.width}px, page ${scroll}px`;
        });

        await page.setViewportSize({ width: 1280, height: 860 });
        await page.waitForTimeout(300); /* let the last answers land before counting problems */
        await context.close();
    } finally {
        await browser.close();
    }
    check('no console errors, page errors, failed requests or other origins', problems.length === 0,
        problems.slice(0, 10).join('; '));
}

main().then(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
}, (e) => {
    console.log(`FAIL ${e.message}`);
    console.log(`${passed} passed, ${failed + 1} failed`);
    process.exit(1);
});
