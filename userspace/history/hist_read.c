// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The reader of the summaries (history.h, `fabtrace history`): the day
 * files of a flight recorder's directory in order, each line parsed (a line
 * that is not a summary is skipped and counted), kept when its wall time is
 * in [from, to); per bucket (an hour by default) the verdict counts and the
 * time budget; the budget summed with its ranks and links; the worst
 * collectives, by their time over their usual (waiting + network +
 * unexplained).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/json.h"
#include "lib/util.h"
#include "userspace/history/history.h"

static const char *const verdicts[] = { "ok", "network", "rank", "unknown" };
#define NV 4

struct sums {
	uint64_t n, v[NV];
	uint64_t total, waiting, usual, network, unexplained;
};

struct bucket {
	int64_t start_ns;
	struct sums s;
};

struct named {
	char name[64];
	uint64_t ns;
};

struct acc {
	const struct hist_read_opts *o;
	struct bucket *b; size_t nb, cb;
	struct sums all;
	struct named *ranks; size_t nranks, cranks;
	struct named *links; size_t nlinks, clinks;
	struct hist_line *worst; size_t nworst;
	size_t files, skipped, outside;
	size_t files_skipped;        /* unreadable, or not plain files */
	int64_t first_ns, last_ns;
};

static void add_sums(struct sums *s, const struct hist_line *l)
{
	s->n++;
	for (int i = 0; i < NV; i++)
		s->v[i] += strcmp(l->verdict, verdicts[i]) == 0;
	s->total += l->total_ns;
	s->waiting += l->waiting_ns;
	s->usual += l->usual_ns;
	s->network += l->network_ns;
	s->unexplained += l->unexplained_ns;
}

static int add_named(struct named **v, size_t *n, size_t *cap, const char *name, uint64_t ns)
{
	size_t k;

	for (k = 0; k < *n && strcmp((*v)[k].name, name) != 0; k++)
		;
	if (k == *n) {
		if (*n == *cap) {
			size_t c = *cap ? 2 * *cap : 16;
			struct named *x = realloc(*v, c * sizeof(*x));

			if (!x)
				return -ENOMEM;
			*v = x;
			*cap = c;
		}
		str_copy((*v)[k].name, name, sizeof((*v)[k].name));
		(*v)[k].ns = 0;
		(*n)++;
	}
	(*v)[k].ns += ns;
	return 0;
}

static uint64_t over(const struct hist_line *l)
{
	return l->waiting_ns + l->network_ns + l->unexplained_ns;
}

static void add_worst(struct acc *a, const struct hist_line *l)
{
	size_t k = a->nworst;

	if (!a->o->top || (k == a->o->top && over(&a->worst[k - 1]) >= over(l)))
		return;
	if (k < a->o->top)
		a->nworst++;
	else
		k--;
	for (; k > 0 && over(&a->worst[k - 1]) < over(l); k--)
		a->worst[k] = a->worst[k - 1];
	a->worst[k] = *l;
}

static int add_line(struct acc *a, const struct hist_line *l)
{
	int64_t bs;
	char rk[32];
	size_t k;

	if (l->wall_ns <= 0) { /* before 1970: no collective's, a damaged line */
		a->skipped++;
		return 0;
	}
	bs = l->wall_ns - (int64_t)((uint64_t)l->wall_ns % a->o->bucket_ns);

	if ((a->o->from_ns && l->wall_ns < a->o->from_ns) || (a->o->to_ns && l->wall_ns >= a->o->to_ns)) {
		a->outside++;
		return 0;
	}
	for (k = a->nb; k > 0 && a->b[k - 1].start_ns > bs; k--)
		;
	if (!(k > 0 && a->b[k - 1].start_ns == bs)) { /* a new bucket at K */
		if (a->nb == a->cb) {
			size_t c = a->cb ? 2 * a->cb : 64;
			struct bucket *x = realloc(a->b, c * sizeof(*x));

			if (!x)
				return -ENOMEM;
			a->b = x;
			a->cb = c;
		}
		memmove(&a->b[k + 1], &a->b[k], (a->nb - k) * sizeof(*a->b));
		memset(&a->b[k], 0, sizeof(*a->b));
		a->b[k].start_ns = bs;
		a->nb++;
		k++;
	}
	add_sums(&a->b[k - 1].s, l);
	add_sums(&a->all, l);
	if (!a->first_ns || l->wall_ns < a->first_ns)
		a->first_ns = l->wall_ns;
	if (l->wall_ns > a->last_ns)
		a->last_ns = l->wall_ns;
	snprintf(rk, sizeof(rk), "rank %" PRId64, l->waiting_rank);
	if (l->waiting_ns && add_named(&a->ranks, &a->nranks, &a->cranks, l->waiting_rank >= 0 ? rk : "unknown rank",
				       l->waiting_ns))
		return -ENOMEM;
	if (l->network_ns && add_named(&a->links, &a->nlinks, &a->clinks, l->link[0] ? l->link : "no link named",
				       l->network_ns))
		return -ENOMEM;
	add_worst(a, l);
	return 0;
}

static int read_file(struct acc *a, const char *path)
{
	/* not blocking in open() on a FIFO that nobody writes: only plain files are day files */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *line = NULL;
	size_t cap = 0;
	int rc = 0;
	FILE *f;

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		ft_warn("history: %s: not a plain file (skipped)", path);
		a->files_skipped++;
		return 0;
	}
	f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		ft_warn("history: %s: %s (skipped)", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		a->files_skipped++;
		return 0;
	}
	a->files++;
	while (!rc && getline(&line, &cap, f) > 0) {
		struct hist_line l;

		if (hist_line__parse(line, &l))
			a->skipped++;
		else
			rc = add_line(a, &l);
	}
	free(line);
	fclose(f);
	return rc;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static int cmp_named(const void *x, const void *y)
{
	const struct named *p = x, *q = y;

	return p->ns < q->ns ? 1 : p->ns > q->ns ? -1 : strcmp(p->name, q->name);
}

/* DIR's day files (DIR/summaries, else DIR itself), in order.  -1 none (SUB says where it looked). */
static int read_dir(struct acc *a, const char *dir, char *sub, size_t sublen)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	struct stat st;
	int rc = 0;
	DIR *d;

	snprintf(sub, sublen, "%s/%s", dir, HIST_SUBDIR);
	if (stat(sub, &st) || !S_ISDIR(st.st_mode))
		snprintf(sub, sublen, "%s", dir);
	d = opendir(sub);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l < 7 || strcmp(e->d_name + l - 6, ".jsonl") != 0 || e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **x = realloc(names, (cap = cap ? 2 * cap : 32) * sizeof(*x));

			if (!x) {
				rc = -ENOMEM;
				break;
			}
			names = x;
		}
		if (!(names[n] = strdup(e->d_name))) {
			rc = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char p[4400];

		snprintf(p, sizeof(p), "%s/%s", sub, names[i]);
		if (!rc)
			rc = read_file(a, p);
		free(names[i]);
	}
	free(names);
	return rc ? rc : n ? 0 : -1;
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

static void j_sums(struct json *j, const struct sums *s)
{
	json_kv_u64(j, "collectives", s->n);
	json_kv_object_begin(j, "verdicts");
	for (int i = 0; i < NV; i++)
		json_kv_u64(j, verdicts[i], s->v[i]);
	json_object_end(j);
	json_kv_object_begin(j, "budget");
	json_kv_u64(j, "total_ns", s->total);
	json_kv_u64(j, "waiting_ns", s->waiting);
	json_kv_u64(j, "usual_ns", s->usual);
	json_kv_u64(j, "network_ns", s->network);
	json_kv_u64(j, "unexplained_ns", s->unexplained);
	json_object_end(j);
}

static void j_named(struct json *j, const char *key, const char *nk, const struct named *v, size_t n)
{
	json_kv_array_begin(j, key);
	for (size_t i = 0; i < n; i++) {
		json_object_begin(j);
		json_kv_string(j, nk, v[i].name);
		json_kv_u64(j, "ns", v[i].ns);
		json_object_end(j);
	}
	json_array_end(j);
}

static void write_json(const struct acc *a, const char *sub, FILE *out)
{
	struct json j;

	json_init(&j, out, true);
	json_object_begin(&j);
	json_kv_string(&j, "dir", sub);
	json_kv_u64(&j, "files", a->files);
	json_kv_u64(&j, "skipped_lines", a->skipped);
	json_kv_u64(&j, "outside_lines", a->outside);
	json_kv_i64(&j, "bucket_ns", (int64_t)a->o->bucket_ns);
	j_sums(&j, &a->all);
	j_named(&j, "waiting", "rank", a->ranks, a->nranks);
	j_named(&j, "network", "link", a->links, a->nlinks);
	json_kv_array_begin(&j, "buckets");
	for (size_t i = 0; i < a->nb; i++) {
		char w[40];

		json_object_begin(&j);
		json_kv_i64(&j, "start_ns", a->b[i].start_ns);
		json_kv_string(&j, "start", fmt_wall(a->b[i].start_ns, w, sizeof(w)));
		j_sums(&j, &a->b[i].s);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_kv_array_begin(&j, "worst");
	for (size_t i = 0; i < a->nworst; i++) {
		char buf[HIST_LINE_MAX];
		int k = hist_line__format(&a->worst[i], buf, sizeof(buf));

		if (k > 1)
			json_raw(&j, buf, (size_t)k - 1);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
	fputc('\n', out);
}

static void write_text(const struct acc *a, const char *sub, FILE *out)
{
	const struct sums *s = &a->all;
	char w1[40], w2[40], x[32], y[32];

	fprintf(out, "Summaries in %s: %zu day file%s, %" PRIu64 " collectives from %s to %s", sub, a->files,
		a->files == 1 ? "" : "s", s->n, s->n ? fmt_wall(a->first_ns, w1, sizeof(w1)) : "-",
		s->n ? fmt_wall(a->last_ns, w2, sizeof(w2)) : "-");
	if (a->skipped)
		fprintf(out, " (%zu line%s skipped: %s)", a->skipped, a->skipped == 1 ? "" : "s",
			a->skipped == 1 ? "not a summary line" : "not summary lines");
	fprintf(out, "\n\nVerdicts per %s (UTC; ok network rank unknown), time in collectives and its budget:\n",
		fmt_ns(a->o->bucket_ns, x, sizeof(x)));
	fprintf(out, "  %-20s %7s %7s %7s %7s %7s  %10s %8s %6s %8s %12s\n", "from", "total", "ok", "network",
		"rank", "unknown", "time", "waiting", "usual", "network", "unexplained");
	for (size_t i = 0; i < a->nb; i++) {
		const struct sums *b = &a->b[i].s;

		fmt_wall(a->b[i].start_ns, w1, sizeof(w1));
		w1[a->o->bucket_ns % 60000000000ull ? 19 : 16] = 0; /* to the second where buckets need it, else the minute */
		fprintf(out, "  %-20s %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
			"  %10s %7.1f%% %5.1f%% %7.1f%% %11.1f%%\n", w1, b->n, b->v[0], b->v[1], b->v[2], b->v[3],
			fmt_ns(b->total, x, sizeof(x)), pct(b->waiting, b->total), pct(b->usual, b->total),
			pct(b->network, b->total), pct(b->unexplained, b->total));
	}
	fprintf(out, "\nTime budget: %s in collectives: waiting %.1f%%, usual %.1f%%, network %.1f%%, "
		"unexplained %.1f%%\n", fmt_ns(s->total, x, sizeof(x)), pct(s->waiting, s->total),
		pct(s->usual, s->total), pct(s->network, s->total), pct(s->unexplained, s->total));
	for (size_t i = 0; i < a->nranks && i < 5; i++)
		fprintf(out, "  waiting for %-30s %10s\n", a->ranks[i].name, fmt_ns(a->ranks[i].ns, x, sizeof(x)));
	for (size_t i = 0; i < a->nlinks && i < 5; i++)
		fprintf(out, "  network on %-31s %10s\n", a->links[i].name, fmt_ns(a->links[i].ns, x, sizeof(x)));
	if (!a->nworst)
		return;
	fprintf(out, "\nWorst collectives (by time over their usual):\n");
	for (size_t i = 0; i < a->nworst; i++) {
		const struct hist_line *l = &a->worst[i];
		char who[sizeof(l->why) + 32]; /* the longest: the evidence names */

		if (!strcmp(l->verdict, "rank") && l->waiting_rank >= 0)
			snprintf(who, sizeof(who), "waiting for rank %" PRId64, l->waiting_rank);
		else if (!strcmp(l->verdict, "network") && l->link[0])
			snprintf(who, sizeof(who), "link %s", l->link);
		else
			snprintf(who, sizeof(who), "%s", l->why[0] ? l->why : "-");
		fprintf(out, "  %s  %-10s seq %-6" PRIu64 " %-9s %10s, %10s over its usual  %-8s %s\n",
			fmt_wall(l->wall_ns, w1, sizeof(w1)), l->op, l->seq, fmt_bytes((double)l->size_bytes, y, sizeof(y)),
			fmt_ns(l->span_ns, x, sizeof(x)), fmt_ns(over(l), w2, sizeof(w2)), l->verdict, who);
	}
}

int hist__read(const char *dir, const struct hist_read_opts *o, FILE *out)
{
	struct acc a;
	char sub[4200];
	struct stat st;
	int rc;

	memset(&a, 0, sizeof(a));
	a.o = o;
	if (o->top && !(a.worst = calloc(o->top, sizeof(*a.worst)))) {
		ft_err("history: out of memory");
		return 1;
	}
	rc = stat(dir, &st) ? -errno : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (rc) {
		ft_err("history: %s: %s; give the flight recorder's directory (record --switch-output ... -o DIR)", dir,
		       strerror(-rc));
		free(a.worst);
		return 1;
	}
	rc = read_dir(&a, dir, sub, sizeof(sub));
	if (!rc && !a.all.n && !a.outside)
		rc = -1; /* day files, but not one summary line in them */
	/* day files without a line, or the recorder's summaries/ without a day file: it saw no
	 * collective; a directory without either is not a recorder's */
	if (rc == -1 && (a.files || strcmp(sub, dir) != 0) && !a.skipped && !a.files_skipped &&
	    !stat(sub, &st) && S_ISDIR(st.st_mode))
		ft_err("history: %s: no collective in %s: the recorder writes a line per collective its phase "
		       "probes saw, and saw none (record a job, without --no-phases)", dir, sub);
	else if (rc == -1)
		ft_err("history: %s: no summaries (%s/*.jsonl%s): not a flight recorder's directory (record "
		       "--switch-output ... -o DIR writes them), or one recorded with --no-summaries", dir, sub,
		       a.skipped ? ", whose lines are not summaries" : ""); /* SUB: where read_dir() looked */
	else if (rc)
		ft_err("history: %s", strerror(-rc));
	if (!rc) {
		if (a.skipped)
			ft_warn("history: %zu line%s skipped: %s", a.skipped, a.skipped == 1 ? "" : "s",
				a.skipped == 1 ? "not a summary line" : "not summary lines");
		if (a.nranks)
			qsort(a.ranks, a.nranks, sizeof(*a.ranks), cmp_named);
		if (a.nlinks)
			qsort(a.links, a.nlinks, sizeof(*a.links), cmp_named);
		if (o->json)
			write_json(&a, sub, out);
		else
			write_text(&a, sub, out);
	}
	free(a.b);
	free(a.ranks);
	free(a.links);
	free(a.worst);
	return rc ? 1 : 0;
}
