// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A capture's blocks summed up on one read (capture.h, struct
 * capture_block_index), so that a later read of the same file passes over
 * the blocks a window does not need without reading, checking or
 * inflating them: report --windows reads a capture once per window.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/capture_priv.h"
#include "userspace/capture/records.h"

int cap_index_add(struct capture_block_index *idx, uint64_t off, uint64_t next_off, const uint8_t *payload,
		  size_t ulen, uint32_t nrec)
{
	struct capture_block_sum s = { .off = off, .next_off = next_off, .nrec = nrec, .min_ns = UINT64_MAX,
				       .kept_off = idx->kept_len, .kept_all = true };

	if (grow_array((void **)&idx->b, &idx->cap, idx->n + 1, sizeof(*idx->b)))
		return -1;
	/* the records were checked as the block was loaded: sizes hold */
	for (size_t pos = 0; pos < ulen;) {
		const struct ft_rec_hdr *h = (const void *)(payload + pos);
		const struct capture_rec_fields *f = capture__rec_fields(h->type);
		uint64_t t[2];
		int nt = capture__rec_times(h, t);

		s.types |= 1ull << (h->type < 63 ? h->type : 63);
		if (nt && t[0] < s.min_ns)
			s.min_ns = t[0];
		for (int i = 0; i < nt; i++)
			if (t[i] > s.max_ns)
				s.max_ns = t[i];
		if (f->group) {
			uint32_t g = *(const uint32_t *)(const void *)((const uint8_t *)h + f->group);

			s.groups |= 1ull << (g < 63 ? g : 63);
		}
		if (h->type == FT_REC_PHASE)
			s.phase_flags |= ((const struct ft_phase *)(const void *)h)->flags;
		if (idx->keep && s.kept_all && idx->keep(h)) {
			if (idx->kept_len + h->size > (idx->kept_max ? idx->kept_max : CAPTURE_INDEX_KEEP_MAX) ||
			    grow_array((void **)&idx->kept, &idx->kept_cap, idx->kept_len + h->size, 1)) {
				s.kept_all = false; /* no room: the block is read when its kept records are asked for */
			} else {
				memcpy(idx->kept + idx->kept_len, h, h->size);
				idx->kept_len += h->size;
				s.kept_len += h->size;
				s.nkept++;
			}
		}
		pos += h->size;
	}
	idx->b[idx->n++] = s;
	return 0;
}

const struct capture_block_sum *cap_index_find(const struct capture_block_index *idx, size_t *cursor, uint64_t off)
{
	while (*cursor < idx->n && idx->b[*cursor].off < off)
		(*cursor)++;
	return *cursor < idx->n && idx->b[*cursor].off == off ? &idx->b[*cursor] : NULL;
}

void capture_block_index__free(struct capture_block_index *idx)
{
	free(idx->b);
	free(idx->kept);
	memset(idx, 0, sizeof(*idx));
}
