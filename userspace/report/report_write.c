// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * report__write() (userspace/report/report.h): correlate the model when the
 * caller has not, then write the text or the JSON report section by section.
 * Both walk the model in the same deterministic order (the model sorts
 * everything in model__finish) and print floats with fixed precision, so
 * outputs can be golden-tested.
 */
#include <errno.h>
#include <stdio.h>

#include "userspace/report/report.h"
#include "userspace/report/report_budget.h"
#include "userspace/report/report_counters.h"
#include "userspace/report/report_headline.h"
#include "userspace/report/report_hosts.h"
#include "userspace/report/report_json.h"
#include "userspace/report/report_text.h"
#include "userspace/report/report_trigger.h"

static void write_text(FILE *f, const struct model *m, const struct corr *c, const struct report_opts *o)
{
	struct headline h;

	headline__build(&h, m, c, o->path);
	report_trigger__text(f, m); /* a snapshot: why it was taken, first */
	headline__text(f, &h);
	headline__free(&h);
	if (o->brief)
		return;
	fprintf(f, "\n");
	report_text__header(f, m, o);
	report_text__ifaces(f, m);
	report_text__bursts(f, m, o);
	report_text__queues(f, m);
	report_text__retrans(f, m, c);
	report_text__cong(f, m);
	report_text__drops(f, m);
	report_text__ce(f, m);
	report_text__conserve(f, m);
	report_text__lost(f, m, c);
	report_ctr__text(f, m, o->top);
	report_text__phases(f, m, c, o);
	report_budget__text(f, m, c);
	report_hosts__text(f, o->path, m, c); /* merged captures only */
}

static void write_json(FILE *f, const struct model *m, const struct corr *c, const struct report_opts *o)
{
	struct json j;

	struct headline h;

	headline__build(&h, m, c, o->path);
	json_init(&j, f, o->pretty);
	json_object_begin(&j);
	if (o->brief) {
		json_kv_string(&j, "schema", REPORT_SCHEMA);
		headline__json(&j, &h);
		report_budget__json(&j, m, c);
		json_object_end(&j);
		json_finish(&j);
		headline__free(&h);
		return;
	}
	report_json__header(&j, m, o);
	report_trigger__json(&j, m); /* a snapshot: why it was taken */
	headline__json(&j, &h);
	headline__free(&h);
	report_budget__json(&j, m, c);
	report_json__ifaces(&j, m);
	report_json__bursts(&j, m, o);
	report_json__queues(&j, m);
	report_json__retrans(&j, m, c);
	report_json__cong(&j, m, c);
	report_json__drops(&j, m);
	report_json__ce(&j, m, c);
	report_json__conserve(&j, m);
	report_json__lost(&j, m);
	report_ctr__json(&j, m);
	report_json__phases_head(&j, m, c);
	report_json__processes(&j, m, c);
	report_json__ranks(&j, c);
	report_json__collectives(&j, m, c, o);
	report_json__steps(&j, m, c);
	report_json__inferred(&j, m, c);
	report_hosts__json(&j, o->path, m, c); /* merged captures only */
	json_object_end(&j);
	json_finish(&j);
}

int report__write(FILE *out, const struct model *m, const struct report_opts *o)
{
	struct report_opts def = { .top = 10 };
	struct corr_opts co;
	struct corr *own = NULL;
	const struct corr *c;

	if (!out || !m || !m->finished)
		return -EINVAL;
	if (!o)
		o = &def;
	if (o->corr) {
		co = *o->corr;
	} else {
		corr_opts__init(&co);
		co.phases = o->phases;
	}
	c = o->built;
	if (!c) {
		int err = corr__build(m, &co, &own);

		if (err)
			return err;
		c = own;
	}
	if (o->json)
		write_json(out, m, c, o);
	else
		write_text(out, m, c, o);
	corr__free(own);
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
