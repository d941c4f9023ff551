/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * FNV-1a, 64 bits: a name as a number.  Equal bytes give equal numbers in
 * every process and on every host, which is what cross-rank keys (job ids,
 * communicator names) need; not a defence against chosen collisions.
 */
#ifndef FABTRACE_BASE_HASH_H
#define FABTRACE_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_SEED 0xcbf29ce484222325ull

/* Continue hash H over N bytes at P (start with FNV1A_SEED). */
static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* The hash of a NUL-terminated string. */
static inline uint64_t fnv1a_str(const char *s)
{
	uint64_t h = FNV1A_SEED;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

#endif
