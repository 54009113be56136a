#include "counters.h"
#include "../profile/writer_timeline.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t dp_counter_extend(dp_counter_state *st, uint64_t raw, unsigned width)
{
	uint64_t delta;

	if (raw == DP_READING_NONE)
		return DP_READING_NONE;
	if (!st->seen) {
		st->seen = true;
		st->last = st->total = raw;
		return raw;
	}
	if (width < 64)
		delta = (raw - st->last) & ((1ull << width) - 1);
	else
		delta = raw >= st->last ? raw - st->last : 0;
	st->last = raw;
	st->total += delta;
	return st->total;
}

/* ---- choosing sensors ---- */

/* Up to three names near a pattern that matched nothing, into out. A glob is
 * compared up to its first wildcard, an instance ("#cpu3") is kept as given. */
static void suggest(const dp_counters *c, const char *pat, dp_buf *out)
{
	const char *glob = strpbrk(pat, "*?["), *inst = strchr(pat, '#');
	size_t plen = glob ? (size_t)(glob - pat) : inst ? (size_t)(inst - pat) : strlen(pat);
	const char *tail = glob ? glob : inst ? inst : "";
	char *base = dp_strndup(pat, glob ? strlen(pat) : plen);
	unsigned limit = (unsigned)DP_MAX((size_t)2, plen / 4);
	DP_VEC(char *) seen = {0};
	unsigned best[3] = {limit + 1, limit + 1, limit + 1};
	const char *pick[3] = {NULL, NULL, NULL};

	for (size_t i = 0; i < c->all.n; i++) {
		const dp_source *s = c->all.v[i];

		for (size_t k = 0; k < s->sensors.n; k++) {
			const char *name = s->sensors.v[k].name;
			size_t nl = strcspn(name, "#"); /* one per sensor, not one per CPU */
			char *cand;
			unsigned d;
			bool dup = false;

			if (glob)
				cand = dp_asprintf("%.*s%s", (int)DP_MIN(plen, nl), name, tail);
			else
				cand = dp_strndup(name, nl);
			for (size_t j = 0; j < seen.n && !dup; j++)
				dup = !strcmp(seen.v[j], cand);
			if (dup) {
				free(cand);
				continue;
			}
			dp_vec_push(&seen, cand);
			d = dp_edit_distance(base, cand, limit);
			for (int j = 0; j < 3; j++) {
				if (d >= best[j])
					continue;
				for (int m = 2; m > j; m--) {
					best[m] = best[m - 1];
					pick[m] = pick[m - 1];
				}
				best[j] = d;
				pick[j] = cand;
				break;
			}
		}
	}
	for (int j = 0; j < 3 && pick[j]; j++)
		dp_buf_printf(out, "%s%s%s", j ? ", " : "", pick[j], glob ? "" : tail);
	for (size_t j = 0; j < seen.n; j++)
		free(seen.v[j]);
	dp_vec_free(&seen);
	free(base);
}

static int choose(dp_counters *c, const char *list, bool *chosen, dp_error *err)
{
	char *copy = dp_strdup(list), *save = NULL;
	int rc = 0;

	for (char *pat = strtok_r(copy, ",", &save); pat; pat = strtok_r(NULL, ",", &save)) {
		size_t hits = 0, pos = 0;

		if (!strcmp(pat, "default")) {
			rc = choose(c, DP_COUNTERS_DEFAULT, chosen, err);
			if (rc < 0)
				break;
			continue;
		}
		for (size_t i = 0; i < c->all.n; i++) {
			const dp_source *s = c->all.v[i];

			for (size_t k = 0; k < s->sensors.n; k++, pos++) {
				if (fnmatch(pat, s->sensors.v[k].name, 0))
					continue;
				chosen[pos] = true;
				hits++;
			}
		}
		if (!hits) {
			dp_buf sug = {0};

			suggest(c, pat, &sug);
			dp_error_set(err,
				     "unknown counter '%s'%s%s%s; 'dataprof list --counters' shows "
				     "those of this machine",
				     pat, sug.len ? " (did you mean " : "", sug.len ? sug.p : "",
				     sug.len ? "?)" : "");
			dp_buf_free(&sug);
			rc = -1;
			break;
		}
	}
	free(copy);
	return rc;
}

/* One line: the chosen sensors of a source that cannot work here, and why. */
static void warn_unavailable(dp_counters *c, const dp_source *s, const bool *chosen)
{
	size_t shown = 0, more = 0;

	for (size_t k = 0; k < s->sensors.n; k++) {
		if (!chosen[k])
			continue;
		if (shown < 3)
			dp_buf_printf(&c->warnings, "%s%s", shown ? ", " : "",
				      s->sensors.v[k].name);
		else
			more++;
		shown++;
	}
	if (more)
		dp_buf_printf(&c->warnings, " and %zu more", more);
	dp_buf_printf(&c->warnings, " skipped: %s\n", s->why);
}

int dp_counters_open(dp_counters *c, const dp_source_ctx *ctx, const char *list, dp_error *err)
{
	size_t total = 0, pos = 0;
	bool *chosen;

	memset(c, 0, sizeof(*c));
	dp_sources_prepare(&c->all, ctx);
	for (size_t i = 0; i < c->all.n; i++)
		total += c->all.v[i]->sensors.n;
	chosen = dp_calloc(total + 1, 1);
	if (choose(c, list ? list : "", chosen, err) < 0) {
		free(chosen);
		dp_counters_close(c);
		return -1;
	}
	for (size_t i = 0; i < c->all.n; i++) {
		dp_source *s = c->all.v[i];
		size_t first = pos, nchosen = 0;

		for (size_t k = 0; k < s->sensors.n; k++)
			nchosen += chosen[pos++];
		if (!nchosen)
			continue;
		if (!s->available) {
			warn_unavailable(c, s, chosen + first);
			continue;
		}
		dp_vec_push(&c->active, s);
		for (size_t k = 0; k < s->sensors.n; k++) {
			if (!chosen[first + k])
				continue;
			dp_chosen_sensor cs = {
			    &s->sensors.v[k], (uint32_t)(c->active.n - 1), (uint32_t)k, {0}};

			dp_vec_push(&c->chosen, cs);
		}
	}
	free(chosen);
	c->raw_off = dp_calloc(c->active.n + 1, sizeof(*c->raw_off));
	for (size_t i = 0; i < c->active.n; i++) {
		c->raw_off[i] = c->raw_size;
		c->raw_size += DP_ALIGN(c->active.v[i]->raw_cap, 8);
	}
	c->scratch = dp_calloc(total + 1, sizeof(*c->scratch)); /* enough for any source */
	return 0;
}

void dp_counters_close(dp_counters *c)
{
	dp_sources_free(&c->all);
	dp_vec_free(&c->active);
	free(c->raw_off);
	dp_vec_free(&c->chosen);
	free(c->scratch);
	dp_buf_free(&c->warnings);
	memset(c, 0, sizeof(*c));
}

void dp_counters_write_sensors(const dp_counters *c, dp_writer *w)
{
	for (size_t i = 0; i < c->chosen.n; i++) {
		const dp_sensor *se = c->chosen.v[i].sensor;

		dp_writer_add_sensor(w, (uint32_t)i, se->kind, se->unit, se->name);
	}
}

void dp_counters_collect(dp_counters *c, uint8_t *raw, int32_t *lens)
{
	for (size_t i = 0; i < c->active.n; i++) {
		dp_source *s = c->active.v[i];
		ssize_t n = s->ops->collect(s, raw + c->raw_off[i]);

		lens[i] = n < 0 ? -1 : (int32_t)n;
	}
}

void dp_counters_decode(dp_counters *c, const uint8_t *raw, const int32_t *lens,
			uint64_t *values)
{
	size_t id = 0;

	/* ids run source by source, in the order of c->active */
	for (size_t i = 0; i < c->active.n; i++) {
		const dp_source *s = c->active.v[i];

		for (size_t k = 0; k < s->sensors.n; k++)
			c->scratch[k] = DP_READING_NONE;
		if (lens[i] >= 0)
			s->ops->decode(s, raw + c->raw_off[i], (size_t)lens[i], c->scratch);
		for (; id < c->chosen.n && c->chosen.v[id].src == i; id++) {
			dp_chosen_sensor *cs = &c->chosen.v[id];
			uint64_t v = c->scratch[cs->idx];

			values[id] = cs->sensor->kind == DP_SENSOR_COUNTER
					 ? dp_counter_extend(&cs->state, v, cs->sensor->width)
					 : v;
		}
	}
}
