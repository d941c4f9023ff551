// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The record types (userspace/capture/records.h): names and sizes from
 * CAPTURE_RECORDS, the check of a record against its type, and the one
 * dispatch of a record to its visitor callback.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/records.h"

static const struct {
	uint16_t size;          /* 0: not a known type */
	const char *name;
} rec_types[CAPTURE_REC_TYPES] = {
#define REC_ROW(type, rec, name) [type] = { sizeof(struct rec), #name },
	CAPTURE_RECORDS(REC_ROW)
#undef REC_ROW
};

/* every record is a whole number of 8 bytes, and fits the table */
#define REC_ASSERT(type, rec, name)                                                        \
	_Static_assert(sizeof(struct rec) % 8 == 0, #rec " is not a multiple of 8 bytes"); \
	_Static_assert((type) < CAPTURE_REC_TYPES, #type " is past the record table");
CAPTURE_RECORDS(REC_ASSERT)
#undef REC_ASSERT

size_t capture__rec_size(uint16_t type)
{
	return type < CAPTURE_REC_TYPES ? rec_types[type].size : 0;
}

const char *capture__rec_name(uint16_t type)
{
	return type < CAPTURE_REC_TYPES ? rec_types[type].name : NULL;
}

const char *capture__stop_reason_name(uint32_t reason)
{
	static const char *const names[] = {
		[FT_STOP_DURATION] = "duration",
		[FT_STOP_SIGNAL] = "signal",
		[FT_STOP_COMMAND] = "command exited",
		[FT_STOP_ERROR] = "error",
		[FT_STOP_MIXED] = "mixed",
		[FT_STOP_ROTATED] = "rotated",
		[FT_STOP_PROCS] = "processes exited",
	};

	return reason < sizeof(names) / sizeof(names[0]) ? names[reason] : "unknown";
}

size_t capture__rec_need(const struct ft_rec_hdr *rec)
{
	size_t need = capture__rec_size(rec->type);
	uint32_t n;

	/* the values follow the struct: only read n once the struct is there */
	if (rec->type == FT_REC_CTR_SAMPLE && rec->size >= need) {
		memcpy(&n, (const uint8_t *)rec + offsetof(struct ft_ctr_sample, n), sizeof(n));
		need += (size_t)n * sizeof(uint64_t);
	}
	return need;
}

int capture__rec_check(const struct ft_rec_hdr *rec, char *why, size_t len)
{
	size_t need = capture__rec_need(rec);
	const struct ft_ctr_group *g = (const void *)rec;

	if (rec->size < sizeof(*rec) || rec->size < need) {
		if (why && len)
			snprintf(why, len, "is %u bytes, expected %zu", (unsigned)rec->size,
				 need > sizeof(*rec) ? need : sizeof(*rec));
		return -EINVAL;
	}
	if (rec->type != FT_REC_CTR_GROUP || (g->group < CAPTURE_MAX_CTR_GROUP &&
					      g->ncounters <= CAPTURE_MAX_CTR_COUNTERS))
		return 0;
	if (why && len)
		snprintf(why, len, "names group %u of %u counters (at most group %u, %u counters)",
			 (unsigned)g->group, (unsigned)g->ncounters, CAPTURE_MAX_CTR_GROUP - 1,
			 CAPTURE_MAX_CTR_COUNTERS);
	return -EINVAL;
}

int capture__dispatch(const struct capture_visitor *v, void *ctx, const struct ft_rec_hdr *rec)
{
	switch (rec->type) {
#define REC_CASE(type, rec_struct, name) \
	case type: return v->name ? v->name(ctx, (const struct rec_struct *)(const void *)rec) : 0;
	CAPTURE_RECORDS(REC_CASE)
#undef REC_CASE
	default:
		return v->unknown ? v->unknown(ctx, rec) : 0;
	}
}

int capture__visit(const struct capture_visitor *v, void *ctx, const struct ft_rec_hdr *rec)
{
	if (capture__rec_check(rec, NULL, 0))
		return -EINVAL;
	return capture__dispatch(v, ctx, rec);
}
