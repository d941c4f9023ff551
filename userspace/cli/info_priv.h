/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `fabtrace info`: info.c reads a capture into struct info (through the
 * record visitor, userspace/capture/records.h) and runs the command;
 * info_print.c writes the description as text or JSON.
 */
#ifndef FABTRACE_INFO_PRIV_H
#define FABTRACE_INFO_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/clockinfo.h"
#include "userspace/capture/probe_coverage.h"
#include "userspace/capture/trigger.h"

struct model_config;

#define INFO_MAX_IFACES 4096
#define INFO_MAX_PROBES 256     /* probe records, and probes with coverage */
#define INFO_MAX_LOST   65536
#define INFO_MAX_SLOTS  4096

struct lost_ent {
	uint32_t source;
	uint32_t cpu;
	uint64_t lost;
};

struct info {
	const char *path;
	struct ft_file_header hdr;
	uint64_t *counts;      /* per record type, 65536 entries */
	uint64_t total;
	uint64_t min_ts, max_ts;
	bool have_ts;
	bool have_end;
	struct ft_end end;
	struct ft_probe_info *probes;
	size_t nprobes;
	struct ft_iface_info *ifaces;
	size_t nifaces;
	struct lost_ent *lost;
	size_t nlost;
	bool lost_overflow;
	struct capture_cov *cov;    /* by probe id, as the report's */
	size_t ncov;
	enum capture_cov_state cov_state;
	uint64_t cov_skipped;       /* probe runs the kernel skipped */
	size_t cov_unknown;         /* probes whose hits were not counted */
	struct ft_phase_slot *slots; /* FT_REC_PHASE_SLOT, by first appearance */
	size_t nslots;
	bool slots_overflow;
	uint64_t proc_events[FT_PROC_EXIT + 2]; /* by enum ft_proc_event; last: unknown */
	uint64_t env_ranks;         /* comm_info records from the launcher's environment (FT_COMM_ENV) */
	uint64_t env_jobs;          /* comm_info records naming a process's job (FT_SLOT_JOB) */
	struct clockinfo clk;  /* host identity, clock pairs, merged hosts */
	struct triggerinfo trig; /* a flight recorder's triggers */
	struct model_config *cfg; /* the configuration records (info_config.c) */
	enum capture_state state;
	uint64_t good_off;
	uint64_t blocks;
	char error[400];
};

void info_print_text(const struct info *in);
void info_print_json(const struct info *in, bool pretty);

#endif
