// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The configuration diff of compare (docs/compare.md, "Configuration"):
 * each side's value of every setting its runs recorded (cmp_config_flat.c
 * names them), the settings whose values differ between A and B, and the
 * knobs behind them: the differences of one key from one value to one
 * other, whatever objects they were on (a tbf limit changed on both ends of
 * a wire is one knob).  The sockets' congestion control and ECN follow from
 * the namespaces' tcp_congestion_control and tcp_ecn: a change of theirs is
 * a derived knob, not counted, when such a sysctl changed the same way.
 *
 * A setting's value on a side is its runs' value when they agree; a side
 * whose runs disagree is warned about (its first run's value is used).
 * Sets (sockets, processes) are the union of the side's runs: a run whose
 * sockets were not seen says nothing.  A run without configuration records
 * says nothing either; a side without any has no diff (a warning says so).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/compare/compare.h"

#define ABSENT "(absent)"

int cmp__warn(struct cmp *c, const char *fmt, ...)
{
	char **v = realloc(c->warnings, (c->nwarnings + 1) * sizeof(*v));
	va_list ap;
	int n;

	if (!v)
		return -ENOMEM;
	c->warnings = v;
	va_start(ap, fmt);
	n = vasprintf(&v[c->nwarnings], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	for (size_t i = 0; i < c->nwarnings; i++)
		if (!strcmp(v[i], v[c->nwarnings])) { /* said once */
			free(v[c->nwarnings]);
			return 0;
		}
	c->nwarnings++;
	return 0;
}

static const struct cmp_setting *find(const struct cmp_run *r, const char *object, const char *key)
{
	size_t lo = 0, hi = r->nsettings;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(r->settings[mid].object, object);

		if (!d)
			d = strcmp(r->settings[mid].key, key);
		if (!d)
			return &r->settings[mid];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Add the items of the comma-joined set S to the sorted, distinct list *V of *N. */
static int set_add(char ***v, size_t *n, const char *s)
{
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ","), k;
		char **w;

		for (k = 0; k < *n && strncmp((*v)[k], p, len) != 0; k++)
			;
		if (k == *n || (*v)[k][len]) {
			w = realloc(*v, (*n + 1) * sizeof(*w));
			if (!w)
				return -ENOMEM;
			*v = w;
			w[*n] = strndup(p, len);
			if (!w[*n])
				return -ENOMEM;
			(*n)++;
		}
		p += len + (p[len] == ',');
	}
	return 0;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A set's value on a side: the union of its runs' sets, sorted and joined; NULL when none had it. */
static char *side_set(const struct cmp_side *s, const char *object, const char *key)
{
	char **v = NULL, *out = NULL;
	size_t n = 0;
	bool fail = false;

	for (size_t i = 0; i < s->nruns && !fail; i++) {
		const struct cmp_setting *x = s->runs[i].have_config ? find(&s->runs[i], object, key) : NULL;

		fail = x && set_add(&v, &n, x->value);
	}
	if (!fail && n) {
		size_t len = 1;

		qsort(v, n, sizeof(*v), by_str);
		for (size_t k = 0; k < n; k++)
			len += strlen(v[k]) + 1;
		out = malloc(len);
		if (out) {
			out[0] = 0;
			for (size_t k = 0; k < n; k++)
				strcat(strcat(out, k ? "," : ""), v[k]);
		}
	}
	for (size_t k = 0; k < n; k++)
		free(v[k]);
	free(v);
	return out;
}

/* A setting's value on side S (NAME "A" or "B"), warning when its runs disagree; NULL: out of memory. */
static char *side_value(struct cmp *c, const struct cmp_side *s, const char *name, const struct cmp_setting *ref)
{
	const struct cmp_setting *first;
	const char *v0;
	size_t r0 = 0;

	if (ref->set) {
		char *v = side_set(s, ref->object, ref->key);

		return v ? v : strdup(ABSENT);
	}
	while (r0 < s->nruns && !s->runs[r0].have_config) /* a run without configuration says nothing */
		r0++;
	first = r0 < s->nruns ? find(&s->runs[r0], ref->object, ref->key) : NULL;
	v0 = first ? first->value : ABSENT;
	for (size_t i = r0 + 1; i < s->nruns; i++) {
		const struct cmp_setting *x = find(&s->runs[i], ref->object, ref->key);
		const char *vi = x ? x->value : ABSENT;

		if (s->runs[i].have_config && strcmp(vi, v0) != 0) {
			if (cmp__warn(c, "the runs of side %s differ in %s %s: %s in %s, %s in %s", name, ref->object,
				      ref->key, v0, s->runs[r0].path, vi, s->runs[i].path))
				return NULL;
			break;
		}
	}
	return strdup(v0);
}

/* A setting of a run, where the list of every setting points. */
typedef const struct cmp_setting *setting_ref;

/* Every setting of any run (pointers into the runs). */
static int every_setting(const struct cmp *c, setting_ref **out, size_t *nout)
{
	const struct cmp_side *sides[2] = { &c->a, &c->b };
	setting_ref *v = NULL;
	size_t n = 0, cap = 0;

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nruns; i++)
			for (size_t k = 0; k < sides[s]->runs[i].nsettings; k++) {
				if (n == cap) {
					setting_ref *w;

					cap = cap ? cap * 2 : 256;
					w = realloc(v, cap * sizeof(setting_ref));
					if (!w) {
						free(v);
						return -ENOMEM;
					}
					v = w;
				}
				v[n++] = &sides[s]->runs[i].settings[k];
			}
	*out = v;
	*nout = n;
	return 0;
}

static int by_ref(const void *a, const void *b)
{
	setting_ref x = *(const setting_ref *)a, y = *(const setting_ref *)b;
	int d = strcmp(x->object, y->object);

	return d ? d : strcmp(x->key, y->key);
}

static int add_diff(struct cmp *c, const struct cmp_setting *ref, char *a, char *b)
{
	struct cmp_diff *v = realloc(c->diffs, (c->ndiffs + 1) * sizeof(*v)), *d;

	if (!v) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	c->diffs = v;
	d = &v[c->ndiffs++];
	d->object = strdup(ref->object);
	d->cls = strdup(ref->cls);
	d->key = strdup(ref->key);
	d->a = a;
	d->b = b;
	return d->object && d->cls && d->key ? 0 : -ENOMEM;
}

/* The object's name without its class ("eth0@h2" of "qdisc tbf 1: on eth0@h2"). */
static const char *short_object(const struct cmp_diff *d)
{
	const char *on = strstr(d->object, " on ");

	if (on)
		return on + 4;
	if (!strncmp(d->object, "netns ", 6))
		return d->object + 6;
	if (!strncmp(d->object, "sockets in ", 11))
		return d->object + 11;
	if (!strncmp(d->object, "interface ", 10))
		return d->object + 10;
	return d->object;
}

static bool same_knob(const struct cmp_knob *k, const struct cmp_diff *d)
{
	return !strcmp(k->cls, d->cls) && !strcmp(k->key, d->key) && !strcmp(k->a, d->a) && !strcmp(k->b, d->b);
}

/* The sockets' KEY follows from the namespaces' SYSCTL changed the same way. */
static bool derived(const struct cmp *c, const struct cmp_knob *k)
{
	const char *sysctl = !strcmp(k->key, "cc") ? "net.ipv4.tcp_congestion_control" : "net.ipv4.tcp_ecn";

	if (strcmp(k->cls, "sockets") != 0)
		return false;
	for (size_t i = 0; i < c->nknobs; i++)
		if (!strcmp(c->knobs[i].cls, "sysctl") && !strcmp(c->knobs[i].key, sysctl) &&
		    (!strcmp(k->key, "ecn") || (strstr(k->a, c->knobs[i].a) && strstr(k->b, c->knobs[i].b))))
			return true;
	return false;
}

static int knobs(struct cmp *c)
{
	for (size_t i = 0; i < c->ndiffs; i++) {
		const struct cmp_diff *d = &c->diffs[i];
		struct cmp_knob *k = NULL;
		char *objs;

		for (size_t j = 0; j < c->nknobs && !k; j++)
			if (same_knob(&c->knobs[j], d))
				k = &c->knobs[j];
		if (!k) {
			struct cmp_knob *v = realloc(c->knobs, (c->nknobs + 1) * sizeof(*v));

			if (!v)
				return -ENOMEM;
			c->knobs = v;
			k = &v[c->nknobs++];
			memset(k, 0, sizeof(*k));
			k->cls = strdup(d->cls);
			k->key = strdup(d->key);
			k->a = strdup(d->a);
			k->b = strdup(d->b);
			k->objects = strdup(short_object(d));
			if (!k->cls || !k->key || !k->a || !k->b || !k->objects)
				return -ENOMEM;
			continue;
		}
		if (asprintf(&objs, "%s, %s", k->objects, short_object(d)) < 0)
			return -ENOMEM;
		free(k->objects);
		k->objects = objs;
	}
	for (size_t j = 0; j < c->nknobs; j++) {
		c->knobs[j].derived = derived(c, &c->knobs[j]);
		c->nknobs_counted += !c->knobs[j].derived;
	}
	return 0;
}

/* Warnings about what the diff cannot see: runs without configuration, settings changed while recording. */
static int blind_spots(struct cmp *c)
{
	const struct cmp_side *sides[2] = { &c->a, &c->b };

	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < sides[s]->nruns; i++) {
			const struct cmp_run *r = &sides[s]->runs[i];

			if (!r->have_config && cmp__warn(c, "%s has no configuration records (written by an older "
						       "fabtrace or with --format-version 1, or cut short): the "
						       "diff leaves it out", r->path))
				return -ENOMEM;
			for (size_t k = 0; k < r->nsettings; k++)
				if (r->settings[k].changed &&
				    cmp__warn(c, "%s: %s %s changed during the recording (its first value is compared)",
					      r->path, r->settings[k].object, r->settings[k].key))
					return -ENOMEM;
		}
	return 0;
}

/* Does a run of side S have configuration records? */
static bool configured(const struct cmp_side *s)
{
	for (size_t i = 0; i < s->nruns; i++)
		if (s->runs[i].have_config)
			return true;
	return false;
}

int cmp_config__diff(struct cmp *c)
{
	setting_ref *all = NULL;
	size_t n = 0;
	int ret;

	if (!configured(&c->a) || !configured(&c->b)) {
		c->config_unknown = configured(&c->a)	  ? "side B has"
				    : configured(&c->b) ? "side A has"
							: "sides A and B have";
		ret = blind_spots(c);
		return ret ? ret : cmp__warn(c, "%s no configuration records: the configuration diff is unknown",
					   c->config_unknown);
	}
	ret = every_setting(c, &all, &n);
	if (ret)
		return ret;
	if (n)
		qsort(all, n, sizeof(setting_ref), by_ref);
	for (size_t i = 0; i < n && !ret; i++) {
		char *a, *b;

		if (i && !by_ref(&all[i - 1], &all[i]))
			continue;
		a = side_value(c, &c->a, "A", all[i]);
		b = a ? side_value(c, &c->b, "B", all[i]) : NULL;
		if (!a || !b) {
			free(a);
			ret = -ENOMEM;
		} else if (strcmp(a, b) != 0) {
			ret = add_diff(c, all[i], a, b);
		} else {
			free(a);
			free(b);
		}
	}
	free(all);
	if (!ret)
		ret = knobs(c);
	if (!ret)
		ret = blind_spots(c);
	if (!ret && c->nknobs_counted > 1) {
		char *list = NULL;

		for (size_t j = 0; j < c->nknobs && !ret; j++) {
			char *l2;

			if (c->knobs[j].derived)
				continue;
			if (asprintf(&l2, "%s%s%s %s", list ? list : "", list ? "; " : "", c->knobs[j].cls,
				     c->knobs[j].key) < 0)
				ret = -ENOMEM;
			else {
				free(list);
				list = l2;
			}
		}
		if (!ret)
			ret = cmp__warn(c, "A and B differ in %zu knobs (%s): a difference cannot be tied to one of "
				       "them", c->nknobs_counted, list);
		free(list);
	}
	return ret;
}
