/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabtrace_marker.h — mark training steps and custom phases for fabtrace.
 *
 * A training loop calls these around its work:
 *
 *	#include <fabtrace_marker.h>
 *
 *	for (uint64_t step = 0; step < nsteps; step++) {
 *		fabtrace_step_begin(step);
 *		fabtrace_phase_begin("forward");  ...  fabtrace_phase_end("forward");
 *		allreduce_gradients();            // MPI / NCCL / Gloo collectives
 *		fabtrace_phase_begin("optimizer"); ... fabtrace_phase_end("optimizer");
 *		fabtrace_step_end(step);
 *	}
 *
 * and links with -lfabtrace_marker (build/libfabtrace_marker.so in the build
 * tree, soname libfabtrace_marker.so.1; `make install` puts the library in
 * $(PREFIX)/lib and this header in $(PREFIX)/include).
 *
 * How it works: the four functions are real, exported, out-of-line functions
 * that do (almost) nothing.  `fabtrace record` attaches a uprobe to each of
 * them; every call then becomes one FT_REC_PHASE record with start = end =
 * the time of the call, op FT_OP_STEP (count = the step number) or
 * FT_OP_MARK (name = the string, truncated to 31 bytes), and the flag
 * FT_PHASE_MARK_BEGIN or FT_PHASE_MARK_END.  The report nests the
 * collectives that a rank ran between a step's begin and end under that
 * step.  When nothing traces the process, a marker costs one function call.
 *
 * Rules:
 *  - Callable from C and C++ (extern "C"), from any thread; markers are
 *    attributed to the calling thread's process (pid) and thread (tid).
 *  - Begin and end calls should pair up: step_end(n) after step_begin(n),
 *    phase_end("x") after phase_begin("x") with the same name.  Phases may
 *    nest inside steps and inside each other.  Unpaired markers are shown as
 *    open/unmatched, never dropped.
 *  - `name` must be a NUL-terminated string readable at the time of the call
 *    (the tracer copies it then); NULL is allowed and shows as "".
 *  - Step numbers are any uint64_t; use the loop's own iteration number so
 *    steps line up across ranks.
 *
 * Defining FABTRACE_MARKER_DISABLE before including this header turns every
 * marker into an empty inline function, for builds without the library.
 */
#ifndef FABTRACE_MARKER_H
#define FABTRACE_MARKER_H

#include <stdint.h>

#define FABTRACE_MARKER_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

#ifndef FABTRACE_MARKER_DISABLE

/* A training step begins: `step` is its number (count of the record). */
void fabtrace_step_begin(uint64_t step);

/* The step `step` ends. */
void fabtrace_step_end(uint64_t step);

/* A custom phase named `name` ("forward", "optimizer", "checkpoint") begins. */
void fabtrace_phase_begin(const char *name);

/* The custom phase named `name` ends. */
void fabtrace_phase_end(const char *name);

#else /* FABTRACE_MARKER_DISABLE: no library, no cost, nothing to trace */

static inline void fabtrace_step_begin(uint64_t step) { (void)step; }
static inline void fabtrace_step_end(uint64_t step) { (void)step; }
static inline void fabtrace_phase_begin(const char *name) { (void)name; }
static inline void fabtrace_phase_end(const char *name) { (void)name; }

#endif /* FABTRACE_MARKER_DISABLE */

#ifdef __cplusplus
} /* extern "C" */

/*
 * C++ convenience: a scope guard that marks a phase (or a step) for the
 * lifetime of a block.
 *
 *	{ fabtrace::scoped_phase p("optimizer"); optimizer.step(); }
 *	{ fabtrace::scoped_step s(step); train_one_step(); }
 */
namespace fabtrace {

class scoped_phase {
public:
	explicit scoped_phase(const char *name) : name_(name) { fabtrace_phase_begin(name_); }
	~scoped_phase() { fabtrace_phase_end(name_); }
	scoped_phase(const scoped_phase &) = delete;
	scoped_phase &operator=(const scoped_phase &) = delete;

private:
	const char *name_;
};

class scoped_step {
public:
	explicit scoped_step(uint64_t step) : step_(step) { fabtrace_step_begin(step_); }
	~scoped_step() { fabtrace_step_end(step_); }
	scoped_step(const scoped_step &) = delete;
	scoped_step &operator=(const scoped_step &) = delete;

private:
	uint64_t step_;
};

} /* namespace fabtrace */
#endif /* __cplusplus */

#endif /* FABTRACE_MARKER_H */
