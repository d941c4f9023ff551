// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `fabtrace export`: the capture's raw series for the user's own tools
 * (pandas, gnuplot, Grafana): the per-bin bytes of every interface and
 * direction, the qdisc bins, the single events (drops, retransmits,
 * collective calls) and the RDMA/NIC counter intervals, as CSV or JSON lines, each row on relative and
 * wall-clock time.  The columns are in docs/export.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userspace/cli/commands.h"
#include "userspace/correlate/correlate.h"
#include "lib/json.h"
#include "rdma/counters.h"
#include "userspace/model/model.h"
#include "lib/opt.h"
#include "lib/util.h"

enum ex_table { EX_BINS, EX_QDISC, EX_EVENTS, EX_COUNTERS, EX_N };
enum ex_format { EX_CSV, EX_JSONL };

static const char *const table_name[EX_N] = { "bins", "qdisc", "events", "counters" };

/*
 * One row: the columns as (name, value) pairs; a value is text (quoted in CSV
 * when needed, a JSON string) or a number (written as is).
 */
struct row {
	FILE *f;
	enum ex_format fmt;
	bool header;                /* CSV: this row prints the names instead */
	int n;                      /* columns written so far */
	struct json j;
};

static void row_begin(struct row *r)
{
	r->n = 0;
	if (r->fmt == EX_JSONL) {
		json_init(&r->j, r->f, false);
		json_object_begin(&r->j);
	}
}

static void row_end(struct row *r)
{
	if (r->fmt == EX_JSONL) {
		json_object_end(&r->j);
		json_finish(&r->j);
	} else {
		fputc('\n', r->f);
	}
}

/* CSV field: quoted when it holds a comma, quote or line break (RFC 4180) */
static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void col_str(struct row *r, const char *name, const char *v)
{
	if (r->fmt == EX_JSONL) { /* no value is null, as the numbers' (export.md) */
		json_kv_string(&r->j, name, v && v[0] ? v : NULL);
		return;
	}
	if (r->n++)
		fputc(',', r->f);
	csv_str(r->f, r->header ? name : v ? v : "");
}

/* A CSV column's separator, and its NAME on the header row: false there (no value follows). */
static bool csv_col(struct row *r, const char *name)
{
	if (r->n++)
		fputc(',', r->f);
	if (r->header)
		fputs(name, r->f);
	return !r->header;
}

static void col_u64(struct row *r, const char *name, uint64_t v)
{
	if (r->fmt == EX_JSONL)
		json_kv_u64(&r->j, name, v);
	else if (csv_col(r, name))
		fprintf(r->f, "%" PRIu64, v);
}

static void col_i64(struct row *r, const char *name, int64_t v)
{
	if (r->fmt == EX_JSONL)
		json_kv_i64(&r->j, name, v);
	else if (csv_col(r, name))
		fprintf(r->f, "%" PRId64, v);
}

/* ts on both clocks: relative to the capture start, and wall clock (ns and RFC 3339) */
static void col_time(struct row *r, const struct model *m, const char *prefix, uint64_t ts)
{
	char k[48], w[48];

	snprintf(k, sizeof(k), "%s_rel_ns", prefix);
	col_i64(r, k, model__rel_ns(m, ts));
	snprintf(k, sizeof(k), "%s_wall_ns", prefix);
	col_i64(r, k, model__wall_ns(m, ts));
	snprintf(k, sizeof(k), "%s_wall", prefix);
	col_str(r, k, r->header ? NULL : fmt_wall(model__wall_ns(m, ts), w, sizeof(w)));
}

static const char *iface_label(const struct model *m, uint32_t i)
{
	return i < m->nifaces ? m->ifaces[i].label : "";
}

/* ---- the tables ---- */

/* CSV: the header row, which ROW_FN writes from an empty ITEM with r->header set. */
static void csv_header(struct row *r, const struct model *m, void (*row_fn)(struct row *, const struct model *,
									     const void *), const void *item)
{
	if (r->fmt != EX_CSV)
		return;
	r->header = true;
	row_fn(r, m, item);
	r->header = false;
}

static void bin_row(struct row *r, const struct model *m, const void *item)
{
	const struct model_bin *b = item;

	row_begin(r);
	col_str(r, "interface", iface_label(m, b->iface));
	col_str(r, "dir", b->dir == FT_DIR_TX ? "tx" : "rx");
	col_time(r, m, "start", b->start_ns);
	col_u64(r, "bin_ns", m->hdr.bin_ns);
	col_u64(r, "bytes", b->bytes);
	col_u64(r, "pkts", b->pkts);
	col_u64(r, "ce_pkts", b->ce_pkts);
	row_end(r);
}

static void write_bins(struct row *r, const struct model *m)
{
	static const struct model_bin none;

	csv_header(r, m, bin_row, &none);
	for (size_t i = 0; i < m->nifaces; i++)
		for (int d = 0; d < 2; d++)
			for (size_t k = 0; k < m->ifaces[i].dir[d].nbins; k++)
				bin_row(r, m, &m->ifaces[i].dir[d].bins[k]);
}

static void qbin_row(struct row *r, const struct model *m, const void *item)
{
	const struct model_qbin *b = item;
	const struct model_qdisc *q = b->qdisc < m->nqdiscs ? &m->qdiscs[b->qdisc] : NULL;
	char h[32];

	row_begin(r);
	col_str(r, "interface", q ? iface_label(m, q->iface) : "");
	col_str(r, "qdisc", q ? corr__qdisc_label(m, b->qdisc, h, sizeof(h)) : "");
	col_time(r, m, "start", b->start_ns);
	col_u64(r, "bin_ns", m->hdr.bin_ns);
	col_u64(r, "max_backlog_bytes", b->max_backlog);
	col_u64(r, "max_qlen_pkts", b->max_qlen);
	col_u64(r, "enq_pkts", b->enq_pkts);
	col_u64(r, "enq_bytes", b->enq_bytes);
	col_u64(r, "sojourn_samples", b->sojourn_cnt);
	col_u64(r, "sojourn_sum_ns", b->sojourn_sum_ns);
	col_u64(r, "sojourn_max_ns", b->sojourn_max_ns);
	col_u64(r, "drops_counter", b->drops);
	row_end(r);
}

static void write_qdisc(struct row *r, const struct model *m)
{
	static const struct model_qbin none;

	csv_header(r, m, qbin_row, &none);
	for (size_t i = 0; i < m->nqdiscs; i++)
		for (size_t k = 0; k < m->qdiscs[i].nbins; k++)
			qbin_row(r, m, &m->qdiscs[i].bins[k]);
}

/* One event row; the columns a kind has no value for stay empty (CSV) or null (JSON). */
struct event {
	const char *kind;           /* "drop", "retransmit", "call" */
	uint64_t ts, end;           /* end: calls only */
	const char *interface, *flow, *what;  /* what: drop reason, trigger, op */
	int64_t pid, rank;          /* -1: none */
	uint64_t bytes;
	bool has_bytes;             /* calls: bytes is theirs; others leave it empty */
};

static void event_row(struct row *r, const struct model *m, const void *item)
{
	const struct event *e = item;

	row_begin(r);
	col_str(r, "kind", e->kind);
	col_time(r, m, "ts", e->ts);
	if (e->end || r->header)
		col_i64(r, "duration_ns", e->end >= e->ts ? (int64_t)(e->end - e->ts) : 0);
	else
		col_str(r, "duration_ns", NULL);
	col_str(r, "interface", e->interface);
	col_str(r, "flow", e->flow);
	col_str(r, "what", e->what);
	if (e->pid >= 0 || r->header)
		col_i64(r, "pid", e->pid);
	else
		col_str(r, "pid", NULL);
	if (e->rank >= 0 || r->header)
		col_i64(r, "rank", e->rank);
	else
		col_str(r, "rank", NULL);
	if (e->has_bytes || r->header)
		col_u64(r, "bytes", e->bytes);
	else
		col_str(r, "bytes", NULL);
	row_end(r);
}

static const char *trigger_name(uint32_t t)
{
	static const char *const n[] = { "unknown", "rto", "fast", "tlp", "syn" };

	return t < sizeof(n) / sizeof(n[0]) ? n[t] : "unknown";
}

static void write_events(struct row *r, const struct model *m, const struct corr *c)
{
	static const struct event none = { .kind = "", .pid = -1, .rank = -1 };
	char fl[128], rs[32];

	csv_header(r, m, event_row, &none);
	for (size_t i = 0; i < m->ndrop_events; i++) {
		const struct model_drop_ev *d = &m->drop_events[i];
		const char *nm = model__drop_reason_name(m, d->reason);
		struct event e = { .kind = "drop", .ts = d->ts_ns, .interface = iface_label(m, d->iface),
				   .pid = -1, .rank = -1 };

		if (!nm || !nm[0]) {
			snprintf(rs, sizeof(rs), "reason %u", d->reason);
			nm = rs;
		}
		e.what = nm;
		event_row(r, m, &e);
	}
	for (size_t i = 0; i < m->nrtx_events; i++) {
		const struct model_rtx *x = &m->rtx_events[i];
		struct event e = { .kind = "retransmit", .ts = x->ts_ns, .what = trigger_name(x->trigger),
				   .pid = -1, .rank = -1 };

		if (x->flow < m->nflows)
			e.flow = model__flow_str(&m->flows[x->flow].key, fl, sizeof(fl));
		event_row(r, m, &e);
	}
	for (size_t i = 0; c && i < c->ncalls; i++) {
		const struct corr_call *k = &c->calls[i];
		struct event e = { .kind = "call", .ts = k->start_ns, .end = k->end_ns ? k->end_ns : k->start_ns,
				   .what = corr__op_name(k->op), .pid = k->pid, .rank = -1, .bytes = k->bytes,
				   .has_bytes = true };

		if (k->rank < c->nranks)
			e.rank = c->ranks[k->rank].rank;
		event_row(r, m, &e);
	}
}

/* What was odd about a counter interval (CTR_DELTA_*): "" for a plain one. */
static const char *ctr_note(uint32_t dflags)
{
	if (dflags & CTR_DELTA_RESET)
		return "reset";
	if (dflags & (CTR_DELTA_WRAP32 | CTR_DELTA_WRAP64))
		return "wrap";
	if (dflags & CTR_DELTA_SAT)
		return "saturated";
	if (dflags & CTR_DELTA_NA)
		return "na";
	return "";
}

static void ctr_row(struct row *r, const struct model *m, const void *item)
{
	const struct model_ctr_point *pt = item;
	const struct model_ctr_series *s = pt->series < m->nctr_series ? &m->ctr_series[pt->series] : NULL;
	const struct model_ctr_group *g = s && s->group < m->nctr_groups ? &m->ctr_groups[s->group] : NULL;

	row_begin(r);
	col_str(r, "group", g ? g->label : "");
	col_str(r, "kind", g ? model__ctr_kind_name(g->kind) : "");
	col_str(r, "counter", s ? s->name : "");
	col_str(r, "class", s ? ctr__class_name(s->cls) : "");
	col_str(r, "unit", s ? ctr__unit_name(s->flags) : "");
	col_time(r, m, "start", pt->start_ns);
	col_u64(r, "interval_ns", pt->end_ns - pt->start_ns);
	col_u64(r, "delta", pt->delta);
	col_str(r, "note", ctr_note(pt->dflags));
	/* a port of a merged capture is mlx5_0/1 on every node: its netdev tells them apart */
	col_str(r, "interface", g && g->iface < m->nifaces ? m->ifaces[g->iface].label : "");
	row_end(r);
}

/* Every sample interval in which a counter grew (or was odd), by counter then time. */
static void write_counters(struct row *r, const struct model *m)
{
	static const struct model_ctr_point none = { .series = UINT32_MAX };

	csv_header(r, m, ctr_row, &none);
	for (size_t i = 0; i < m->nctr_points; i++)
		ctr_row(r, m, &m->ctr_points[i]);
}

/* ---- command line ---- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fabtrace export [OPTIONS] CAPTURE\n"
		"\n"
		"Write a capture's raw series for your own tools (pandas, gnuplot, Grafana):\n"
		"  bins    per interface and direction, every bin with traffic: bytes, packets,\n"
		"          CE packets\n"
		"  qdisc   per qdisc, every bin with an enqueue or a dequeue: backlog, queue\n"
		"          length, enqueued, sojourn, drops\n"
		"  events  every drop (with its reason), retransmit (with its trigger) and\n"
		"          traced collective call (op, rank, bytes, duration)\n"
		"  counters  RDMA and NIC counters: every sample interval in which one grew\n"
		"          (its start, length and growth; wraps and resets marked)\n"
		"as CSV (a header row, RFC 4180) or JSON lines, each row on relative time\n"
		"(ns since the capture start) and wall clock (ns since the epoch, and UTC\n"
		"RFC 3339).  The columns are in docs/export.md.\n"
		"\n"
		"Options:\n"
		"  -f, --format FMT      csv (default) or jsonl\n"
		"  -w, --what LIST       bins (default), qdisc, events, counters, or all;\n"
		"                        comma-separated\n"
		"  -o, --output PATH     one table: a file (default: stdout); several: a\n"
		"                        directory, which gets TABLE.csv or TABLE.jsonl each.\n"
		"                        Files are written whole or not at all (mode 0600).\n"
		"  -h, --help            this help\n"
		"\n"
		"Examples:\n"
		"  fabtrace export incident.ftr > bins.csv\n"
		"  fabtrace export --what events --format jsonl incident.ftr | jq -c 'select(.kind==\"drop\")'\n"
		"  fabtrace export --what all -o incident-csv/ incident.ftr\n"
		"  python3 -c 'import pandas; print(pandas.read_csv(\"bins.csv\").groupby(\"interface\").bytes.sum())'\n"
		"\n"
		"Exit status: 0, 1 when the capture cannot be read or an output cannot be\n"
		"written, 2 for usage errors.\n");
}

static int parse_what(const char *s, bool *want)
{
	char buf[128], *save = NULL;

	str_copy(buf, s, sizeof(buf));
	memset(want, 0, sizeof(bool) * EX_N);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k;

		if (!strcmp(t, "all")) {
			for (k = 0; k < EX_N; k++)
				want[k] = true;
			continue;
		}
		for (k = 0; k < EX_N; k++)
			if (!strcmp(t, table_name[k]))
				break;
		if (k == EX_N)
			return -EINVAL;
		want[k] = true;
	}
	for (int k = 0; k < EX_N; k++)
		if (want[k])
			return 0;
	return -EINVAL;
}

static int write_table(int k, struct row *r, const struct model *m, const struct corr *c)
{
	switch (k) {
	case EX_BINS:
		write_bins(r, m);
		break;
	case EX_QDISC:
		write_qdisc(r, m);
		break;
	case EX_COUNTERS:
		write_counters(r, m);
		break;
	default:
		write_events(r, m, c);
		break;
	}
	return ferror(r->f) ? -EIO : 0;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n > t && !strcmp(s + n - t, tail);
}

/* After mkdir(DIR) failed: whether DIR is a directory to write into; if not,
 * says why (EEXIST also comes for a dangling symlink or a file, and the
 * error then belongs to DIR, not to a table under it). */
static bool out_dir_usable(const char *dir)
{
	int e = errno;
	struct stat st;

	if (e != EEXIST)
		ft_err("export: -o %s: cannot create the directory: %s", dir, strerror(e));
	else if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		return true;
	else if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode))
		ft_err("export: -o %s: is a symbolic link to nothing; remove it or choose another directory", dir);
	else
		ft_err("export: -o %s: exists and is not a directory; several tables go into a directory", dir);
	return false;
}

int cmd_export(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "what", required_argument, NULL, 'w' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool want[EX_N] = { true, false, false, false };
	enum ex_format fmt = EX_CSV;
	const char *out = NULL, *path;
	struct outfile of[EX_N];
	struct model_opts mo;
	struct model *m = NULL;
	struct corr_opts co;
	struct corr *c = NULL;
	char err[512], done_path[EX_N][4096] = { { 0 } }; /* the tables committed */
	int opt, nwant = 0, ret = 0;
	bool made_dir = false;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":f:w:o:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (!strcmp(optarg, "csv")) {
				fmt = EX_CSV;
			} else if (!strcmp(optarg, "jsonl")) {
				fmt = EX_JSONL;
			} else {
				ft_err_bad_value("export", "--format", optarg, "a format", "csv or jsonl");
				return 2;
			}
			break;
		case 'w':
			if (parse_what(optarg, want)) {
				ft_err_bad_value("export", "--what", optarg, "a list of tables",
						 "bins, qdisc, events, counters or all (comma-separated)");
				return 2;
			}
			break;
		case 'o':
			if (!optarg[0]) {
				ft_err("export: -o needs a file or directory name");
				return 2;
			}
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default: /* also ':', a missing value */
			ft_err_bad_opt("export", opt, optopt, argv[optind - 1], lopts);
			return 2;
		}
	}
	if (optind != argc - 1) {
		ft_err("export: %s; see 'fabtrace export --help'",
		       optind >= argc ? "give one capture file" : "give one capture file, options before it");
		return 2;
	}
	path = argv[optind];
	for (int k = 0; k < EX_N; k++)
		nwant += want[k];
	if (nwant > 1 && !out) {
		ft_err("export: several tables need -o DIR (each gets TABLE.%s); or pick one with --what",
		       fmt == EX_CSV ? "csv" : "jsonl");
		return 2;
	}
	if (nwant > 1 && !strcmp(out, "-")) {
		ft_err("export: -o - (stdout) takes one table; pick one with --what, or give a directory");
		return 2;
	}
	if (nwant > 1 && (ends_with(out, ".csv") || ends_with(out, ".jsonl"))) {
		/* it would become a directory of that name */
		ft_err("export: -o %s looks like a file, but several tables go into a directory; give a "
		       "directory, or pick one table with --what", out);
		return 2;
	}

	model_opts__init(&mo);
	ret = model__load(path, &mo, &m, err, sizeof(err));
	if (ret)
		return cli_load_failed("export", path, ret, err, "free some memory");
	if (m->truncated)
		fprintf(stderr, "fabtrace: export: warning: %s is truncated (%s); exporting what is readable\n", path,
			m->truncated_why[0] ? m->truncated_why : "no end record");
	if (want[EX_EVENTS]) {
		corr_opts__init(&co);
		co.phases = CORR_PHASES_PROBES;
		ret = corr__build(m, &co, &c);
		if (ret) {
			ft_err("export: reading the collective calls: %s", strerror(-ret));
			model__free(m);
			return 1;
		}
	}
	made_dir = nwant > 1 && !mkdir(out, 0700);
	if (nwant > 1 && !made_dir && !out_dir_usable(out)) {
		ret = 1;
		goto done;
	}
	memset(of, 0, sizeof(of));
	ret = 0;
	/* open every output first, so that a bad path fails before any work */
	for (int k = 0; k < EX_N && !ret; k++) {
		char p[4096];

		if (!want[k])
			continue;
		if (nwant > 1)
			snprintf(p, sizeof(p), "%s/%s.%s", out, table_name[k], fmt == EX_CSV ? "csv" : "jsonl");
		else
			snprintf(p, sizeof(p), "%s", out ? out : "-");
		if (strcmp(p, "-") != 0 && ft_same_file(p, path)) {
			ft_err("export: %s is the capture being read; choose another output", p);
			ret = 2;
			break;
		}
		if (cli_out_over_capture("export", NULL, p, "the table")) {
			ret = 2;
			break;
		}
		if (outfile_open(&of[k], p, err, sizeof(err))) {
			ft_err("export: %s", err);
			ret = 1;
		}
	}
	for (int k = 0; k < EX_N && !ret; k++) {
		struct row r = { .f = of[k].f, .fmt = fmt };

		if (!want[k])
			continue;
		if (write_table(k, &r, m, c)) {
			ft_err("export: writing the %s to %s: %s; %s", table_name[k], of[k].path,
			       strerror(outfile_errno(&of[k])),
			       strcmp(of[k].path, "-") ? "nothing was written" : "the output is cut short there");
			ret = 1;
		}
	}
	for (int k = 0; k < EX_N && !ret; k++) {
		if (!want[k])
			continue;
		snprintf(done_path[k], sizeof(done_path[k]), "%s", of[k].path ? of[k].path : "-");
		if (outfile_commit(&of[k], err, sizeof(err))) {
			ft_err("export: %s; nothing was written", err);
			done_path[k][0] = 0;
			ret = 1;
		}
	}
	for (int k = 0; k < EX_N; k++)
		if (of[k].f)
			outfile_abort(&of[k]);
	/* the tables go whole or not at all: a later one that failed (a full
	 * disk at its fsync) takes back the ones already in place */
	for (int k = 0; k < EX_N && ret && nwant > 1; k++)
		if (done_path[k][0])
			unlink(done_path[k]);
	if (ret && made_dir)
		rmdir(out);
done:
	corr__free(c);
	model__free(m);
	return ret;
}
