// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Writing a merge's result (capture/merge.h): host ids and labels, ids that
 * collide between hosts moved apart, pass 3 (the merged capture: HOST and
 * HOST_NETNS records, every host's records retimed, one END, written to a
 * temporary file and renamed), and the summary (text or JSON).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "userspace/capture/capture.h"
#include "lib/json.h"
#include "userspace/capture/mergefit.h"
#include "userspace/capture/retime.h"
#include "userspace/capture/merge.h"
#include "userspace/capture/merge_priv.h"
#include "lib/util.h"

/* ---- ids ---- */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static bool share(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
	for (size_t i = 0, j = 0; i < na && j < nb;) {
		if (a[i] == b[j])
			return true;
		if (a[i] < b[j])
			i++;
		else
			j++;
	}
	return false;
}

void mrg_assign_ids(struct merge *m)
{
	uint32_t next_ns = 0x7f000000u, slot = 0, group = 0, port = 0, cpu = 0;

	for (size_t i = 0; i < m->n; i++) {
		if (m->h[i].npids)
			qsort(m->h[i].pids, m->h[i].npids, sizeof(uint32_t), cmp_u32);
		if (m->h[i].nnetns)
			qsort(m->h[i].netns, m->h[i].nnetns, sizeof(uint32_t), cmp_u32);
	}
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];
		bool pid_clash = false;

		h->rt.bin_ns = m->bin_ns;
		/* one host's ids after the other's: they stay small and dense */
		h->rt.slot_base = slot;
		h->rt.group_base = group;
		h->rt.port_base = port;
		h->rt.cpu_base = cpu;
		slot += h->max_slot + 1;
		group += h->max_group + 1;
		port += h->max_port + 1;
		cpu += (h->max_cpu + 1 > h->hdr.ncpus ? h->max_cpu + 1 : h->hdr.ncpus);
		for (size_t j = 0; j < i; j++) {
			if (mrg_same_kernel(h, &m->h[j]))
				continue; /* one kernel: its pids and namespaces are one space */
			pid_clash |= share(h->pids, h->npids, m->h[j].pids, m->h[j].npids);
			for (size_t k = 0; k < h->nnetns; k++) {
				uint32_t v = h->netns[k];

				if (!share(&v, 1, m->h[j].netns, m->h[j].nnetns))
					continue;
				bool mapped = false;

				for (uint32_t q = 0; q < h->rt.nnetns; q++)
					mapped |= h->rt.netns[q][0] == v;
				if (!mapped && h->rt.nnetns < RETIME_MAX_NETNS) {
					h->rt.netns[h->rt.nnetns][0] = v;
					h->rt.netns[h->rt.nnetns++][1] = next_ns++;
				}
			}
		}
		if (pid_clash)
			h->rt.pid_base = (uint32_t)i << 22;
	}
}

void mrg_make_labels(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];
		const char *name = h->have_id ? h->id.hostname : h->hdr.hostname;
		bool dup = false;

		for (size_t j = 0; j < m->n; j++) {
			const char *o = m->h[j].have_id ? m->h[j].id.hostname : m->h[j].hdr.hostname;

			dup |= j != i && !strncmp(name, o, 64);
		}
		if (dup && h->have_id && h->id.netns_name[0])
			snprintf(h->label, sizeof(h->label), "%.31s/%.31s", name, h->id.netns_name);
		else if (dup)
			snprintf(h->label, sizeof(h->label), "%.50s#%u", name, (unsigned)(i + 1) % 10000u);
		else
			snprintf(h->label, sizeof(h->label), "%.63s", name);
	}
}

/* ---- pass 3: the merged capture ---- */

/* The hosts' common stop reason (of those that have an END), FT_STOP_MIXED
 * when they differ, FT_STOP_ERROR when every one was cut short. */
static uint32_t merged_stop_reason(const struct merge *m)
{
	int64_t r = -1;

	for (size_t i = 0; i < m->n; i++) {
		if (m->h[i].stop_reason < 0)
			continue;
		if (r >= 0 && r != m->h[i].stop_reason)
			return FT_STOP_MIXED;
		r = m->h[i].stop_reason;
	}
	return r < 0 ? FT_STOP_ERROR : (uint32_t)r;
}

static int write_host(struct merge *m, struct capture_writer *w, struct host *h, uint64_t *last)
{
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	char err[CAPTURE_ERR_MAX];
	uint8_t buf[65536];

	(void)m;
	if (capture__open(&r, h->path, err, sizeof(err))) {
		ft_err("merge: %s", err);
		return -1;
	}
	while (capture__next(r, &rec) == 1) {
		struct ft_rec_hdr *x = (struct ft_rec_hdr *)(void *)buf;

		if (rec->type == FT_REC_END) {
			uint64_t t = retime__ts(&h->rt, ((const struct ft_end *)(const void *)rec)->ts_ns);

			*last = t > *last ? t : *last;
			continue;
		}
		memcpy(buf, rec, rec->size);
		if (x->type == FT_REC_IFACE) {
			struct ft_iface_info *f = (void *)buf;
			bool moved = false;

			for (uint32_t k = 0; k < h->rt.nnetns; k++)
				moved |= h->rt.netns[k][0] == f->netns;
			/* a host's own namespace gets its host's name, so views name the
			 * host; a namespace whose inode clashed with another host's keeps
			 * its name after the host's */
			if (!f->netns_name[0]) {
				str_copy(f->netns_name, h->label, sizeof(f->netns_name));
			} else if (moved) {
				char nm[sizeof(f->netns_name) + 1];

				memcpy(nm, f->netns_name, sizeof(f->netns_name));
				nm[sizeof(f->netns_name)] = '\0';
				snprintf(f->netns_name, sizeof(f->netns_name), "%.15s:%.15s", h->label, nm);
			}
		}
		retime__record(&h->rt, x);
		if (capture__append(w, x)) { /* the caller says why */
			capture__free(r);
			return -1;
		}
	}
	capture__free(r);
	return 0;
}

int mrg_write_merged(struct merge *m)
{
	struct ft_file_header hdr = m->h[0].hdr;
	struct capture_writer *w = NULL;
	char err[CAPTURE_ERR_MAX], *tmp;
	const char *slash = strrchr(m->out, '/');
	uint64_t last = 0, start = UINT64_MAX;
	size_t off = 0;
	int rc = -1, wret;

	tmp = malloc(strlen(m->out) + 32);
	if (!tmp)
		return -1;
	sprintf(tmp, "%.*s.%s.merge-%ld", slash ? (int)(slash - m->out + 1) : 0, m->out,
		slash ? slash + 1 : m->out, (long)getpid());
	for (size_t i = 0; i < m->n; i++) {
		uint64_t s = retime__ts(&m->h[i].rt, m->h[i].hdr.start_mono_ns);

		start = s < start ? s : start;
	}
	hdr.start_mono_ns = start;
	hdr.realtime_offset_ns = m->h[0].hdr.realtime_offset_ns;
	hdr.flags |= FT_FILE_MERGED;
	hdr.version = m->format_version; /* not the first input's: 0 is the current one */
	uint32_t maxcpu = 0;

	for (size_t i = 0; i < m->n; i++)
		maxcpu = m->h[i].hdr.ncpus > maxcpu ? m->h[i].hdr.ncpus : maxcpu;
	hdr.ncpus = maxcpu;
	memset(hdr.command, 0, sizeof(hdr.command));
	for (int i = 0; i < m->argc && off + 1 < sizeof(hdr.command); i++) {
		int k = snprintf(hdr.command + off, sizeof(hdr.command) - off, "%s%s", i ? " " : "", m->argv[i]);

		if (k < 0)
			break;
		off += (size_t)k;
	}
	if (capture__create(&w, tmp, &hdr, (uid_t)-1, (gid_t)-1, err, sizeof(err))) {
		size_t tl = strlen(tmp);

		/* the writer names the temporary file; the user gave -o */
		ft_err("merge: %s: %s", m->out, !strncmp(err, tmp, tl) && err[tl] == ':' ? err + tl + 2 : err);
		free(tmp);
		return -1;
	}
	tmpfile_track(tmp); /* gone if a signal ends the merge */
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];
		struct ft_host x = { .hdr = { FT_REC_HOST, sizeof(x), 0 } };

		x.index = (uint32_t)i;
		x.flags = h->flags;
		x.offset_ns = h->rt.offset_ns;
		x.drift_ppb = (int64_t)llround(h->rt.drift * 1e9);
		x.t0_ns = h->rt.t0_ns;
		x.uncertainty_ns = h->unc < 0 ? UINT64_MAX : (uint64_t)llround(h->unc);
		x.coarse_offset_ns = h->c_off;
		x.pid_base = h->rt.pid_base;
		x.pairs = h->pairs;
		str_copy(x.hostname, h->have_id ? h->id.hostname : h->hdr.hostname, sizeof(x.hostname));
		str_copy(x.label, h->label, sizeof(x.label));
		str_copy(x.source, mrg_base_name(h->path), sizeof(x.source));
		if (capture__append(w, &x.hdr))
			goto fail;
		for (size_t k = 0; k < h->nnetns; k++) {
			struct ft_host_netns hn = { .hdr = { FT_REC_HOST_NETNS, sizeof(hn), 0 } };

			hn.host = (uint32_t)i;
			hn.netns = h->netns[k];
			retime__record(&h->rt, &hn.hdr);
			if (capture__append(w, &hn.hdr))
				goto fail;
		}
	}
	for (size_t i = 0; i < m->n; i++) {
		/* a capture cut short has no END: its last record ends it */
		uint64_t t = retime__ts(&m->h[i].rt, m->h[i].t_last);

		if (write_host(m, w, &m->h[i], &last))
			goto fail;
		last = t > last ? t : last;
	}
	{
		struct ft_end end = { .hdr = { FT_REC_END, sizeof(end), 0 } };

		end.ts_ns = last ? last : start;
		end.records = capture__records(w);
		end.stop_reason = merged_stop_reason(m);
		if (capture__append(w, &end.hdr))
			goto fail;
	}
	wret = capture__close(w);
	w = NULL;
	if (wret) {
		ft_err("merge: writing %s: %s; nothing was written", m->out, strerror(-wret));
		goto fail;
	}
	if (rename(tmp, m->out)) {
		ft_err("merge: %s: %s", m->out, strerror(errno));
		goto fail;
	}
	rc = 0;
	goto done;
fail:
	if (w) {
		/* a record could not be written: the writer's error, without its temporary name
		 * (an input that failed to read has said so itself) */
		bool werr = capture__last_error(w)[0] != '\0';

		wret = capture__close(w);
		if (werr)
			ft_err("merge: writing %s: %s; nothing was written", m->out, strerror(wret ? -wret : EIO));
	}
	unlink(tmp);
done:
	tmpfile_untrack(tmp);
	free(tmp);
	return rc;
}

/* ---- summary ---- */

void mrg_print_summary(const struct merge *m)
{
	char b1[32], b2[32];

	if (m->json) {
		struct json j;

		json_init(&j, stdout, false);
		json_object_begin(&j);
		json_kv_string(&j, "output", m->out);
		json_kv_u64(&j, "bin_ns", m->bin_ns);
		json_kv_u64(&j, "windows", m->nwin);
		json_key(&j, "hosts");
		json_array_begin(&j);
		for (size_t i = 0; i < m->n; i++) {
			const struct host *h = &m->h[i];

			json_object_begin(&j);
			json_kv_u64(&j, "index", i);
			json_kv_string(&j, "label", h->label);
			json_kv_string(&j, "source", h->path);
			json_kv_bool(&j, "reference", i == 0);
			json_kv_string(&j, "method", i == 0 ? "reference" :
				       (h->flags & FT_HOST_SAME_KERNEL) ? "same_kernel" :
				       (h->flags & FT_HOST_TRAFFIC) ? "traffic" : "realtime");
			json_kv_i64(&j, "offset_ns", h->rt.offset_ns);
			json_kv_i64(&j, "coarse_offset_ns", h->c_off);
			/* how far its realtime clock was off the reference's, as found */
			json_kv_double(&j, "clock_error_ns", h->e_a + h->e_b *
				       ((double)mrg_to_coarse(h, h->rt.t0_ns) - m->tref), 0);
			json_kv_double(&j, "drift_ppb", h->rt.drift * 1e9, 1);
			if (h->unc < 0)
				json_kv_string(&j, "uncertainty_ns", NULL);
			else
				json_kv_double(&j, "uncertainty_ns", h->unc, 0);
			if (h->c_unc < 0)
				json_kv_string(&j, "coarse_uncertainty_ns", NULL);
			else
				json_kv_double(&j, "coarse_uncertainty_ns", h->c_unc, 0);
			json_kv_bool(&j, "unsynchronised", h->unsynced);
			json_kv_u64(&j, "pairs", h->pairs);
			json_kv_u64(&j, "pid_base", h->rt.pid_base);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_key(&j, "pairs");
		json_array_begin(&j);
		for (size_t k = 0; k < m->npf; k++) {
			const struct pairfit *p = &m->pf[k];

			json_object_begin(&j);
			json_kv_string(&j, "a", m->h[p->a].label);
			json_kv_string(&j, "b", m->h[p->b].label);
			json_kv_u64(&j, "windows", p->nwin);
			if (p->unc < 0) {
				json_kv_string(&j, "offset_ns", NULL);
				json_kv_string(&j, "uncertainty_ns", NULL);
			} else {
				json_kv_double(&j, "offset_ns", p->fa, 0);
				json_kv_double(&j, "uncertainty_ns", p->unc, 0);
			}
			if (p->bounds) {
				json_kv_double(&j, "causal_lo_ns", p->lo, 0);
				json_kv_double(&j, "causal_hi_ns", p->hi, 0);
			}
			json_object_end(&j);
		}
		json_array_end(&j);
		json_key(&j, "warnings");
		json_array_begin(&j);
		for (size_t i = 0; i < m->nwarn; i++)
			json_string(&j, m->warnings[i]);
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
		return;
	}
	if (m->quiet)
		return;
	uint64_t wlen = 0;
	bool equal = true;

	for (size_t k = 0; k < m->nwin; k++) {
		equal = equal && m->win[k].len == m->win[0].len;
		wlen = m->win[k].len > wlen ? m->win[k].len : wlen;
	}
	fprintf(stderr, "fabtrace: merged %zu host%s into %s (%zu traffic window%s of %s%s)\n", m->n,
		m->n == 1 ? "" : "s", m->out, m->nwin, m->nwin == 1 ? "" : "s", equal ? "" : "up to ",
		fmt_ns(wlen, b1, sizeof(b1)));
	for (size_t i = 0; i < m->n; i++) {
		const struct host *h = &m->h[i];

		if (!i) {
			fprintf(stderr, "  %-24s reference clock\n", h->label);
			continue;
		}
		fprintf(stderr, "  %-24s offset %+.6f s (realtime anchors %+.6f s), drift %+.0f ppb, +- %s%s\n",
			h->label, (double)h->rt.offset_ns / 1e9, (double)h->c_off / 1e9, h->rt.drift * 1e9,
			h->unc < 0 ? "unknown" : fmt_ns((uint64_t)llround(h->unc), b2, sizeof(b2)),
			(h->flags & FT_HOST_SAME_KERNEL) ? " (same kernel as an earlier host: its clock)" :
			(h->flags & FT_HOST_TRAFFIC) ? " (from traffic)" : " (realtime anchors only)");
	}
}

