/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Map layouts of bpf/phase.bpf.c that userspace writes or reads
 * (probes/phaseprobe*.c, probes/catalog.c).
 *
 * One generic uprobe/uretprobe program pair serves every traced function.
 * Each attach point gets a slot (its BPF cookie); the slot's struct
 * ph_slot_cfg in the `slots` array map says where the function keeps its
 * element count, datatype, communicator, peer, request, ... so the same
 * program reads MPI_Allreduce, ncclAllReduce or gloo::allreduce.
 *
 * Argument positions are integer argument slots of the platform's C ABI:
 * x86-64 passes 6 in registers (the 7th is at sp+8 at entry), arm64 8
 * (the 9th is at sp).  A struct passed in memory (ncclUniqueId) takes no
 * integer slot on x86-64 and one (a pointer) on arm64: the catalog knows.
 */
#ifndef FABTRACE_PHASE_H
#define FABTRACE_PHASE_H

#include "fabtrace.h"

#define PH_MAX_SLOTS   4096   /* attach points per recording */
#define PH_MAX_REQS    16     /* requests looked at per Waitall/Testall/... call */
#define PH_MAX_VCOUNTS 1024   /* ranks summed in a v-variant's counts array */
#define PH_NOARG       0xff   /* ph_field.arg: not available */

enum ph_field_flags {
	PH_F_64     = 1 << 0, /* 64-bit value (else 32-bit: upper register bits are junk) */
	PH_F_SIGNED = 1 << 1, /* sign-extend a 32-bit value */
	PH_F_DEREF  = 1 << 2, /* the argument is a pointer: the value is at arg + off */
};

/* Where one value comes from: an argument, or a field of the struct it points to. */
struct ph_field {
	__u8  arg;   /* integer argument slot, 0-based; PH_NOARG = none */
	__u8  flags; /* enum ph_field_flags */
	__u16 off;   /* PH_F_DEREF: byte offset in the pointed-to struct */
};

/* What the generic programs do for a slot. */
enum ph_kind {
	PH_K_CALL = 0,    /* entry..return: one ft_phase at return */
	PH_K_MARK,        /* marker: one ft_phase at entry (no return probe) */
	PH_K_COMM_RANK,   /* MPI_Comm_rank: ft_comm_info with *out as rank */
	PH_K_COMM_SIZE,   /* MPI_Comm_size: ft_comm_info with *out as size */
	PH_K_COMM_INIT,   /* ncclCommInitRank: comm = *out, rank, nranks */
	PH_K_COMPLETION,  /* MPI_Wait/Test family: ft_req_done per completed request */
	PH_K_PLUGIN,      /* NCCL profiler plugin: arg 0 points to a struct ph_plugin_ev;
			   * one ft_phase (or ft_comm_info with PH_CFG_PLUGIN_COMM) at entry */
};

/* How the dtype field gives the bytes per element. */
enum ph_dtype {
	PH_DT_NONE = 0,   /* unknown: dtype_size 0 */
	PH_DT_MPICH,      /* MPICH-ABI handle (int): builtin types carry their size */
	PH_DT_NCCL,       /* ncclDataType_t enum */
	PH_DT_SIZE,       /* the value is the size (Open MPI: size_t at ompi_datatype_t+24) */
	PH_DT_RATIO,      /* the value is the call's bytes: size = bytes / count */
};

/* Which requests of a completion call completed. */
enum ph_comp {
	PH_COMP_ONE = 0,  /* MPI_Wait / MPI_Test: the request at *reqs */
	PH_COMP_ALL,      /* Waitall / Testall: all nreqs */
	PH_COMP_ANY,      /* Waitany / Testany: reqs[*index] */
	PH_COMP_SOME,     /* Waitsome / Testsome: reqs[indices[0 .. *outcount-1]] */
};

enum ph_cfg_flags {
	PH_CFG_REQ64     = 1 << 0, /* MPI_Request is a pointer (Open MPI), else an int */
	PH_CFG_TEST      = 1 << 1, /* completion: only if *flag != 0 (Test family) */
	PH_CFG_NO_PHASE  = 1 << 2, /* emit no ft_phase (Comm_rank/size, Test polling) */
	PH_CFG_MARK_END  = 1 << 3, /* marker: end (else begin) */
	PH_CFG_MARK_STR  = 1 << 4, /* marker: name = string at `name` (else count = step) */
	PH_CFG_CTX_INFO  = 1 << 5, /* comm points to an object with int rank, size at ctx_off */
	PH_CFG_VFALLBACK = 1 << 6, /* v-variant: without the comm size use `count` per rank */
	PH_CFG_PLUGIN_COMM = 1 << 7, /* PH_K_PLUGIN: a communicator's rank and size (comm_info) */
	PH_CFG_COMM_NAME = 1 << 8, /* comm points to an object with its name at name_off (Open MPI) */
};

struct ph_slot_cfg {
	__u32 slot_flags;  /* enum ft_slot_flags (as in FT_REC_PHASE_SLOT) */
	__u32 cfg;         /* enum ph_cfg_flags */
	__u8  kind;        /* enum ph_kind */
	__u8  dtype_kind;  /* enum ph_dtype */
	__u8  comp;        /* enum ph_comp */
	__u8  op;          /* enum ft_op */
	__u32 req_null;    /* MPI_REQUEST_NULL of an int-handle MPI, skipped; 0 = none */
	__u16 ctx_off;     /* PH_CFG_CTX_INFO: offset of int rank (size follows) */
	__u16 name_off;    /* PH_CFG_COMM_NAME: offset of the communicator's name */
	struct ph_field count;   /* elements (the step for a step marker) */
	struct ph_field vcounts; /* int counts[comm size] of a v-variant, summed */
	struct ph_field dtype;   /* datatype (see dtype_kind) */
	struct ph_field comm;
	struct ph_field peer;    /* root or peer rank */
	struct ph_field req;     /* MPI_Request * of a non-blocking start */
	struct ph_field out;     /* int * (Comm_rank/size), ncclComm_t * (CommInitRank) */
	struct ph_field rank;    /* CommInitRank: rank */
	struct ph_field nranks;  /* CommInitRank: nranks */
	struct ph_field reqs;    /* completion: MPI_Request * (one or an array) */
	struct ph_field nreqs;   /* completion: number of requests */
	struct ph_field flag;    /* completion: int *flag (Test family) */
	struct ph_field index;   /* completion: int *index (any) or int *outcount (some) */
	struct ph_field indices; /* completion: int indices[] (some) */
	struct ph_field name;    /* marker: const char * */
	struct ph_field libseq;  /* the library's own collective number (Gloo's tag), else seq counts */
};

/*
 * What fabtrace's NCCL profiler plugin (probes/nccl_profiler) passes, by
 * pointer, to each of its empty fabtrace_nccl_* functions.  The uprobe on
 * the function copies it into one record.  Times are the plugin's
 * CLOCK_MONOTONIC; now_ns is that clock at the call, so the BPF side moves
 * start and end onto its own clock by (its now - now_ns): the same clock
 * unless the process runs in a time namespace.
 */
struct ph_plugin_ev {
	__u64 now_ns;
	__u64 start_ns;     /* first kernel channel (GPU timer) or proxy op start */
	__u64 end_ns;       /* last kernel channel or proxy op stop */
	__u64 comm_hash;    /* NCCL's commHash: equal on every rank */
	__u64 seq;          /* NCCL's seqNumber + 1 (per communicator and function); 0 none */
	__u64 count;        /* elements; bytes of a proxy op */
	__s32 rank, nranks;
	__s32 peer;         /* root, P2P or proxy peer; -1 none */
	__u32 dtype_size;
	__u32 flags;        /* enum ph_plugin_ev_flags */
	__u32 nchannels;
	char  name[32];     /* "Ring/Simple/4ch", "send ch2 8 steps" */
};

enum ph_plugin_ev_flags {
	PH_PEV_GPU_TIMER = 1 << 0, /* start/end from kernel-channel GPU timestamps */
	PH_PEV_PROXY     = 1 << 1, /* start/end from proxy progress */
	PH_PEV_HOST      = 1 << 2, /* neither: the host's enqueue..stop (no child events) */
};

/* A call between entry and return; key struct ph_call_key. */
struct ph_call_key {
	__u64 pid_tgid;
	__u32 slot;
	__u32 pad;
};

struct ph_call {
	__u64 start_ns;
	__u64 count;
	__u64 comm;
	__u64 seq;
	__u64 out;         /* the out pointer (request *, int *, ncclComm_t *) */
	__u64 flag_ptr;    /* completion: flag / index / outcount pointer */
	__u64 indices_ptr; /* completion: indices array */
	__u32 netns;
	__u32 dtype_size;
	__s32 peer;
	__u32 flags;       /* enum ft_phase_flags known at entry */
	__s32 rank;        /* CommInitRank */
	__s32 nranks;
	__u32 nreqs;       /* completion: handles saved in reqs */
	__u32 pad;
	__u64 reqs[PH_MAX_REQS];
	char  comm_name[32]; /* PH_CFG_COMM_NAME: the communicator's name as the library keeps it */
};

/* Per-communicator state, keyed by process and communicator. */
struct ph_comm_key {
	__u32 tgid;
	__u32 what;        /* 0 = seq, 1 = rank, 2 = size */
	__u64 comm;
};

enum ph_comm_what {
	PH_COMM_SEQ = 0,
	PH_COMM_RANK = 1,
	PH_COMM_SIZE = 2,
};

/*
 * A socket last reported in a process, with the 4-tuple it had then
 * (ft_sock_owner once per socket, process and 4-tuple), in a direct-mapped
 * table of PH_SOCK_SLOTS entries (bpf/phase.bpf.c, sock_seen).
 */
#define PH_SOCK_SLOTS 32768
struct ph_sock_seen {
	__u64 sk;
	__u64 tag;   /* local port, remote port and address as last reported */
	__u32 tgid;
	__u32 pad;
};

/* ---- datatype sizes, shared by the BPF side and userspace (tests) ---- */

/*
 * MPICH-ABI (MPICH, Intel MPI, MVAPICH) datatype handles: kind in bits
 * 30..31 (1 = builtin), object type in bits 26..29 (3 = datatype), and for
 * builtins the size in bytes in bits 8..15.  Derived types: unknown (0).
 */
static inline __u32 ph_mpich_dtype_size(__u32 h)
{
	if ((h >> 30) != 1 || ((h >> 26) & 0xf) != 3)
		return 0;
	return (h >> 8) & 0xff;
}

/* ncclDataType_t: int8 uint8 int32 uint32 int64 uint64 f16 f32 f64 bf16 fp8e4m3 fp8e5m2. */
static inline __u32 ph_nccl_dtype_size(__u32 e)
{
	switch (e) {
	case 0: case 1: case 10: case 11:
		return 1;
	case 6: case 9:
		return 2;
	case 2: case 3: case 7:
		return 4;
	case 4: case 5: case 8:
		return 8;
	default:
		return 0;
	}
}

#endif
