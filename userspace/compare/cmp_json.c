// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * compare --json (docs/compare.md, "JSON"): one document, schema
 * fabtrace-compare-1: the runs, the statistics' settings, config_diff (the
 * knobs, and every differing setting), warnings, and the metrics array.
 */
#include <errno.h>
#include <math.h>

#include "lib/json.h"
#include "userspace/compare/compare.h"

static void side(struct json *j, const char *key, const struct cmp_side *s)
{
	json_kv_array_begin(j, key);
	for (size_t i = 0; i < s->nruns; i++) {
		const struct cmp_run *r = &s->runs[i];

		json_object_begin(j);
		json_kv_string(j, "path", r->path);
		json_kv_bool(j, "truncated", r->truncated);
		json_kv_double(j, "duration_s", (double)r->duration_ns / 1e9, 3);
		json_kv_u64(j, "ranks", r->nranks);
		json_kv_array_begin(j, "groups");
		for (size_t k = 0; k < r->ngroups; k++) {
			json_object_begin(j);
			json_kv_string(j, "name", r->groups[k].name);
			json_kv_u64(j, "count", r->groups[k].count);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

static void config_diff(struct json *j, const struct cmp *c)
{
	json_kv_object_begin(j, "config_diff");
	json_kv_bool(j, "known", c->config_unknown == NULL);
	json_kv_u64(j, "knobs_counted", c->nknobs_counted);
	json_kv_array_begin(j, "knobs");
	for (size_t i = 0; i < c->nknobs; i++) {
		const struct cmp_knob *k = &c->knobs[i];

		json_object_begin(j);
		json_kv_string(j, "class", k->cls);
		json_kv_string(j, "key", k->key);
		json_kv_string(j, "objects", k->objects);
		json_kv_string(j, "a", k->a);
		json_kv_string(j, "b", k->b);
		json_kv_bool(j, "derived", k->derived);
		json_object_end(j);
	}
	json_array_end(j);
	json_kv_array_begin(j, "settings");
	for (size_t i = 0; i < c->ndiffs; i++) {
		const struct cmp_diff *d = &c->diffs[i];

		json_object_begin(j);
		json_kv_string(j, "object", d->object);
		json_kv_string(j, "class", d->cls);
		json_kv_string(j, "key", d->key);
		json_kv_string(j, "a", d->a);
		json_kv_string(j, "b", d->b);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void values(struct json *j, const char *key, const double *v, size_t n)
{
	json_kv_array_begin(j, key);
	for (size_t i = 0; i < n; i++)
		json_double(j, v[i], 9);
	json_array_end(j);
}

static const char *better_name(unsigned b)
{
	return b == CMP_LOWER ? "lower" : b == CMP_HIGHER ? "higher" : "neither";
}

static void metric(struct json *j, const struct cmp *c, const struct cmp_metric *m)
{
	json_object_begin(j);
	json_kv_string(j, "name", m->name);
	json_kv_string(j, "group", m->group);
	json_kv_string(j, "unit", m->unit);
	json_kv_string(j, "better", better_name(m->better));
	values(j, "a", m->a, m->na);
	values(j, "b", m->b, m->nb);
	json_kv_double(j, "a_median", m->a_med, 9);
	json_kv_double(j, "b_median", m->b_med, 9);
	json_kv_double(j, "delta", m->delta, 9);
	json_kv_double(j, "delta_pct", m->delta_pct, 2);
	json_kv_double(j, "ci_low", m->ci_lo, 9);
	json_kv_double(j, "ci_high", m->ci_hi, 9);
	json_kv_double(j, "p", m->p, 6);
	json_kv_bool(j, "significant", m->significant);
	json_kv_string(j, "direction", m->direction > 0 ? "better" : m->direction < 0 ? "worse" : "~");
	if (c->aa_done) {
		json_kv_double(j, "aa_p", m->aa_p, 6);
		json_kv_bool(j, "aa_significant", m->aa_significant);
	}
	json_object_end(j);
}

int cmp__json(const struct cmp *c, FILE *f, bool pretty, bool script_safe)
{
	struct json j;

	json_init(&j, f, pretty);
	j.script_safe = script_safe;
	json_object_begin(&j);
	json_kv_string(&j, "schema", CMP_SCHEMA);
	side(&j, "a", &c->a);
	side(&j, "b", &c->b);
	json_kv_object_begin(&j, "statistics");
	json_kv_string(&j, "values", "one per run and metric");
	json_kv_string(&j, "delta", "median(B) - median(A)");
	json_kv_string(&j, "test", "Mann-Whitney U, two-sided");
	json_kv_string(&j, "interval", "percentile bootstrap of the difference of medians");
	json_kv_double(&j, "level", c->opts.level, 3);
	json_kv_u64(&j, "resamples", c->opts.nboot);
	json_kv_u64(&j, "seed", c->opts.seed);
	json_kv_double(&j, "alpha", c->opts.alpha, 4);
	json_kv_string(&j, "significant", "p < alpha and the interval excludes 0");
	json_kv_double(&j, "burst_share", c->opts.burst_share, 3);
	json_object_end(&j);
	config_diff(&j, c);
	json_kv_array_begin(&j, "warnings");
	for (size_t i = 0; i < c->nwarnings; i++)
		json_string(&j, c->warnings[i]);
	json_array_end(&j);
	json_kv_object_begin(&j, "summary");
	json_kv_u64(&j, "metrics", c->nmetrics);
	json_kv_u64(&j, "significant", c->significant);
	json_kv_u64(&j, "better", c->better);
	json_kv_u64(&j, "worse", c->worse);
	json_kv_bool(&j, "shape_differs", c->shape_differs);
	if (c->aa_done) {
		json_kv_u64(&j, "aa_tested", c->aa_tested);
		json_kv_u64(&j, "aa_significant", c->aa_significant);
	} else {
		json_kv_string(&j, "aa_tested", NULL);
		json_kv_string(&j, "aa_significant", NULL);
	}
	json_object_end(&j);
	json_kv_array_begin(&j, "metrics");
	for (size_t i = 0; i < c->nmetrics; i++)
		metric(&j, c, &c->metrics[i]);
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
	return ferror(f) ? -EIO : 0;
}
