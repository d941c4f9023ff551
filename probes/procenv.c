// SPDX-License-Identifier: GPL-2.0-or-later
/* Ranks from the launcher's environment (procenv.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hash.h"
#include "probes/procenv.h"

/* The value of NAME in ENV as a non-negative int32, -1 when absent or not a number. */
static int32_t env_int(const char *env, size_t len, const char *name)
{
	size_t nl = strlen(name);

	for (size_t i = 0; i < len;) {
		const char *e = env + i;
		size_t el = strnlen(e, len - i);

		if (el > nl && !memcmp(e, name, nl) && e[nl] == '=') {
			char buf[16], *end;
			size_t vl = el - nl - 1;
			long v;

			if (!vl || vl >= sizeof(buf))
				return -1;
			memcpy(buf, e + nl + 1, vl);
			buf[vl] = '\0';
			errno = 0;
			v = strtol(buf, &end, 10);
			return *end || errno || v < 0 || v > INT32_MAX ? -1 : (int32_t)v;
		}
		i += el + 1;
	}
	return -1;
}

int procenv__parse_rank(const char *env, size_t len, int32_t *rank, int32_t *size)
{
	static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID",
						 "RANK" };
	static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", "WORLD_SIZE" };

	*rank = *size = -1;
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]) && *rank < 0; i++)
		*rank = env_int(env, len, rank_vars[i]);
	for (size_t i = 0; i < sizeof(size_vars) / sizeof(size_vars[0]) && *size < 0; i++)
		*size = env_int(env, len, size_vars[i]);
	if (*rank < 0 || (*size >= 0 && *rank >= *size)) {
		*rank = *size = -1;
		return -ENOENT;
	}
	return 0;
}

/* The value of NAME in ENV and its length; NULL when absent or empty. */
static const char *env_str(const char *env, size_t len, const char *name, size_t *vl)
{
	size_t nl = strlen(name);

	for (size_t i = 0; i < len;) {
		const char *e = env + i;
		size_t el = strnlen(e, len - i);

		if (el > nl + 1 && !memcmp(e, name, nl) && e[nl] == '=') {
			*vl = el - nl - 1;
			return e + nl + 1;
		}
		i += el + 1;
	}
	return NULL;
}

/* FNV-1a over N bytes, continuing from H. */
uint64_t procenv__parse_job(const char *env, size_t len)
{
	/* each: variables that together name one job on every node, in order of preference */
	static const char *const jobs[][2] = {
		{ "PMIX_NAMESPACE", NULL },            /* Open MPI 4/5, PMIx launchers */
		{ "OMPI_MCA_ess_base_jobid", NULL },   /* Open MPI */
		{ "SLURM_JOB_ID", "SLURM_STEP_ID" },   /* srun */
		{ "TORCHELASTIC_RUN_ID", NULL },       /* torchrun */
		{ "MASTER_ADDR", "MASTER_PORT" },      /* torch.distributed's env:// rendezvous */
	};

	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		uint64_t h = FNV1A_SEED;
		size_t vl = 0;
		const char *v = env_str(env, len, jobs[i][0], &vl);

		if (!v)
			continue;
		h = fnv1a(fnv1a(h, jobs[i][0], strlen(jobs[i][0])), v, vl);
		if (jobs[i][1] && (v = env_str(env, len, jobs[i][1], &vl)) != NULL)
			h = fnv1a(fnv1a(h, ":", 1), v, vl);
		return h && h != ~0ull ? h : 1;
	}
	return 0;
}

int procenv__read(pid_t pid, int32_t *rank, int32_t *size, uint64_t *job)
{
	char path[64], *buf;
	size_t cap = (size_t)64 * 1024, len = 0;
	ssize_t n;
	int fd, ret;

	*rank = *size = -1;
	*job = 0;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	/* the first 64 KiB: launchers put their variables among the first */
	while (len < cap && (n = read(fd, buf + len, cap - len)) > 0)
		len += (size_t)n;
	close(fd);
	ret = procenv__parse_rank(buf, len, rank, size);
	*job = procenv__parse_job(buf, len);
	free(buf);
	return ret && !*job ? ret : 0;
}
