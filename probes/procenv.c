// SPDX-License-Identifier: GPL-2.0-or-later
/* Ranks from the launcher's environment (procenv.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/fabtrace.h"
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

/* The first 64 KiB of PID's environ (launchers put their variables among the first): 0 or -errno. */
static int load_environ(pid_t pid, char **buf, size_t *len)
{
	char path[64];
	size_t cap = (size_t)64 * 1024;
	ssize_t n;
	int fd;

	*len = 0;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	*buf = malloc(cap);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	while (*len < cap && (n = read(fd, *buf + *len, cap - *len)) > 0)
		*len += (size_t)n;
	close(fd);
	return 0;
}

int procenv__read(pid_t pid, int32_t *rank, int32_t *size, uint64_t *job)
{
	char *buf;
	size_t len;
	int ret;

	*rank = *size = -1;
	*job = 0;
	ret = load_environ(pid, &buf, &len);
	if (ret)
		return ret;
	ret = procenv__parse_rank(buf, len, rank, size);
	*job = procenv__parse_job(buf, len);
	free(buf);
	return ret && !*job ? ret : 0;
}

int procenv__parse_config(const char *env, size_t len, cfg_kv_fn kv, void *ctx)
{
	static const char *const prefixes[] = { "NCCL_", "GLOO_", "TORCH_NCCL_", "UCX_" };
	int n = 0;

	for (size_t i = 0; i < len;) {
		const char *e = env + i, *eq;
		size_t el = strnlen(e, len - i);

		i += el + 1;
		eq = memchr(e, '=', el);
		if (!eq || eq == e || (size_t)(eq - e) >= 128)
			continue;
		for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
			size_t pl = strlen(prefixes[p]);
			char name[128], value[FT_CFG_VALUE_MAX + 1];
			size_t vl = el - (size_t)(eq - e) - 1;
			int ret;

			if ((size_t)(eq - e) <= pl || memcmp(e, prefixes[p], pl) != 0)
				continue;
			memcpy(name, e, (size_t)(eq - e));
			name[eq - e] = '\0';
			/* the last one may be cut at the end of what was read: bounded by LEN */
			snprintf(value, sizeof(value), "%.*s", (int)(vl < FT_CFG_VALUE_MAX ? vl : FT_CFG_VALUE_MAX), eq + 1);
			ret = kv(ctx, name, value, 0);
			if (ret)
				return ret;
			n++;
			break;
		}
	}
	return n;
}

int procenv__config(pid_t pid, cfg_kv_fn kv, void *ctx, bool *ranked)
{
	int32_t rank, size;
	char *buf;
	size_t len;
	int ret = load_environ(pid, &buf, &len);

	*ranked = false;
	if (ret)
		return ret;
	*ranked = procenv__parse_rank(buf, len, &rank, &size) == 0;
	ret = procenv__parse_config(buf, len, kv, ctx);
	free(buf);
	return ret;
}
