// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One capture reduced to a run (compare.h): loaded through the model and
 * the correlator as `report` loads it, then the extractors take what
 * compare weighs (cmp_extract_coll.c, cmp_extract_net.c) and the
 * configuration (cmp_config_flat.c), into the run's store (cmp_store.c);
 * the model is freed at once, so that many runs fit in memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/compare/cmp_priv.h"
#include "userspace/model/model_config.h"

int cmp__run_load(const char *path, const struct cmp_opts *o, struct cmp_run *run, char *err, size_t errlen)
{
	struct model_opts mo;
	struct corr_opts co;
	struct model *m = NULL;
	struct corr *c = NULL;
	int ret;

	memset(run, 0, sizeof(*run));
	err[0] = 0;
	run->path = strdup(path);
	if (!run->path)
		return -ENOMEM;
	model_opts__init(&mo);
	mo.burst_threshold = o->burst_share;
	ret = model__load(path, &mo, &m, err, errlen);
	if (ret)
		return ret;
	run->truncated = m->truncated;
	run->duration_ns = m->capture_end_ns - m->capture_start_ns;
	corr_opts__init(&co);
	ret = corr__build(m, &co, &c);
	if (ret) {
		snprintf(err, errlen, "correlating the capture: %s", strerror(-ret));
		model__free(m);
		return ret;
	}
	ret = cmp_extract__coll(run, m, c);
	if (!ret)
		ret = cmp_extract__net(run, m, c);
	if (!ret) {
		run->have_config = m->config != NULL;
		ret = cmp_config__flatten(run, m);
	}
	if (!ret)
		ret = cmp_config__finish(run);
	if (ret)
		snprintf(err, errlen, "%s", strerror(-ret));
	corr__free(c);
	model__free(m);
	return ret;
}
