// SPDX-License-Identifier: GPL-2.0
/*
 * nccl_profiler_driver — a stand-in for NCCL's side of the profiler plugin
 * ABI, with real TCP traffic between ranks.
 *
 * No GPU here, so no NCCL: this program loads the profiler plugin that
 * NCCL_PROFILER_PLUGIN names (as NCCL does: dlopen, then ncclProfiler_v6
 * down to v1, or the one --abi names) and calls its function table in the
 * order and on the threads that NCCL's sources use:
 *   - init once per communicator (v4+: with the comm hash, nranks, rank);
 *   - on the application thread, per all-reduce: startEvent(Coll) with
 *     seqNumber, func "AllReduce", count, "ncclFloat32", nChannels, algo
 *     "Ring", proto "Simple"; then stopEvent(Coll) at once: NCCL stops a
 *     Coll when the call is enqueued;
 *   - on a separate proxy thread, later (so after the parent's stop): per
 *     channel a KernelCh (v3+; v4+ with the "GPU" timer: CLOCK_REALTIME,
 *     as the GPU's globaltimer is not the host's CLOCK_MONOTONIC) and a
 *     send and a recv ProxyOp (pid = ours), ProxyStep children with
 *     SendWait/RecvWait states and transSize, a NetPlugin event per step
 *     (v4+), then KernelChStop with the end timer;
 *   - finalize.
 * The proxy thread moves the data: a ring all-reduce over TCP, each rank
 * sending to rank+1 and receiving from rank-1, 2(n-1) steps of bytes/n.
 * The application thread waits for each collective (a stream sync) before
 * the next; --delay-rank R --delay US makes rank R compute US longer before
 * each iteration (a straggler).  --ops LIST: the collectives of one
 * iteration, in order (allreduce, allgather, reduce_scatter: 2, 1 and 1
 * times n-1 ring steps); each function has its own seqNumber, as in NCCL.
 *
 * Usage: nccl_profiler_driver --rank R --nranks N --addrs A0,A1,... [--port P]
 *        [--bytes B] [--iters I] [--channels C] [--abi V] [--comm-id S]
 *        [--compute US] [--delay-rank R --delay US] [--ops LIST] [--bench N]
 * One JSON line at the end.  --bench N: no ranks, no traffic; N all-reduces
 * with 1 channel and 2 proxy ops of 4 steps each, and the cost per event.
 * Exit 0 ok, 1 failure, 2 bad arguments.
 */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../probes/nccl_profiler/ncclprof_abi.h"
#include "toolargs.h"

#define MAX_RANKS 16

/* the collectives: NCCL's func name, v1's ncclFunc_t, ring steps per (n - 1) */
static const struct drv_op {
	const char *name, *func;
	uint8_t func_v1;
	int steps_per;
} drv_ops[] = {
	{ "allreduce", "AllReduce", 4, 2 },
	{ "allgather", "AllGather", 2, 1 },
	{ "reduce_scatter", "ReduceScatter", 3, 1 },
};
#define NOPS (sizeof(drv_ops) / sizeof(drv_ops[0]))

static struct {
	int rank, nranks, port, iters, channels, abi, delay_rank;
	const struct drv_op *ops[8];
	int nops;
	long long bytes, compute_us, delay_us, bench;
	const char *comm_id;
	char addrs[MAX_RANKS][64];
} opt = { .rank = -1, .nranks = 0, .port = 29400, .iters = 10, .channels = 2, .abi = 0,
	  .delay_rank = -1, .bytes = 1 << 20, .comm_id = "fabtrace-driver" };

static int ver;            /* ABI version in use */
static const void *table;  /* ncclProfiler_vN */
static void *pctx;         /* the communicator's profiler context */
static uint64_t comm_hash;
static int send_fd = -1, recv_fd = -1;

static uint64_t ts(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* the GPU's globaltimer: ns, not the host's CLOCK_MONOTONIC */
static uint64_t gpu_timer(void)
{
	return ts(CLOCK_REALTIME);
}

static void die(const char *what)
{
	fprintf(stderr, "nccl_profiler_driver: rank %d: %s: %s\n", opt.rank, what, strerror(errno));
	exit(1);
}

/* ---- the plugin's table, whichever version ---- */

static void p_start(void **h, void *descr)
{
	const struct np_table_v1 *t = table; /* startEvent is at the same place in every table */

	*h = NULL;
	t->startEvent(pctx, h, descr);
}

static void p_stop(void *h)
{
	((const struct np_table_v1 *)table)->stopEvent(h);
}

static void p_state(void *h, int st, void *args)
{
	((const struct np_table_v1 *)table)->recordEventState(h, st, args);
}

/* a descriptor big enough for any version, filled per version */
union descr {
	struct np_descr_v1 v1;
	struct np_descr_v2 v2;
	struct np_descr_v3 v3;
	struct np_descr_v4 v4;
	struct np_descr_v5 v5;
	struct np_descr_v6 v6;
};

static void d_head(union descr *d, int type, void *parent)
{
	memset(d, 0, sizeof(*d));
	if (ver >= 5)
		d->v5.type = (uint64_t)type;
	else
		d->v4.type = (uint8_t)type;
	d->v4.parentObj = parent; /* parentObj and rank: same place in every version */
	d->v4.rank = opt.rank;
}

static void *start_coll(const struct drv_op *op, uint64_t seq, size_t count)
{
	union descr d;
	void *h;

	d_head(&d, NP_COLL, NULL);
	if (ver == 1) {
		d.v1.coll.commHash = comm_hash;
		d.v1.coll.seqNumber = seq;
		d.v1.coll.func = op->func_v1;
		d.v1.coll.count = count;
		d.v1.coll.datatype = 7;  /* ncclFloat32 */
		d.v1.coll.nMaxChannels = (uint8_t)opt.channels;
		d.v1.coll.algo = 1;      /* Ring */
		d.v1.coll.proto = 2;     /* Simple */
	} else if (ver <= 3) {
		d.v2.coll.commHash = comm_hash;
		d.v2.coll.seqNumber = seq;
		d.v2.coll.func = op->func;
		d.v2.coll.count = count;
		d.v2.coll.datatype = "ncclFloat32";
		if (ver == 2) {
			d.v2.coll.nMaxChannels = (uint8_t)opt.channels;
			d.v2.coll.algo = "Ring";
			d.v2.coll.proto = "Simple";
		} else {
			d.v3.coll.nMaxChannels = (uint8_t)opt.channels;
			d.v3.coll.algo = "Ring";
			d.v3.coll.proto = "Simple";
		}
	} else {
		d.v4.coll.seqNumber = seq;
		d.v4.coll.func = op->func;
		d.v4.coll.count = count;
		d.v4.coll.root = 0;
		d.v4.coll.datatype = "ncclFloat32";
		d.v4.coll.nChannels = (uint8_t)opt.channels;
		d.v4.coll.algo = "Ring";
		d.v4.coll.proto = "Simple";
	}
	p_start(&h, &d);
	return h;
}

static void *start_proxy_op(void *parent, int ch, int peer, int nsteps, int chunk, int is_send)
{
	union descr d;
	void *h;

	d_head(&d, NP_PROXY_OP, parent);
	d.v4.proxyOp.pid = getpid();
	d.v4.proxyOp.channelId = (uint8_t)ch;
	d.v4.proxyOp.peer = peer;
	d.v4.proxyOp.nSteps = nsteps;
	d.v4.proxyOp.chunkSize = chunk;
	d.v4.proxyOp.isSend = is_send;
	p_start(&h, &d);
	return h;
}

static void *start_simple(int type, void *parent, int step)
{
	union descr d;
	void *h;

	d_head(&d, type, parent);
	if (type == NP_PROXY_STEP)
		d.v4.proxyStep.step = step;
	p_start(&h, &d);
	return h;
}

static void *start_kernel_ch(void *parent, int ch)
{
	union descr d;
	void *h;

	d_head(&d, NP_KERNEL_CH, parent);
	d.v4.kernelCh.channelId = (uint8_t)ch;
	if (ver >= 4)
		d.v4.kernelCh.pTimer = gpu_timer();
	p_start(&h, &d);
	return h;
}

static void step_state(void *h, int st, size_t trans)
{
	if (ver >= 4) {
		union np_state_v4 a = { .proxyStep = { trans } };

		p_state(h, st, &a);
	} else {
		p_state(h, st, NULL);
	}
}

static void op_state(void *h, int st, size_t trans, int steps)
{
	if (ver <= 3) {
		union np_state_v1 a = { .proxyOp = { trans, steps } };

		p_state(h, st, &a);
	} else {
		p_state(h, NP_ST_PROXY_OP_IN_PROGRESS_V4, NULL);
	}
}

/* ---- traffic ---- */

static int xfer(int sfd, const char *sb, size_t sn, int rfd, char *rb, size_t rn)
{
	size_t so = 0, ro = 0;

	while (so < sn || ro < rn) {
		struct pollfd p[2] = { { sfd, so < sn ? POLLOUT : 0, 0 }, { rfd, ro < rn ? POLLIN : 0, 0 } };
		ssize_t k;

		if (poll(p, 2, 30000) <= 0)
			return -1;
		if (so < sn && (p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
			k = send(sfd, sb + so, sn - so, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (k < 0 && errno != EAGAIN)
				return -1;
			so += k > 0 ? (size_t)k : 0;
		}
		if (ro < rn && (p[1].revents & (POLLIN | POLLERR | POLLHUP))) {
			k = recv(rfd, rb + ro, rn - ro, MSG_DONTWAIT);
			if (k == 0 || (k < 0 && errno != EAGAIN))
				return -1;
			ro += k > 0 ? (size_t)k : 0;
		}
	}
	return 0;
}

static void connect_ring(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0), next = (opt.rank + 1) % opt.nranks;

	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_port = htons((uint16_t)opt.port);
	if (inet_pton(AF_INET, opt.addrs[opt.rank], &a.sin_addr) != 1)
		die("bad address");
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 4))
		die("bind/listen");
	if (inet_pton(AF_INET, opt.addrs[next], &a.sin_addr) != 1)
		die("bad address");
	for (int i = 0; i < 600; i++) {
		send_fd = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(send_fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			break;
		close(send_fd);
		send_fd = -1;
		usleep(50000);
	}
	if (send_fd < 0)
		die("connect to the next rank");
	recv_fd = accept(lfd, NULL, NULL);
	if (recv_fd < 0)
		die("accept");
	setsockopt(send_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(lfd);
}

/* ---- the proxy thread ---- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static void *work;        /* the Coll handle posted, or NULL */
static int work_steps;    /* its ring steps per (n - 1) */
static bool work_posted, work_done, quit;
static char *sbuf, *rbuf;

static void run_coll(void *coll, int steps_per)
{
	int n = opt.nranks, nsteps = steps_per * (n - 1), next = (opt.rank + 1) % n,
	    prev = (opt.rank + n - 1) % n;
	size_t per_ch = (size_t)opt.bytes / (size_t)opt.channels, chunk = per_ch / (size_t)n;

	for (int ch = 0; ch < opt.channels; ch++) {
		void *kch = ver >= 3 ? start_kernel_ch(coll, ch) : NULL;
		void *sop = start_proxy_op(coll, ch, next, nsteps, (int)chunk, 1);
		void *rop = start_proxy_op(coll, ch, prev, nsteps, (int)chunk, 0);

		for (int s = 0; s < nsteps && n > 1; s++) {
			void *ss = start_simple(NP_PROXY_STEP, sop, s);
			void *rs = start_simple(NP_PROXY_STEP, rop, s);
			void *net = ver >= 4 ? start_simple(NP_NET_PLUGIN, ss, 0) : NULL;

			step_state(ss, NP_ST_STEP_SEND_GPU_WAIT, 0);
			step_state(ss, NP_ST_STEP_SEND_WAIT, chunk);
			step_state(rs, NP_ST_STEP_RECV_WAIT, 0);
			if (xfer(send_fd, sbuf, chunk, recv_fd, rbuf, chunk))
				die("ring transfer");
			step_state(rs, NP_ST_STEP_RECV_FLUSH_WAIT, chunk);
			p_stop(net);
			p_stop(ss);
			p_stop(rs);
			op_state(sop, NP_ST_PROXY_OP_SEND_TRANSMITTED, chunk * (size_t)(s + 1), s + 1);
			op_state(rop, NP_ST_PROXY_OP_RECV_RECEIVED, chunk * (size_t)(s + 1), s + 1);
		}
		p_stop(sop);
		p_stop(rop);
		if (kch) {
			if (ver >= 4) {
				union np_state_v4 a = { .kernelCh = { gpu_timer() } };

				p_state(kch, NP_ST_KERNEL_CH_STOP, &a);
			}
			p_stop(kch);
		}
	}
}

static void *proxy_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		void *c;
		int k;

		while (!work_posted && !quit)
			pthread_cond_wait(&cv, &mu);
		if (!work_posted && quit)
			break;
		c = work;
		k = work_steps;
		work_posted = false;
		pthread_mutex_unlock(&mu);
		run_coll(c, k);
		pthread_mutex_lock(&mu);
		work_done = true;
		pthread_cond_broadcast(&cv);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* ---- setup ---- */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void load_plugin(void)
{
	const char *path = getenv("NCCL_PROFILER_PLUGIN");
	void *lib;

	if (!path || !*path) {
		fprintf(stderr, "nccl_profiler_driver: NCCL_PROFILER_PLUGIN is not set\n");
		exit(2);
	}
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "nccl_profiler_driver: %s\n", dlerror());
		exit(1);
	}
	/* as NCCL: the newest table first (or the one asked for) */
	for (int v = opt.abi ? opt.abi : 6; v >= (opt.abi ? opt.abi : 1); v--) {
		char sym[32];

		snprintf(sym, sizeof(sym), "ncclProfiler_v%d", v);
		table = dlsym(lib, sym);
		if (table) {
			ver = v;
			return;
		}
	}
	fprintf(stderr, "nccl_profiler_driver: no ncclProfiler_vN in %s\n", path);
	exit(1);
}

static void init_plugin(void)
{
	int mask = 0;

	if (ver <= 3)
		((const struct np_table_v1 *)table)->init(&pctx, &mask);
	else if (ver == 4)
		((const struct np_table_v4 *)table)->init(&pctx, &mask, "driver", comm_hash, opt.nranks,
							   opt.nranks, opt.rank, NULL);
	else
		((const struct np_table_v5 *)table)->init(&pctx, comm_hash, &mask, "driver", opt.nranks,
							   opt.nranks, opt.rank, NULL);
}

static void sleep_us(long long us)
{
	struct timespec t = { us / 1000000, (us % 1000000) * 1000 };

	while (us > 0 && nanosleep(&t, &t) && errno == EINTR)
		;
}

static int bench(void)
{
	uint64_t t0, t1;
	long long n = opt.bench;
	int events;

	opt.rank = 0;
	opt.nranks = 1;
	opt.channels = 1;
	init_plugin();
	t0 = ts(CLOCK_MONOTONIC);
	for (long long i = 0; i < n; i++) {
		void *c = start_coll(&drv_ops[0], (uint64_t)i, 1024), *kch, *op[2];

		p_stop(c);
		kch = ver >= 3 ? start_kernel_ch(c, 0) : NULL;
		for (int k = 0; k < 2; k++) {
			op[k] = start_proxy_op(c, 0, 0, 4, 256, !k);
			for (int s = 0; s < 4; s++) {
				void *st = start_simple(NP_PROXY_STEP, op[k], s);

				step_state(st, k ? NP_ST_STEP_RECV_WAIT : NP_ST_STEP_SEND_WAIT, 256);
				p_stop(st);
			}
			p_stop(op[k]);
		}
		if (kch) {
			if (ver >= 4) {
				union np_state_v4 a = { .kernelCh = { gpu_timer() } };

				p_state(kch, NP_ST_KERNEL_CH_STOP, &a);
			}
			p_stop(kch);
		}
	}
	t1 = ts(CLOCK_MONOTONIC);
	((const struct np_table_v1 *)table)->finalize(pctx);
	events = 1 + (ver >= 3) + 2 + 8; /* coll, kernel ch, 2 proxy ops, 8 steps */
	printf("{\"abi\":%d,\"colls\":%lld,\"events_per_coll\":%d,\"ns_per_event\":%.1f}\n", ver, n,
	       events, (double)(t1 - t0) / (double)(n * events));
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rank", 1, 0, 'r' }, { "nranks", 1, 0, 'n' }, { "addrs", 1, 0, 'a' },
		{ "port", 1, 0, 'p' }, { "bytes", 1, 0, 'b' }, { "iters", 1, 0, 'i' },
		{ "channels", 1, 0, 'c' }, { "abi", 1, 0, 'v' }, { "comm-id", 1, 0, 'I' },
		{ "compute", 1, 0, 'C' }, { "delay-rank", 1, 0, 'R' }, { "delay", 1, 0, 'D' },
		{ "bench", 1, 0, 'B' }, { "ops", 1, 0, 'O' }, { 0, 0, 0, 0 },
	};
	long long v;
	int c;
	pthread_t th;
	uint64_t t0;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		const char *a = optarg;

		switch (c) {
		case 'r': if (toolargs_num(a, 0, MAX_RANKS - 1, &v, 0)) goto usage; opt.rank = (int)v; break;
		case 'n': if (toolargs_num(a, 1, MAX_RANKS, &v, 0)) goto usage; opt.nranks = (int)v; break;
		case 'p': if (toolargs_num(a, 1, 65535, &v, 0)) goto usage; opt.port = (int)v; break;
		case 'b': if (toolargs_num(a, 1, 1ll << 30, &opt.bytes, TA_SUFFIX)) goto usage; break;
		case 'i': if (toolargs_num(a, 1, 1000000, &v, 0)) goto usage; opt.iters = (int)v; break;
		case 'c': if (toolargs_num(a, 1, 32, &v, 0)) goto usage; opt.channels = (int)v; break;
		case 'v': if (toolargs_num(a, 1, 6, &v, 0)) goto usage; opt.abi = (int)v; break;
		case 'I': opt.comm_id = a; break;
		case 'C': if (toolargs_num(a, 0, 60000000, &opt.compute_us, 0)) goto usage; break;
		case 'R': if (toolargs_num(a, 0, MAX_RANKS - 1, &v, 0)) goto usage; opt.delay_rank = (int)v; break;
		case 'D': if (toolargs_num(a, 0, 60000000, &opt.delay_us, 0)) goto usage; break;
		case 'B': if (toolargs_num(a, 1, 100000000, &opt.bench, 0)) goto usage; break;
		case 'O': {
			char buf[256], *save = NULL, *t;

			snprintf(buf, sizeof(buf), "%s", a);
			opt.nops = 0;
			for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				size_t k = 0;

				while (k < NOPS && strcmp(drv_ops[k].name, t) != 0)
					k++;
				if (k == NOPS || opt.nops == 8)
					goto usage;
				opt.ops[opt.nops++] = &drv_ops[k];
			}
			break;
		}
		case 'a': {
			char buf[1024], *save = NULL, *t;
			int k = 0;

			snprintf(buf, sizeof(buf), "%s", a);
			for (t = strtok_r(buf, ",", &save); t && k < MAX_RANKS; t = strtok_r(NULL, ",", &save))
				snprintf(opt.addrs[k++], sizeof(opt.addrs[0]), "%s", t);
			break;
		}
		default:
			goto usage;
		}
	}
	comm_hash = fnv1a(opt.comm_id);
	load_plugin();
	if (opt.bench)
		return bench();
	if (opt.rank < 0 || opt.nranks < 2 || opt.rank >= opt.nranks || !opt.addrs[opt.nranks - 1][0])
		goto usage;
	sbuf = calloc(1, (size_t)opt.bytes);
	rbuf = calloc(1, (size_t)opt.bytes);
	if (!sbuf || !rbuf)
		die("calloc");
	connect_ring();
	init_plugin();
	if (pthread_create(&th, NULL, proxy_main, NULL))
		die("pthread_create");
	t0 = ts(CLOCK_MONOTONIC);
	if (!opt.nops)
		opt.ops[opt.nops++] = &drv_ops[0];
	for (int i = 0; i < opt.iters; i++) {
		sleep_us(opt.compute_us + (opt.rank == opt.delay_rank ? opt.delay_us : 0));
		for (int k = 0; k < opt.nops; k++) {
			/* seqNumber counts per communicator and function */
			void *coll = start_coll(opt.ops[k], (uint64_t)i, (size_t)opt.bytes / 4);

			p_stop(coll); /* enqueued: NCCL stops a Coll here, before the GPU runs it */
			pthread_mutex_lock(&mu);
			work = coll;
			work_steps = opt.ops[k]->steps_per;
			work_posted = true;
			work_done = false;
			pthread_cond_broadcast(&cv);
			while (!work_done) /* the stream sync */
				pthread_cond_wait(&cv, &mu);
			pthread_mutex_unlock(&mu);
		}
	}
	pthread_mutex_lock(&mu);
	quit = true;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(th, NULL);
	((const struct np_table_v1 *)table)->finalize(pctx);
	printf("{\"rank\":%d,\"nranks\":%d,\"abi\":%d,\"iters\":%d,\"bytes\":%lld,\"channels\":%d,"
	       "\"comm_hash\":\"0x%016llx\",\"elapsed_ns\":%llu}\n",
	       opt.rank, opt.nranks, ver, opt.iters, opt.bytes, opt.channels,
	       (unsigned long long)comm_hash, (unsigned long long)(ts(CLOCK_MONOTONIC) - t0));
	return 0;
usage:
	fprintf(stderr, "usage: nccl_profiler_driver --rank R --nranks N --addrs A0,A1,... [--port P] "
			"[--bytes B] [--iters I] [--channels C] [--abi 1..6] [--comm-id S] [--compute US] "
			"[--delay-rank R --delay US] [--ops allreduce,allgather,reduce_scatter]\n"
			"       nccl_profiler_driver --bench N [--abi V]   (NCCL_PROFILER_PLUGIN set)\n");
	return 2;
}
