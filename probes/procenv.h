/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process's rank as its launcher gave it, read from /proc/PID/environ:
 * for jobs already running when fabtrace attaches, whose MPI_Comm_rank or
 * communicator set-up ran before the probes were there.  Written into the
 * capture as an ft_comm_info with comm = FT_COMM_ENV, which the correlator
 * trusts less than a rank the library itself reported.
 */
#ifndef FABTRACE_PROCENV_H
#define FABTRACE_PROCENV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The rank and world size in ENV (LEN bytes of NUL-separated NAME=VALUE, as
 * /proc/PID/environ holds them).  Rank: OMPI_COMM_WORLD_RANK, PMI_RANK,
 * PMIX_RANK, SLURM_PROCID, RANK (torchrun, torch.distributed), in that order;
 * size: OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS, WORLD_SIZE (-1 when
 * none).  0, or -ENOENT when no rank variable is set to a number.
 */
int procenv__parse_rank(const char *env, size_t len, int32_t *rank, int32_t *size);
/* The same for a running process (-ENOENT also when its environ cannot be read). */
int procenv__rank(pid_t pid, int32_t *rank, int32_t *size);

#endif
