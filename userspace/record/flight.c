// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's driver (flight.h): the session's records into the
 * ring of segments, rotation, retention, triggers (SIGUSR1, the control
 * socket, flight__trigger() for rules) and the snapshots they open.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>

#include "lib/util.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/trigger.h"
#include "userspace/record/flight.h"
#include "userspace/record/flight_cache.h"
#include "userspace/record/flight_control.h"
#include "userspace/record/flight_file.h"
#include "userspace/record/flight_ring.h"
#include "userspace/record/flight_snap.h"
#include "userspace/record/hostclock.h"

#define FLIGHT_MAX_CONNS 256 /* trigger commands served at once; more wait their turn (fabtrace trigger asks again) */
/* each one a watch of the session's loop, beside the recorder's own (with 64
 * watches, the 61st of 80 'trigger --wait' was closed unanswered and asked
 * again every 50 ms until a snapshot's waiters went: 2 s late) */
_Static_assert(FLIGHT_MAX_CONNS + 32 <= SESSION_MAX_WATCH, "the trigger connections fit in the session's watches");
#define SEC 1000000000ull
/* A --at ahead of our clock by this much is another host's clock skew, not the future. */
#define AT_SKEW_NS (2 * SEC)

struct flight;

/* A `fabtrace trigger` connection; with --wait it stays until its snapshot is saved. */
struct conn {
	struct flight *f;
	int fd, watch;
	pid_t pid;          /* the peer (SO_PEERCRED) */
	uid_t uid;
	uint32_t snap;      /* the snapshot it waits for */
	bool waiting;
};

struct flight {
	struct flight_opts o;
	const struct session_opts *so;
	struct session *s;
	struct flight_ring *ring;
	struct flight_cache *cache;
	struct flight_snapper *snapper;
	int ctl_fd, usr1_fd;
	struct conn conns[FLIGHT_MAX_CONNS];
	struct flight_window win;
	struct flight_rules rules;
	uint64_t copied_seq;        /* the last segment queued for a snapshot */
	uint32_t floor_snap;        /* the snapshot whose first segment set floor_ns */
	uint64_t floor_ns;          /* when that segment was opened: older bins stay out of it */
	uint64_t last_bytes;        /* the open segment's size at the last look */
	char snap_path[4096];       /* the active snapshot's file */
	char snap_dir[4096];
	char host[64];
	bool started, ended, failed;
	char error[CAPTURE_ERR_MAX];
	struct flight_stats st;
	flight_closed_fn on_closed; /* a segment was renamed into place (the summaries) */
	void *on_closed_ctx;
};

static volatile sig_atomic_t early_usr1;

/* SIGUSR1 before the signalfd exists (the probes load for seconds): kept for then */
static void on_early_usr1(int sig)
{
	(void)sig;
	early_usr1 = 1;
}

static bool quiet(const struct flight *f)
{
	return f->so->quiet;
}

static int fail(struct flight *f, const char *why)
{
	if (!f->failed)
		snprintf(f->error, sizeof(f->error), "%s", why && why[0] ? why : flight_ring__error(f->ring));
	f->failed = true;
	return -EIO;
}

/* ---- opening ---- */

int flight__open(struct flight **out, const struct flight_opts *o, const struct session_opts *so,
		 const char *dir)
{
	struct flight *f = calloc(1, sizeof(*f));
	struct sigaction sa = { .sa_handler = on_early_usr1 };
	char err[CAPTURE_ERR_MAX];
	struct stat st;
	char *dot;
	int rc;

	*out = f;
	if (!f) {
		ft_err("record: out of memory");
		return -1;
	}
	f->o = *o;
	f->so = so;
	f->ctl_fd = f->usr1_fd = -1;
	for (int i = 0; i < FLIGHT_MAX_CONNS; i++)
		f->conns[i].fd = f->conns[i].watch = -1;
	gethostname(f->host, sizeof(f->host) - 1);
	dot = strchr(f->host, '.');
	if (dot)
		*dot = 0;
	rc = flight_ring__open(&f->ring, dir, &o->lim, err, sizeof(err));
	if (rc) {
		ft_err("record: -o %s", err);
		return -1;
	}
	str_copy(f->snap_dir, o->snap_dir ? o->snap_dir : dir, sizeof(f->snap_dir));
	if (stat(f->snap_dir, &st) || !S_ISDIR(st.st_mode) || access(f->snap_dir, W_OK | X_OK)) {
		ft_err("record: --snapshot-dir %s: %s", f->snap_dir,
		       errno && !S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory this process can write");
		return -1;
	}
	{ /* named whole: `fabtrace trigger --wait` prints it to callers elsewhere (pdsh, kubectl exec) */
		char abs[PATH_MAX];

		if (realpath(f->snap_dir, abs))
			str_copy(f->snap_dir, abs, sizeof(f->snap_dir));
	}
	if (flight_cache__new(&f->cache)) {
		ft_err("record: out of memory");
		return -1;
	}
	f->ctl_fd = flight_ctl__listen(o->control, so->netns_arg, err, sizeof(err));
	if (f->ctl_fd < 0) {
		ft_err("record: %s", err);
		return -1;
	}
	sigaction(SIGUSR1, &sa, NULL);
	return 0;
}

void flight__attach(struct flight *f, struct session *s)
{
	sigset_t m;

	f->s = s;
	/* from here SIGUSR1 waits for the signalfd (the session's command,
	 * forked later, gets the mask the session saved before this) */
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	sigprocmask(SIG_BLOCK, &m, NULL);
}

/* ---- segments ---- */

static int emit(void *ctx, const struct ft_rec_hdr *rec)
{
	return flight_ring__append(ctx, rec);
}

/* A segment begins at NOW: the session's header, a fresh clock, the preamble. */
static int begin_segment(struct flight *f, uint64_t now, bool first)
{
	struct ft_file_header h = *session__header(f->s);
	struct ft_clock c;
	char err[CAPTURE_ERR_MAX];
	long n = 0;

	hostclock__sample(&c, FT_CLOCK_START, flight_cache__daemons(f->cache));
	if (!first) { /* the first one's preamble is the session's own */
		h.start_mono_ns = now;
		h.realtime_offset_ns = c.realtime_ns - (int64_t)c.mono_ns;
	}
	if (flight_ring__begin(f->ring, &h, now, err, sizeof(err)))
		return fail(f, err);
	if (!first)
		n = flight_cache__replay(f->cache, &c, now, emit, f->ring);
	if (n < 0)
		return fail(f, NULL);
	flight_ring__preamble_done(f->ring);
	f->last_bytes = flight_ring__open_bytes(f->ring);
	return 0;
}

static void queue_copy(struct flight *f, struct flight_seg *seg)
{
	char path[4200];

	if (f->floor_snap != f->win.snap) { /* its first segment */
		f->floor_snap = f->win.snap;
		f->floor_ns = seg->open_ns;
	}
	if (flight_snapper__copy(f->snapper, f->win.snap, f->snap_path, seg->seq,
				 flight_ring__path(f->ring, seg, path, sizeof(path)), seg->preamble, f->floor_ns))
		return;
	seg->pins++;
	f->copied_seq = seg->seq;
}

/* A closed segment into the active snapshot, if its window covers it. */
static void route_segment(struct flight *f, struct flight_seg *seg)
{
	if (f->win.active && seg && seg->this_run && seg->seq > f->copied_seq && seg->end_ns > f->win.from_ns &&
	    seg->start_ns < f->win.to_ns)
		queue_copy(f, seg);
}

/* After a segment closed at NOW: the window is saved once it is over, or
 * when the recording ends (FINAL). */
static void maybe_save(struct flight *f, uint64_t now, bool final)
{
	if (f->win.active && (final || now >= f->win.to_ns)) {
		flight_snapper__save(f->snapper, f->win.snap);
		flight_window__close(&f->win, now);
	}
}

static int close_segment(struct flight *f, uint32_t reason, uint64_t now)
{
	size_t n = flight_ring__count(f->ring);
	char err[CAPTURE_ERR_MAX];
	int rc;

	if (reason == FT_STOP_ROTATED) { /* the session's own END comes after its stop pair */
		struct ft_clock c;

		hostclock__sample(&c, FT_CLOCK_STOP, flight_cache__daemons(f->cache));
		(void)flight_ring__append(f->ring, &c.hdr);
	}
	rc = flight_ring__end(f->ring, reason, now, err, sizeof(err));
	if (!rc && f->on_closed && flight_ring__count(f->ring) > n) {
		struct flight_seg *seg = flight_ring__seg(f->ring, n);
		char path[4200];

		f->on_closed(f->on_closed_ctx, flight_ring__path(f->ring, seg, path, sizeof(path)), seg->name);
	}
	if (f->started) {
		if (flight_ring__count(f->ring) > n)
			route_segment(f, flight_ring__seg(f->ring, n));
		maybe_save(f, now, reason != FT_STOP_ROTATED);
	}
	if (reason != FT_STOP_ROTATED) /* the last segment: the bounds hold after the stop too */
		flight_ring__retain(f->ring, now);
	return rc ? fail(f, err) : 0;
}

static int rotate(struct flight *f, uint64_t now)
{
	if (close_segment(f, FT_STOP_ROTATED, now) || begin_segment(f, now, false))
		return -EIO;
	flight_ring__retain(f->ring, now);
	return 0;
}

int flight__sink(void *ctx, const struct ft_rec_hdr *rec)
{
	struct flight *f = ctx;
	uint64_t bytes, seg_bytes;

	if (f->failed || f->ended)
		return -EIO;
	(void)flight_cache__note(f->cache, rec); /* a record it cannot keep is counted */
	if (!flight_ring__writing(f->ring) && begin_segment(f, mono_ns(), true))
		return -EIO;
	if (rec->type == FT_REC_END) {
		const struct ft_end *e = (const void *)rec;

		f->ended = true;
		return close_segment(f, e->stop_reason, e->ts_ns);
	}
	if (flight_ring__append(f->ring, rec))
		return fail(f, NULL);
	bytes = flight_ring__open_bytes(f->ring);
	if (bytes == f->last_bytes)
		return 0;
	/* a block went to disk: the size bounds */
	f->last_bytes = bytes;
	seg_bytes = flight_seg_bytes(f->o.seg_bytes, &f->o.lim);
	if (seg_bytes && bytes >= seg_bytes && rotate(f, mono_ns()))
		return -EIO;
	flight_ring__retain(f->ring, mono_ns());
	return 0;
}

void flight__tick(struct flight *f, uint64_t now)
{
	if (!f->started || f->failed || !flight_ring__writing(f->ring))
		return;
	/* ticks come every second: within half of one of the length is on time */
	if (flight_window__due(&f->win, now) ||
	    (f->o.seg_ns && now + SEC / 2 - flight_ring__open_start(f->ring) >= f->o.seg_ns)) {
		if (rotate(f, now))
			session__stop(f->s, FT_STOP_ERROR);
		return;
	}
	/* as a plain recording flushes every tick: a kill -9 loses at most a second */
	if (flight_ring__flush(f->ring)) {
		fail(f, NULL);
		session__stop(f->s, FT_STOP_ERROR);
		return;
	}
	flight_ring__retain(f->ring, now);
}

/* ---- triggers ---- */

/* CLOCK_REALTIME - CLOCK_MONOTONIC now */
static int64_t rt_offset(void)
{
	struct timespec rt;
	uint64_t m = mono_ns();

	clock_gettime(CLOCK_REALTIME, &rt);
	return (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - (int64_t)m;
}

/* snap-20261201T101502.123Z-HOST.ftr in the snapshot directory, not taken yet */
static void snap_name(struct flight *f, int64_t at_rt)
{
	time_t sec = (time_t)(at_rt / 1000000000);
	struct tm tm;
	char stamp[40];

	gmtime_r(&sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	for (int k = 1; k < 1000; k++) {
		char part[4200];
		struct stat st;

		int n = snprintf(f->snap_path, sizeof(f->snap_path), "%s/snap-%s.%03dZ-%s%s%.0d.ftr", f->snap_dir,
				 stamp, (int)(at_rt / 1000000 % 1000), f->host, k > 1 ? "-" : "", k > 1 ? k : 0);

		if (n < 0 || (size_t)n >= sizeof(f->snap_path))
			return; /* the directory's name was checked short enough at the start */
		snprintf(part, sizeof(part), "%s" FLIGHT_PART, f->snap_path);
		if (lstat(f->snap_path, &st) && lstat(part, &st))
			return;
	}
}

static void say_trigger(const struct flight *f, const struct ft_trigger *r)
{
	char what[96], when[48], who[220];

	if (quiet(f))
		return;
	trigger__action_text(r, what, sizeof(what));
	fmt_wall(r->realtime_ns, when, sizeof(when));
	snprintf(who, sizeof(who), "%.64s%s%.128s%s", r->rule, r->reason[0] ? " (" : "", r->reason,
		 r->reason[0] ? ")" : "");
	if (r->action == FT_TRIGA_SNAPSHOT || r->action == FT_TRIGA_EXTENDED) {
		char a[32], b[32];

		fprintf(stderr, "fabtrace: trigger %s at %s: %s, %s before to %s after, into %s\n", who, when, what,
			fmt_ns(r->mono_ns > r->from_ns ? r->mono_ns - r->from_ns : 0, a, sizeof(a)),
			fmt_ns(r->to_ns > r->mono_ns ? r->to_ns - r->mono_ns : 0, b, sizeof(b)),
			f->snap_path);
	} else {
		fprintf(stderr, "fabtrace: trigger %s at %s: %s\n", who, when, what);
	}
}

int flight__trigger(struct flight *f, const struct flight_trigger *t, struct flight_trigger_result *res)
{
	struct ft_trigger r = { .hdr = { FT_REC_TRIGGER, sizeof(r), 0 } };
	const char *rule = t->rule ? t->rule : trigger__kind_name(t->kind);
	uint64_t now = mono_ns(), at = t->at_ns ? t->at_ns : now, fired;
	int64_t off = rt_offset();

	memset(res, 0, sizeof(*res));
	if (!f->started || f->failed || f->ended)
		return -1;
	/* a post-window that is over is saved first: this one starts anew */
	if (flight_window__due(&f->win, now) && rotate(f, now))
		return -1;
	fired = flight_rules__fire(&f->rules, rule);
	res->action = flight_window__trigger(&f->win, &f->o.pol, at, now,
					     flight_rate__allows(t->rate ? t->rate : &f->o.pol.rate, fired));
	res->at_ns = at;
	if (res->action == FT_TRIGA_SNAPSHOT) {
		snap_name(f, (int64_t)at + off);
		/* the pre-window, closed already */
		for (size_t i = 0; i < flight_ring__count(f->ring); i++)
			route_segment(f, flight_ring__seg(f->ring, i));
	}
	if (trigger__action_in_snapshot(res->action)) {
		res->snap = f->win.snap;
		res->from_ns = f->win.from_ns;
		res->to_ns = f->win.to_ns;
		str_copy(res->path, f->snap_path, sizeof(res->path));
		r.snapshot = res->snap;
		r.from_ns = res->from_ns;
		r.to_ns = res->to_ns;
	} else {
		f->st.held_back++;
	}
	r.mono_ns = at;
	r.realtime_ns = (int64_t)at + off;
	r.received_ns = now;
	r.value = t->value;
	r.threshold = t->threshold;
	r.kind = t->kind;
	r.action = (uint32_t)res->action;
	r.fired = fired > UINT32_MAX ? UINT32_MAX : (uint32_t)fired;
	r.sender_pid = (uint32_t)t->pid;
	r.sender_uid = (uint32_t)t->uid;
	str_copy(r.unit, t->unit ? t->unit : "", sizeof(r.unit));
	str_copy(r.rule, rule, sizeof(r.rule));
	str_copy(r.reason, t->reason ? t->reason : "", sizeof(r.reason));
	str_copy(r.hostname, f->host, sizeof(r.hostname));
	f->st.triggers++;
	/* into the segment being written: the window reaches it, so the snapshot holds it */
	if (flight_ring__append(f->ring, &r.hdr)) {
		fail(f, NULL);
		session__stop(f->s, FT_STOP_ERROR);
		return -1;
	}
	say_trigger(f, &r);
	return 0;
}

static void on_usr1(void *ctx, int fd, uint32_t events)
{
	struct flight *f = ctx;
	struct signalfd_siginfo si;

	(void)events;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		struct flight_trigger t = { .kind = FT_TRIG_SIGNAL, .rule = "SIGUSR1",
					    .pid = (pid_t)si.ssi_pid, .uid = (uid_t)si.ssi_uid };
		struct flight_trigger_result res;

		flight__trigger(f, &t, &res);
	}
}

/* ---- the control socket ---- */

static void conn_close(struct conn *c)
{
	if (c->fd < 0)
		return;
	session__unwatch(c->f->s, c->watch);
	close(c->fd);
	c->fd = c->watch = -1;
	c->waiting = false;
}

static void on_request(struct conn *c, const struct flight_request *req, pid_t pid, uid_t uid)
{
	struct flight *f = c->f;
	struct flight_trigger t = { .kind = FT_TRIG_COMMAND, .rule = "fabtrace trigger", .reason = req->reason,
				    .pid = pid, .uid = uid };
	struct flight_trigger_result res;
	uint64_t now = mono_ns();
	int64_t off = rt_offset();

	if (req->at_realtime_ns) {
		int64_t at = req->at_realtime_ns - off;

		if (at > (int64_t)(now + AT_SKEW_NS) || at <= 0) {
			flight_ctl__send(c->fd, "error=the time asked for (--at) is %s\n",
					 at <= 0 ? "before this host booted" : "in the future");
			conn_close(c);
			return;
		}
		if ((uint64_t)at + f->o.pol.max_ns < now + f->o.pol.pre_ns) {
			char b[32];

			flight_ctl__send(c->fd, "error=the time asked for (--at) is more than %s ago: its window "
					 "would be longer than --snapshot-max\n",
					 fmt_ns(f->o.pol.max_ns - f->o.pol.pre_ns, b, sizeof(b)));
			conn_close(c);
			return;
		}
		t.at_ns = (uint64_t)at;
	}
	if (flight__trigger(f, &t, &res)) {
		flight_ctl__send(c->fd, "error=the recorder is stopping\n");
		conn_close(c);
		return;
	}
	flight_ctl__send(c->fd, "ok\nhost=%s\naction=%s\nsnapshot=%u\nat=%lld\nfrom=%lld\nto=%lld\nfile=%s\n",
			 f->host, trigger__action_name((uint32_t)res.action), res.snap,
			 (long long)res.at_ns + off, res.snap ? (long long)res.from_ns + off : 0LL,
			 res.snap ? (long long)res.to_ns + off : 0LL, res.snap ? res.path : "");
	if (req->wait && res.snap) {
		c->waiting = true;
		c->snap = res.snap;
	} else {
		conn_close(c);
	}
}

static void on_conn(void *ctx, int fd, uint32_t events)
{
	struct conn *c = ctx;
	struct flight_request req;
	int rc;

	(void)events;
	rc = flight_ctl__read(fd, &req);
	if (rc == -EAGAIN)
		return;
	if (rc || c->waiting) { /* gone, not a request, or a second one */
		if (rc == -EINVAL)
			flight_ctl__send(fd, "error=not a request this recorder knows\n");
		conn_close(c);
		return;
	}
	on_request(c, &req, c->pid, c->uid);
}

static void on_listen(void *ctx, int lfd, uint32_t events)
{
	static const char busy[] = "error=busy: too many trigger commands at once\n";
	struct flight *f = ctx;

	(void)events;
	for (;;) {
		pid_t pid;
		uid_t uid;
		int fd = flight_ctl__accept(lfd, &pid, &uid), k;

		if (fd == -EAGAIN || (fd < 0 && fd != -EPERM))
			return;
		if (fd < 0)
			continue; /* refused (not root): told so */
		for (k = 0; k < FLIGHT_MAX_CONNS && f->conns[k].fd >= 0; k++)
			;
		if (k == FLIGHT_MAX_CONNS) {
			flight_ctl__refuse(fd, busy);
			continue;
		}
		f->conns[k] = (struct conn){ .f = f, .fd = fd, .pid = pid, .uid = uid };
		f->conns[k].watch = session__watch(f->s, fd, EPOLLIN | EPOLLRDHUP, on_conn, &f->conns[k]);
		if (f->conns[k].watch < 0) { /* the loop watches all it can: as a busy one, asked again */
			f->conns[k].fd = -1;
			flight_ctl__refuse(fd, busy);
		}
	}
}

/* ---- finished snapshots ---- */

static void answer_waiters(struct flight *f, const struct flight_done *d)
{
	for (int k = 0; k < FLIGHT_MAX_CONNS; k++) {
		struct conn *c = &f->conns[k];

		if (c->fd < 0 || !c->waiting || c->snap != d->snap)
			continue;
		if (d->rc)
			flight_ctl__send(c->fd, "error=snapshot %u: %s\n", d->snap, d->err);
		else
			flight_ctl__send(c->fd, "saved=%s\nbytes=%llu\nwarning=%s\n", d->path,
					 (unsigned long long)d->bytes, d->err);
		conn_close(c);
	}
}

static void say_saved(const struct flight *f, const struct flight_done *d)
{
	char b[32];

	if (quiet(f))
		return;
	fprintf(stderr, "fabtrace: snapshot %u saved: %s (%s)%s%s\n", d->snap, d->path,
		fmt_bytes((double)d->bytes, b, sizeof(b)), d->err[0] ? "; " : "", d->err);
}

static void reap(struct flight *f)
{
	struct flight_done d[8];
	size_t n;

	while ((n = flight_snapper__reap(f->snapper, d, 8)) > 0)
		for (size_t i = 0; i < n; i++) {
			if (d[i].kind == FLIGHT_DONE_COPY) {
				struct flight_seg *seg = flight_ring__find(f->ring, d[i].seq);

				if (seg && seg->pins > 0)
					seg->pins--;
				continue;
			}
			if (d[i].rc) {
				f->st.snapshots_failed++;
				ft_warn("record: snapshot %u could not be saved: %s", d[i].snap, d[i].err);
			} else {
				f->st.snapshots_saved++;
				say_saved(f, &d[i]);
			}
			answer_waiters(f, &d[i]);
		}
}

static void on_snap(void *ctx, int fd, uint32_t events)
{
	(void)fd;
	(void)events;
	reap(ctx);
}

int flight__start(struct flight *f)
{
	sigset_t m;
	char err[256];

	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	f->usr1_fd = signalfd(-1, &m, SFD_CLOEXEC | SFD_NONBLOCK);
	if (f->usr1_fd < 0 || session__watch(f->s, f->usr1_fd, EPOLLIN, on_usr1, f) < 0 ||
	    session__watch(f->s, f->ctl_fd, EPOLLIN, on_listen, f) < 0) {
		ft_err("record: flight recorder: %s", strerror(errno));
		return -1;
	}
	if (flight_snapper__start(&f->snapper, err, sizeof(err)) ||
	    session__watch(f->s, flight_snapper__fd(f->snapper), EPOLLIN, on_snap, f) < 0) {
		ft_err("record: flight recorder: %s", err);
		return -1;
	}
	f->started = true;
	if (early_usr1) {
		struct flight_trigger t = { .kind = FT_TRIG_SIGNAL, .rule = "SIGUSR1" };
		struct flight_trigger_result res;

		early_usr1 = 0;
		flight__trigger(f, &t, &res);
	}
	return 0;
}

int flight__finish(struct flight *f)
{
	char err[CAPTURE_ERR_MAX];

	if (!f)
		return 0;
	/* no END came (a write failed, or the start did): close what is open;
	 * what became of that segment is the last word on the failure (the
	 * write's own error named the .part file it was) */
	if (flight_ring__writing(f->ring) && flight_ring__end(f->ring, FT_STOP_ERROR, mono_ns(), err, sizeof(err))) {
		snprintf(f->error, sizeof(f->error), "%s", err); /* replaces fail()'s first word */
		f->failed = true;
	}
	if (f->snapper) {
		if (f->win.active) {
			flight_snapper__save(f->snapper, f->win.snap);
			flight_window__close(&f->win, mono_ns());
		}
		flight_snapper__stop(f->snapper);
		reap(f);
	}
	/* the bounds hold after the stop: segments the last snapshots pinned
	 * at the last close are theirs no more, and a failed end closed one */
	if (f->ring)
		flight_ring__retain(f->ring, mono_ns());
	for (int k = 0; k < FLIGHT_MAX_CONNS; k++)
		if (f->conns[k].fd >= 0) {
			flight_ctl__send(f->conns[k].fd, "error=the recorder stopped before the snapshot was saved\n");
			conn_close(&f->conns[k]);
		}
	return f->failed ? -1 : 0;
}

void flight__free(struct flight *f)
{
	if (!f)
		return;
	flight_snapper__free(f->snapper);
	flight_ring__free(f->ring);
	flight_cache__free(f->cache);
	if (f->ctl_fd >= 0)
		close(f->ctl_fd);
	if (f->usr1_fd >= 0)
		close(f->usr1_fd);
	signal(SIGUSR1, SIG_DFL);
	free(f);
}

void flight__stats(const struct flight *f, struct flight_stats *st)
{
	*st = f->st;
	st->segments_written = flight_ring__written(f->ring);
	st->segments_deleted = flight_ring__deleted(f->ring);
	st->segments_adopted = flight_ring__adopted(f->ring);
	st->segments_kept = flight_ring__count(f->ring);
	st->disk_bytes = flight_ring__disk_bytes(f->ring);
	st->cache_dropped = flight_cache__dropped(f->cache);
}

void flight__on_closed(struct flight *f, flight_closed_fn fn, void *ctx)
{
	f->on_closed = fn;
	f->on_closed_ctx = ctx;
}

uint32_t flight__post_window(const struct flight *f, uint64_t now_ns)
{
	return f->win.active && !flight_window__due(&f->win, now_ns) ? f->win.snap : 0;
}

bool flight__made_dir(const struct flight *f)
{
	return f && flight_ring__made_dir(f->ring);
}

void flight__abandon(struct flight *f)
{
	if (f && !f->started)
		flight_ring__abandon(f->ring);
}

const char *flight__dir(const struct flight *f)
{
	return flight_ring__dir(f->ring);
}

const char *flight__error(const struct flight *f)
{
	return f->error;
}
