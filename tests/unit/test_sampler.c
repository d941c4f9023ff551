// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the counter sampler (rdma/sampler.c) against copies of the
 * sysfs fixture tree tests/fixtures/sysfs (this machine has no RDMA
 * device), and for its ethtool side on a veth pair in a throwaway netns
 * (root only; skipped otherwise).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>
#include <unistd.h>
#include <cmocka.h>

#include "rdma/counters.h"
#include "probes/qdisc_stats.h"
#include "rdma/sampler.h"

#define TMPDIR_NAME "sampler"
#include "tests/unit/tmpdir.h"
#include "tests/unit/sysfs_fixture.h"

#define MS 1000000ull

static char fixture[PATH_MAX];

/* ---- collected records ---- */

struct recs {
	uint8_t *buf;
	size_t len, cap, n;
};

static int collect(void *ctx, const struct ft_rec_hdr *h)
{
	struct recs *r = ctx;

	assert_true(h->size >= sizeof(*h));
	if (r->len + h->size > r->cap) {
		size_t ncap = (r->len + h->size) * 2;

		r->buf = realloc(r->buf, ncap);
		assert_non_null(r->buf);
		r->cap = ncap;
	}
	memcpy(r->buf + r->len, h, h->size);
	r->len += h->size;
	r->n++;
	return 0;
}

static void recs_reset(struct recs *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

static const struct ft_rec_hdr *rec_first(const struct recs *r)
{
	return r->len ? (const void *)r->buf : NULL;
}

static const struct ft_rec_hdr *rec_next(const struct recs *r, const struct ft_rec_hdr *h)
{
	const uint8_t *next = (const uint8_t *)h + h->size;

	return next < r->buf + r->len ? (const void *)next : NULL;
}

static size_t count_type(const struct recs *r, uint16_t type)
{
	size_t n = 0;

	for (const struct ft_rec_hdr *h = rec_first(r); h; h = rec_next(r, h))
		n += h->type == type;
	return n;
}

static const struct ft_rdma_port *find_port(const struct recs *r, const char *dev)
{
	for (const struct ft_rec_hdr *h = rec_first(r); h; h = rec_next(r, h))
		if (h->type == FT_REC_RDMA_PORT && !strcmp(((const struct ft_rdma_port *)h)->dev, dev))
			return (const void *)h;
	return NULL;
}

static const struct ft_ctr_group *find_group(const struct recs *r, const char *label, uint32_t kind)
{
	for (const struct ft_rec_hdr *h = rec_first(r); h; h = rec_next(r, h)) {
		const struct ft_ctr_group *g = (const void *)h;

		if (h->type == FT_REC_CTR_GROUP && g->kind == kind && !strcmp(g->label, label))
			return g;
	}
	return NULL;
}

static const struct ft_ctr_name *find_name(const struct recs *r, uint32_t group, const char *name)
{
	for (const struct ft_rec_hdr *h = rec_first(r); h; h = rec_next(r, h)) {
		const struct ft_ctr_name *nm = (const void *)h;

		if (h->type == FT_REC_CTR_NAME && nm->group == group && !strcmp(nm->name, name))
			return nm;
	}
	return NULL;
}

static const struct ft_ctr_sample *last_sample(const struct recs *r, uint32_t group)
{
	const struct ft_ctr_sample *last = NULL;

	for (const struct ft_rec_hdr *h = rec_first(r); h; h = rec_next(r, h))
		if (h->type == FT_REC_CTR_SAMPLE && ((const struct ft_ctr_sample *)h)->group == group)
			last = (const void *)h;
	return last;
}

static const uint64_t *values_of(const struct ft_ctr_sample *s)
{
	return (const uint64_t *)(s + 1);
}

/* The last sampled value of counter NAME of the group (label, kind). */
static uint64_t value(const struct recs *r, const char *label, uint32_t kind, const char *name)
{
	const struct ft_ctr_group *g = find_group(r, label, kind);
	const struct ft_ctr_name *nm;
	const struct ft_ctr_sample *s;

	if (!g) {
		fail_msg("no group %s kind %u", label, kind);
		return 0;
	}
	nm = find_name(r, g->group, name);
	if (!nm) {
		fail_msg("no counter %s in %s", name, label);
		return 0;
	}
	s = last_sample(r, g->group);
	if (!s) {
		fail_msg("no sample of %s", label);
		return 0;
	}
	assert_true(nm->index < s->n);
	return values_of(s)[nm->index];
}

static size_t count_events(const struct recs *r, uint32_t kind, uint32_t group)
{
	size_t n = 0;

	for (const struct ft_rec_hdr *h = rec_first(r); h; h = rec_next(r, h)) {
		const struct ft_sampler_event *e = (const void *)h;

		if (h->type == FT_REC_SAMPLER && e->kind == kind && (group == UINT32_MAX - 1 || e->group == group))
			n++;
	}
	return n;
}

#define ANY_GROUP (UINT32_MAX - 1)

static const struct ft_sampler_event *find_event(const struct recs *r, uint32_t kind, size_t nth)
{
	for (const struct ft_rec_hdr *h = rec_first(r); h; h = rec_next(r, h)) {
		const struct ft_sampler_event *e = (const void *)h;

		if (h->type == FT_REC_SAMPLER && e->kind == kind && nth-- == 0)
			return e;
	}
	return NULL;
}

/* ---- fixture trees ---- */

static int setup_all(void **state)
{
	return setup_dir(state) ? -1 : sysfs_fixture_find(fixture, "test_sampler");
}

/* A fresh copy of the fixture as TMPDIR/NAME. */
static const char *make_root(const char *name)
{
	static char roots[4][PATH_MAX];
	static int k;
	char *root = roots[k++ % 4];
	char cmd[2 * PATH_MAX + 32];

	snprintf(root, PATH_MAX, "%s", tpath(name));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -a '%s' '%s'", root, fixture, root);
	assert_int_equal(system(cmd), 0);
	return root;
}

static void port_path(char *buf, size_t len, const char *root, const char *dev, const char *rel)
{
	snprintf(buf, len, "%s/class/infiniband/%s/ports/1/%s", root, dev, rel);
}

/* Update a counter the way sysfs and tools/rdma_fixture do: in place, at offset 0. */
static void set_counter(const char *root, const char *dev, const char *rel, uint64_t v)
{
	char p[PATH_MAX], text[32];
	int fd, n;

	port_path(p, sizeof(p), root, dev, rel);
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	n = snprintf(text, sizeof(text), "%-20llu\n", (unsigned long long)v);
	assert_int_equal(pwrite(fd, text, (size_t)n, 0), n);
	close(fd);
}

static void set_text(const char *root, const char *dev, const char *rel, const char *text)
{
	char p[PATH_MAX];
	int fd;

	port_path(p, sizeof(p), root, dev, rel);
	fd = open(p, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void get_text(const char *root, const char *dev, const char *rel, char *buf, size_t len)
{
	char p[PATH_MAX];
	ssize_t n;
	int fd;

	port_path(p, sizeof(p), root, dev, rel);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, len - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
}

static size_t count_files(const char *root, const char *dev, const char *sub)
{
	char p[PATH_MAX];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	port_path(p, sizeof(p), root, dev, sub);
	d = opendir(p);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += de->d_type == DT_REG && strcmp(de->d_name, "lifespan") != 0;
	closedir(d);
	return n;
}

static size_t open_fds(void)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir("/proc/self/fd");

	assert_non_null(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void opts_for(struct sampler_opts *o, const char *root)
{
	sampler_opts__init(o);
	o->sysfs_root = root;
	o->no_nic = true;
}

static struct sampler *open_ok(const struct sampler_opts *o)
{
	struct sampler *s = NULL;
	char err[256] = "";
	int rc = sampler__open(o, &s, err, sizeof(err));

	if (rc)
		fail_msg("sampler__open: %d: %s", rc, err);
	assert_non_null(s);
	return s;
}

/* ---- tests ---- */

static void test_discover(void **state)
{
	const char *root = make_root("discover");
	const struct ft_rdma_port *p0, *p1, *p2;
	const struct ft_ctr_group *g;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	const char *st;

	(void)state;
	opts_for(&o, root);
	o.period_ns = 20 * MS;
	s = open_ok(&o);
	assert_int_equal(sampler__nports(s), 3);
	assert_int_equal(sampler__ngroups(s), 5); /* mlx5_2 has no hw_counters */
	assert_int_equal(sampler__period_ns(s), 20 * MS);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	assert_int_equal(count_type(&r, FT_REC_RDMA_PORT), 3);
	assert_int_equal(count_type(&r, FT_REC_CTR_GROUP), 5);

	p0 = find_port(&r, "mlx5_0");
	p1 = find_port(&r, "mlx5_1");
	p2 = find_port(&r, "mlx5_2");
	assert_non_null(p0);
	assert_non_null(p1);
	assert_non_null(p2);
	/* RoCE 100G */
	assert_int_equal(p0->port_id, 0);
	assert_int_equal(p0->port_num, 1);
	assert_int_equal(p0->link_layer, FT_LL_ETHERNET);
	assert_int_equal(p0->state, 4);
	assert_int_equal(p0->phys_state, 5);
	assert_int_equal(p0->width, 4);
	assert_int_equal(p0->rate_mbps, 100000);
	assert_string_equal(p0->rate, "100 Gb/sec (4X EDR)");
	assert_string_equal(p0->netdev, "enp1s0f0np0");
	assert_int_equal(p0->netdev_netns, 0); /* no resolver given */
	assert_int_equal(p0->node_guid, 0x0c42a10300a45f20ull);
	assert_string_equal(p0->fw_ver, "22.36.1010");
	assert_string_equal(p0->hca_type, "MT4125");
	assert_int_equal(p0->flags, FT_PORT_COUNTERS | FT_PORT_HW_COUNTERS); /* not VERBS: a fixture */
	assert_int_equal(p0->lifespan_ms, 10);
	assert_int_equal(p0->lifespan_set_ms, 0);
	assert_int_equal(p0->active_mtu, 0);
	/* InfiniBand HDR, no netdev */
	assert_int_equal(p1->port_id, 1);
	assert_int_equal(p1->link_layer, FT_LL_IB);
	assert_int_equal(p1->width, 4);
	assert_int_equal(p1->rate_mbps, 200000);
	assert_string_equal(p1->netdev, "");
	assert_string_equal(p1->hca_type, "MT4123");
	/* down, 1X, no hw_counters */
	assert_int_equal(p2->port_id, 2);
	assert_int_equal(p2->state, 1);
	assert_int_equal(p2->phys_state, 3);
	assert_int_equal(p2->width, 1);
	assert_int_equal(p2->rate_mbps, 25000);
	assert_string_equal(p2->netdev, "enp3s0f1np1");
	assert_int_equal(p2->flags, FT_PORT_COUNTERS);
	assert_int_equal(p2->lifespan_ms, 0);

	/* groups: ids in order, both kinds per port, every file but lifespan */
	g = find_group(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS);
	assert_non_null(g);
	assert_int_equal(g->group, 0);
	assert_int_equal(g->port_id, 0);
	assert_int_equal(g->period_ns, 20 * MS);
	assert_int_equal(g->ncounters, count_files(root, "mlx5_0", "counters"));
	assert_int_equal(g->ncounters, 21);
	g = find_group(&r, "mlx5_0/1", FT_CTR_PORT_HW);
	assert_non_null(g);
	assert_int_equal(g->group, 1);
	assert_int_equal(g->ncounters, count_files(root, "mlx5_0", "hw_counters"));
	assert_int_equal(g->ncounters, 31);
	assert_null(find_name(&r, g->group, "lifespan"));
	assert_non_null(find_name(&r, g->group, "np_cnp_sent"));
	g = find_group(&r, "mlx5_1/1", FT_CTR_PORT_COUNTERS);
	assert_non_null(g);
	assert_int_equal(g->group, 2);
	assert_int_equal(g->port_id, 1);
	g = find_group(&r, "mlx5_2/1", FT_CTR_PORT_COUNTERS);
	assert_non_null(g);
	assert_int_equal(g->group, 4);
	assert_int_equal(g->port_id, 2);
	assert_null(find_group(&r, "mlx5_2/1", FT_CTR_PORT_HW));

	/* names: sorted, indices dense, classified */
	{
		const struct ft_ctr_name *prev = NULL;
		size_t idx = 0;

		for (const struct ft_rec_hdr *h = rec_first(&r); h; h = rec_next(&r, h)) {
			const struct ft_ctr_name *nm = (const void *)h;

			if (h->type != FT_REC_CTR_NAME || nm->group != 1)
				continue;
			assert_int_equal(nm->index, idx++);
			if (prev)
				assert_true(strcmp(prev->name, nm->name) < 0);
			prev = nm;
		}
		assert_int_equal(idx, 31);
	}
	{
		const struct ft_ctr_name *nm = find_name(&r, 0, "port_xmit_data");

		assert_non_null(nm);
		assert_int_equal(nm->cls, FT_CLS_DATA);
		assert_int_equal(nm->flags, FT_CTRF_BYTES | FT_CTRF_DIV4);
		nm = find_name(&r, 0, "port_xmit_wait");
		assert_non_null(nm);
		assert_int_equal(nm->cls, FT_CLS_CONGESTION);
		assert_int_equal(nm->flags, FT_CTRF_TICKS | FT_CTRF_WIDTH32);
		nm = find_name(&r, 1, "rp_cnp_handled");
		assert_non_null(nm);
		assert_int_equal(nm->cls, FT_CLS_CONGESTION);
		nm = find_name(&r, 1, "out_of_sequence");
		assert_non_null(nm);
		assert_int_equal(nm->cls, FT_CLS_RETRANS);
	}

	st = sampler__rdma_status(s);
	if (!strstr(st, "RDMA: 3 ports (mlx5_0/1 RoCE enp1s0f0np0 100 Gb/s, mlx5_1/1 IB 200 Gb/s, "
			"mlx5_2/1 RoCE enp3s0f1np1 25 Gb/s DOWN)") ||
	    !strstr(st, "20 ms period"))
		fail_msg("status: %s", st);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);
}

static int resolve(void *ctx, const char *name, uint32_t *netns, uint32_t *ifindex)
{
	int *calls = ctx;

	(*calls)++;
	if (strcmp(name, "enp1s0f0np0") != 0)
		return -ENOENT;
	*netns = 4026531840u;
	*ifindex = 7;
	return 0;
}

static void test_resolve_netdev(void **state)
{
	const char *root = make_root("resolve");
	const struct ft_rdma_port *p;
	const struct ft_ctr_group *g;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	int calls = 0;

	(void)state;
	opts_for(&o, root);
	o.resolve_netdev = resolve;
	o.resolve_ctx = &calls;
	s = open_ok(&o);
	assert_int_equal(calls, 2); /* the two RoCE ports; IB has no netdev */
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	p = find_port(&r, "mlx5_0");
	assert_int_equal(p->netdev_netns, 4026531840u);
	assert_int_equal(p->netdev_ifindex, 7);
	g = find_group(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS);
	assert_int_equal(g->netns, 4026531840u);
	assert_int_equal(g->ifindex, 7);
	g = find_group(&r, "mlx5_0/1", FT_CTR_PORT_HW);
	assert_int_equal(g->netns, 4026531840u);
	assert_int_equal(g->ifindex, 7);
	p = find_port(&r, "mlx5_2");
	assert_string_equal(p->netdev, "enp3s0f1np1");
	assert_int_equal(p->netdev_netns, 0);
	assert_int_equal(p->netdev_ifindex, 0);
	g = find_group(&r, "mlx5_2/1", FT_CTR_PORT_COUNTERS);
	assert_int_equal(g->netns, 0);
	assert_int_equal(g->ifindex, 0);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);
}

static void test_sample_values(void **state)
{
	const char *root = make_root("values");
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	size_t fds0, nctr = 0;
	uint64_t reads, total, max;

	(void)state;
	opts_for(&o, root);
	fds0 = open_fds();
	s = open_ok(&o);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	for (const struct ft_rec_hdr *h = rec_first(&r); h; h = rec_next(&r, h))
		if (h->type == FT_REC_CTR_GROUP)
			nctr += ((const struct ft_ctr_group *)h)->ncounters;
	/* every counter file stays open between samples */
	assert_true(open_fds() >= fds0 + nctr);
	assert_int_equal(sampler__sample(s, 5000 * MS, collect, &r), 0);
	assert_int_equal(count_type(&r, FT_REC_CTR_SAMPLE), 5);
	for (const struct ft_rec_hdr *h = rec_first(&r); h; h = rec_next(&r, h)) {
		const struct ft_ctr_sample *sm = (const void *)h;

		if (h->type != FT_REC_CTR_SAMPLE)
			continue;
		assert_int_equal(h->size, sizeof(*sm) + 8ull * sm->n);
		assert_int_equal(h->cpu, 0);
		assert_int_equal(sm->pad, 0);
		assert_true(sm->ts_ns >= 5000 * MS && sm->ts_ns < 5000 * MS + 1000 * MS);
		assert_true(sm->read_ns > 0);
	}
	assert_int_equal(value(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "port_xmit_wait"), 4294967000ull);
	assert_int_equal(value(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "port_xmit_data"), 93836710250ull);
	assert_int_equal(value(&r, "mlx5_0/1", FT_CTR_PORT_HW, "np_cnp_sent"), 15230);
	assert_int_equal(value(&r, "mlx5_0/1", FT_CTR_PORT_HW, "np_ecn_marked_roce_packets"), 16011);
	assert_int_equal(value(&r, "mlx5_0/1", FT_CTR_PORT_HW, "out_of_sequence"), 42);
	/* "N/A (no PMA)" becomes FT_CTR_NA, without a read error */
	assert_int_equal(value(&r, "mlx5_1/1", FT_CTR_PORT_COUNTERS, "port_xmit_wait"), FT_CTR_NA);
	assert_int_equal(value(&r, "mlx5_1/1", FT_CTR_PORT_COUNTERS, "symbol_error"), FT_CTR_NA);
	assert_int_equal(value(&r, "mlx5_1/1", FT_CTR_PORT_COUNTERS, "port_rcv_data"), 5019993310ull);
	assert_int_equal(value(&r, "mlx5_2/1", FT_CTR_PORT_COUNTERS, "link_downed"), 3);
	assert_int_equal(count_type(&r, FT_REC_SAMPLER), 0);
	sampler__cost(s, &reads, &total, &max);
	assert_int_equal(reads, 5);
	assert_true(max > 0 && max <= total);
	recs_reset(&r);
	sampler__close(s, collect, &r);
	/* the cost event at close, and every descriptor closed */
	assert_int_equal(count_events(&r, FT_SAMPLER_COST, UINT32_MAX), 1);
	assert_int_equal(find_event(&r, FT_SAMPLER_COST, 0)->value, total);
	assert_int_equal(open_fds(), fds0);
	recs_reset(&r);
}

static void test_update_in_place(void **state)
{
	const char *root = make_root("update");
	const struct ft_ctr_name *nm;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	uint64_t prev, cur;
	unsigned df;

	(void)state;
	opts_for(&o, root);
	s = open_ok(&o);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	assert_int_equal(sampler__sample(s, 1000 * MS, collect, &r), 0);
	prev = value(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "port_xmit_wait");
	/* the files stay open: in-place rewrites are seen, a 32-bit counter wraps */
	set_counter(root, "mlx5_0", "counters/port_xmit_wait", 100);
	set_counter(root, "mlx5_0", "hw_counters/np_cnp_sent", 20230);
	set_counter(root, "mlx5_1", "counters/port_xmit_wait", 555); /* was N/A */
	assert_int_equal(sampler__sample(s, 1010 * MS, collect, &r), 0);
	cur = value(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "port_xmit_wait");
	assert_int_equal(cur, 100);
	nm = find_name(&r, 0, "port_xmit_wait");
	assert_int_equal(ctr__delta(prev, cur, nm->flags, &df), 396);
	assert_int_equal(df, CTR_DELTA_WRAP32);
	assert_int_equal(value(&r, "mlx5_0/1", FT_CTR_PORT_HW, "np_cnp_sent"), 20230);
	assert_int_equal(value(&r, "mlx5_1/1", FT_CTR_PORT_COUNTERS, "port_xmit_wait"), 555);
	/* and a value gone N/A again */
	set_text(root, "mlx5_1", "counters/port_xmit_wait", "N/A (no PMA)\n");
	assert_int_equal(sampler__sample(s, 1020 * MS, collect, &r), 0);
	assert_int_equal(value(&r, "mlx5_1/1", FT_CTR_PORT_COUNTERS, "port_xmit_wait"), FT_CTR_NA);
	assert_int_equal(count_events(&r, FT_SAMPLER_READ_ERROR, ANY_GROUP), 0);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);
}

static void test_missing_dirs(void **state)
{
	const char *root = make_root("missing");
	const struct ft_rdma_port *p;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	char cmd[PATH_MAX + 64];

	(void)state;
	/* mlx5_2 loses counters/ too; a device without ports/ is no port at all */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/class/infiniband/mlx5_2/ports/1/counters' && "
		 "mkdir -p '%s/class/infiniband/mlx5_9'", root, root);
	assert_int_equal(system(cmd), 0);
	opts_for(&o, root);
	s = open_ok(&o);
	assert_int_equal(sampler__nports(s), 3);
	assert_int_equal(sampler__ngroups(s), 4);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	p = find_port(&r, "mlx5_2");
	assert_non_null(p);
	assert_int_equal(p->flags & (FT_PORT_COUNTERS | FT_PORT_HW_COUNTERS), 0);
	assert_null(find_group(&r, "mlx5_2/1", FT_CTR_PORT_COUNTERS));
	assert_null(find_port(&r, "mlx5_9"));
	assert_int_equal(sampler__sample(s, 1, collect, &r), 0);
	assert_int_equal(count_type(&r, FT_REC_CTR_SAMPLE), 4);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);
}

static void open_fails(const struct sampler_opts *o, int want_rc, const char *want_msg)
{
	struct sampler *s = (struct sampler *)&s;
	char err[256] = "";
	int rc = sampler__open(o, &s, err, sizeof(err));

	if (rc != want_rc || !strstr(err, want_msg))
		fail_msg("sampler__open = %d \"%s\", want %d \"%s\"", rc, err, want_rc, want_msg);
	assert_null(s);
}

static void test_devices_option(void **state)
{
	const char *root = make_root("devices");
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;

	(void)state;
	opts_for(&o, root);
	o.devices = "mlx5_1";
	s = open_ok(&o);
	assert_int_equal(sampler__nports(s), 1);
	assert_int_equal(sampler__ngroups(s), 2);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	assert_int_equal(find_port(&r, "mlx5_1")->port_id, 0);
	assert_null(find_port(&r, "mlx5_0"));
	assert_int_equal(find_group(&r, "mlx5_1/1", FT_CTR_PORT_COUNTERS)->group, 0);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);

	o.devices = "mlx5_2, mlx5_0:1";
	s = open_ok(&o);
	assert_int_equal(sampler__nports(s), 2);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	assert_int_equal(find_port(&r, "mlx5_0")->port_id, 0);
	assert_int_equal(find_port(&r, "mlx5_2")->port_id, 1);
	assert_null(find_port(&r, "mlx5_1"));
	sampler__close(s, NULL, NULL);
	recs_reset(&r);

	o.devices = "mlx5_0,mlx5_9";
	open_fails(&o, -ENODEV, "--rdma-devices mlx5_9: no such RDMA device (have: mlx5_0, mlx5_1, mlx5_2)");
	o.devices = "mlx5_0:2";
	open_fails(&o, -ENODEV, "--rdma-devices mlx5_0:2: no such port (mlx5_0 has: 1)");
	o.devices = "mlx5_0:x";
	open_fails(&o, -EINVAL, "bad port number");
	o.devices = "mlx5_0:0";
	open_fails(&o, -EINVAL, "bad port number");
	o.devices = " , ";
	open_fails(&o, -EINVAL, "no device named");
}

static void test_no_devices(void **state)
{
	char root[PATH_MAX], want[PATH_MAX + 64];
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;

	(void)state;
	snprintf(root, sizeof(root), "%s", tpath("empty"));
	assert_int_equal(mkdir(root, 0755), 0);
	opts_for(&o, root);
	s = open_ok(&o);
	assert_int_equal(sampler__nports(s), 0);
	assert_int_equal(sampler__ngroups(s), 0);
	snprintf(want, sizeof(want), "RDMA: no devices under %s/class/infiniband; RDMA sampling off", root);
	assert_string_equal(sampler__rdma_status(s), want);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	assert_int_equal(sampler__sample(s, 1, collect, &r), 0);
	assert_int_equal(r.n, 0);
	sampler__close(s, collect, &r);
	assert_int_equal(r.n, 0); /* nothing sampled: no cost event */
	o.devices = "mlx5_0";
	open_fails(&o, -ENODEV, "--rdma-devices mlx5_0: no such RDMA device (have: none under");

	/* no_rdma: not even a look */
	opts_for(&o, "/nonexistent");
	o.no_rdma = true;
	s = open_ok(&o);
	assert_string_equal(sampler__rdma_status(s), "RDMA: sampling off (disabled)");
	sampler__close(s, NULL, NULL);

	/* the root from the environment when none is given */
	setenv("FABTRACE_SYSFS_ROOT", make_root("envroot"), 1);
	opts_for(&o, NULL);
	s = open_ok(&o);
	unsetenv("FABTRACE_SYSFS_ROOT");
	assert_int_equal(sampler__nports(s), 3);
	sampler__close(s, NULL, NULL);
}

static void test_rdma_filter(void **state)
{
	const char *root = make_root("filter");
	const struct ft_ctr_group *g;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;

	(void)state;
	opts_for(&o, root);
	o.rdma_filter = "*cnp*, np_ecn_*";
	s = open_ok(&o);
	/* only mlx5_0's hw_counters match; groups without a match are left out */
	assert_int_equal(sampler__ngroups(s), 1);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	g = find_group(&r, "mlx5_0/1", FT_CTR_PORT_HW);
	assert_non_null(g);
	assert_int_equal(g->group, 0);
	assert_int_equal(g->ncounters, 5);
	assert_non_null(find_name(&r, 0, "np_cnp_sent"));
	assert_non_null(find_name(&r, 0, "rp_cnp_handled"));
	assert_non_null(find_name(&r, 0, "rp_cnp_ignored"));
	assert_non_null(find_name(&r, 0, "roce_slow_restart_cnps"));
	assert_non_null(find_name(&r, 0, "np_ecn_marked_roce_packets"));
	assert_int_equal(count_type(&r, FT_REC_RDMA_PORT), 3); /* ports are still described */
	sampler__close(s, NULL, NULL);
	recs_reset(&r);

	o.rdma_filter = "all";
	s = open_ok(&o);
	assert_int_equal(sampler__ngroups(s), 5);
	sampler__close(s, NULL, NULL);

	o.rdma_filter = "port_[xr";
	open_fails(&o, -EINVAL, "unclosed '['");
	o.rdma_filter = ",";
	open_fails(&o, -EINVAL, "no glob");
	o.rdma_filter = NULL;
	o.nic_filter = "";
	open_fails(&o, -EINVAL, "NIC counter filter");
}

static void test_lifespan(void **state)
{
	const char *root = make_root("lifespan");
	const struct ft_rdma_port *p;
	const struct ft_sampler_event *e;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	char text[64];
	uint32_t hw0, hw1;

	(void)state;
	opts_for(&o, root);
	o.lifespan_ms = 1;
	s = open_ok(&o);
	get_text(root, "mlx5_0", "hw_counters/lifespan", text, sizeof(text));
	assert_string_equal(text, "1\n");
	get_text(root, "mlx5_1", "hw_counters/lifespan", text, sizeof(text));
	assert_string_equal(text, "1\n");
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	p = find_port(&r, "mlx5_0");
	assert_true(p->flags & FT_PORT_LIFESPAN_SET);
	assert_int_equal(p->lifespan_ms, 10);
	assert_int_equal(p->lifespan_set_ms, 1);
	p = find_port(&r, "mlx5_2");
	assert_false(p->flags & FT_PORT_LIFESPAN_SET);
	assert_int_equal(p->lifespan_set_ms, 0);
	hw0 = find_group(&r, "mlx5_0/1", FT_CTR_PORT_HW)->group;
	hw1 = find_group(&r, "mlx5_1/1", FT_CTR_PORT_HW)->group;
	assert_int_equal(count_events(&r, FT_SAMPLER_LIFESPAN_SET, ANY_GROUP), 2);
	assert_int_equal(count_events(&r, FT_SAMPLER_LIFESPAN_SET, hw0), 1);
	assert_int_equal(count_events(&r, FT_SAMPLER_LIFESPAN_SET, hw1), 1);
	e = find_event(&r, FT_SAMPLER_LIFESPAN_SET, 0);
	assert_int_equal(e->value, 1);
	assert_true(e->ts_ns > 0);
	assert_non_null(strstr(e->msg, "10 -> 1 ms"));
	recs_reset(&r);
	sampler__close(s, collect, &r);
	get_text(root, "mlx5_0", "hw_counters/lifespan", text, sizeof(text));
	assert_string_equal(text, "10\n");
	get_text(root, "mlx5_1", "hw_counters/lifespan", text, sizeof(text));
	assert_string_equal(text, "10\n");
	assert_int_equal(count_events(&r, FT_SAMPLER_LIFESPAN_RESTORED, ANY_GROUP), 2);
	assert_int_equal(count_events(&r, FT_SAMPLER_LIFESPAN_RESTORED, hw0), 1);
	assert_int_equal(find_event(&r, FT_SAMPLER_LIFESPAN_RESTORED, 0)->value, 10);
	recs_reset(&r);

	/* already at the value asked: left alone, no events */
	set_text(root, "mlx5_0", "hw_counters/lifespan", "1\n");
	o.devices = "mlx5_0";
	s = open_ok(&o);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	assert_false(find_port(&r, "mlx5_0")->flags & FT_PORT_LIFESPAN_SET);
	assert_int_equal(find_port(&r, "mlx5_0")->lifespan_ms, 1);
	assert_int_equal(count_type(&r, FT_REC_SAMPLER), 0);
	sampler__close(s, collect, &r);
	assert_int_equal(count_events(&r, FT_SAMPLER_LIFESPAN_RESTORED, ANY_GROUP), 0);
	recs_reset(&r);

	o.devices = NULL;
	o.lifespan_ms = 10001;
	open_fails(&o, -EINVAL, "0..10000");
}

static void test_lifespan_failure_restores(void **state)
{
	const char *root = make_root("lifespan_fail");
	struct sampler_opts o;
	char text[64];

	(void)state;
	/* mlx5_0 gets set first, then mlx5_1 fails: mlx5_0 must be put back */
	set_text(root, "mlx5_1", "hw_counters/lifespan", "junk\n");
	opts_for(&o, root);
	o.lifespan_ms = 2;
	open_fails(&o, -EINVAL, "mlx5_1/1: cannot read hw_counters/lifespan");
	get_text(root, "mlx5_0", "hw_counters/lifespan", text, sizeof(text));
	assert_string_equal(text, "10\n");
}

static void test_read_error_once(void **state)
{
	const char *root = make_root("readerr");
	const struct ft_sampler_event *e;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	uint32_t g;

	(void)state;
	opts_for(&o, root);
	s = open_ok(&o);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	g = find_group(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS)->group;
	set_text(root, "mlx5_0", "counters/symbol_error", "garbage\n");
	for (int i = 0; i < 3; i++)
		assert_int_equal(sampler__sample(s, (uint64_t)(i + 1) * 10 * MS, collect, &r), 0);
	assert_int_equal(value(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "symbol_error"), FT_CTR_NA);
	assert_int_equal(value(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "link_downed"), 1);
	/* one event per group going bad, not one per read */
	assert_int_equal(count_events(&r, FT_SAMPLER_READ_ERROR, ANY_GROUP), 1);
	e = find_event(&r, FT_SAMPLER_READ_ERROR, 0);
	assert_int_equal(e->group, g);
	assert_int_equal(e->value, EINVAL);
	assert_non_null(strstr(e->msg, "mlx5_0/1"));
	/* recovered, then bad again: a new event */
	set_text(root, "mlx5_0", "counters/symbol_error", "5\n");
	assert_int_equal(sampler__sample(s, 40 * MS, collect, &r), 0);
	assert_int_equal(value(&r, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "symbol_error"), 5);
	assert_int_equal(count_events(&r, FT_SAMPLER_READ_ERROR, ANY_GROUP), 1);
	set_text(root, "mlx5_0", "counters/symbol_error", "x\n");
	assert_int_equal(sampler__sample(s, 50 * MS, collect, &r), 0);
	assert_int_equal(count_events(&r, FT_SAMPLER_READ_ERROR, ANY_GROUP), 2);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);
}

static void test_split_large_group(void **state)
{
	char root[PATH_MAX], dir[PATH_MAX + 64], p[PATH_MAX + 96];
	const struct ft_ctr_group *g0, *g1;
	const struct ft_ctr_sample *s0, *s1;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct rlimit old, low;
	struct sampler *s;
	size_t fds0;
	int rc;

	(void)state;
	/* 8001 hw counters: more than one sample record can hold */
	snprintf(root, sizeof(root), "%s", tpath("big"));
	snprintf(dir, sizeof(dir), "%s/class/infiniband/big0/ports/1/hw_counters", root);
	snprintf(p, sizeof(p), "mkdir -p '%s'", dir);
	assert_int_equal(system(p), 0);
	for (int i = 0; i <= 8000; i++) {
		char text[16];
		int fd, n;

		snprintf(p, sizeof(p), "%s/c%05d", dir, i);
		fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		n = snprintf(text, sizeof(text), "%d\n", i);
		assert_int_equal(write(fd, text, (size_t)n), n);
		close(fd);
	}
	opts_for(&o, root);
	/* and few descriptors: most counters are then opened for each read */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	low = old;
	low.rlim_cur = 256;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	fds0 = open_fds();
	s = NULL;
	{
		char err[256];

		rc = sampler__open(&o, &s, err, sizeof(err));
	}
	if (!rc) {
		assert_int_equal(sampler__describe(s, collect, &r), 0);
		assert_int_equal(sampler__sample(s, 1, collect, &r), 0);
	}
	setrlimit(RLIMIT_NOFILE, &old);
	assert_int_equal(rc, 0);
	assert_int_equal(sampler__ngroups(s), 2);
	g0 = find_group(&r, "big0/1", FT_CTR_PORT_HW);
	g1 = find_group(&r, "big0/1#2", FT_CTR_PORT_HW);
	assert_non_null(g0);
	assert_non_null(g1);
	assert_int_equal(g0->ncounters, 8000);
	assert_int_equal(g1->ncounters, 1);
	assert_int_equal(g1->port_id, g0->port_id);
	assert_non_null(find_name(&r, g1->group, "c08000"));
	s0 = last_sample(&r, g0->group);
	s1 = last_sample(&r, g1->group);
	assert_int_equal(s0->hdr.size, sizeof(*s0) + 8ull * 8000);
	assert_int_equal(s1->hdr.size, sizeof(*s1) + 8ull);
	for (uint32_t i = 0; i < 8000; i++)
		if (values_of(s0)[i] != i)
			fail_msg("value %u = %llu", i, (unsigned long long)values_of(s0)[i]);
	assert_int_equal(values_of(s1)[0], 8000);
	assert_int_equal(count_type(&r, FT_REC_SAMPLER), 0);
	sampler__close(s, NULL, NULL);
	assert_int_equal(open_fds(), fds0);
	recs_reset(&r);
}

static void test_budget_backoff(void **state)
{
	const char *root = make_root("budget");
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	uint64_t now = 1000 * MS, reads, total, max;
	size_t n = 0;

	(void)state;
	opts_for(&o, root);
	o.budget = 1e-9; /* any cost is over it */
	s = open_ok(&o);
	for (int i = 0; i < 4; i++, now += sampler__period_ns(s))
		assert_int_equal(sampler__sample(s, now, collect, &r), 0);
	/* four samples are too few to judge */
	assert_int_equal(count_events(&r, FT_SAMPLER_BACKOFF, ANY_GROUP), 0);
	assert_int_equal(sampler__period_ns(s), 10 * MS);
	assert_int_equal(sampler__sample(s, now, collect, &r), 0);
	now += sampler__period_ns(s);
	assert_int_equal(count_events(&r, FT_SAMPLER_BACKOFF, ANY_GROUP), 1);
	assert_int_equal(sampler__period_ns(s), 20 * MS);
	assert_int_equal(find_event(&r, FT_SAMPLER_BACKOFF, 0)->value, 20 * MS);
	assert_int_equal(find_event(&r, FT_SAMPLER_BACKOFF, 0)->group, UINT32_MAX);
	assert_non_null(strstr(find_event(&r, FT_SAMPLER_BACKOFF, 0)->msg, "period 10ms -> 20ms"));
	assert_non_null(strstr(sampler__rdma_status(s), "20 ms period"));
	/* the new period is judged on its own samples: again five before the next step */
	for (int i = 0; i < 4; i++, now += sampler__period_ns(s))
		assert_int_equal(sampler__sample(s, now, collect, &r), 0);
	assert_int_equal(count_events(&r, FT_SAMPLER_BACKOFF, ANY_GROUP), 1);
	/* doubling up to 1 s and no further */
	for (int i = 0; i < 96; i++, now += sampler__period_ns(s))
		assert_int_equal(sampler__sample(s, now, collect, &r), 0);
	assert_int_equal(sampler__period_ns(s), 1000 * MS);
	assert_int_equal(count_events(&r, FT_SAMPLER_BACKOFF, ANY_GROUP), 7); /* 20 .. 640 ms, 1 s */
	assert_int_equal(find_event(&r, FT_SAMPLER_BACKOFF, 6)->value, 1000 * MS);
	assert_non_null(strstr(sampler__rdma_status(s), "1 s period"));
	sampler__cost(s, &reads, &total, &max);
	assert_int_equal(reads, 105 * 5);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);

	/* a budget no sampler exceeds: the period stays */
	o.budget = 1.0;
	s = open_ok(&o);
	for (int i = 0; i < 30; i++, now += 10 * MS)
		assert_int_equal(sampler__sample(s, now, collect, &r), 0);
	for (const struct ft_rec_hdr *h = rec_first(&r); h; h = rec_next(&r, h))
		n += h->type == FT_REC_SAMPLER;
	assert_int_equal(n, 0);
	assert_int_equal(sampler__period_ns(s), 10 * MS);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);

	o.budget = 0;
	open_fails(&o, -EINVAL, "budget");
	o.budget = NAN;
	open_fails(&o, -EINVAL, "budget");
}

/* Every byte after a string's NUL is zero. */
static void assert_clean_str(const char *s, size_t len, const char *what)
{
	size_t n = strnlen(s, len);

	assert_true(n < len);
	for (size_t i = n; i < len; i++)
		if (s[i])
			fail_msg("%s: byte %zu after the string is 0x%02x", what, i, (unsigned char)s[i]);
}

static void test_records_clean(void **state)
{
	const char *root = make_root("clean");
	struct sampler_opts o;
	struct recs r = { 0 }, r2 = { 0 };
	struct sampler *s;

	(void)state;
	opts_for(&o, root);
	o.lifespan_ms = 3;
	s = open_ok(&o);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	assert_int_equal(sampler__sample(s, 10 * MS, collect, &r), 0);
	set_text(root, "mlx5_0", "counters/symbol_error", "junk\n");
	assert_int_equal(sampler__sample(s, 20 * MS, collect, &r), 0);
	sampler__close(s, collect, &r);
	for (const struct ft_rec_hdr *h = rec_first(&r); h; h = rec_next(&r, h)) {
		assert_int_equal(h->cpu, 0);
		switch (h->type) {
		case FT_REC_RDMA_PORT: {
			const struct ft_rdma_port *p = (const void *)h;

			assert_int_equal(h->size, sizeof(*p));
			assert_clean_str(p->dev, sizeof(p->dev), "dev");
			assert_clean_str(p->netdev, sizeof(p->netdev), "netdev");
			assert_clean_str(p->rate, sizeof(p->rate), "rate");
			assert_clean_str(p->fw_ver, sizeof(p->fw_ver), "fw_ver");
			assert_clean_str(p->hca_type, sizeof(p->hca_type), "hca_type");
			break;
		}
		case FT_REC_CTR_GROUP: {
			const struct ft_ctr_group *g = (const void *)h;

			assert_int_equal(h->size, sizeof(*g));
			assert_clean_str(g->label, sizeof(g->label), "label");
			break;
		}
		case FT_REC_CTR_NAME: {
			const struct ft_ctr_name *nm = (const void *)h;

			assert_int_equal(h->size, sizeof(*nm));
			assert_int_equal(nm->pad, 0);
			assert_clean_str(nm->name, sizeof(nm->name), "name");
			break;
		}
		case FT_REC_CTR_SAMPLE: {
			const struct ft_ctr_sample *sm = (const void *)h;

			assert_int_equal(h->size, sizeof(*sm) + 8ull * sm->n);
			assert_int_equal(sm->pad, 0);
			break;
		}
		case FT_REC_SAMPLER: {
			const struct ft_sampler_event *e = (const void *)h;

			assert_int_equal(h->size, sizeof(*e));
			assert_clean_str(e->msg, sizeof(e->msg), "msg");
			assert_true(e->msg[0] != '\0');
			break;
		}
		default:
			fail_msg("unexpected record type %u", h->type);
		}
	}
	/* LIFESPAN_SET, READ_ERROR, LIFESPAN_RESTORED x2 each, COST */
	assert_int_equal(count_type(&r, FT_REC_SAMPLER), 6);

	/* the same tree describes to the same bytes */
	recs_reset(&r);
	o.lifespan_ms = 0;
	s = open_ok(&o);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	sampler__close(s, NULL, NULL);
	s = open_ok(&o);
	assert_int_equal(sampler__describe(s, collect, &r2), 0);
	sampler__close(s, NULL, NULL);
	assert_int_equal(r.len, r2.len);
	assert_memory_equal(r.buf, r2.buf, r.len);
	recs_reset(&r);
	recs_reset(&r2);
}

/* ---- ethtool on a veth pair in a throwaway netns ---- */

static char nsname[32];
static bool ns_made;

static int setup_netns(void **state)
{
	char cmd[160];

	(void)state;
	ns_made = false;
	if (geteuid() != 0 || system("ip -V >/dev/null 2>&1") != 0)
		return 0;
	snprintf(nsname, sizeof(nsname), "ftA%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "ip netns add %s && ip -n %s link add ftAv0 type veth peer name ftAv1",
		 nsname, nsname);
	if (system(cmd) != 0)
		return 0;
	ns_made = true;
	return 0;
}

static int teardown_netns(void **state)
{
	char cmd[96];

	(void)state;
	if (!ns_made)
		return 0;
	snprintf(cmd, sizeof(cmd), "ip netns del %s", nsname);
	ns_made = false;
	return system(cmd) == 0 ? 0 : -1;
}

/* A datagram socket inside the test netns and the netns inode. */
static int ns_socket(uint32_t *inum)
{
	char path[64];
	struct stat st;
	int self, ns, fd;

	snprintf(path, sizeof(path), "/run/netns/%s", nsname);
	self = open("/proc/self/ns/net", O_RDONLY);
	ns = open(path, O_RDONLY);
	assert_true(self >= 0 && ns >= 0);
	assert_int_equal(fstat(ns, &st), 0);
	*inum = (uint32_t)st.st_ino;
	assert_int_equal(setns(ns, CLONE_NEWNET), 0);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_int_equal(setns(self, CLONE_NEWNET), 0);
	close(self);
	close(ns);
	assert_true(fd >= 0);
	return fd;
}

static uint32_t ifindex_in(int fd, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	assert_int_equal(ioctl(fd, SIOCGIFINDEX, &ifr), 0);
	return (uint32_t)ifr.ifr_ifindex;
}

static void test_ethtool_veth(void **state)
{
	struct sampler_netdev nd[2];
	const struct ft_ctr_group *g;
	const struct ft_sampler_event *e;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	uint32_t inum, v0, v1;
	size_t nall = 0, ndefault = 0;
	char cmd[96];
	int fd;

	(void)state;
	if (!ns_made) {
		print_message("needs root and iproute2 for a veth in a netns\n");
		skip();
	}
	fd = ns_socket(&inum);
	v0 = ifindex_in(fd, "ftAv0");
	v1 = ifindex_in(fd, "ftAv1");
	memset(nd, 0, sizeof(nd));
	nd[0].netns = inum;
	nd[0].ioctl_fd = fd;
	nd[0].nl_fd = nd[1].nl_fd = -1;
	snprintf(nd[0].name, sizeof(nd[0].name), "ftAv0");
	snprintf(nd[0].label, sizeof(nd[0].label), "ftAv0@%s", nsname);
	/* lo has no ethtool stats: skipped without a word */
	nd[1].netns = inum;
	nd[1].ioctl_fd = fd;
	snprintf(nd[1].name, sizeof(nd[1].name), "lo");

	sampler_opts__init(&o);
	o.no_rdma = true;
	o.netdevs = nd;
	o.nnetdevs = 2;
	o.nic_filter = "all";
	s = open_ok(&o);
	assert_int_equal(sampler__ngroups(s), 1);
	assert_int_equal(sampler__nports(s), 0);
	assert_string_equal(sampler__rdma_status(s), "RDMA: sampling off (disabled)");
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	g = find_group(&r, nd[0].label, FT_CTR_ETHTOOL);
	assert_non_null(g);
	assert_int_equal(g->group, 0);
	assert_int_equal(g->port_id, UINT32_MAX);
	assert_int_equal(g->netns, inum);
	assert_int_equal(g->ifindex, v0); /* filled in: the caller gave 0 */
	nall = g->ncounters;
	assert_true(nall >= 2);
	assert_int_equal(find_name(&r, 0, "rx_queue_0_drops")->cls, FT_CLS_DISCARD);
	assert_int_equal(sampler__sample(s, 100 * MS, collect, &r), 0);
	/* veth reports its peer: a value we can check */
	assert_int_equal(value(&r, nd[0].label, FT_CTR_ETHTOOL, "peer_ifindex"), v1);
	assert_int_equal(value(&r, nd[0].label, FT_CTR_ETHTOOL, "rx_queue_0_drops"), 0);
	assert_true(last_sample(&r, 0)->read_ns > 0);

	/* the netdev goes away mid-recording: N/A values, one read error */
	snprintf(cmd, sizeof(cmd), "ip -n %s link del ftAv0", nsname);
	assert_int_equal(system(cmd), 0);
	for (int i = 1; i <= 3; i++)
		assert_int_equal(sampler__sample(s, (100 + 10 * (uint64_t)i) * MS, collect, &r), 0);
	assert_int_equal(count_type(&r, FT_REC_CTR_SAMPLE), 4);
	for (uint32_t i = 0; i < last_sample(&r, 0)->n; i++)
		assert_int_equal(values_of(last_sample(&r, 0))[i], FT_CTR_NA);
	assert_int_equal(count_events(&r, FT_SAMPLER_READ_ERROR, ANY_GROUP), 1);
	e = find_event(&r, FT_SAMPLER_READ_ERROR, 0);
	assert_int_equal(e->group, 0);
	assert_int_equal(e->value, ENODEV);
	/* a new device taking the name is not the one we were reading */
	snprintf(cmd, sizeof(cmd), "ip -n %s link add ftAv0 type veth peer name ftAv1", nsname);
	assert_int_equal(system(cmd), 0);
	assert_true(ifindex_in(fd, "ftAv0") != v0);
	assert_int_equal(sampler__sample(s, 200 * MS, collect, &r), 0);
	assert_int_equal(values_of(last_sample(&r, 0))[find_name(&r, 0, "peer_ifindex")->index], FT_CTR_NA);
	assert_int_equal(count_events(&r, FT_SAMPLER_READ_ERROR, ANY_GROUP), 1);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);

	/* the default filter keeps the drop counters only; a filter matching nothing, no group */
	o.nic_filter = NULL;
	s = open_ok(&o);
	assert_int_equal(sampler__ngroups(s), 1);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	for (const struct ft_rec_hdr *h = rec_first(&r); h; h = rec_next(&r, h)) {
		const struct ft_ctr_name *nm = (const void *)h;

		if (h->type != FT_REC_CTR_NAME)
			continue;
		ndefault++;
		assert_true(ctr__glob_match(ctr__default_nic_filter, nm->name));
	}
	assert_true(ndefault >= 1 && ndefault < nall);
	assert_non_null(find_name(&r, 0, "rx_queue_0_drops"));
	assert_null(find_name(&r, 0, "peer_ifindex"));
	sampler__close(s, NULL, NULL);
	recs_reset(&r);
	o.nic_filter = "nomatch_*";
	s = open_ok(&o);
	assert_int_equal(sampler__ngroups(s), 0);
	sampler__close(s, NULL, NULL);
	/* no_nic: netdevs ignored */
	o.nic_filter = "all";
	o.no_nic = true;
	s = open_ok(&o);
	assert_int_equal(sampler__ngroups(s), 0);
	sampler__close(s, NULL, NULL);
	close(fd);
}

/* A rtnetlink socket inside the test netns. */
static int ns_netlink(void)
{
	char path[64];
	int self, ns, fd;

	snprintf(path, sizeof(path), "/run/netns/%s", nsname);
	self = open("/proc/self/ns/net", O_RDONLY);
	ns = open(path, O_RDONLY);
	assert_true(self >= 0 && ns >= 0);
	assert_int_equal(setns(ns, CLONE_NEWNET), 0);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	assert_int_equal(setns(self, CLONE_NEWNET), 0);
	close(self);
	close(ns);
	assert_true(fd >= 0);
	return fd;
}

/* `tc -s qdisc`'s sent packets of the root qdisc of ftAv0 in the test netns. */
static uint64_t tc_sent_packets(void)
{
	char cmd[160];
	unsigned long long v = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "tc -n %s -s qdisc show dev ftAv0 root | sed -n 's/.*Sent [0-9]* bytes \\([0-9]*\\) pkt.*/\\1/p'",
		 nsname);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%llu", &v), 1);
	pclose(p);
	return v;
}

/*
 * The root qdisc's own counters (a QDISC group, the always profile): a tbf
 * on a veth, its sent packets as `tc -s qdisc` counts them, N/A and one
 * read error once it is gone (noqueue); a netdev without a netlink socket
 * or without a root qdisc gets no group.
 */
static void test_qdisc_veth(void **state)
{
	struct sampler_netdev nd[2];
	const struct ft_ctr_group *g;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	uint32_t inum;
	uint64_t sent, tc;
	char cmd[384], label[64];
	int fd, nl;

	(void)state;
	if (!ns_made || system("tc -V >/dev/null 2>&1") != 0) {
		print_message("needs root, iproute2 and tc for a veth in a netns\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd), "ip -n %s link set ftAv0 up && ip -n %s link set ftAv1 up && "
		 "ip -n %s addr add 10.253.0.1/24 dev ftAv0 && "
		 "tc -n %s qdisc add dev ftAv0 root handle 1: tbf rate 10mbit burst 32kb latency 50ms",
		 nsname, nsname, nsname, nsname);
	assert_int_equal(system(cmd), 0);
	fd = ns_socket(&inum);
	nl = ns_netlink();
	memset(nd, 0, sizeof(nd));
	nd[0].netns = nd[1].netns = inum;
	nd[0].ioctl_fd = nd[1].ioctl_fd = fd;
	nd[0].nl_fd = nl;
	nd[0].ifindex = ifindex_in(fd, "ftAv0");
	snprintf(nd[0].name, sizeof(nd[0].name), "ftAv0");
	snprintf(nd[0].label, sizeof(nd[0].label), "ftAv0@%s", nsname);
	nd[1].nl_fd = nl;                  /* ftAv1: noqueue, no group */
	nd[1].ifindex = ifindex_in(fd, "ftAv1");
	snprintf(nd[1].name, sizeof(nd[1].name), "ftAv1");
	sampler_opts__init(&o);
	o.no_rdma = true;
	o.netdevs = nd;
	o.nnetdevs = 2;
	o.nic_filter = "nomatch_*";       /* the ethtool groups out of the way */
	s = open_ok(&o);
	assert_int_equal(sampler__ngroups(s), 1);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	snprintf(label, sizeof(label), "tbf 1: on ftAv0@%s", nsname);
	g = find_group(&r, label, FT_CTR_QDISC);
	assert_non_null(g);
	assert_int_equal(g->ncounters, QS_MAX);
	assert_int_equal(g->ifindex, nd[0].ifindex);
	assert_int_equal(find_name(&r, g->group, "qdisc_sent_bytes")->flags, FT_CTRF_BYTES);
	assert_int_equal(find_name(&r, g->group, "qdisc_drops")->cls, FT_CLS_OTHER);
	/* ARP for an absent neighbour leaves through the tbf */
	snprintf(cmd, sizeof(cmd), "ip netns exec %s ping -q -c 2 -i 0.2 -W 1 10.253.0.9 >/dev/null 2>&1", nsname);
	(void)system(cmd);
	assert_int_equal(sampler__sample(s, 100 * MS, collect, &r), 0);
	sent = value(&r, label, FT_CTR_QDISC, "qdisc_sent_packets");
	tc = tc_sent_packets();
	assert_true(sent >= 1 && sent <= tc);
	assert_true(value(&r, label, FT_CTR_QDISC, "qdisc_sent_bytes") >= 28 * sent);
	/* the qdisc removed: N/A, one read error */
	snprintf(cmd, sizeof(cmd), "tc -n %s qdisc del dev ftAv0 root", nsname);
	assert_int_equal(system(cmd), 0);
	for (int i = 1; i <= 2; i++)
		assert_int_equal(sampler__sample(s, (100 + 10 * (uint64_t)i) * MS, collect, &r), 0);
	assert_int_equal(value(&r, label, FT_CTR_QDISC, "qdisc_sent_packets"), FT_CTR_NA);
	assert_int_equal(count_events(&r, FT_SAMPLER_READ_ERROR, ANY_GROUP), 1);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);
	/* no netlink socket: no group */
	nd[0].nl_fd = nd[1].nl_fd = -1;
	snprintf(cmd, sizeof(cmd), "tc -n %s qdisc add dev ftAv0 root handle 1: tbf rate 10mbit burst 32kb latency 50ms",
		 nsname);
	assert_int_equal(system(cmd), 0);
	s = open_ok(&o);
	assert_int_equal(sampler__ngroups(s), 0);
	sampler__close(s, NULL, NULL);
	/* two netdevs of one namespace, each with a root qdisc: a group each, both read
	 * (by one dump of the namespace a period) */
	snprintf(cmd, sizeof(cmd), "tc -n %s qdisc add dev ftAv1 root handle 2: tbf rate 10mbit burst 32kb latency 50ms",
		 nsname);
	assert_int_equal(system(cmd), 0);
	nd[0].nl_fd = nd[1].nl_fd = nl;
	s = open_ok(&o);
	assert_int_equal(sampler__ngroups(s), 2);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	assert_int_equal(sampler__sample(s, 300 * MS, collect, &r), 0);
	assert_true(value(&r, label, FT_CTR_QDISC, "qdisc_sent_packets") != FT_CTR_NA);
	snprintf(label, sizeof(label), "tbf 2: on ftAv1");
	assert_true(value(&r, label, FT_CTR_QDISC, "qdisc_drops") != FT_CTR_NA);
	assert_int_equal(count_events(&r, FT_SAMPLER_READ_ERROR, ANY_GROUP), 0);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);
	close(nl);
	close(fd);
}

/* The set of stats changes under us (channels): names are remapped, the gone ones read N/A. */
static void test_ethtool_channels(void **state)
{
	struct sampler_netdev nd;
	struct sampler_opts o;
	struct recs r = { 0 };
	struct sampler *s;
	uint32_t inum, peer;
	char cmd[192];
	int fd;

	(void)state;
	if (!ns_made || system("ethtool --version >/dev/null 2>&1") != 0) {
		print_message("needs root, iproute2 and ethtool for a veth in a netns\n");
		skip();
	}
	snprintf(cmd, sizeof(cmd), "ip -n %s link add ftAq0 numrxqueues 2 numtxqueues 2 type veth "
		 "peer name ftAq1 numrxqueues 2 numtxqueues 2", nsname);
	assert_int_equal(system(cmd), 0);
	fd = ns_socket(&inum);
	peer = ifindex_in(fd, "ftAq1");
	memset(&nd, 0, sizeof(nd));
	nd.nl_fd = -1;
	nd.netns = inum;
	nd.ioctl_fd = fd;
	snprintf(nd.name, sizeof(nd.name), "ftAq0");
	sampler_opts__init(&o);
	o.no_rdma = true;
	o.netdevs = &nd;
	o.nnetdevs = 1;
	o.nic_filter = "all";
	s = open_ok(&o);
	assert_int_equal(sampler__describe(s, collect, &r), 0);
	assert_non_null(find_name(&r, 0, "rx_queue_1_drops"));
	assert_non_null(find_name(&r, 0, "tx_queue_1_xdp_xmit"));
	assert_int_equal(sampler__sample(s, 10 * MS, collect, &r), 0);
	assert_int_equal(value(&r, "ftAq0", FT_CTR_ETHTOOL, "rx_queue_1_drops"), 0);
	assert_int_equal(value(&r, "ftAq0", FT_CTR_ETHTOOL, "peer_ifindex"), peer);

	snprintf(cmd, sizeof(cmd), "ip netns exec %s ethtool -L ftAq0 rx 1 tx 1", nsname);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sampler__sample(s, 20 * MS, collect, &r), 0);
	assert_int_equal(value(&r, "ftAq0", FT_CTR_ETHTOOL, "rx_queue_1_drops"), FT_CTR_NA);
	assert_int_equal(value(&r, "ftAq0", FT_CTR_ETHTOOL, "tx_queue_1_xdp_xmit"), FT_CTR_NA);
	assert_int_equal(value(&r, "ftAq0", FT_CTR_ETHTOOL, "rx_queue_0_drops"), 0);
	assert_int_equal(value(&r, "ftAq0", FT_CTR_ETHTOOL, "tx_queue_0_xdp_xmit"), 0);
	assert_int_equal(value(&r, "ftAq0", FT_CTR_ETHTOOL, "peer_ifindex"), peer);

	snprintf(cmd, sizeof(cmd), "ip netns exec %s ethtool -L ftAq0 rx 2 tx 2", nsname);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(sampler__sample(s, 30 * MS, collect, &r), 0);
	assert_int_equal(value(&r, "ftAq0", FT_CTR_ETHTOOL, "rx_queue_1_drops"), 0);
	assert_int_equal(value(&r, "ftAq0", FT_CTR_ETHTOOL, "peer_ifindex"), peer);
	assert_int_equal(count_type(&r, FT_REC_SAMPLER), 0);
	sampler__close(s, NULL, NULL);
	recs_reset(&r);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover),
		cmocka_unit_test(test_resolve_netdev),
		cmocka_unit_test(test_sample_values),
		cmocka_unit_test(test_update_in_place),
		cmocka_unit_test(test_missing_dirs),
		cmocka_unit_test(test_devices_option),
		cmocka_unit_test(test_no_devices),
		cmocka_unit_test(test_rdma_filter),
		cmocka_unit_test(test_lifespan),
		cmocka_unit_test(test_lifespan_failure_restores),
		cmocka_unit_test(test_read_error_once),
		cmocka_unit_test(test_split_large_group),
		cmocka_unit_test(test_budget_backoff),
		cmocka_unit_test(test_records_clean),
		cmocka_unit_test_setup_teardown(test_ethtool_veth, setup_netns, teardown_netns),
		cmocka_unit_test_setup_teardown(test_ethtool_channels, setup_netns, teardown_netns),
		cmocka_unit_test_setup_teardown(test_qdisc_veth, setup_netns, teardown_netns),
	};

	/* freshly allocated memory is not zero: padding left unset shows */
	mallopt(M_PERTURB, 0x5a);
	return cmocka_run_group_tests(tests, setup_all, teardown_dir);
}
