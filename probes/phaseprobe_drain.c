// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Draining the phase probes (phaseprobe_state.h): the ring buffer's
 * callback (process events update the followed set and queue work for
 * after it), poll (the exec'd processes' libraries), the tick (followed
 * processes' new libraries, or every process system-wide), calls in
 * flight written as OPEN phases.  Above the processes and libraries files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "phase.skel.h"
#include "bpf/phase.h"
#include "probes/libfind.h"
#include "probes/phaseprobe_state.h"

/* Ticks between full looks at a followed process (PH_FULL_LOOK_MS). */
#define PH_MAPS_FULL_TICKS (PH_FULL_LOOK_MS / PHASEPROBE_TICK_MS)

/* ---- ring buffer ---- */

/*
 * An exec to handle after the callback, once per process among those not
 * handled yet.  A process that execs again while its first exec is being
 * handled (ip netns exec -> env -> the rank, in quick succession) is
 * queued again: the first look may have read its environment in the
 * middle of the next exec (empty), and only a look after the last exec
 * finds its rank there.
 */
static void queue_exec(struct phaseprobe *p, pid_t pid)
{
	for (size_t i = p->execs_from; i < p->nexecs; i++)
		if (p->execs[i] == pid)
			return;
	if (!grow((void **)&p->execs, &p->capexecs, p->nexecs, sizeof(pid_t)))
		p->execs[p->nexecs++] = pid;
}

int ph_on_sample(void *ctx, void *data, size_t size)
{
	struct phaseprobe *p = ctx;
	const struct ft_rec_hdr *h = data;

	if (size < sizeof(*h) || h->size != size)
		return 0;
	if (h->type == FT_REC_PROC && size >= sizeof(struct ft_proc)) {
		const struct ft_proc *r = data;
		pid_t pid = (pid_t)r->pid;

		switch (r->event) {
		case FT_PROC_FORK:
			if (!p->systemwide)
				ph_pid_add(p, pid);
			break;
		case FT_PROC_EXEC:
			if (!p->systemwide)
				ph_pid_add(p, pid);
			queue_exec(p, pid);
			break;
		case FT_PROC_EXIT:
			ph_pid_del(p, pid);
			if (!grow((void **)&p->exits, &p->capexits, p->nexits, sizeof(*p->exits)))
				p->exits[p->nexits++] = (struct ph_exit){ pid, r->ts_ns };
			break;
		default:
			break;
		}
	}
	if (ph_emit(p, h) < 0) {
		p->cb_err = -EIO;
		return -EIO;
	}
	return 0;
}

/* ---- calls in flight ---- */

static uint64_t exit_ts(const struct phaseprobe *p, pid_t pid)
{
	for (size_t i = 0; i < p->nexits; i++)
		if (p->exits[i].pid == pid)
			return p->exits[i].ts;
	return 0;
}

/*
 * Write calls in flight as OPEN phases and delete them from the map: those
 * of processes that exited (end = the exit), or all of them (end = stop_ns).
 */
static int close_calls(struct phaseprobe *p, uint64_t stop_ns, bool all)
{
	int fd = bpf_map__fd(p->skel->maps.calls);
	size_t n = 0, cap = bpf_map__max_entries(p->skel->maps.calls);
	struct ph_call_key *keys = calloc(cap, sizeof(*keys)), *prev = NULL;
	int ret = 0;

	if (!keys)
		return -ENOMEM;
	/* keys first: deleting while walking restarts the walk */
	while (n < cap && bpf_map_get_next_key(fd, prev, &keys[n]) == 0) {
		prev = &keys[n];
		n++;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		const struct ph_call_key *k = &keys[i];
		pid_t pid = (pid_t)(k->pid_tgid >> 32);
		uint64_t end = exit_ts(p, pid);
		struct ft_phase r = { .hdr = { FT_REC_PHASE, sizeof(r), 0 } };
		struct ph_call c;

		if (!all && !end)
			continue;
		if (bpf_map_lookup_elem(fd, k, &c))
			continue;
		bpf_map_delete_elem(fd, k);
		if (k->slot >= p->nslots || (p->cfgs[k->slot].cfg & PH_CFG_NO_PHASE))
			continue;
		r.start_ns = c.start_ns;
		r.end_ns = end ? end : stop_ns;
		if (r.end_ns < r.start_ns)
			r.end_ns = r.start_ns;
		r.count = c.count;
		r.comm = c.comm;
		r.seq = c.seq;
		r.pid = (uint32_t)pid;
		r.tid = (uint32_t)k->pid_tgid;
		r.netns = c.netns;
		r.slot = k->slot;
		r.dtype_size = c.dtype_size;
		r.peer = c.peer;
		r.flags = c.flags | FT_PHASE_OPEN;
		memcpy(r.name, c.comm_name, sizeof(r.name));
		r.name[sizeof(r.name) - 1] = '\0';
		ret = ph_emit(p, &r.hdr);
	}
	free(keys);
	return ret;
}

/* ---- draining: poll, tick, flush ---- */

int phaseprobe__epoll_fd(const struct phaseprobe *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

/*
 * Examining one process (its /proc maps, new libraries, uprobes) takes
 * 1-3 ms, much more on a loaded host; a tick over dozens of followed
 * processes, or a burst of execs, took longer than the ring lasts while
 * they all made calls (test_load: 33 processes, 76 ms a tick under ASan on
 * a quiet host, and 2 % of the records lost on a busy one).  So the ring is
 * drained between processes.  Never from inside the ring's callback.
 */
static int drain_between(struct phaseprobe *p)
{
	ring_buffer__consume(p->rb);
	return p->cb_err;
}

int phaseprobe__poll(struct phaseprobe *p, int timeout_ms)
{
	int n = timeout_ms ? ring_buffer__poll(p->rb, timeout_ms) : ring_buffer__consume(p->rb);

	if (p->cb_err)
		return p->cb_err;
	/* processes that exec'd: attach their libraries before they get far
	 * (draining between them may add more execs to the list) */
	for (size_t i = 0; i < p->nexecs; i++) {
		p->execs_from = i + 1;
		if (ph_on_exec(p, p->execs[i]) == -EIO)
			return -EIO;
		if (drain_between(p))
			return p->cb_err;
	}
	p->nexecs = p->execs_from = 0;
	return n == -EINTR ? 0 : n;
}

void phaseprobe__tick(struct phaseprobe *p)
{
	p->ticks++;
	if (p->nexits) {
		close_calls(p, 0, false);
		p->nexits = 0;
	}
	if (!p->systemwide) {
		/* a process whose executable mappings are the files of last time
		 * (or that is gone) needs no second look */
		for (size_t i = 0; i < p->npids && !p->cb_err; i++) {
			struct ph_maps_seen *m = &p->seen[i];
			uint64_t size = 0, sig;
			bool sized = !libfind__exec_size(p->pids[i], &size);

			/* the same sizes: no library came or went since the last look,
			 * and the maps (half a millisecond for a PyTorch process) are
			 * read only every PH_MAPS_FULL_TICKS, for a file swapped for
			 * one of the same size */
			if (!(sized && m->sig && size == m->exec_size && p->ticks % PH_MAPS_FULL_TICKS) &&
			    !libfind__maps_sig(p->pids[i], &sig) && (sig == m->sig || !ph_examine_maps(p, p->pids[i]))) {
				m->sig = sig;
				m->exec_size = size;
			}
			drain_between(p); /* may move pids (exits): after the store */
		}
	} else if (p->ticks % (1000 / PHASEPROBE_TICK_MS) == 0) {
		ph_scan_all(p); /* about once a second: every process on the system */
	}
}

int phaseprobe__flush_open(struct phaseprobe *p, uint64_t stop_ns)
{
	return close_calls(p, stop_ns, true);
}
