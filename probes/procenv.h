/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process's rank as its launcher gave it, read from /proc/PID/environ:
 * for jobs already running when fabtrace attaches, whose MPI_Comm_rank or
 * communicator set-up ran before the probes were there.  Written into the
 * capture as an ft_comm_info with comm = FT_COMM_ENV, which the correlator
 * trusts less than a rank the library itself reported; its job as one with
 * slot FT_SLOT_JOB.
 */
#ifndef FABTRACE_PROCENV_H
#define FABTRACE_PROCENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "probes/cfg_kv.h"

/*
 * The rank and world size in ENV (LEN bytes of NUL-separated NAME=VALUE, as
 * /proc/PID/environ holds them).  Rank: OMPI_COMM_WORLD_RANK, PMI_RANK,
 * PMIX_RANK, SLURM_PROCID, RANK (torchrun, torch.distributed), in that order;
 * size: OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS, WORLD_SIZE (-1 when
 * none).  0, or -ENOENT when no rank variable is set to a number.
 */
int procenv__parse_rank(const char *env, size_t len, int32_t *rank, int32_t *size);
/*
 * Which job the process belongs to, as a number equal in every process of
 * the job on every node, 0 when its launcher left no such variable: a hash
 * of PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid, SLURM_JOB_ID:SLURM_STEP_ID,
 * TORCHELASTIC_RUN_ID or MASTER_ADDR:MASTER_PORT (the first present).  It
 * keeps two jobs traced system-wide apart.  MPICH's Hydra sets none.
 */
uint64_t procenv__parse_job(const char *env, size_t len);
/*
 * Rank, size and job of a running process.  0 when any was found; -ENOENT
 * when none (also when its environ cannot be read).
 */
int procenv__read(pid_t pid, int32_t *rank, int32_t *size, uint64_t *job);

/*
 * The variables of ENV (LEN bytes, as above) that configure the
 * collectives, through KV as NAME = VALUE in their order there: those
 * whose names begin with NCCL_, GLOO_, TORCH_NCCL_ or UCX_
 * (docs/configuration.md).  The number passed, or what KV returned
 * (a non-zero KV return must be negative: it stops the walk).
 */
int procenv__parse_config(const char *env, size_t len, cfg_kv_fn kv, void *ctx);
/*
 * The same for a running process; *RANKED tells whether its environment
 * names a rank (as procenv__read).  -ENOENT when its environ cannot be read.
 */
int procenv__config(pid_t pid, cfg_kv_fn kv, void *ctx, bool *ranked);

#endif
