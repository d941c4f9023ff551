// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The -p processes' exits (pidwatch.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "lib/util.h"
#include "userspace/record/pidwatch.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every architecture */
#endif

/*
 * PID's state letter and start time from /proc/PID/stat ("pid (comm) S
 * ppid ... starttime" : the 22nd field); false when it has none (gone).
 */
static bool proc_stat(pid_t pid, char *state, uint64_t *start)
{
	char buf[1024];
	const char *p;

	if (proc_stat_read(pid, buf, sizeof(buf)) < 0 || !(p = proc_stat_fields(buf)))
		return false;
	*state = *p;
	for (int field = 3; field < 22; field++) { /* the state is field 3 */
		p = strchr(p, ' ');
		if (!p)
			return false;
		p++;
	}
	*start = strtoull(p, NULL, 10);
	return true;
}

/* Exited: a zombie (its parent has not reaped it yet) or dead counts. */
static bool stat_gone(pid_t pid, uint64_t start)
{
	uint64_t now_start;
	char state;

	return !proc_stat(pid, &state, &now_start) || state == 'Z' || state == 'X' || now_start != start;
}

void pidwatch__open(struct pidwatch *w, const pid_t *pids, int n)
{
	pidwatch__open_mode(w, pids, n, true);
}

void pidwatch__open_mode(struct pidwatch *w, const pid_t *pids, int n, bool pidfds)
{
	memset(w, 0, sizeof(*w));
	w->n = n < PIDWATCH_MAX ? n : PIDWATCH_MAX;
	for (int i = 0; i < w->n; i++) {
		char state;

		w->pid[i] = pids[i];
		w->fd[i] = pidfds ? (int)syscall(SYS_pidfd_open, pids[i], 0) : -1;
		if (w->fd[i] >= 0)
			continue;
		if ((pidfds && errno == ESRCH) || !proc_stat(pids[i], &state, &w->start[i]) || state == 'Z' || state == 'X')
			w->gone[i] = true;
	}
}

bool pidwatch__all_gone(struct pidwatch *w)
{
	bool all = w->n > 0;

	for (int i = 0; i < w->n; i++) {
		if (w->gone[i])
			continue;
		if (w->fd[i] >= 0) {
			struct pollfd p = { .fd = w->fd[i], .events = POLLIN };

			/* a pidfd polls readable once its process has exited */
			if (poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
				close(w->fd[i]);
				w->fd[i] = -1;
				w->gone[i] = true;
			}
		} else if (stat_gone(w->pid[i], w->start[i])) {
			w->gone[i] = true;
		}
		all = all && w->gone[i];
	}
	return all;
}

void pidwatch__close(struct pidwatch *w)
{
	for (int i = 0; i < w->n; i++)
		if (w->fd[i] >= 0)
			close(w->fd[i]);
	w->n = 0;
}
