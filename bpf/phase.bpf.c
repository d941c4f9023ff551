// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Phase probes: library calls (MPI, NCCL, Gloo, the marker API, --phase),
 * the processes that make them, and the sockets those processes use.
 *
 *  - phase_entry / phase_exit: one uprobe/uretprobe pair for every traced
 *    function.  The BPF cookie is the slot; the slot's ph_slot_cfg (written
 *    by userspace) says where the arguments are.  Arguments are read at
 *    entry (registers, then the user stack), kept per (thread, slot) until
 *    the return, and one ft_phase goes out at the return.  Markers are
 *    emitted at entry and have no return probe.
 *  - sched_process_fork/exec/exit: follow the traced process tree (the
 *    `traced` map of tgids, seeded by userspace) and report it as ft_proc.
 *  - sock_send_length / sock_recv_length: in the context of the process
 *    that sends or receives, report which process uses which flow
 *    (ft_sock_owner), once per socket, process and 4-tuple.
 *
 * Everything goes through this object's own ring buffer; reserve failures
 * and full maps are counted in `lost` (FT_SRC_PHASE).
 */
#include "common.bpf.h"
#include "phase.h"

#define IPPROTO_TCP 6
#define IPPROTO_UDP 17

/* 1: only processes in `traced` (the command tree, -p); 0: every process. */
const volatile bool targ_follow = 1;

/*
 * Set by userspace while the capture runs: calls are recorded from the
 * start of the capture to its stop, not while probes attach or detach.
 * Process following and flow attribution run regardless.
 */
volatile bool armed = 0;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PH_MAX_SLOTS);
	__type(key, __u32);
	__type(value, struct ph_slot_cfg);
} slots SEC(".maps");

/* Calls between entry and return. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ph_call_key);
	__type(value, struct ph_call);
} calls SEC(".maps");

/* Where a call is put together before it goes into `calls` (too big for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ph_call);
} scratch SEC(".maps");

/* Per (process, communicator): collective seq, last rank and size told. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct ph_comm_key);
	__type(value, __u64);
} comm_state SEC(".maps");

/* Followed processes (tgid). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u32);
} traced SEC(".maps");

/*
 * Sockets already reported per process, with the 4-tuple they had: an array
 * indexed by a hash of (4-tuple, process), which the verifier inlines, where
 * an LRU hash cost a helper call and a shared LRU update on every send and
 * receive.  Two sockets that share an entry take it from each other and are
 * reported again: more records, never fewer (the model keeps one owner per
 * flow and process).  So does a race between CPUs on one entry.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PH_SOCK_SLOTS);
	__type(key, __u32);
	__type(value, struct ph_sock_seen);
} sock_seen SEC(".maps");

static __always_inline __u32 task_netns(const struct task_struct *t)
{
	return BPF_CORE_READ(t, nsproxy, net_ns, ns.inum);
}

static __always_inline __u32 current_netns(void)
{
	return task_netns((const struct task_struct *)bpf_get_current_task());
}

/* Called in the context of a task of TGID.  System-wide with --netns, only
 * that namespace's processes: a per-host recorder of a lab "host" sees its
 * own ranks only, as on a machine of its own (docs/multihost.md). */
static __always_inline bool tgid_traced(__u32 tgid)
{
	if (!targ_follow)
		return !targ_netns || current_netns() == targ_netns;
	return bpf_map_lookup_elem(&traced, &tgid) != NULL;
}

/* ---- arguments ---- */

/*
 * The integer argument registers and the stack pointer at entry, copied out
 * of pt_regs once: the verifier allows no variable offset into the context.
 */
struct ph_args {
	__u64 reg[8];
	__u64 sp;
};

#if defined(__TARGET_ARCH_x86)
#define PH_NREG 6
#define PH_STACK0 8   /* at entry sp points at the return address; the 7th argument is above */
static __always_inline void load_args(const struct pt_regs *ctx, struct ph_args *a)
{
	a->reg[0] = ctx->di;
	a->reg[1] = ctx->si;
	a->reg[2] = ctx->dx;
	a->reg[3] = ctx->cx;
	a->reg[4] = ctx->r8;
	a->reg[5] = ctx->r9;
	a->reg[6] = 0;
	a->reg[7] = 0;
	a->sp = ctx->sp;
}
#elif defined(__TARGET_ARCH_arm64)
#define PH_NREG 8
#define PH_STACK0 0   /* no return address on the stack: the 9th argument is at sp */
static __always_inline void load_args(const struct pt_regs *ctx, struct ph_args *a)
{
	const struct user_pt_regs *r = (const void *)ctx;

	for (int i = 0; i < 8; i++)
		a->reg[i] = r->regs[i];
	a->sp = r->sp;
}
#else
#error "phase.bpf.c: argument positions are only known for x86 and arm64"
#endif

/* Integer argument slot i at function entry. */
static __always_inline __u64 read_arg(const struct ph_args *a, __u32 i)
{
	__u64 v = 0;

	if (i < PH_NREG)
		return a->reg[i & 7];
	if (i < 32)
		bpf_probe_read_user(&v, sizeof(v), (const void *)(a->sp + PH_STACK0 + 8 * (i - PH_NREG)));
	return v;
}

/* The value a field describes; false when the slot has none or it cannot be read. */
static __always_inline bool get_field(const struct ph_args *a, const struct ph_field *f, __u64 *out)
{
	__u8 arg = f->arg, flags = f->flags;
	__u64 v;

	if (arg == PH_NOARG)
		return false;
	v = read_arg(a, arg);
	if (flags & PH_F_DEREF) {
		__u64 p = v;

		v = 0;
		if (!p || bpf_probe_read_user(&v, (flags & PH_F_64) ? 8 : 4, (const void *)(p + f->off)))
			return false;
	}
	if (!(flags & PH_F_64))
		v = (flags & PH_F_SIGNED) ? (__u64)(__s64)(__s32)v : (__u64)(__u32)v;
	*out = v;
	return true;
}

static __always_inline __u64 read_user_u64(__u64 addr, __u32 size)
{
	__u64 v = 0;

	if (addr)
		bpf_probe_read_user(&v, size == 8 ? 8 : 4, (const void *)addr);
	return v;
}

static __always_inline __s32 read_user_s32(__u64 addr, bool *ok)
{
	__s32 v = 0;

	*ok = addr && !bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* ---- per-communicator state ---- */

static __always_inline __u64 *comm_get(__u32 tgid, __u32 what, __u64 comm)
{
	struct ph_comm_key k = { .tgid = tgid, .what = what, .comm = comm };

	return bpf_map_lookup_elem(&comm_state, &k);
}

static __always_inline void comm_set(__u32 tgid, __u32 what, __u64 comm, __u64 v)
{
	struct ph_comm_key k = { .tgid = tgid, .what = what, .comm = comm };

	bpf_map_update_elem(&comm_state, &k, &v, BPF_ANY);
}

/* Next collective sequence number of (process, comm), from 1. */
static __always_inline __u64 next_seq(__u32 tgid, __u64 comm)
{
	struct ph_comm_key k = { .tgid = tgid, .what = PH_COMM_SEQ, .comm = comm };
	__u64 one = 1, *v = bpf_map_lookup_elem(&comm_state, &k);

	if (v)
		return __sync_fetch_and_add(v, 1) + 1;
	if (bpf_map_update_elem(&comm_state, &k, &one, BPF_NOEXIST) == 0)
		return 1;
	v = bpf_map_lookup_elem(&comm_state, &k); /* another thread made it meanwhile */
	return v ? __sync_fetch_and_add(v, 1) + 1 : 0;
}

/* ---- v-variants: sum int counts[n] in user memory ---- */

struct vsum_ctx {
	__u64 base;
	__u64 sum;
};

static long vsum_one(__u32 i, void *arg)
{
	struct vsum_ctx *s = arg;
	__s32 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)(s->base + 4ull * i)))
		return 1;
	if (v > 0)
		s->sum += (__u64)v;
	return 0;
}

/* ---- records ---- */

static __always_inline void emit_phase(const struct ph_call *c, __u32 slot, __u64 id, __u64 end_ns,
				       __u64 req, __u32 flags, __s32 ret)
{
	struct ft_phase *r = rec_reserve(FT_REC_PHASE, sizeof(*r));

	if (!r)
		return;
	r->start_ns = c->start_ns;
	r->end_ns = end_ns;
	r->count = c->count;
	r->comm = c->comm;
	r->req = req;
	r->seq = c->seq;
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->netns = c->netns;
	r->slot = slot;
	r->dtype_size = c->dtype_size;
	r->peer = c->peer;
	r->flags = c->flags | flags;
	r->ret = ret;
	__builtin_memcpy(r->name, c->comm_name, sizeof(r->name));
	rec_submit(r);
}

static __always_inline void emit_comm_info(__u64 comm, __u32 tgid, __s32 rank, __s32 size, __u32 slot)
{
	struct ft_comm_info *r = rec_reserve(FT_REC_COMM_INFO, sizeof(*r));

	if (!r)
		return;
	r->ts_ns = bpf_ktime_get_ns();
	r->comm = comm;
	r->pid = tgid;
	r->rank = rank;
	r->size = size;
	r->slot = slot;
	rec_submit(r);
}

static __always_inline void emit_req_done(__u64 req, __u64 id, __u32 slot, __u64 ts)
{
	struct ft_req_done *r = rec_reserve(FT_REC_REQ_DONE, sizeof(*r));

	if (!r)
		return;
	r->ts_ns = ts;
	r->req = req;
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->slot = slot;
	r->pad = 0;
	rec_submit(r);
}

/* A marker call: one record now, start = end. */
static __always_inline void emit_mark(const struct ph_args *a, const struct ph_slot_cfg *cfg,
				      __u32 slot, __u64 id, __u64 now)
{
	struct ft_phase *r = rec_reserve(FT_REC_PHASE, sizeof(*r));
	__u64 v = 0;

	if (!r)
		return;
	r->start_ns = now;
	r->end_ns = now;
	r->count = 0;
	r->comm = 0;
	r->req = 0;
	r->seq = 0;
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->netns = current_netns();
	r->slot = slot;
	r->dtype_size = 0;
	r->peer = -1;
	r->flags = (cfg->cfg & PH_CFG_MARK_END) ? FT_PHASE_MARK_END : FT_PHASE_MARK_BEGIN;
	r->ret = 0;
	__builtin_memset(r->name, 0, sizeof(r->name));
	if (cfg->cfg & PH_CFG_MARK_STR) {
		if (get_field(a, &cfg->name, &v) && v)
			bpf_probe_read_user_str(r->name, sizeof(r->name), (const void *)v);
	} else if (get_field(a, &cfg->count, &v)) {
		r->count = v;
	}
	rec_submit(r);
}

/*
 * A communicator's rank and size from a plugin event, once per process and
 * comm hash.  The plugin tells them at NCCL's init (ABI v4 on), which a
 * recorder attached later (-p, or no command) never sees; every call's event
 * carries them too, so the first call it sees tells them instead.
 */
static __always_inline void plugin_comm_info(const struct ph_plugin_ev *ev, __u32 tgid, __u32 slot)
{
	if (!ev->comm_hash || ev->rank < 0 || comm_get(tgid, PH_COMM_RANK, ev->comm_hash))
		return;
	comm_set(tgid, PH_COMM_RANK, ev->comm_hash, (__u64)(__u32)ev->rank);
	emit_comm_info(ev->comm_hash, tgid, ev->rank, ev->nranks, slot);
}

/* An event of the NCCL profiler plugin: its own times, moved onto our clock. */
static __always_inline void emit_plugin(const struct ph_args *a, const struct ph_slot_cfg *cfg,
					__u32 slot, __u64 id, __u64 now)
{
	struct ph_plugin_ev ev;
	struct ft_phase *r;
	__u64 p = read_arg(a, 0);
	__s64 shift;

	if (!p || bpf_probe_read_user(&ev, sizeof(ev), (const void *)p))
		return;
	if (cfg->cfg & PH_CFG_PLUGIN_COMM) {
		emit_comm_info(ev.comm_hash, id >> 32, ev.rank, ev.nranks, slot);
		if (ev.comm_hash && ev.rank >= 0)
			comm_set(id >> 32, PH_COMM_RANK, ev.comm_hash, (__u64)(__u32)ev.rank);
		return;
	}
	plugin_comm_info(&ev, id >> 32, slot);
	r = rec_reserve(FT_REC_PHASE, sizeof(*r));
	if (!r)
		return;
	shift = (__s64)(now - ev.now_ns);
	r->start_ns = ev.start_ns + (__u64)shift;
	r->end_ns = ev.end_ns + (__u64)shift;
	r->count = ev.count;
	r->comm = ev.comm_hash;
	r->req = 0;
	r->seq = ev.seq;
	r->pid = id >> 32;
	r->tid = (__u32)id;
	r->netns = current_netns();
	r->slot = slot;
	r->dtype_size = ev.dtype_size;
	r->peer = ev.peer;
	r->flags = ((ev.flags & PH_PEV_GPU_TIMER) ? FT_PHASE_GPU_TIMER : 0) |
		   ((ev.flags & PH_PEV_PROXY) ? FT_PHASE_PROXY : 0);
	r->ret = (__s32)ev.nchannels;
	__builtin_memcpy(r->name, ev.name, sizeof(r->name));
	r->name[sizeof(r->name) - 1] = 0;
	rec_submit(r);
}

/* ---- entry ---- */

static __always_inline void entry_call(const struct ph_args *a, const struct ph_slot_cfg *cfg,
				       struct ph_call *c, __u32 tgid)
{
	__u64 v;

	if (get_field(a, &cfg->comm, &v))
		c->comm = v;
	if (get_field(a, &cfg->count, &v))
		c->count = (cfg->count.flags & PH_F_SIGNED) && (__s64)v < 0 ? 0 : v;
	if (get_field(a, &cfg->vcounts, &v)) {
		__u64 *size = comm_get(tgid, PH_COMM_SIZE, c->comm);
		struct vsum_ctx s = { .base = v };

		if (size && *size > 0 && *size <= PH_MAX_VCOUNTS && v) {
			bpf_loop((__u32)*size, vsum_one, &s, 0);
			c->count = s.sum;
			c->flags |= FT_PHASE_COUNT_TOTAL;
		} else if (!(cfg->cfg & PH_CFG_VFALLBACK)) {
			c->count = 0; /* the total needs the comm size: unknown */
		}
	}
	if (get_field(a, &cfg->dtype, &v)) {
		switch (cfg->dtype_kind) {
		case PH_DT_MPICH:
			c->dtype_size = ph_mpich_dtype_size((__u32)v);
			break;
		case PH_DT_NCCL:
			c->dtype_size = ph_nccl_dtype_size((__u32)v);
			break;
		case PH_DT_SIZE:
			c->dtype_size = v < 65536 ? (__u32)v : 0;
			break;
		case PH_DT_RATIO:
			c->dtype_size = c->count && v % c->count == 0 && v / c->count < 65536 ?
					(__u32)(v / c->count) : 0;
			break;
		default:
			break;
		}
	}
	if (get_field(a, &cfg->peer, &v))
		c->peer = (__s32)v;
	if (get_field(a, &cfg->req, &v))
		c->out = v;
	if (!(cfg->slot_flags & FT_SLOT_COLLECTIVE))
		return;
	/*
	 * Open MPI names every communicator the same on all its ranks
	 * ("MPI_COMM_WORLD", "MPI COMMUNICATOR 3 DUP FROM 0": its context id):
	 * an identity the ranks share, where the pointer is per process.
	 */
	if ((cfg->cfg & PH_CFG_COMM_NAME) && c->comm)
		bpf_probe_read_user_str(c->comm_name, sizeof(c->comm_name),
					(const void *)(c->comm + cfg->name_off));
	if (get_field(a, &cfg->libseq, &v)) {
		/* +1: seq 0 means "not a collective"; Gloo's tags start at 0 */
		c->seq = v + 1;
		c->flags |= FT_PHASE_LIB_SEQ;
	} else {
		c->seq = next_seq(tgid, c->comm);
	}
}

static __always_inline void entry_completion(const struct ph_args *a, const struct ph_slot_cfg *cfg,
					     struct ph_call *c)
{
	__u32 rsz = (cfg->cfg & PH_CFG_REQ64) ? 8 : 4, n = 1;
	__u64 base = 0, v;

	if (!get_field(a, &cfg->reqs, &base) || !base)
		return;
	if (cfg->comp != PH_COMP_ONE) {
		if (!get_field(a, &cfg->nreqs, &v) || (__s64)v <= 0)
			return;
		n = v < PH_MAX_REQS ? (__u32)v : PH_MAX_REQS;
	}
	for (__u32 i = 0; i < PH_MAX_REQS; i++) {
		if (i >= n)
			break;
		c->reqs[i] = read_user_u64(base + (__u64)i * rsz, rsz);
	}
	c->nreqs = n;
	if (get_field(a, &cfg->flag, &v))
		c->flag_ptr = v;
	else if (get_field(a, &cfg->index, &v))
		c->flag_ptr = v;
	if (get_field(a, &cfg->indices, &v))
		c->indices_ptr = v;
}

SEC("uprobe")
int BPF_KPROBE(phase_entry)
{
	__u64 id = bpf_get_current_pid_tgid(), v;
	__u32 tgid = id >> 32, slot = (__u32)bpf_get_attach_cookie(ctx), zero = 0;
	struct ph_call_key key = { .pid_tgid = id, .slot = slot };
	const struct ph_slot_cfg *cfg;
	struct ph_args args;
	struct ph_call *c;
	__u64 now;

	if (!armed || !tgid_traced(tgid))
		return 0;
	cfg = bpf_map_lookup_elem(&slots, &slot);
	if (!cfg)
		return 0;
	now = bpf_ktime_get_ns();
	load_args(ctx, &args);
	if (cfg->kind == PH_K_MARK) {
		emit_mark(&args, cfg, slot, id, now);
		return 0;
	}
	if (cfg->kind == PH_K_PLUGIN) {
		emit_plugin(&args, cfg, slot, id, now);
		return 0;
	}
	c = bpf_map_lookup_elem(&scratch, &zero);
	if (!c)
		return 0;
	__builtin_memset(c, 0, sizeof(*c));
	c->start_ns = now;
	c->netns = current_netns();
	c->peer = -1;
	switch (cfg->kind) {
	case PH_K_CALL:
		entry_call(&args, cfg, c, tgid);
		break;
	case PH_K_COMM_RANK:
	case PH_K_COMM_SIZE:
		if (get_field(&args, &cfg->comm, &v))
			c->comm = v;
		if (get_field(&args, &cfg->out, &v))
			c->out = v;
		break;
	case PH_K_COMM_INIT:
		if (get_field(&args, &cfg->out, &v))
			c->out = v;
		c->rank = get_field(&args, &cfg->rank, &v) ? (__s32)v : -1;
		c->nranks = get_field(&args, &cfg->nranks, &v) ? (__s32)v : -1;
		c->count = c->nranks > 0 ? (__u64)c->nranks : 0;
		break;
	case PH_K_COMPLETION:
		entry_completion(&args, cfg, c);
		break;
	default:
		return 0;
	}
	if (bpf_map_update_elem(&calls, &key, c, BPF_ANY))
		count_lost(); /* too many calls in flight: this one is not recorded */
	return 0;
}

/* ---- return ---- */

static __always_inline bool req_real(const struct ph_slot_cfg *cfg, __u64 h)
{
	return h && !(cfg->req_null && h == cfg->req_null);
}

static __always_inline void exit_completion(const struct ph_slot_cfg *cfg, const struct ph_call *c,
					    __u64 id, __u32 slot, __u64 now, long ret)
{
	__u32 n = c->nreqs;
	bool ok;
	__s32 v;

	if (!n)
		return;
	if (cfg->cfg & PH_CFG_TEST) {
		/* Testany keeps its flag at `flag` and its index at `index`: both saved? */
		if (cfg->comp != PH_COMP_SOME && cfg->comp != PH_COMP_ANY) {
			v = read_user_s32(c->flag_ptr, &ok);
			if (!ok || !v)
				return;
		}
	} else if (ret != 0 && cfg->comp != PH_COMP_SOME) {
		return;
	}
	switch (cfg->comp) {
	case PH_COMP_ONE:
	case PH_COMP_ALL:
		for (__u32 i = 0; i < PH_MAX_REQS; i++) {
			if (i >= n)
				break;
			if (req_real(cfg, c->reqs[i]))
				emit_req_done(c->reqs[i], id, slot, now);
		}
		break;
	case PH_COMP_ANY:
		/* flag_ptr is the index (Testany's flag is checked through it: an
		 * incomplete Testany leaves the index MPI_UNDEFINED) */
		v = read_user_s32(c->flag_ptr, &ok);
		if (ok && v >= 0 && v < PH_MAX_REQS && (__u32)v < n && req_real(cfg, c->reqs[v]))
			emit_req_done(c->reqs[v], id, slot, now);
		break;
	case PH_COMP_SOME: {
		__s32 cnt = read_user_s32(c->flag_ptr, &ok);

		if (!ok || cnt <= 0)
			break;
		for (__s32 i = 0; i < PH_MAX_REQS; i++) {
			__s32 idx;

			if (i >= cnt)
				break;
			idx = read_user_s32(c->indices_ptr + 4ull * i, &ok);
			if (ok && idx >= 0 && idx < PH_MAX_REQS && (__u32)idx < n &&
			    req_real(cfg, c->reqs[idx]))
				emit_req_done(c->reqs[idx], id, slot, now);
		}
		break;
	}
	default:
		break;
	}
}

/* A Gloo context (or similar): its rank and size, once per process and comm. */
static __always_inline void ctx_info(const struct ph_slot_cfg *cfg, const struct ph_call *c,
				     __u32 tgid, __u32 slot)
{
	__s32 rs[2] = {};

	if (!c->comm || comm_get(tgid, PH_COMM_RANK, c->comm))
		return;
	if (bpf_probe_read_user(rs, sizeof(rs), (const void *)(c->comm + cfg->ctx_off)))
		return;
	comm_set(tgid, PH_COMM_RANK, c->comm, (__u64)(__u32)rs[0]);
	comm_set(tgid, PH_COMM_SIZE, c->comm, (__u64)(__u32)rs[1]);
	emit_comm_info(c->comm, tgid, rs[0], rs[1], slot);
}

SEC("uretprobe")
int BPF_KRETPROBE(phase_exit, long ret)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tgid = id >> 32, slot = (__u32)bpf_get_attach_cookie(ctx);
	struct ph_call_key key = { .pid_tgid = id, .slot = slot };
	const struct ph_slot_cfg *cfg;
	struct ph_call *c;
	bool ok;
	__s32 v;

	/* after the stop, calls stay in the map: userspace writes them OPEN, ending at the stop */
	if (!armed)
		return 0;
	c = bpf_map_lookup_elem(&calls, &key);
	if (!c)
		return 0;
	cfg = bpf_map_lookup_elem(&slots, &slot);
	if (!cfg)
		goto out;
	switch (cfg->kind) {
	case PH_K_CALL: {
		__u64 req = 0;
		__u32 flags = 0;

		if ((cfg->slot_flags & FT_SLOT_NONBLOCKING) && c->out) {
			req = read_user_u64(c->out, (cfg->cfg & PH_CFG_REQ64) ? 8 : 4);
			flags |= FT_PHASE_NONBLOCKING;
		}
		if (cfg->cfg & PH_CFG_CTX_INFO)
			ctx_info(cfg, c, tgid, slot);
		if (!(cfg->cfg & PH_CFG_NO_PHASE))
			emit_phase(c, slot, id, now, req, flags, (__s32)ret);
		break;
	}
	case PH_K_COMM_RANK:
	case PH_K_COMM_SIZE: {
		__u32 what = cfg->kind == PH_K_COMM_RANK ? PH_COMM_RANK : PH_COMM_SIZE;
		__u64 *old;

		if (ret != 0)
			break;
		v = read_user_s32(c->out, &ok);
		if (!ok)
			break;
		old = comm_get(tgid, what, c->comm);
		if (old && *old == (__u64)(__u32)v)
			break; /* told already */
		comm_set(tgid, what, c->comm, (__u64)(__u32)v);
		if (what == PH_COMM_RANK)
			emit_comm_info(c->comm, tgid, v, -1, slot);
		else
			emit_comm_info(c->comm, tgid, -1, v, slot);
		if (!(cfg->cfg & PH_CFG_NO_PHASE))
			emit_phase(c, slot, id, now, 0, 0, (__s32)ret);
		break;
	}
	case PH_K_COMM_INIT: {
		struct ph_call done;

		__builtin_memcpy(&done, c, sizeof(done));
		if (ret == 0 && c->out) {
			done.comm = read_user_u64(c->out, 8);
			if (done.comm) {
				if (c->nranks > 0)
					comm_set(tgid, PH_COMM_SIZE, done.comm, (__u64)c->nranks);
				emit_comm_info(done.comm, tgid, c->rank, c->nranks, slot);
			}
		}
		if (!(cfg->cfg & PH_CFG_NO_PHASE))
			emit_phase(&done, slot, id, now, 0, 0, (__s32)ret);
		break;
	}
	case PH_K_COMPLETION:
		exit_completion(cfg, c, id, slot, now, ret);
		if (!(cfg->cfg & PH_CFG_NO_PHASE))
			emit_phase(c, slot, id, now, 0, 0, (__s32)ret);
		break;
	default:
		break;
	}
out:
	bpf_map_delete_elem(&calls, &key);
	return 0;
}

/* ---- process tree ---- */

static __always_inline void emit_proc(__u32 event, __u32 pid, __u32 ppid,
				      const struct task_struct *t, __s32 code)
{
	struct ft_proc *r = rec_reserve(FT_REC_PROC, sizeof(*r));

	if (!r)
		return;
	r->ts_ns = bpf_ktime_get_ns();
	r->pid = pid;
	r->ppid = ppid;
	r->netns = task_netns(t);
	r->event = event;
	r->exit_code = code;
	r->pad = 0;
	__builtin_memset(r->comm, 0, sizeof(r->comm));
	/* the process's name: its main thread's (the last thread to exit may be a helper) */
	BPF_CORE_READ_STR_INTO(&r->comm, t, group_leader, comm);
	if (event == FT_PROC_EXEC)
		rec_submit_now(r);
	else
		rec_submit(r);
}

static __always_inline void handle_fork(const struct task_struct *parent, const struct task_struct *child)
{
	__u32 pid = BPF_CORE_READ(child, pid), tgid = BPF_CORE_READ(child, tgid);
	__u32 ptgid = BPF_CORE_READ(parent, tgid), one = 1;

	if (pid != tgid)
		return; /* a new thread, not a new process */
	if (!targ_follow && targ_netns && task_netns(child) != targ_netns)
		return;
	if (targ_follow) {
		if (!bpf_map_lookup_elem(&traced, &ptgid))
			return;
		if (bpf_map_update_elem(&traced, &tgid, &one, BPF_ANY))
			count_lost(); /* the child will not be followed */
	}
	emit_proc(FT_PROC_FORK, tgid, ptgid, child, 0);
}

static __always_inline void handle_exec(const struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	if (!tgid_traced(tgid))
		return;
	emit_proc(FT_PROC_EXEC, tgid, BPF_CORE_READ(p, real_parent, tgid), p, 0);
}

static __always_inline void handle_exit(const struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);

	/* only when the last thread goes (the group's live count is 0 by now) */
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return;
	if (!tgid_traced(tgid))
		return;
	if (targ_follow)
		bpf_map_delete_elem(&traced, &tgid);
	emit_proc(FT_PROC_EXIT, tgid, BPF_CORE_READ(p, real_parent, tgid), p,
		  BPF_CORE_READ(p, exit_code));
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(proc_fork_btf, struct task_struct *parent, struct task_struct *child)
{
	handle_fork(parent, child);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(proc_fork_raw, struct task_struct *parent, struct task_struct *child)
{
	handle_fork(parent, child);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(proc_exec_btf, struct task_struct *p)
{
	handle_exec(p);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(proc_exec_raw, struct task_struct *p)
{
	handle_exec(p);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(proc_exit_btf, struct task_struct *p)
{
	handle_exit(p);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(proc_exit_raw, struct task_struct *p)
{
	handle_exit(p);
	return 0;
}

/* ---- flow attribution ---- */

static __always_inline void handle_sock(bool btf, const struct sock *sk)
{
	__u64 id = bpf_get_current_pid_tgid(), tag;
	__u32 tgid = id >> 32, slot;
	struct ph_sock_seen *seen;
	struct ft_sock_owner *r;
	struct ft_flow f = {};
	__u16 proto;

	if (!sk || !tgid_traced(tgid))
		return;
	proto = KREAD(btf, sk, sk_protocol);
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return;
	/* cheap test first: this socket's ports as last reported */
	tag = ((__u64)KREAD(btf, sk, __sk_common.skc_num) << 16) |
	      bpf_ntohs(KREAD(btf, sk, __sk_common.skc_dport)) |
	      ((__u64)KREAD(btf, sk, __sk_common.skc_daddr) << 32);
	/* from the 4-tuple and the process: the verifier allows no arithmetic
	 * on a typed pointer, so not from the socket's address */
	slot = (__u32)(((tag ^ ((__u64)tgid << 44) ^ tgid) * 0x9E3779B97F4A7C15ULL) >> 40) % PH_SOCK_SLOTS;
	seen = bpf_map_lookup_elem(&sock_seen, &slot);
	if (!seen || (seen->sk == (__u64)sk && seen->tgid == tgid && seen->tag == tag))
		return;
	if (!sk_flow_x(btf, sk, &f) || !f.dport)
		return; /* filtered out, or not connected (no flow yet) */
	f.proto = (__u8)proto;
	seen->sk = (__u64)sk;
	seen->tgid = tgid;
	seen->tag = tag;
	r = rec_reserve(FT_REC_SOCK_OWNER, sizeof(*r));
	if (!r)
		return;
	r->ts_ns = bpf_ktime_get_ns();
	r->flow = f;
	r->pid = tgid;
	r->tid = (__u32)id;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	rec_submit(r);
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(sock_send_btf, struct sock *sk, int ret, int flags)
{
	handle_sock(true, sk);
	return 0;
}

SEC("raw_tp/sock_send_length")
int BPF_PROG(sock_send_raw, struct sock *sk, int ret, int flags)
{
	handle_sock(false, sk);
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(sock_recv_btf, struct sock *sk, int ret, int flags)
{
	handle_sock(true, sk);
	return 0;
}

SEC("raw_tp/sock_recv_length")
int BPF_PROG(sock_recv_raw, struct sock *sk, int ret, int flags)
{
	handle_sock(false, sk);
	return 0;
}
