// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model__load(): open a capture, feed every record to model__add(), and
 * finish the model; the one place that drives the other model files.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "userspace/capture/capture.h"
#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"

int model__load(const char *path, const struct model_opts *o, struct model **out,
		char *err, size_t errlen)
{
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	struct model *m = NULL;
	uint64_t n = 0;
	int ret;

	*out = NULL;
	if (errlen)
		err[0] = '\0';
	ret = capture__open(&r, path, err, errlen);
	if (ret)
		return ret < 0 ? ret : -EIO;
	m = model__new(capture__header(r), o);
	if (!m) {
		ret = -errno;
		snprintf(err, errlen, "%s", ret == -EINVAL ? "capture header has a bin width of 0"
							     : strerror(-ret));
		goto fail;
	}
	if (m->opts.window && m->opts.blocks && m->opts.blocks->n) {
		ret = mdl_window_plan(m);
		if (ret) {
			snprintf(err, errlen, "%s", strerror(-ret));
			goto fail;
		}
		capture__skip_blocks(r, m->opts.blocks, mdl_window_skips, m);
	} else if (m->opts.window && m->opts.blocks) {
		capture__index_blocks(r, m->opts.blocks, mdl_window_holds);
	}
	while ((ret = capture__next(r, &rec)) == 1) {
		n++;
		ret = model__add(m, rec);
		if (ret == -EINVAL) {
			snprintf(err, errlen,
				 "corrupt record %llu (%s, size %u) in the block after offset %llu",
				 (unsigned long long)n, capture__rec_name(rec->type), rec->size,
				 (unsigned long long)capture__good_offset(r));
			ret = -EIO;
			goto fail;
		}
		if (ret) {
			snprintf(err, errlen, "%s", strerror(-ret));
			goto fail;
		}
	}
	if (ret < 0 || capture__state(r) == CAPTURE_CORRUPT) {
		const char *why = capture__error(r);

		snprintf(err, errlen, "%s", why && why[0] ? why : "corrupt capture");
		ret = -EIO;
		goto fail;
	}
	m->truncated = capture__state(r) == CAPTURE_TRUNCATED || !m->have_end;
	if (m->truncated) {
		const char *why = capture__error(r);

		snprintf(m->truncated_why, sizeof(m->truncated_why), "%s",
			 why && why[0] ? why : "capture has no end record (recording was interrupted)");
	}
	ret = model__finish(m);
	if (ret) {
		snprintf(err, errlen, "%s", strerror(-ret));
		goto fail;
	}
	capture__free(r);
	*out = m;
	return 0;
fail:
	model__free(m);
	capture__free(r);
	return ret;
}
