// The page of `dataprof history show --html` in a real headless Chromium
// (Debian's, driven by playwright-core; no browser is downloaded):
//   node history_test.js HISTORY.html DATAPROF HISTORY.sqlite
// The page (history_page.sh) shows four commits of the layout fixture;
// struct item.b moved to a colder line at the third (c3). Checks: it loads
// offline with no console error and no request; a chart per key, drawn;
// struct item.b's chart marks c3 and only c3, and its link and its point
// lead to the step's section, whose table has struct item.b going up; the
// command the section gives shows the same change when run. Prints one line
// per check, then "N passed, N failed"; exit 1 on a failure.
"use strict";
const path = require("path");
const { execFileSync } = require("child_process");
const { check, openPage, inChromium } = require("./lib.js");

const [pageFile, dataprof, db] = process.argv.slice(2);
const KEY = "struct item.b", STEP = 2; /* c3: the third commit, index 2 */

async function run(ctx) {
	const { page, errors, requests, readyMarks } = await openPage(ctx, pageFile, 1300,
		(url, base) => url.startsWith("file:") && url.includes(base));
	check("loads offline, marks ready", readyMarks === 1 && !requests.length, requests.join(" "));

	const info = await page.evaluate(() => {
		const d = window.dpHistory.data;
		const cards = [...document.querySelectorAll("section.key")];
		/* a chart is drawn when its canvas has pixels of the line's colour */
		const drawn = cards.filter((c) => {
			const cv = c.querySelector("canvas");
			if (!cv || !cv.width)
				return false;
			const px = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
			for (let i = 0; i < px.length; i += 4)
				if (px[i + 2] > 150 && px[i] < 100 && px[i + 3] > 0)
					return true;
			return false;
		}).length;
		return { keys: d.keys.map((k) => k.key), commits: d.commits.map((c) => c.sha),
			 cards: cards.map((c) => c.dataset.key), drawn };
	});
	check("four commits, oldest first", info.commits.join(",") === "c1,c2,c3,c4", info.commits.join(","));
	check("a chart per key", info.cards.length === info.keys.length && info.cards.length > 1 &&
	      info.cards.join("|") === info.keys.join("|"), `${info.cards.length} charts, ${info.keys.length} keys`);
	check("every chart drawn", info.drawn === info.cards.length, `${info.drawn} of ${info.cards.length}`);

	const card = page.locator(`section.key[data-key="${KEY}"]`);
	const links = await card.locator("ul.marks a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
	check(`${KEY}: marked at c3 only`, links.length === 1 && links[0] === `#step-${STEP}`, links.join(" "));
	const marked = await page.evaluate(([k, s]) => {
		const key = window.dpHistory.data.keys.find((x) => x.key === k);
		return key ? key.beyond_noise.map((b, i) => (b ? i : -1)).filter((i) => i >= 0) : null;
	}, [KEY, STEP]);
	check(`${KEY}: the page's data marks step ${STEP}`, marked && marked.join() === String(STEP),
	      JSON.stringify(marked));

	/* the link: to the step's section, its table naming the member, up */
	await card.locator(`a[href="#step-${STEP}"]`).click();
	const hash = await page.evaluate(() => location.hash);
	const step = await page.evaluate((id) => {
		const s = document.getElementById(id);
		if (!s)
			return null;
		const rows = [...s.querySelectorAll("tr")].map((tr) => [...tr.cells].map((c) => c.textContent));
		return { target: s.matches(":target"), base: s.dataset.base, new: s.dataset.new,
			 rows, cmd: s.querySelector("pre.cmd").textContent,
			 top: s.getBoundingClientRect().top };
	}, `step-${STEP}`);
	check("the link goes to the step", hash === `#step-${STEP}` && step && step.target &&
	      step.top >= -1 && step.top < 1000, `${hash}, top ${step && step.top}`);
	check("the step is c2 -> c3", step && step.base === "c2" && step.new === "c3");
	const row = step ? step.rows.find((r) => r[0] === KEY) : null;
	check(`its table: ${KEY} up`, row && row[3].startsWith("\u25b2"), row && row.join(" | "));

	/* the point: clicking the red dot of c3 in the chart goes there too */
	await page.evaluate(() => { location.hash = ""; });
	const pos = await page.evaluate(([k, i]) => {
		const u = window.dpHistory.charts.get(k);
		const key = window.dpHistory.data.keys.find((x) => x.key === k);
		const r = u.over.getBoundingClientRect();
		return { x: r.left + u.valToPos(i, "x"), y: r.top + u.valToPos(key.values[i] || 0, "y") };
	}, [KEY, STEP]);
	await page.mouse.move(pos.x, pos.y);
	await page.mouse.click(pos.x, pos.y);
	const hash2 = await page.evaluate(() => location.hash);
	check("clicking the marked point goes to the step", hash2 === `#step-${STEP}`, hash2);

	/* the command the section gives shows the same change again */
	const argv = step ? step.cmd.match(/'[^']*'|\S+/g).map((w) => w.replace(/^'(.*)'$/, "$1")) : [];
	let out = "";
	try {
		/* from where the page was made: --db as it was given there */
		out = execFileSync(dataprof, argv.slice(1), { encoding: "utf8", cwd: path.dirname(db) });
	} catch (e) {
		out = "exit " + e.status + ": " + e.stderr;
	}
	check("the step's command runs: check c3 against c2", /check of c3 against commit c2/.test(out) &&
	      new RegExp(KEY.replace(".", "\\.")).test(out), out.split("\n")[0]);
	check("no console error", !errors.length, errors.join(" | "));
	await page.screenshot({ path: path.join(path.dirname(pageFile), "history.png") });
	await page.close();
}

inChromium(run);
