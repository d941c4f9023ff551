// SPDX-License-Identifier: GPL-2.0
/*
 * fabtrace_marker.c — libfabtrace_marker.so: the marker API of
 * fabtrace_marker.h.
 *
 * Each function is a uprobe target: fabtrace attaches to its entry and reads
 * the argument (step number or name pointer) from the first argument
 * register.  For that, every function must
 *   - exist out of line (noinline; callers in other objects call through the
 *     PLT anyway) and be kept even if unused (used);
 *   - have its own address: identical bodies could be merged by the
 *     compiler's identical-code folding (-fipa-icf, on at -O2) or by a
 *     linker's --icf, and then one uprobe would fire for two markers.  So
 *     each body differs in its bytes: it stores its argument into its own
 *     slot of `ft_marker_last` (one store; also handy in a debugger: the last
 *     step/phase this process marked), and an empty asm statement takes
 *     the argument as input with a memory clobber, so the compiler can
 *     neither treat the function as empty nor move memory accesses of the
 *     caller across the marker once inlined by LTO.  The Makefile also
 *     builds this file with -fno-ipa-icf.
 * Cost when untraced: the call, one store, the return.
 *
 * Built with -fvisibility=hidden: only the four API functions are exported.
 */
#include <stdint.h>

#include "fabtrace_marker.h"

#define FT_MARKER_API __attribute__((visibility("default"), noinline, used))

/* Last argument of each marker (not synchronised: a debugging hint only). */
static struct {
	volatile uint64_t step_begin;
	volatile uint64_t step_end;
	const char *volatile phase_begin;
	const char *volatile phase_end;
} ft_marker_last __attribute__((used));

FT_MARKER_API void fabtrace_step_begin(uint64_t step)
{
	ft_marker_last.step_begin = step;
	__asm__ volatile("" : : "r"(step) : "memory");
}

FT_MARKER_API void fabtrace_step_end(uint64_t step)
{
	ft_marker_last.step_end = step;
	__asm__ volatile("" : : "r"(step) : "memory");
}

FT_MARKER_API void fabtrace_phase_begin(const char *name)
{
	ft_marker_last.phase_begin = name;
	__asm__ volatile("" : : "r"(name) : "memory");
}

FT_MARKER_API void fabtrace_phase_end(const char *name)
{
	ft_marker_last.phase_end = name;
	__asm__ volatile("" : : "r"(name) : "memory");
}
