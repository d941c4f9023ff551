// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target, structure-aware: the fuzz input is a header prefix and a
 * stream of records; the target wraps them into a valid capture (header,
 * blocks, zstd and zlib in turn, CRCs) so every mutation reaches the record
 * decoders instead of the block checksums.  Input layout (little endian):
 *
 *   struct fz_prefix (80 bytes)  header fields and the report's options
 *   records                      each starts with struct ft_rec_hdr
 *
 * Records are made valid for the reader, nothing more: the size is rounded
 * up to a multiple of 8, at least the struct of a known type, at most
 * FZ_MAX_REC; bytes missing at the end of the input are zeros; a counter
 * sample's n is cut to the values it holds, a counter group's id and count
 * to a group's limits (userspace/capture/records.h).  Everything else
 * (counts, ids, times, strings without NUL) is the fuzzer's.
 * tests/fuzz/mkcorpus.sh turns real captures into this layout.
 *
 * Checks: the reader hands back exactly the records written (up to the
 * first END) and calls the capture complete or truncated, never corrupt;
 * `info` or `info --json` runs on the file (exit 0, valid JSON); the model is fed every record
 * as its own exact-size allocation (ASan sees any read past a record; it
 * may refuse one as corrupt, as model__load() would) and rendered every
 * way `report` can; the live aggregator of `top` is fed the
 * same records and its OpenMetrics exposition rendered.
 */
#include <zlib.h>
#include <zstd.h>

#include "tests/fuzz/fuzz.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/records.h"
#include "userspace/cli/commands.h"
#include "userspace/live/live.h"
#include "userspace/live/metrics.h"
#include "lib/util.h"

#define FZ_MAX_REC 4096

struct fz_prefix {
	uint32_t opts;         /* FZO_* bits */
	uint32_t per_block;    /* records per block, 0 = one block */
	uint64_t start_ns;
	uint64_t bin_ns;
	int64_t rt_off;
	uint64_t probes;
	uint32_t ncpus;
	uint32_t flags;
	uint64_t from_rel, to_rel;  /* --from / --to */
	char hostname[16];
};
_Static_assert(sizeof(struct fz_prefix) == 80, "prefix layout (mkcorpus.sh)");

enum {
	FZO_SORT      = 3 << 0,    /* bytes, peak, time */
	FZO_PHASES    = 3 << 2,    /* auto, probes, inferred */
	FZO_PRETTY    = 1 << 4,
	FZO_BYTES     = 1 << 5,    /* --weight bytes */
	FZO_FROM      = 1 << 6,
	FZO_TO        = 1 << 7,
	FZO_TOP       = 7 << 8,
	FZO_OWN_CORR  = 1 << 11,   /* report__write correlates by itself */
	FZO_MODEL     = 3 << 12,   /* model option sets */
	FZO_CORR      = 3 << 14,   /* threshold sets */
	FZO_NO_LIVE   = 1 << 16,
	FZO_NO_INFO   = 1 << 17,
	FZO_INFO_TEXT = 1 << 18,   /* info without --json */
};

struct rec {
	struct ft_rec_hdr *r;  /* malloc'd, exactly r->size bytes */
};

static struct fz_file in;
static int out_fd;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fz_file_init(&in, "fuzz_records");
	out_fd = memfd_create("fuzz_records_stdout", MFD_CLOEXEC);
	FZ_CHECK(out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) == STDOUT_FILENO, "stdout to a memfd");
	return 0;
}

/* The reader's rules for a record's contents (capture__rec_check): a counter
 * sample holds its n values, a counter group stays within a group's limits. */
static void make_checkable(struct ft_rec_hdr *r)
{
	if (r->type == FT_REC_CTR_SAMPLE) {
		struct ft_ctr_sample *s = (void *)r;
		uint32_t fit = (uint32_t)((r->size - sizeof(*s)) / sizeof(uint64_t));

		s->n = s->n > fit ? fit : s->n;
	} else if (r->type == FT_REC_CTR_GROUP) {
		struct ft_ctr_group *g = (void *)r;

		g->group %= CAPTURE_MAX_CTR_GROUP;
		g->ncounters %= CAPTURE_MAX_CTR_COUNTERS + 1;
	}
	FZ_CHECK(capture__rec_check(r, NULL, 0) == 0, "a record of type %u left damaged", r->type);
}

/* Split the input into records (see the top of the file). */
static size_t parse_records(const uint8_t *p, size_t n, struct rec **out)
{
	struct rec *v = NULL;
	size_t cnt = 0, cap = 0, pos = 0;

	while (n - pos >= sizeof(struct ft_rec_hdr)) {
		struct ft_rec_hdr h;
		size_t want, size, take;

		memcpy(&h, p + pos, sizeof(h));
		want = capture__rec_size(h.type);
		size = ((size_t)h.size + 7) & ~(size_t)7;
		if (size < sizeof(h))
			size = sizeof(h);
		if (size < want)
			size = want;
		if (size > FZ_MAX_REC)
			size = want > sizeof(h) ? want : sizeof(h);
		take = n - pos < size ? n - pos : size;
		if (cnt == cap) {
			struct rec *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			FZ_CHECK(nv != NULL, "out of memory");
			v = nv;
		}
		v[cnt].r = calloc(1, size);
		FZ_CHECK(v[cnt].r != NULL, "out of memory");
		memcpy(v[cnt].r, p + pos, take);
		v[cnt].r->size = (uint16_t)size;
		make_checkable(v[cnt].r);
		cnt++;
		pos += take;
	}
	*out = v;
	return cnt;
}

static void free_records(struct rec *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].r);
	free(v);
}

static void header_of(const struct fz_prefix *px, struct ft_file_header *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, FT_MAGIC, sizeof(h->magic));
	h->version = FT_FORMAT_VERSION;
	h->header_size = sizeof(*h);
	h->start_mono_ns = px->start_ns;
	h->realtime_offset_ns = px->rt_off;
	h->bin_ns = px->bin_ns;
	h->probes = px->probes;
	h->ncpus = px->ncpus;
	h->flags = px->flags;
	memcpy(h->hostname, px->hostname, sizeof(px->hostname));   /* NUL padded: 64 > 16 */
	snprintf(h->kernel, sizeof(h->kernel), "6.1.0-fuzz");
	snprintf(h->tool_version, sizeof(h->tool_version), "%s", FT_VERSION);
	snprintf(h->command, sizeof(h->command), "record -o fuzz.ftr");
	h->crc = (uint32_t)crc32(0L, (const Bytef *)h, sizeof(*h));
}

/* Append a growable byte buffer. */
struct bytes {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct bytes *b, const void *data, size_t n)
{
	if (!n)
		return;
	if (b->n + n > b->cap) {
		uint8_t *np = realloc(b->p, (b->n + n) * 2);

		FZ_CHECK(np != NULL, "out of memory");
		b->p = np;
		b->cap = (b->n + n) * 2;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
}

/* Records [a, e) as one block of CODEC: header, payload, CRC. */
static void put_block(struct bytes *file, const struct rec *v, size_t a, size_t e, uint32_t codec)
{
	struct ft_block_header bh = { .magic = FT_BLOCK_MAGIC, .codec = codec };
	struct bytes raw = { 0 };
	size_t clen;
	uint8_t *z;
	uLong crc;

	for (size_t i = a; i < e; i++)
		put(&raw, v[i].r, v[i].r->size);
	clen = ZSTD_compressBound(raw.n) + compressBound((uLong)raw.n);
	z = malloc(clen);
	FZ_CHECK(z != NULL, "out of memory");
	if (codec == FT_CODEC_ZSTD) {
		clen = ZSTD_compress(z, clen, raw.p, raw.n, 1);
		FZ_CHECK(!ZSTD_isError(clen), "ZSTD_compress");
	} else {
		uLongf zl = (uLongf)clen;

		FZ_CHECK(compress2(z, &zl, raw.p, (uLong)raw.n, 1) == Z_OK, "compress2");
		clen = zl;
	}
	bh.clen = (uint32_t)clen;
	bh.ulen = (uint32_t)raw.n;
	bh.nrec = (uint32_t)(e - a);
	crc = crc32(0L, (const Bytef *)&bh, sizeof(bh));
	bh.crc = (uint32_t)crc32(crc, z, (uInt)clen);
	put(file, &bh, sizeof(bh));
	put(file, z, clen);
	free(z);
	free(raw.p);
}

/* The capture: header, then blocks of PER records (0 = all), zstd (as the
 * recorder writes) and zlib (as version 1 did) in turn; half the size limit
 * leaves room for the compressed size. */
static void build_file(const struct ft_file_header *h, const struct rec *v, size_t n, uint32_t per)
{
	struct bytes file = { 0 };
	size_t a = 0, blocks = 0;

	put(&file, h, sizeof(*h));
	while (a < n) {
		size_t e = a, ulen = 0;

		while (e < n && (!per || e - a < per) && ulen + v[e].r->size <= FT_BLOCK_MAX_ULEN / 2)
			ulen += v[e++].r->size;
		put_block(&file, v, a, e, (blocks++ % 2) ? FT_CODEC_ZLIB : FT_CODEC_ZSTD);
		a = e;
	}
	fz_file_set(&in, file.p, file.n);
	free(file.p);
}

/* The reader gives back what was written, up to and including the first END. */
static enum capture_state read_back(const struct rec *v, size_t n)
{
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	enum capture_state st;
	char err[320];
	size_t i = 0;
	int ret;

	FZ_CHECK(capture__open(&r, in.path, err, sizeof(err)) == 0, "capture__open: %s", err);
	while ((ret = capture__next(r, &rec)) == 1) {
		FZ_CHECK(i < n, "the reader returned more records than were written");
		FZ_CHECK(rec->size == v[i].r->size && !memcmp(rec, v[i].r, rec->size),
			 "record %zu read back differs", i);
		i++;
	}
	st = capture__state(r);
	FZ_CHECK(ret == 0 && st != CAPTURE_CORRUPT, "valid blocks read as corrupt: %s", capture__error(r));
	FZ_CHECK(i == n || (i && v[i - 1].r->type == FT_REC_END), "the reader stopped at record %zu of %zu",
		 i, n);
	FZ_CHECK((st == CAPTURE_OK) == (i && v[i - 1].r->type == FT_REC_END), "state %d after %zu records",
		 (int)st, i);
	capture__free(r);
	return st;
}

static void run_info(bool json)
{
	char *argv[] = { "info", json ? "--json" : in.path, json ? in.path : NULL, NULL };
	char buf[1 << 16];
	ssize_t n;
	int rc;

	fflush(stdout);
	/* again per run: -close_fd_mask=1 points stdout at /dev/null after LLVMFuzzerInitialize */
	FZ_CHECK(dup2(out_fd, STDOUT_FILENO) == STDOUT_FILENO, "stdout to the memfd");
	FZ_CHECK(ftruncate(STDOUT_FILENO, 0) == 0 && lseek(STDOUT_FILENO, 0, SEEK_SET) == 0, "reset stdout");
	rc = cmd_info(json ? 3 : 2, argv);
	util_set_json(false);
	fflush(stdout);
	FZ_CHECK(rc == 0, "info on a valid capture returned %d", rc);
	n = pread(STDOUT_FILENO, buf, sizeof(buf) - 1, 0);
	FZ_CHECK(n >= 0, "read stdout back");
	buf[n] = '\0';   /* the JSON checker reads up to a NUL */
	if (json && (size_t)n < sizeof(buf) - 1)
		FZ_CHECK(fz_json_ok(buf, (size_t)n), "info --json printed invalid JSON");
}

static void opts_of(const struct fz_prefix *px, struct model_opts *mo, struct fz_opts *o)
{
	static const unsigned tops[] = { 10, 0, 1, 2, 3, 5, 100, 1000000 };
	uint32_t b = px->opts;

	model_opts__init(mo);
	switch ((b & FZO_MODEL) >> 12) {
	case 1: /* the edges the CLI accepts */
		mo->burst_threshold = 0.00001;
		mo->burst_gap_ns = 1;
		mo->conserve_tol_frac = 0;
		mo->spike_rate = 1e-300;
		break;
	case 2:
		mo->burst_threshold = 10.0;
		mo->burst_gap_ns = UINT64_MAX;
		mo->conserve_tol_frac = 1.0;
		mo->spike_rate = 1e15;
		break;
	case 3:
		mo->burst_threshold = 0.01;
		mo->burst_gap_ns = 1000000000;
		mo->spike_rate = 1;
		break;
	default:
		break;
	}
	fz_opts_init(o);
	o->ro.sort = (enum report_sort)((b & FZO_SORT) % 3);
	o->co.phases = (enum corr_phases_mode)(((b & FZO_PHASES) >> 2) % 3);
	o->ro.pretty = b & FZO_PRETTY;
	o->weight = b & FZO_BYTES ? VIZ_WEIGHT_BYTES : VIZ_WEIGHT_TIME;
	o->have_from = b & FZO_FROM;
	o->have_to = b & FZO_TO;
	o->from_rel = px->from_rel;
	o->to_rel = px->to_rel;
	if (o->have_from || o->have_to) { /* as cmd_report: the model keeps the window only */
		mo->window = true;
		mo->window_from_ns = o->have_from ? o->from_rel : 0;
		mo->window_to_ns = o->have_to ? o->to_rel : 0;
	}
	o->ro.top = tops[(b & FZO_TOP) >> 8];
	o->corr_in_report = b & FZO_OWN_CORR;
	switch ((b & FZO_CORR) >> 14) {
	case 1:
		o->co.th.queue_delay_ns = 1;
		o->co.th.skew_min_ns = 1;
		o->co.th.skew_frac = 0.0001;
		o->co.th.slow_factor = 1.0;
		o->co.infer_gap_ns = 1;
		break;
	case 2:
		o->co.th.queue_delay_ns = UINT64_MAX;
		o->co.th.skew_min_ns = UINT64_MAX;
		o->co.th.skew_frac = 1.0;
		o->co.th.slow_factor = 1e6;
		o->co.infer_gap_ns = UINT64_MAX;
		break;
	default:
		break;
	}
}

/* `top`'s aggregator on the same records, one refresh per 16 records, then OpenMetrics. */
static void run_live(const struct fz_prefix *px, const struct rec *v, size_t n)
{
	struct metrics_info info = { .hostname = "fuzz", .refresh_s = 1 };
	struct live_opts lo;
	struct live *l;
	struct fz_out out;
	uint64_t now = px->start_ns;
	int ret;

	live_opts__init(&lo, px->bin_ns);
	l = live__new(&lo, now);
	if (!l) {
		FZ_CHECK(px->bin_ns == 0, "live__new failed with bin %llu", (unsigned long long)px->bin_ns);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		ret = live__add(l, v[i].r);
		/* every record passes the reader's check (make_checkable): none is skipped */
		FZ_CHECK(ret == 0, "live__add returned %d", ret);
		if (i % 16 == 15) {
			now += 1000000000ull;
			live__tick(l, now);
		}
	}
	live__tick(l, now + 1000000000ull);
	ret = metrics__render(l, &info, fz_out_begin(&out));
	fz_out_end(&out);
	FZ_CHECK(ret == 0, "metrics__render returned %d", ret);
	FZ_CHECK(out.len >= 6 && !memcmp(out.buf + out.len - 6, "# EOF\n", 6) && fz_utf8_ok(out.buf, out.len) &&
		 !memchr(out.buf, '\0', out.len), "OpenMetrics exposition malformed");
	free(out.buf);
	live__free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_prefix px;
	struct ft_file_header h;
	struct model_opts mo;
	struct fz_opts o;
	struct model *m;
	struct rec *v = NULL;
	enum capture_state st;
	size_t n, nmodel;
	int ret;

	if (size < sizeof(px) || size > (4u << 20))
		return -1;
	memcpy(&px, data, sizeof(px));
	n = parse_records(data + sizeof(px), size - sizeof(px), &v);
	header_of(&px, &h);
	build_file(&h, v, n, px.per_block);
	st = read_back(v, n);
	if (!(px.opts & FZO_NO_INFO))
		run_info(!(px.opts & FZO_INFO_TEXT));
	/* the model gets what model__load() would: records up to the first END */
	for (nmodel = 0; nmodel < n && v[nmodel].r->type != FT_REC_END; nmodel++)
		;
	if (nmodel < n)
		nmodel++;
	if (!(px.opts & FZO_NO_LIVE))
		run_live(&px, v, nmodel);

	opts_of(&px, &mo, &o);
	h.hostname[sizeof(h.hostname) - 1] = '\0';  /* as capture__open() leaves it */
	m = model__new(&h, &mo);
	if (!m) {
		FZ_CHECK(h.bin_ns == 0, "model__new failed with bin %llu", (unsigned long long)h.bin_ns);
		free_records(v, n);
		return 0;
	}
	for (size_t i = 0; i < nmodel; i++) {
		ret = model__add(m, v[i].r);
		/* every record passes the reader's check (make_checkable), as model__load() feeds them */
		FZ_CHECK(ret == 0, "model__add(record %zu, type %u) returned %d", i, v[i].r->type, ret);
	}
	m->truncated = st == CAPTURE_TRUNCATED || !m->have_end;
	if (m->truncated)
		snprintf(m->truncated_why, sizeof(m->truncated_why), "capture has no end record");
	ret = model__finish(m);
	fz_check_ret(ret, "model__finish");
	if (!ret) {
		FZ_CHECK(m->end_ns >= m->start_ns && m->duration_ns == m->end_ns - m->start_ns,
			 "capture span: start %llu end %llu", (unsigned long long)m->start_ns,
			 (unsigned long long)m->end_ns);
		fz_render(m, &o);
	}
	model__free(m);
	free_records(v, n);
	return 0;
}
