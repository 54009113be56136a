// The view page in a real headless Chromium (Debian's, driven by
// playwright-core; no browser is downloaded), as a person would use it:
//   node view_test.js OUTDIR FULL.html [EMPTY.html] [PLAIN.html]
// FULL has samples, counters and marks; EMPTY no samples; PLAIN no counters
// and no marks. Checks: the page loads offline with no console error and no
// request; dragging the bar selects the grid row nearest its time (by brute
// force over the page's own events); clicking a row moves the bar there;
// zooming keeps the bar's time and place; a rubber band sets the range;
// clicking a data row filters the lanes; a screenshot is not blank. Prints
// one line per check, then "N passed, N failed"; exit 1 on a failure.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const [outDir, fullPage, emptyPage, plainPage] = process.argv.slice(2);
let passed = 0, failed = 0;

function check(name, ok, detail) {
	console.log(`${ok ? "ok" : "FAIL"}: ${name}${detail ? " (" + detail + ")" : ""}`);
	ok ? passed++ : failed++;
}

async function open(ctx, file) {
	const page = await ctx.newPage();
	const errors = [], requests = [];
	page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
	page.on("pageerror", (e) => errors.push(e.message));
	// the page must need nothing beyond its own file
	await page.route("**/*", (route) => {
		const url = route.request().url();
		if (url.startsWith("file:") && url.endsWith(path.basename(file)))
			return route.continue();
		requests.push(url);
		return route.abort();
	});
	await page.setViewportSize({ width: 1400, height: 1000 });
	await page.goto("file://" + path.resolve(file));
	await page.waitForSelector("body[data-ready='1']", { timeout: 30000 }).catch(() => {});
	const ready = await page.evaluate(() => {
		const m = performance.getEntriesByName("dp-ready")[0];
		return m ? m.startTime : -1;
	});
	return { page, errors, requests, ready };
}

const frame = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
const st = (page) => page.evaluate(() => ({ ...window.dpView.state, W: window.dpView.plotWidth() }));

// The row the page should select for time t, by brute force over its own
// events: the nearest sample group or mark (earlier on a tie), none outside
// the overlap of the kinds.
function expectedRowTime(model, t) {
	const ov = model.overlap;
	if (!ov || t < ov[0] || t > ov[1])
		return null;
	let best = null;
	for (const x of [...model.sTimes, ...model.mTimes]) {
		const d = Math.abs(x - t);
		if (best === null || d < Math.abs(best - t) || (d === Math.abs(best - t) && x < best))
			best = x;
	}
	return best;
}

async function fullChecks(ctx) {
	const { page, errors, requests, ready } = await open(ctx, fullPage);
	check("full page: loads, marks ready", ready > 0, `ready at ${ready.toFixed(0)} ms`);
	console.log(`render: dp-ready ${ready.toFixed(1)} ms after navigation start`);
	const model = await page.evaluate(() => {
		const m = window.dpView.model;
		return { sTimes: Array.from(m.sTimes), mTimes: Array.from(m.mTimes), overlap: m.overlap,
			 marks: m.marks.length, counters: !!m.d.counters, samples: m.samples };
	});
	check("full page: has samples, marks, counters", model.samples > 0 && model.marks > 0 && model.counters,
	      `${model.samples} samples, ${model.marks} marks`);

	// drag the bar's handle to 30% and then 70% of the plot
	const ruler = await page.locator("#ruler").boundingBox();
	for (const frac of [0.3, 0.7]) {
		const h = await page.locator("#bar-handle").boundingBox();
		const tx = ruler.x + ruler.width * frac;
		await page.mouse.move(h.x + h.width / 2, h.y + h.height / 2);
		await page.mouse.down();
		await page.mouse.move(tx, h.y + h.height / 2, { steps: 8 });
		await page.mouse.up();
		await frame(page);
		const s = await st(page);
		const want = s.lo + (tx - ruler.x) / s.W * (s.hi - s.lo), perPx = (s.hi - s.lo) / s.W;
		check(`drag bar to ${frac * 100}%: bar at the pointer's time`, Math.abs(s.bar - want) <= perPx,
		      `bar ${s.bar.toFixed(0)} ns, pointer ${want.toFixed(0)} ns`);
		const sel = await page.evaluate(() => {
			const r = window.dpView.selectedRow();
			const e = document.querySelector(`.grid-row[data-row='${r}']`);
			const g = document.getElementById("grid").getBoundingClientRect();
			const b = e && e.getBoundingClientRect();
			return { r, t: r >= 0 ? window.dpView.rowTime(r) : null, shown: !!e && e.classList.contains("sel") &&
				 b.top >= g.top && b.bottom <= g.bottom };
		});
		const exp = expectedRowTime(model, s.bar);
		check(`drag bar to ${frac * 100}%: grid selects the nearest event and shows it`,
		      exp !== null && sel.t === exp && sel.shown, `row ${sel.r} at ${sel.t} ns, nearest ${exp} ns`);
	}

	// click a grid row other than the selected one: the bar goes to its time
	const target = await page.evaluate(() => {
		const rows = [...document.querySelectorAll(".grid-row")].filter((e) => !e.classList.contains("sel"));
		const g = document.getElementById("grid").getBoundingClientRect();
		const e = rows.find((x) => x.getBoundingClientRect().top > g.top + 30 && x.getBoundingClientRect().bottom < g.bottom);
		return e ? { row: +e.dataset.row, t: +e.dataset.t } : null;
	});
	if (target) {
		// on its time: the function's name in a row opens the annotate pane
		await page.locator(`.grid-row[data-row='${target.row}'] span`).first().click();
		await frame(page);
		const s = await st(page);
		const sel = await page.evaluate(() => window.dpView.rowTime(window.dpView.selectedRow()));
		check("click a grid row: the bar moves to its time and the range centres on it",
		      s.bar === target.t && Math.abs((s.lo + s.hi) / 2 - target.t) < (s.hi - s.lo) * 0.01 + 1 ||
		      (s.bar === target.t && (s.lo === 0 || s.hi >= s.lo)), `row ${target.row} at ${target.t}, bar ${s.bar}`);
		check("click a grid row: that row (or one at its time) is selected", sel === target.t);
	} else {
		check("click a grid row: a row to click", false);
	}

	// zoom in with the button, out with the wheel: the bar keeps its time and place
	for (const how of ["button", "wheel"]) {
		const a = await st(page);
		const xa = (a.bar - a.lo) / (a.hi - a.lo) * a.W;
		if (how === "button")
			await page.click("#zoom-in");
		else {
			const lane = await page.locator(".lane canvas").first().boundingBox();
			await page.mouse.move(lane.x + lane.width / 2, lane.y + 10);
			await page.mouse.wheel(0, 100);
		}
		await frame(page);
		const b = await st(page);
		const xb = (b.bar - b.lo) / (b.hi - b.lo) * b.W;
		check(`zoom (${how}): the bar keeps its time and its place`,
		      a.bar === b.bar && Math.abs(xa - xb) <= 1 && Math.abs((b.hi - b.lo) - (a.hi - a.lo)) > 1,
		      `span ${(a.hi - a.lo).toFixed(0)} -> ${(b.hi - b.lo).toFixed(0)} ns, bar x ${xa.toFixed(1)} -> ${xb.toFixed(1)}`);
	}

	// rubber band on the first counter chart
	await page.click("#zoom-reset");
	await frame(page);
	// in view first: mouse events outside the viewport reach nothing (the
	// page is taller where fonts are larger)
	await page.locator("#graphs .u-over").first().scrollIntoViewIfNeeded();
	await frame(page);
	const over = await page.locator("#graphs .u-over").first().boundingBox();
	check("the first counter chart is in view", over && over.y >= 0 && over.y + over.height <= 1000,
	      over ? `y ${over.y.toFixed(0)}, height ${over.height.toFixed(0)}` : "no box");
	const a = await st(page);
	const x1 = over.x + over.width * 0.2, x2 = over.x + over.width * 0.45, y = over.y + over.height / 2;
	await page.mouse.move(x1, y);
	await page.mouse.down();
	await page.mouse.move(x2, y, { steps: 6 });
	await page.mouse.up();
	await frame(page);
	const b = await st(page);
	const perPx = (a.hi - a.lo) / a.W;
	const lo = a.lo + (x1 - over.x) * perPx, hi = a.lo + (x2 - over.x) * perPx;
	check("rubber band on the graph: the range becomes the band", Math.abs(b.lo - lo) <= 2 * perPx &&
	      Math.abs(b.hi - hi) <= 2 * perPx, `${b.lo.toFixed(0)}..${b.hi.toFixed(0)} vs ${lo.toFixed(0)}..${hi.toFixed(0)}`);
	await page.click("#zoom-reset");
	await frame(page);

	// the graph, ruler and lanes agree on where the bar is
	const xs = await page.evaluate(() => {
		const r = document.getElementById("ruler").getBoundingClientRect();
		const o = document.querySelector("#graphs .u-over").getBoundingClientRect();
		const l = document.querySelector(".lane canvas").getBoundingClientRect();
		return [r.left, r.width, o.left, o.width, l.left, l.width];
	});
	check("panels share one time axis (ruler, graph, lanes: same left and width)",
	      Math.abs(xs[0] - xs[2]) < 1 && Math.abs(xs[0] - xs[4]) < 1 && Math.abs(xs[1] - xs[3]) < 1 &&
	      Math.abs(xs[1] - xs[5]) < 1, xs.map((v) => v.toFixed(1)).join(" "));

	// a data row filters the lanes
	const before = await page.evaluate(() => document.querySelectorAll(".drow").length);
	await page.locator(".drow").first().click();
	await frame(page);
	const f = await page.evaluate(() => ({ filter: window.dpView.state.filter, chip: !document.getElementById("filter").hidden,
						active: document.querySelectorAll(".drow.active").length }));
	check("click a data row: the lanes are filtered by it", before > 0 && f.filter && f.chip && f.active === 1,
	      JSON.stringify(f.filter));
	await page.locator(".drow").first().click();
	await frame(page);

	// bar back to the middle, then the screenshot
	await page.evaluate(() => {
		const m = window.dpView.model;
		window.dpView.setState({ bar: m.overlap ? (m.overlap[0] + m.overlap[1]) * 0.42 : 0 });
	});
	await frame(page);
	const png = path.join(outDir, "view.png");
	await page.screenshot({ path: png, fullPage: true });
	const stats = await page.evaluate(async (b64) => {
		const img = new Image();
		img.src = "data:image/png;base64," + b64;
		await img.decode();
		const c = document.createElement("canvas");
		c.width = img.width;
		c.height = img.height;
		const g = c.getContext("2d");
		g.drawImage(img, 0, 0);
		const d = g.getImageData(0, 0, c.width, c.height).data, colors = new Set();
		let ink = 0;
		for (let i = 0; i < d.length; i += 4 * 7) {
			colors.add((d[i] >> 3) << 10 | (d[i + 1] >> 3) << 5 | (d[i + 2] >> 3));
			if (d[i] + d[i + 1] + d[i + 2] < 600)
				ink++;
		}
		return { w: c.width, h: c.height, colors: colors.size, ink: ink / (d.length / 28) };
	}, fs.readFileSync(png).toString("base64"));
	check("screenshot: not blank", stats.colors > 40 && stats.ink > 0.03,
	      `${stats.w}x${stats.h}, ${stats.colors} colours, ${(stats.ink * 100).toFixed(1)}% ink, ${png}`);
	check("full page: no console error", errors.length === 0, errors.join(" | "));
	check("full page: no request beyond the file", requests.length === 0, requests.join(" "));
	await page.close();
}

async function emptyChecks(ctx) {
	const { page, errors, requests } = await open(ctx, emptyPage);
	const t = await page.evaluate(() => document.getElementById("empty").hidden ? "" : document.getElementById("empty").textContent);
	check("empty profile: the page says it has no samples", /no samples/.test(t), t);
	check("empty profile: no console error, no request", !errors.length && !requests.length, errors.join(" | "));
	await page.close();
}

async function plainChecks(ctx) {
	const { page, errors, requests } = await open(ctx, plainPage);
	const t = await page.evaluate(() => document.body.innerText);
	check("no counters: the graph says record --counters", /record --counters/.test(t));
	check("no marks: the grid says record --markers", /record --markers/.test(t));
	check("plain profile: no console error, no request", !errors.length && !requests.length, errors.join(" | "));
	await page.close();
}

(async () => {
	const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "dp-chromium-"));
	const ctx = await chromium.launchPersistentContext(profileDir, {
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		offline: true,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		       "--disable-component-update", "--disable-sync", "--no-first-run"],
	});
	try {
		await fullChecks(ctx);
		if (emptyPage)
			await emptyChecks(ctx);
		if (plainPage)
			await plainChecks(ctx);
	} catch (e) {
		check("the test ran to its end", false, e.stack);
	} finally {
		await ctx.close();
		fs.rmSync(profileDir, { recursive: true, force: true });
	}
	console.log(`${passed} passed, ${failed} failed`);
	process.exit(failed ? 1 : 0);
})();
